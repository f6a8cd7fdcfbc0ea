#include "jaxlib_ext/kepler_solve/kepler_solve_kernel.h"

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/kepler_solve/kepler_solve.h"

namespace jaxext::kepler_solve::kernel {

constexpr int kBlockSize = 256;
// Elements per thread, all loaded before any is solved: more bytes in flight
// per thread while the arithmetic runs. Measured on an H100 at N = 1e8
// against a kernel copying the same bytes (benchmarks/BENCHMARKS.md): 4 per
// thread reach 84% (float32) and 89% (float64) of the copy's rate; one per
// thread 78% and 89%; a grid-stride loop over at most 65536 blocks 83% and
// 85%.
constexpr int kPerThread = 4;

// A thread's tile: the elements first + k kBlockSize (k < kPerThread) below
// n (cuda/grid_stride.h).
template <typename T, bool kTrueAnomaly>
struct Tile {
  Params<T> p;

  __host__ __device__ int64_t size() const { return p.n; }

  __device__ void operator()(int64_t first) const {
    T m[kPerThread], e[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = first + int64_t{k} * kBlockSize;
      // Past the end: a valid dummy input whose result is never stored.
      m[k] = i < p.n ? __ldg(p.mean_anomaly + i) : T(0);
      e[k] = i < p.n ? __ldg(p.ecc + i) : T(0);
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = first + int64_t{k} * kBlockSize;
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
};

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.true_anomaly) {
    return cuda::LaunchGridStride<kBlockSize, kPerThread>(Tile<T, true>{params}, stream);
  }
  return cuda::LaunchGridStride<kBlockSize, kPerThread>(Tile<T, false>{params}, stream);
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::kepler_solve::kernel
