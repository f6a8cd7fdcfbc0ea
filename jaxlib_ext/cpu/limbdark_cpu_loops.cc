// The light-curve loop, written once; compiled per instruction-set variant
// (per_isa_cc_library), with the math included in an unnamed namespace as in
// kepler_cpu_loops.cc (each variant keeps private copies of the inline
// functions). The standard headers the math uses come first.
#include <cmath>
#include <cstddef>

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
void LightCurveLoop(const double* g, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* s_out, size_t n) {
  namespace ld = kepler_ext::limbdark;
  double s[ld::kMaxOrder + 1];
  const size_t stride = static_cast<size_t>(order) + 1;
  for (size_t i = 0; i < n; ++i) {
    const ld::Flux f = ld::LightCurvePoint(static_cast<double>(b[i]),
                                           static_cast<double>(r[i]), g,
                                           order, norm, s);
    flux[i] = static_cast<T>(f.value);
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
    if (s_out) {
      for (size_t k = 0; k < stride; ++k) s_out[i * stride + k] = static_cast<T>(s[k]);
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
