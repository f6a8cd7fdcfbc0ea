#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext::limb_dark::kernel {

constexpr int kBlockSize = 128;

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

template <Family kFamily>
struct Element {
  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    if (kFamily == Family::kLowOrder) {
      LowOrderCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                           p.out.d[1], p.out.du);
    } else if (kFamily == Family::kPolynomial) {
      LightCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                        p.out.d[1], p.out.du);
    } else if (kFamily == Family::kTabulated) {
      TableCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                        p.out.d[1], p.out.du);
    } else {
      LawCurveElement(p.law, p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux,
                      p.out.d[0], p.out.d[1], p.out.du);
    }
  }
};

// One kernel per family (cuda/grid_stride.h: for both dtypes).
template <Family kFamily, typename T>
cudaError_t LaunchFamily(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize, 1, kMinBlocks<kFamily>>(
      cuda::BothDtypes<Params, Element<kFamily>>::Of(params), stream);
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.law == Law::kPolynomial && params.order <= 2) {
    return LaunchFamily<Family::kLowOrder>(params, stream);
  } else if (params.law == Law::kPolynomial) {
    return LaunchFamily<Family::kPolynomial>(params, stream);
  } else if (params.law == Law::kTabulated) {
    return LaunchFamily<Family::kTabulated>(params, stream);
  }
  return LaunchFamily<Family::kOther>(params, stream);
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::limb_dark::kernel
