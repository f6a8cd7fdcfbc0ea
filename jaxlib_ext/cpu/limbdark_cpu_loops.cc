// The light-curve loop, written once; compiled per instruction-set variant
// (per_isa_cc_library), with the math included in an unnamed namespace as in
// kepler_cpu_loops.cc (each variant keeps private copies of the inline
// functions). The standard headers the math uses come first.
#include <cmath>
#include <cstddef>
#include <limits>

#include "jaxlib_ext/cpu/limbdark_cpu_loops.h"
#include "jaxlib_ext/host_device.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace kepler_ext {
namespace JAXEXT_ISA_NAMESPACE {
namespace {

#include "jaxlib_ext/limbdark/limbdark.h"

// From here `kepler_ext::limbdark` names this variant's private copy.

template <typename T>
void LightCurveLoop(const double* g, int order, double norm, const T* b_in,
                    const T* r_in, T* flux, T* d_db, T* d_dr, T* s_out,
                    size_t n) {
  namespace ld = kepler_ext::limbdark;
  using ld::kPi;
  double s[ld::kMaxOrder + 1], ds_db[ld::kMaxOrder + 1], ds_dr[ld::kMaxOrder + 1];
  const int stride = order + 1;
  for (size_t i = 0; i < n; ++i) {
    const double b = std::fabs(static_cast<double>(b_in[i]));
    const double r = static_cast<double>(r_in[i]);
    if (!(r >= 0) || !std::isfinite(b) || !std::isfinite(r)) {
      const T nan = std::numeric_limits<T>::quiet_NaN();
      flux[i] = d_db[i] = d_dr[i] = nan;
      if (s_out) {
        for (int k = 0; k < stride; ++k) s_out[i * stride + k] = nan;
      }
      continue;
    }
    ld::SolutionVector(b, r, order, s, ds_db, ds_dr);
    // F - 1 = sum_k (s_k - s_k out of transit) g_k / norm: exactly 0 out of
    // transit, and no cancellation against 1 for shallow transits.
    double blocked = (s[0] - kPi) * g[0];
    double fb = ds_db[0] * g[0], fr = ds_dr[0] * g[0];
    for (int k = 1; k <= order; ++k) {
      blocked += (k == 1 ? s[1] - 2 * kPi / 3 : s[k]) * g[k];
      fb += ds_db[k] * g[k];
      fr += ds_dr[k] * g[k];
    }
    flux[i] = static_cast<T>(blocked / norm);
    d_db[i] = static_cast<T>(fb / norm);
    d_dr[i] = static_cast<T>(fr / norm);
    if (s_out) {
      for (int k = 0; k < stride; ++k) s_out[i * stride + k] = static_cast<T>(s[k]);
    }
  }
}

}  // namespace

const LightCurveLoops& LightCurve() {
  static constexpr LightCurveLoops kLoops = {&LightCurveLoop<float>,
                                             &LightCurveLoop<double>};
  return kLoops;
}

}  // namespace JAXEXT_ISA_NAMESPACE
}  // namespace kepler_ext
