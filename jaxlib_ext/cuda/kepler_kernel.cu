#include "jaxlib_ext/cuda/kepler_kernel.h"

#include <algorithm>

#include "jaxlib_ext/solver/kepler_solver.h"

namespace kepler_ext {
namespace kepler_kernel {

constexpr int kBlockSize = 256;

// Grid-stride loop: each thread solves every (gridDim * blockDim)-th element.
template <typename T>
__global__ void kernel(Params<T> p) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
       i += stride) {
    const T m = p.mean_anomaly[i];
    const T e = p.ecc[i];
    T s, c;
    if (p.true_anomaly) {
      solve_true(m, e, &s, &c);
    } else {
      solve_eccentric(m, e, &s, &c);
    }
    p.out_sin[i] = s;
    p.out_cos[i] = c;
  }
}

template <typename T>
cudaError_t launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  // Enough blocks to fill any current GPU many times over; the grid-stride
  // loop covers the rest.
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, 65536);
  kernel<T><<<static_cast<unsigned>(blocks), kBlockSize, 0, stream>>>(params);
  return cudaGetLastError();
}

template cudaError_t launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kepler_kernel
}  // namespace kepler_ext
