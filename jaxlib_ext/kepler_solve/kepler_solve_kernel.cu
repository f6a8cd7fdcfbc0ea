#include "jaxlib_ext/kepler_solve/kepler_solve_kernel.h"

#include <algorithm>

#include "jaxlib_ext/kepler_solve/kepler_solve.h"

namespace jaxext {
namespace kepler_solve {
namespace kernel {

constexpr int kBlockSize = 256;
// Elements per thread, all loaded before any is solved: more bytes in flight
// per thread while the arithmetic runs. Measured on an H100 at N = 1e8
// against a kernel copying the same bytes (benchmarks/BENCHMARKS.md): 4 per
// thread reach 84% (float32) and 89% (float64) of the copy's rate; one per
// thread 78% and 89%; a grid-stride loop over at most 65536 blocks 83% and
// 85%.
constexpr int kPerThread = 4;
constexpr int64_t kTile = int64_t{kBlockSize} * kPerThread;
// The grid is capped (gridDim.x < 2^31); a grid-stride loop over tiles covers
// any n beyond that.
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

template <typename T, bool kTrueAnomaly>
__global__ void __launch_bounds__(kBlockSize) Kernel(Params<T> p) {
  for (int64_t tile = static_cast<int64_t>(blockIdx.x) * kTile; tile < p.n;
       tile += static_cast<int64_t>(gridDim.x) * kTile) {
    const int64_t base = tile + threadIdx.x;
    T m[kPerThread], e[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = base + int64_t{k} * kBlockSize;
      // Past the end: a valid dummy input whose result is never stored.
      m[k] = i < p.n ? __ldg(p.mean_anomaly + i) : T(0);
      e[k] = i < p.n ? __ldg(p.ecc + i) : T(0);
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = base + int64_t{k} * kBlockSize;
      T s, c;
      if (kTrueAnomaly) {
        SolveTrue(m[k], e[k], &s, &c);
      } else {
        SolveEccentric(m[k], e[k], &s, &c);
      }
      if (i < p.n) {
        p.out_sin[i] = s;
        p.out_cos[i] = c;
      }
    }
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const unsigned blocks =
      static_cast<unsigned>(std::min<int64_t>((params.n + kTile - 1) / kTile, kMaxBlocks));
  if (params.true_anomaly) {
    Kernel<T, true><<<blocks, kBlockSize, 0, stream>>>(params);
  } else {
    Kernel<T, false><<<blocks, kBlockSize, 0, stream>>>(params);
  }
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace kepler_solve
}  // namespace jaxext
