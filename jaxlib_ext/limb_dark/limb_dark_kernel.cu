// Names this source's constant tables (host_device.h's TableAt).
#define JAXEXT_KERNEL_SOURCE limb_dark_kernel

#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"

#include <utility>

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
// The laws of laws.h run in passes by edge rule (LawRuleElement, then
// LeftLawElement for each rule: limb_dark.h), so that a warp's threads run
// one rule: neighbouring points of a light curve take different rules, and
// in one kernel a warp runs each rule in turn for its few threads (power-2:
// 36.2 against 1.70 ns a point on an H200,
// benchmarks/gpu_runs/2026-11-28_h200_law_passes).
//
// The polynomial laws of three or more coefficients run in passes by edge
// rule too (PolynomialRuleElement on every point, then for each of
// edge_rules.h's rules LightCurveElement compiled for that rule alone, on
// the points marked for it), so that a warp runs one rule: in one kernel a
// warp ran 10.5 of its 32 threads on average (ten coefficients, ncu on an
// H200, benchmarks/gpu_runs/2026-11-29_h200). The five kernels are within
// the limits of tools/ptxas_report.py (at most 118 registers and 864 B of
// stack, nothing spilled; nvcc 13.5, sm_90) and take about 15 s more of
// nvcc than the one kernel. JAXEXT_POLYNOMIAL_PASSES=0 builds instead the
// one kernel (Family kPolynomial: LightCurveElement, every rule), for
// tools/gpu/kernel_variants.sh to time against the passes: neither has run
// on a GPU in its present form.
//
// JAXEXT_LAW_ONE_PASS=1 builds instead the one-kernel design of the laws of
// laws.h (Family kOther: LawCurveElement, every rule in one kernel).
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
#ifndef JAXEXT_LAW_ONE_PASS
#define JAXEXT_LAW_ONE_PASS 0
#endif
#ifndef JAXEXT_POLYNOMIAL_PASSES
#define JAXEXT_POLYNOMIAL_PASSES 1
#endif
#ifndef JAXEXT_LOW_ORDER_MIN_BLOCKS
#define JAXEXT_LOW_ORDER_MIN_BLOCKS 6
#endif

// kLawRules: the other laws' first pass; kLawLeft + k: their pass of rule
// LawRule(k) (k from kInside8 = 1 to kContact) with the edge moments' code,
// kPowerLeft + k (k from kInside8 to kCrossing) with the power laws' code
// (limb_dark.h's PassCode). kPolynomialRules: the first pass of the
// polynomial laws of three or more coefficients; kPolynomialLeft + k their
// pass of EdgeRule(k).
enum Family : int {
  kLowOrder,
  kLowOrderLeft,
  kPolynomial,
  kTabulated,
  kOther,
  kLawRules,
  kLawLeft,
  kPowerLeft = kLawLeft + static_cast<int>(LawRule::kContact),
  kPolynomialRules = kPowerLeft + static_cast<int>(LawRule::kCrossing) + 1,
  kPolynomialLeft
};

// The blocks of kBlockSize threads each kernel must fit on one
// multiprocessor at once (__launch_bounds__), which caps its registers per
// thread (65536 registers per multiprocessor on sm_80 and sm_90); 1: no cap
// but the block's. The tabulated law's kernel: 4, 128 registers (138
// uncapped, nothing spilled either way; nvcc 13.5, sm_90). The polynomial
// laws' of three or more coefficients: 4 (116 registers, 864 B of stack,
// nothing spilled; nvcc 13.5, sm_90).
template <int kFamily>
constexpr int kMinBlocks = kFamily == Family::kTabulated || kFamily == Family::kPolynomial ? 4
                           : kFamily != Family::kLowOrder ? 1
                           : JAXEXT_LOW_ORDER_ONE_PASS    ? 5
                                                          : JAXEXT_LOW_ORDER_MIN_BLOCKS;

template <int kFamily>
struct Element {
  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    if constexpr (kFamily == Family::kLowOrder) {
#if JAXEXT_LOW_ORDER_ONE_PASS
      LowOrderCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                           p.out.d[1], p.out.du);
#else
      LowOrderFastElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                          p.out.d[1], p.out.du);
#endif
    } else if constexpr (kFamily == Family::kLowOrderLeft) {
      // At most two coefficients: the point's arrays of three values.
      LightCurveElement<2>(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                           p.out.d[1], p.out.du);
    } else if constexpr (kFamily == Family::kPolynomial) {
      LightCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                        p.out.d[1], p.out.du);
    } else if constexpr (kFamily == Family::kTabulated) {
      TableCurveElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                        p.out.d[1], p.out.du);
    } else if constexpr (kFamily == Family::kPolynomialRules) {
      PolynomialRuleElement(p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
                            p.out.d[1], p.out.du);
    } else if constexpr (kFamily >= Family::kPolynomialLeft) {
      LightCurveElement<kMaxOrder, kFamily - Family::kPolynomialLeft>(
          p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0], p.out.d[1],
          p.out.du);
    } else if constexpr (kFamily == Family::kLawRules) {
      LawRuleElement(p.law, p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux,
                     p.out.d[0], p.out.d[1], p.out.du);
    } else if constexpr (kFamily > Family::kPowerLeft) {
      LawCurveElement<static_cast<LawRule>(kFamily - Family::kPowerLeft), LawCode::kPowers>(
          p.law, p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
          p.out.d[1], p.out.du);
    } else if constexpr (kFamily > Family::kLawRules) {
      LawCurveElement<static_cast<LawRule>(kFamily - Family::kLawLeft), LawCode::kOthers>(
          p.law, p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux, p.out.d[0],
          p.out.d[1], p.out.du);
    } else {
      LawCurveElement(p.law, p.rows, p.x, p.y, p.order, p.group_size, i, p.out.flux,
                      p.out.d[0], p.out.d[1], p.out.du);
    }
  }

  // A later pass's test (kLowOrderLeft, kLawLeft + k, kPowerLeft + k,
  // kPolynomialLeft + k): the first pass marked the element for it.
  template <typename T>
  __device__ static bool IsLeft(const Params<T>& p, int64_t i) {
    return IsMarkedLeft(p.out.flux[i], kFamily >= kPolynomialLeft ? 1 + kFamily - kPolynomialLeft
                                       : kFamily > kPowerLeft     ? kFamily - kPowerLeft
                                       : kFamily > kLawRules      ? kFamily - kLawLeft
                                                                  : 0);
  }
};

// The second pass of the low-order laws (cuda/grid_stride.h's
// LeftPassKernel): each thread reads the flux of 16 points, its loads all in
// flight at once, and the points marked are computed in full warps.
constexpr int kLeftPerThread = 16;

// One kernel per family (cuda/grid_stride.h: for both dtypes).
template <int kFamily, typename T>
cudaError_t LaunchFamily(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize, 1, kMinBlocks<kFamily>>(
      cuda::BothDtypes<Params, Element<kFamily>>::Of(params), stream);
}

template <int kFamily, typename T>
cudaError_t LaunchLeft(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchLeftPass<kBlockSize, kLeftPerThread>(
      cuda::BothDtypes<Params, Element<kFamily>>::Of(params), stream);
}

// The laws of laws.h: the first pass, then one pass for each rule from
// kInside8 to kContact, with the code PassCode chooses.
template <int kRule, typename T>
cudaError_t LaunchLawPass(const Params<T>& params, cudaStream_t stream) {
  if constexpr (kRule != static_cast<int>(LawRule::kContact)) {
    if (PassCode(params.law, static_cast<LawRule>(kRule)) == LawCode::kPowers) {
      return LaunchLeft<Family::kPowerLeft + kRule>(params, stream);
    }
  }
  return LaunchLeft<Family::kLawLeft + kRule>(params, stream);
}

template <typename T, int... kRules>
cudaError_t LaunchLawPasses(const Params<T>& params, cudaStream_t stream,
                            std::integer_sequence<int, kRules...>) {
  cudaError_t status = LaunchFamily<Family::kLawRules>(params, stream);
  ((status = status == cudaSuccess ? LaunchLawPass<kRules + 1>(params, stream) : status), ...);
  return status;
}

// The polynomial laws of three or more coefficients: the first pass, then
// one pass for each edge rule.
template <typename T, int... kRules>
cudaError_t LaunchPolynomialPasses(const Params<T>& params, cudaStream_t stream,
                                   std::integer_sequence<int, kRules...>) {
  cudaError_t status = LaunchFamily<Family::kPolynomialRules>(params, stream);
  ((status = status == cudaSuccess ? LaunchLeft<Family::kPolynomialLeft + kRules>(params, stream)
                                   : status),
   ...);
  return status;
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.law == Law::kPolynomial && params.order <= 2) {
    const cudaError_t fast = LaunchFamily<Family::kLowOrder>(params, stream);
    if (fast != cudaSuccess || JAXEXT_LOW_ORDER_ONE_PASS) return fast;
    return LaunchLeft<Family::kLowOrderLeft>(params, stream);
  } else if (params.law == Law::kPolynomial) {
    if constexpr (JAXEXT_POLYNOMIAL_PASSES) {
      return LaunchPolynomialPasses(params, stream,
                                    std::make_integer_sequence<int, detail::kEdgeRuleCount>());
    } else {
      return LaunchFamily<Family::kPolynomial>(params, stream);
    }
  } else if (params.law == Law::kTabulated) {
    return LaunchFamily<Family::kTabulated>(params, stream);
  }
  if constexpr (JAXEXT_LAW_ONE_PASS) {
    return LaunchFamily<Family::kOther>(params, stream);
  } else {
    return LaunchLawPasses(params, stream,
                           std::make_integer_sequence<int, static_cast<int>(LawRule::kContact)>());
  }
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::limb_dark::kernel
