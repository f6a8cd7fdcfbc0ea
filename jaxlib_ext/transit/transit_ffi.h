// What the CPU and CUDA handlers of the transit model share: the checks of
// the buffers' shapes, and the results' data pointers.
//
// The op: arguments `params` (shape (K..., kParamCount + N): per row the
// orbital parameters in Param order (orbit.h: period, t0, a, b0 or i, r, e,
// omega) then the law's N coefficients as the light curve takes them), `t`
// and `exposure` (one shape, which starts with K...: each row serves the
// elements under it; float32 or float64, all one dtype). Results, every one
// of t's shape and dtype: F - 1 averaged over the exposure; then none (the
// value alone), or dF/d parameter for the kParamCount parameters and dF/dT,
// or those and dF/du_1..dF/du_n (n = N, or M for the tabulated law's 2 M
// values). Attributes: `law` (limb_dark::Law) and `geometry` (Geometry:
// 0 the impact parameter b0, 1 the inclination i), int32.
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/limb_dark/law_check.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/transit.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext {
namespace transit {

// The prefix of the op's error messages.
constexpr char kOp[] = "transit";

// The layout of one call: rows of params (kParamCount + order values each),
// each serving `group_size` consecutive elements, n elements in all; the
// optional results' data (null where not asked for).
struct Layout {
  limb_dark::Law law;
  Geometry geometry;
  int order;  // the law's coefficients per row
  int n_du;   // their derivatives: order, or M (tabulated)
  size_t group_size, n;
  bool with_du;
  void* d[kParamCount + 1];       // all null: the value alone
  void* d_du[kMaxDerivativesInU];  // dF/du_1..dF/du_n_du, or all null
};

inline xla::ffi::Error CheckLayout(const xla::ffi::AnyBuffer& params,
                                   const xla::ffi::AnyBuffer& t,
                                   const xla::ffi::AnyBuffer& exposure,
                                   const xla::ffi::AnyBuffer& flux,
                                   const xla::ffi::RemainingRets& rest, std::int32_t law,
                                   std::int32_t geometry, Layout* out) {
  using limb_dark::Law;
  if (law < 0 || law >= limb_dark::kLawCount) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " +
                                       limb_dark::LawCoefficientsError(law, 0, "the row"));
  }
  if (geometry != 0 && geometry != 1) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": geometry " +
                                       std::to_string(geometry) +
                                       " is neither 0 (impact parameter) nor 1 (inclination)");
  }
  if (ffi::Error err =
          CheckSameShapeAndType(kOp, {{"t", t}, {"exposure", exposure}, {"flux", flux}});
      err.failure()) {
    return err;
  }
  if (params.element_type() != t.element_type()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": params must have t's dtype");
  }
  size_t groups;
  if (ffi::Error err = CheckRows(kOp, "params", params, "t", t, "P", &groups); err.failure()) {
    return err;
  }
  const int64_t width = params.dimensions().back();
  const int64_t order = width - kParamCount;
  if (order < 0) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": params has " +
                                       std::to_string(width) + " values per row; " +
                                       "the orbit alone takes " + std::to_string(kParamCount));
  }
  if (const std::string error = limb_dark::LawCoefficientsError(law, order, "the row");
      !error.empty()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " + error);
  }
  const int n_du = limb_dark::DerivativesInU(law, static_cast<int>(order));
  const size_t extra = rest.size();
  const size_t with_d = kParamCount + 1;
  const size_t with_du = with_d + static_cast<size_t>(n_du);
  if (extra != 0 && extra != with_d && extra != with_du) {
    return ffi::Error::InvalidArgument(
        std::string(kOp) + ": " + std::to_string(1 + extra) + " results; expected 1 (F - 1), " +
        std::to_string(1 + with_d) + " (and its derivatives in the " +
        std::to_string(kParamCount) + " parameters and T) or " + std::to_string(1 + with_du) +
        " (and dF/du_1..dF/du_N for N = " + std::to_string(n_du) + ")");
  }
  void* data[kParamCount + 1 + kMaxDerivativesInU] = {};
  const auto name = [with_d](size_t k) {
    return k < with_d ? "d_" + std::to_string(k) : "d_du_" + std::to_string(k - with_d);
  };
  if (ffi::Error err = RestResultsData(kOp, "t", t, rest, name, data); err.failure()) {
    return err;
  }
  out->law = static_cast<Law>(law);
  out->geometry = static_cast<Geometry>(geometry);
  out->order = static_cast<int>(order);
  out->n_du = n_du;
  out->n = t.element_count();
  out->group_size = groups ? out->n / groups : 0;
  out->with_du = extra == with_du && n_du > 0;
  for (int j = 0; j <= kParamCount; ++j) out->d[j] = data[j];
  for (int j = 0; j < kMaxDerivativesInU; ++j) out->d_du[j] = data[with_d + j];
  return ffi::Error::Success();
}

}  // namespace transit
}  // namespace jaxext

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_
