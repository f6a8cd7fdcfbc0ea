// The transit model at one time: the orbit's projected separation
// (orbit.h) through the limb-darkened light curve (jaxlib_ext/limb_dark/),
// with the derivatives in every parameter by the chain rule.
#ifndef JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_
#define JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/orbit.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// One parameter set made ready for its times: the orbit, the planet's
// radius and the star's law.
struct Planet {
  bool valid;  // false: the orbit, the radius or the law refused (NaN everywhere)
  Orbit orbit;
  double r;
  limb_dark::CurveRow curve;
};

// p: the orbital parameters (Param order), u: the law's coefficients as
// the light curve takes them (`order` values).
JAXEXT_HD_CALLED void MakePlanet(const double* p, Geometry geometry, limb_dark::Law law,
                          const double* u, int order, Planet* planet) {
  planet->orbit = MakeOrbit(p, geometry);
  planet->r = p[kRadius];
  limb_dark::MakeCurveRow(law, u, order, &planet->curve);
  // The light curve's verdict on the radius and the law, away from the star.
  planet->valid = planet->orbit.valid &&
                  limb_dark::CurveAt(planet->curve, planet->r + 2, planet->r, nullptr).value == 0;
}

// F - 1 at dt = t - t0 (0 with the planet behind the star); with d
// non-null, d[j] = dF/d parameter j (Param order); with du non-null,
// du[0..curve.n_du) = dF/du. A refused planet (Planet::valid) or a time
// that is NaN or +-inf gives NaN everywhere.
JAXEXT_HD_CALLED double FluxAt(const Planet& planet, double dt, double* d, double* du) {
  using namespace detail;
  const int n_du = planet.curve.n_du;
  const bool refused = !planet.valid || !IsFinite(dt);
  const Sky sky = refused ? Sky{} : SkyAt(planet.orbit, dt, d != nullptr);
  if (refused || !sky.front) {
    const double fill = refused ? NaN() : 0.0;
    if (d) {
      for (int j = 0; j < kParamCount; ++j) d[j] = fill;
    }
    if (du) {
      for (int j = 0; j < n_du; ++j) du[j] = fill;
    }
    return fill;
  }
  const double b = Sqrt(sky.b2);
  const limb_dark::Flux f = limb_dark::CurveAt(planet.curve, b, planet.r, du);
  if (d) {
    // db = d(b^2) / (2 b); F is even in b, so dF/db -> 0 where b -> 0.
    const double chain = b > 0 ? f.d_db / (2 * b) : 0.0;
    for (int j = 0; j < kParamCount; ++j) d[j] = chain * sky.d_b2[j];
    d[kRadius] = f.d_dr;
  }
  return f.value;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_
