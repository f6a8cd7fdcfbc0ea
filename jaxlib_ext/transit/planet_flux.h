// The transit model at one time: the orbit's projected separation
// (orbit.h) through the limb-darkened light curve (jaxlib_ext/limb_dark/),
// with the derivatives in every parameter by the chain rule; with the
// planet's own light (its phase curve and its eclipse by the star) and the
// star's beaming and ellipsoidal variation where the row has them
// (LightFluxAt).
#ifndef JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_
#define JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/orbit.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// One parameter set made ready for its times: the orbit, the planet's
// radius, the star's law and, with `light`, the planet's light and the
// star's modulation (LightParam order in `glow`).
struct Planet {
  bool valid;  // false: the orbit, the radius or the law refused (NaN everywhere)
  Orbit orbit;
  double r;
  limb_dark::CurveRow curve;
  bool light;
  double glow[kLightParamCount];
  double cos_offset, sin_offset;  // of the phase offset
};

// p: the orbital parameters (Param order) then, with `light`, the
// LightParams; u: the law's coefficients as the light curve takes them
// (`order` values). The day and night fluxes must be >= 0, the others finite.
JAXEXT_HD_CALLED void MakePlanet(const double* p, Geometry geometry, limb_dark::Law law,
                          const double* u, int order, bool light, Planet* planet) {
  using namespace detail;
  planet->orbit = MakeOrbit(p, geometry);
  planet->r = p[kRadius];
  limb_dark::MakeCurveRow(law, u, order, &planet->curve);
  // The light curve's verdict on the radius and the law, away from the star.
  planet->valid = planet->orbit.valid &&
                  limb_dark::CurveAt(planet->curve, planet->r + 2, planet->r, nullptr).value == 0;
  planet->light = light;
  for (int j = 0; j < kLightParamCount; ++j) {
    planet->glow[j] = light ? p[kParamCount + j] : 0.0;
    planet->valid = planet->valid && IsFinite(planet->glow[j]);
  }
  planet->valid = planet->valid && planet->glow[kPlanetFlux] >= 0 && planet->glow[kNightFlux] >= 0;
  planet->cos_offset = light ? Cos(planet->glow[kPhaseOffset]) : 1.0;
  planet->sin_offset = light ? Sin(planet->glow[kPhaseOffset]) : 0.0;
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

// F - 1 with the planet's light and the star's modulation (Planet::light),
// the system's flux over the star's unocculted, unmodulated flux, minus one:
//   F - 1 = S (1 + delta) - 1 + v P,
// with phi = omega + f - pi/2 the planet's phase angle (0 at inferior
// conjunction), from the position in the orbit's plane: cos(omega + f) =
// x_w / |x|, sin(omega + f) = y_w / |x|;
//   S = 1 - beaming (cos(omega + f) + e cos omega) - ellipsoidal cos(2 phi),
// the star's flux; delta the transit's F - 1 in front (0 behind); P = night
// + (day - night) (1 - cos(phi + offset)) / 2, the planet's flux at full
// disk; v its visible share, 1 - (the area the star hides) / (pi r^2)
// behind (limb_dark::OverlapOfDisks), 1 in front (a planet of radius 0:
// hidden behind the disk, b < 1). d: dF/d parameter (Param order), d_glow:
// dF/d LightParam, du: dF/du, each where not null; NaN everywhere where
// the planet is refused or dt is NaN or infinite.
JAXEXT_HD_CALLED double LightFluxAt(const Planet& planet, double dt, double* d, double* d_glow,
                                    double* du) {
  using namespace detail;
  const int n_du = planet.curve.n_du;
  const bool refused = !planet.valid || !IsFinite(dt);
  if (refused) {
    if (d) {
      for (int j = 0; j < kParamCount; ++j) d[j] = NaN();
      for (int j = 0; j < kLightParamCount; ++j) d_glow[j] = NaN();
    }
    if (du) {
      for (int j = 0; j < n_du; ++j) du[j] = NaN();
    }
    return NaN();
  }
  const Orbit& o = planet.orbit;
  const double* g = planet.glow;
  double d_xw[kParamCount], d_yw[kParamCount];
  Sky sky = SkyAt(o, dt, false);
  if (d) SkyGradient(o, dt, sky.sin_e, sky.cos_e, sky.den, sky.d_b2, d_xw, d_yw);
  const double dist = o.a * sky.den, inv = 1 / dist;
  const double cos_wf = sky.xw * inv, sin_wf = sky.yw * inv;
  // phi + offset: cos phi = sin(omega + f), sin phi = -cos(omega + f).
  const double cos_po = sin_wf * planet.cos_offset + cos_wf * planet.sin_offset;
  const double sin_po = -cos_wf * planet.cos_offset + sin_wf * planet.sin_offset;
  const double shape = (1 - cos_po) / 2;
  const double day_minus_night = g[kPlanetFlux] - g[kNightFlux];
  const double phase = g[kNightFlux] + day_minus_night * shape;
  const double velocity = cos_wf + o.e * o.cos_w;
  const double cos_2phi = (sin_wf - cos_wf) * (sin_wf + cos_wf);
  const double star_minus_one = -g[kBeaming] * velocity - g[kEllipsoidal] * cos_2phi;
  const double b = Sqrt(sky.b2), r = planet.r;
  limb_dark::Flux transit = {0.0, 0.0, 0.0};
  double visible = 1, d_visible_db = 0, d_visible_dr = 0;
  if (sky.front) {
    transit = limb_dark::CurveAt(planet.curve, b, r, du);
  } else if (r > 0) {
    const limb_dark::DiskOverlap hidden = limb_dark::OverlapOfDisks(b, r);
    const double disk = kPi * r * r;
    visible = 1 - hidden.area / disk;
    d_visible_db = -hidden.d_db / disk;
    d_visible_dr = -hidden.d_dr / disk + 2 * hidden.area / (disk * r);
  } else {
    visible = b < 1 ? 0.0 : 1.0;
  }
  if (!sky.front && du) {
    for (int j = 0; j < n_du; ++j) du[j] = 0;
  }
  const double star = 1 + star_minus_one;
  if (d) {
    // d(b^2) = 2 b db; F is even in b, so the b-derivatives vanish at b = 0.
    const double per_b2 = b > 0 ? (transit.d_db * star + phase * d_visible_db) / (2 * b) : 0.0;
    const double one_plus_transit = 1 + transit.value;
    for (int j = 0; j < kParamCount; ++j) {
      // d(omega + f) from d x_w and d y_w: (x_w d y_w - y_w d x_w) / |x|^2.
      const double d_angle = (sky.xw * d_yw[j] - sky.yw * d_xw[j]) * inv * inv;
      const double d_cos_wf = -sin_wf * d_angle, d_sin_wf = cos_wf * d_angle;
      const double d_velocity =
          d_cos_wf + (j == kEccentricity ? o.cos_w : 0.0) - (j == kOmega ? o.e * o.sin_w : 0.0);
      const double d_cos_2phi = 2 * (sin_wf * d_sin_wf - cos_wf * d_cos_wf);
      const double d_star = -g[kBeaming] * d_velocity - g[kEllipsoidal] * d_cos_2phi;
      // d(phi + offset) = d(omega + f); d(1 - cos x) / 2 = sin x / 2 dx.
      const double d_phase = day_minus_night * sin_po / 2 * d_angle;
      d[j] = per_b2 * sky.d_b2[j] + one_plus_transit * d_star + visible * d_phase;
    }
    d[kRadius] = transit.d_dr * star + phase * d_visible_dr;
    d_glow[kPlanetFlux] = visible * shape;
    d_glow[kNightFlux] = visible * (1 - shape);
    d_glow[kPhaseOffset] = visible * day_minus_night * sin_po / 2;
    d_glow[kBeaming] = -velocity * one_plus_transit;
    d_glow[kEllipsoidal] = -cos_2phi * one_plus_transit;
  }
  if (du && sky.front) {
    for (int j = 0; j < n_du; ++j) du[j] *= star;
  }
  return transit.value * star + star_minus_one + visible * phase;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_
