#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext::limb_dark::kernel {

constexpr int kBlockSize = 128;

// One thread per point (grid-stride beyond the grid's limit), each running
// CurveElement's choice (limb_dark.h; the host test of the device path,
// tests/device_path_test.py, runs the same passes): a kernel for the
// polynomial laws of at most two coefficients, one for the other
// polynomial laws, one for the tabulated law and one for the others, so
// that none's registers and stack are another's (the laws' node arrays and
// the table's rows need far more than the polynomial laws, and those of
// three or more coefficients far more than the quadratic law). The
// polynomial laws of at most two coefficients run in two passes
// (LowOrderFastElement, then LeftLightCurveElement on the points the first
// left): the first kernel holds no call and no stack.
//
// JAXEXT_LOW_ORDER_ONE_PASS=1 (a compile-time switch for measuring the two
// designs side by side, tools/gpu/kernel_variants.cu) builds instead the
// one-pass kernel: LowOrderCurveElement, the left points through a call
// inside the kernel, capped at 96 registers (5 blocks a multiprocessor).
// JAXEXT_LOW_ORDER_MIN_BLOCKS caps the two-pass design's first kernel the
// same way: 6 blocks (80 registers, 44 bytes spilled) ran 3 to 4% faster
// on an H200 than ptxas's choice (1: 90 registers) and than 8 (64
// registers; benchmarks/gpu_runs/2026-11-28_h200_two_pass).
#ifndef JAXEXT_LOW_ORDER_ONE_PASS
#define JAXEXT_LOW_ORDER_ONE_PASS 0
#endif
#ifndef JAXEXT_LOW_ORDER_MIN_BLOCKS
#define JAXEXT_LOW_ORDER_MIN_BLOCKS 6
#endif

enum class Family { kLowOrder, kLowOrderLeft, kPolynomial, kTabulated, kOther };

// The blocks of kBlockSize threads each kernel must fit on one
// multiprocessor at once (__launch_bounds__), which caps its registers per
// thread (65536 registers per multiprocessor on sm_80 and sm_90); 1: no cap
// but the block's.
template <Family kFamily>
constexpr int kMinBlocks = kFamily != Family::kLowOrder ? 1
                           : JAXEXT_LOW_ORDER_ONE_PASS ? 5
                                                       : JAXEXT_LOW_ORDER_MIN_BLOCKS;

template <Family kFamily>
struct Element {
  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    if (kFamily == Family::kLowOrder) {
#if JAXEXT_LOW_ORDER_ONE_PASS
      LowOrderCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                           p.out.d[1], p.out.du);
#else
      LowOrderFastElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                          p.out.d[1], p.out.du);
#endif
    } else if (kFamily == Family::kLowOrderLeft || kFamily == Family::kPolynomial) {
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

  // The second pass's (kLowOrderLeft) test: the first pass marked it.
  template <typename T>
  __device__ static bool IsLeft(const Params<T>& p, int64_t i) {
    return IsMarkedLeft(p.out.flux[i]);
  }
};

// The second pass of the low-order laws (cuda/grid_stride.h's
// LeftPassKernel): each thread reads the flux of 16 points, its loads all in
// flight at once, and the points marked are computed in full warps.
constexpr int kLeftPerThread = 16;

// One kernel per family (cuda/grid_stride.h: for both dtypes).
template <Family kFamily, typename T>
cudaError_t LaunchFamily(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize, 1, kMinBlocks<kFamily>>(
      cuda::BothDtypes<Params, Element<kFamily>>::Of(params), stream);
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.law == Law::kPolynomial && params.order <= 2) {
    const cudaError_t fast = LaunchFamily<Family::kLowOrder>(params, stream);
    if (fast != cudaSuccess || JAXEXT_LOW_ORDER_ONE_PASS) return fast;
    return cuda::LaunchLeftPass<kBlockSize, kLeftPerThread>(
        cuda::BothDtypes<Params, Element<Family::kLowOrderLeft>>::Of(params), stream);
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
