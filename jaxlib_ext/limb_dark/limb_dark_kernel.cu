#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include <algorithm>

#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext {
namespace limb_dark {
namespace kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// One thread per point (grid-stride beyond the grid's limit). Each thread
// forms its row's Green's coefficients: at most kMaxOrder^2 flops, small
// next to the point's own work.
template <typename T>
__global__ void __launch_bounds__(kBlockSize) Kernel(Params<T> p) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x;
       i < p.n; i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    double g[kMaxOrder + 1], q[kMaxOrder + 2], ds[kMaxOrder + 1];
    const double norm = GreensRow(p.u + (i / p.group_size) * p.order, p.order, g, q);
    const Flux f = LightCurvePoint(static_cast<double>(p.b[i]),
                                   static_cast<double>(p.r[i]), g, q, p.order, norm, ds);
    p.flux[i] = static_cast<T>(f.value);
    if (p.d_db) {  // null: the value alone
      p.d_db[i] = static_cast<T>(f.d_db);
      p.d_dr[i] = static_cast<T>(f.d_dr);
    }
    if (p.d_du[0]) {
      double du[kMaxOrder];
      FluxGradientInU(ds, f.value, norm, p.order, du);
      for (int j = 0; j < p.order; ++j) p.d_du[j][i] = static_cast<T>(du[j]);
    }
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  Kernel<T><<<static_cast<unsigned>(blocks), kBlockSize, 0, stream>>>(params);
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace limb_dark
}  // namespace jaxext
