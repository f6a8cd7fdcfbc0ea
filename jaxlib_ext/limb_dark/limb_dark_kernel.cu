#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include <algorithm>

#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext {
namespace limb_dark {
namespace kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// One thread per point (grid-stride beyond the grid's limit), each running
// CurveElement's choice (limb_dark.h; the host test of the device path,
// tests/device_path_test.py, runs CurveElement): a kernel for the
// polynomial laws, one for the tabulated law and one for the others, so
// that none's registers and stack are another's (the laws' node arrays and
// the table's rows need far more than the polynomial laws).
enum class Family { kPolynomial, kTabulated, kOther };

template <typename T, Family kFamily>
__global__ void __launch_bounds__(kBlockSize) Kernel(Params<T> p) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x;
       i < p.n; i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    if (kFamily == Family::kPolynomial) {
      LightCurveElement(p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr,
                        p.d_du);
    } else if (kFamily == Family::kTabulated) {
      TableCurveElement(p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr,
                        p.d_du);
    } else {
      LawCurveElement(p.law, p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db,
                      p.d_dr, p.d_du);
    }
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  const unsigned grid = static_cast<unsigned>(blocks);
  if (params.law == Law::kPolynomial) {
    Kernel<T, Family::kPolynomial><<<grid, kBlockSize, 0, stream>>>(params);
  } else if (params.law == Law::kTabulated) {
    Kernel<T, Family::kTabulated><<<grid, kBlockSize, 0, stream>>>(params);
  } else {
    Kernel<T, Family::kOther><<<grid, kBlockSize, 0, stream>>>(params);
  }
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace limb_dark
}  // namespace jaxext
