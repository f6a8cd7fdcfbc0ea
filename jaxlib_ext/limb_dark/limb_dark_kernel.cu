#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include <algorithm>
#include <type_traits>

#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext {
namespace limb_dark {
namespace kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// One thread per point (grid-stride beyond the grid's limit), each running
// CurveElement's choice (limb_dark.h; the host test of the device path,
// tests/device_path_test.py, runs CurveElement): a kernel for the
// polynomial laws of at most two coefficients, one for the other
// polynomial laws, one for the tabulated law and one for the others, so
// that none's registers and stack are another's (the laws' node arrays and
// the table's rows need far more than the polynomial laws, and those of
// three or more coefficients far more than the quadratic law).
enum class Family { kLowOrder, kPolynomial, kTabulated, kOther };

// The blocks of kBlockSize threads each kernel must fit on one
// multiprocessor at once (__launch_bounds__), which caps its registers per
// thread (65536 registers per multiprocessor on sm_80 and sm_90). The
// low-order kernel's own path needs about 80 (ptxas -v, nvcc 13.0, sm_90,
// without the call), and 5 blocks (96 registers) add no spill to it (the
// same 96 bytes as with 3 or 4 blocks, around the call), where without a
// cap the kernel takes LightCurveElement's 255 for the points it leaves to
// that call: 640 threads a multiprocessor instead of 256. The others keep
// ptxas's choice (1: no cap).
template <Family kFamily>
constexpr int kMinBlocks = kFamily == Family::kLowOrder ? 5 : 1;

template <typename T, Family kFamily>
__device__ void Element(const Params<T>& p, int64_t i) {
  if (kFamily == Family::kLowOrder) {
    LowOrderCurveElement(p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr,
                         p.d_du);
  } else if (kFamily == Family::kPolynomial) {
    LightCurveElement(p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr, p.d_du);
  } else if (kFamily == Family::kTabulated) {
    TableCurveElement(p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr, p.d_du);
  } else {
    LawCurveElement(p.law, p.u, p.b, p.r, p.order, p.group_size, i, p.flux, p.d_db, p.d_dr,
                    p.d_du);
  }
}

// One kernel per family for both dtypes (the other dtype's Params unused):
// ptxas compiles the device functions a kernel calls once per kernel.
template <Family kFamily>
__global__ void __launch_bounds__(kBlockSize, kMinBlocks<kFamily>)
    Kernel(Params<double> as_double, Params<float> as_float, bool is_float) {
  const int64_t n = is_float ? as_float.n : as_double.n;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    if (is_float) {
      Element<float, kFamily>(as_float, i);
    } else {
      Element<double, kFamily>(as_double, i);
    }
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  const unsigned grid = static_cast<unsigned>(blocks);
  Params<double> as_double{};
  Params<float> as_float{};
  constexpr bool kIsFloat = std::is_same<T, float>::value;
  if constexpr (kIsFloat) {
    as_float = params;
  } else {
    as_double = params;
  }
  if (params.law == Law::kPolynomial && params.order <= 2) {
    Kernel<Family::kLowOrder><<<grid, kBlockSize, 0, stream>>>(as_double, as_float, kIsFloat);
  } else if (params.law == Law::kPolynomial) {
    Kernel<Family::kPolynomial><<<grid, kBlockSize, 0, stream>>>(as_double, as_float, kIsFloat);
  } else if (params.law == Law::kTabulated) {
    Kernel<Family::kTabulated><<<grid, kBlockSize, 0, stream>>>(as_double, as_float, kIsFloat);
  } else {
    Kernel<Family::kOther><<<grid, kBlockSize, 0, stream>>>(as_double, as_float, kIsFloat);
  }
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace limb_dark
}  // namespace jaxext
