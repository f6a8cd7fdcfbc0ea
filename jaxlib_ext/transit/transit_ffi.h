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
// values). Attributes: `law` (limb_dark::Law), `geometry` (Geometry: 0 the
// impact parameter b0, 1 the inclination i), `light` (1: each row holds
// the kLightParamCount LightParams after the orbit's, and their derivatives
// follow dF/dT) and `epochs` (E >= 0: each row holds next the timing
// variations of E epochs, transit.h's ShiftedTime, before the law's
// coefficients; no derivatives in them), int32.
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/limb_dark/limb_dark_ffi.h"
#include "jaxlib_ext/transit/transit.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::transit {

// The prefix of the op's error messages.
constexpr char kOp[] = "transit";

// One call: rows of params (kParamCount + order values each) and their law;
// the first derivatives (call.d) are those in the kParamCount parameters
// and in T, in Param order.
struct Layout {
  limb_dark::LawCall call;
  Geometry geometry;
  bool light;
  int epochs;
};

// The most epochs a row may hold (kepler.transit's transit_times): 2^22,
// up to which ShiftedTime's rounding of a float's epoch is exact.
constexpr std::int32_t kMaxEpochs = 1 << 22;

inline ffi::Error CheckLayout(const ffi::AnyBuffer& params, const ffi::AnyBuffer& t,
                              const ffi::AnyBuffer& exposure, const ffi::AnyBuffer& flux,
                              const ffi::RemainingRets& rest, std::int32_t law,
                              std::int32_t geometry, std::int32_t light, std::int32_t epochs,
                              Layout* out) {
  if (geometry != 0 && geometry != 1) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": geometry " +
                                       std::to_string(geometry) +
                                       " is neither 0 (impact parameter) nor 1 (inclination)");
  }
  if (light != 0 && light != 1) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": light " + std::to_string(light) +
                                       " is neither 0 (the transit) nor 1 (the planet's light)");
  }
  if (epochs < 0 || epochs > kMaxEpochs) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": epochs " + std::to_string(epochs) +
                                       " is not a count of transit times from 0 to " +
                                       std::to_string(kMaxEpochs));
  }
  out->geometry = static_cast<Geometry>(geometry);
  out->light = light == 1;
  out->epochs = epochs;
  const int offset = RowOffsetOfU(out->light);
  return limb_dark::CheckLawCall(
      kOp, law, {"params", params}, offset + epochs, "P", "the row", {"t", t},
      {"exposure", exposure}, {"flux", flux}, rest, offset + 1,
      "its derivatives in the " + std::to_string(kParamCount) + " orbital parameters and T" +
          (out->light ? " and the " + std::to_string(kLightParamCount) + " of the light" : ""),
      [](size_t k) { return "d_" + std::to_string(k); }, &out->call);
}

}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_FFI_H_
