#include "jaxlib_ext/cuda/limbdark_kernel.h"

#include <algorithm>

#include "jaxlib_ext/limbdark/limbdark.h"

namespace kepler_ext {
namespace limbdark_kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// One thread per point (grid-stride beyond the grid's limit). Each thread
// forms its row's Green's coefficients: at most kMaxOrder^2 flops, small
// next to the point's own work.
template <typename T>
__global__ void __launch_bounds__(kBlockSize) kernel(Params<T> p) {
  namespace ld = kepler_ext::limbdark;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x;
       i < p.n; i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    const double b = fabs(static_cast<double>(p.b[i]));
    const double r = static_cast<double>(p.r[i]);
    const int stride = p.order + 1;
    if (!(r >= 0) || !isfinite(b) || !isfinite(r)) {
      const T nan = T(NAN);
      p.flux[i] = p.d_db[i] = p.d_dr[i] = nan;
      if (p.s) {
        for (int k = 0; k < stride; ++k) p.s[i * stride + k] = nan;
      }
      continue;
    }
    double u[ld::kMaxOrder], g[ld::kMaxOrder + 1], work[ld::kMaxOrder + 3];
    const T* row = p.u + (i / p.group_size) * p.order;
    for (int k = 0; k < p.order; ++k) u[k] = static_cast<double>(row[k]);
    ld::GreensCoefficients(u, p.order, g, work);
    const double norm = ld::kPi * g[0] + (p.order >= 1 ? 2 * ld::kPi / 3 * g[1] : 0.0);
    double s[ld::kMaxOrder + 1], ds_db[ld::kMaxOrder + 1], ds_dr[ld::kMaxOrder + 1];
    ld::SolutionVector(b, r, p.order, s, ds_db, ds_dr);
    double blocked = (s[0] - ld::kPi) * g[0];
    double fb = ds_db[0] * g[0], fr = ds_dr[0] * g[0];
    for (int k = 1; k <= p.order; ++k) {
      blocked += (k == 1 ? s[1] - 2 * ld::kPi / 3 : s[k]) * g[k];
      fb += ds_db[k] * g[k];
      fr += ds_dr[k] * g[k];
    }
    p.flux[i] = static_cast<T>(blocked / norm);
    p.d_db[i] = static_cast<T>(fb / norm);
    p.d_dr[i] = static_cast<T>(fr / norm);
    if (p.s) {
      for (int k = 0; k < stride; ++k) p.s[i * stride + k] = static_cast<T>(s[k]);
    }
  }
}

template <typename T>
cudaError_t launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  kernel<T><<<static_cast<unsigned>(blocks), kBlockSize, 0, stream>>>(params);
  return cudaGetLastError();
}

template cudaError_t launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t launch<double>(const Params<double>&, cudaStream_t);

}  // namespace limbdark_kernel
}  // namespace kepler_ext
