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

// The planet's light and the star's modulation: the LightParams, and the
// phase offset's cosine and sine.
struct Glow {
  double p[kLightParamCount];
  double cos_offset, sin_offset;
};

// dF/d(b^2) from dF/db at the separation b (d(b^2) = 2 b db): F is even in
// b, so its b-derivatives vanish at b = 0, where the quotient is 0/0.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double PerSquareOfB(double b, double d_db) {
  return b > 0 ? d_db / (2 * b) : 0.0;
}

// One parameter set made ready for its times, but for the star's law: the
// orbit, the planet's radius and, with `light`, the planet's light and the
// star's modulation (`glow`; all 0 without).
struct PlanetBody {
  bool valid;  // false: the orbit, the radius or the law refused (NaN everywhere)
  Orbit orbit;
  double r;
  bool light;
  Glow glow;
};

// With the star's law made ready (`curve`): limb_dark's CurveRow for any
// law (Planet, the CPU's), or a row of one family of laws alone
// (PolynomialCurveRow, LawCurveRow, TableCurveRow: the transit kernels'):
// a type with MakeCurveRow and CurveAt, n_du, and kMaxCoefficients and
// kMaxDerivatives, which size the arrays of its coefficients and of a
// point's derivatives in them.
template <typename Curve>
struct PlanetOf : PlanetBody {
  Curve curve;
};
using Planet = PlanetOf<limb_dark::CurveRow>;

// p: the orbital parameters (Param order) then, with `light`, the
// LightParams; u: the law's coefficients as the light curve takes them
// (`order` values: doubles, or the row's own where the curve reads its row,
// limb_dark::kReadsRowOf). The day and night fluxes must be >= 0, the others finite.
template <typename Curve, typename U>
JAXEXT_HD_CALLED void MakePlanet(const double* p, Geometry geometry, limb_dark::Law law,
                                 const U* u, int order, bool light, PlanetOf<Curve>* planet) {
  using namespace detail;
  planet->orbit = MakeOrbit(p, geometry);
  planet->r = p[kRadius];
  limb_dark::MakeCurveRow(law, u, order, &planet->curve);
  // The light curve's verdict on the radius and the law, away from the star.
  planet->valid =
      planet->orbit.valid && limb_dark::CurveAwayFromStar(planet->curve, planet->r) == 0;
  planet->light = light;
  Glow& glow = planet->glow;
  for (int j = 0; j < kLightParamCount; ++j) {
    glow.p[j] = light ? p[kParamCount + j] : 0.0;
    planet->valid = planet->valid && IsFinite(glow.p[j]);
  }
  planet->valid = planet->valid && glow.p[kPlanetFlux] >= 0 && glow.p[kNightFlux] >= 0;
  glow.cos_offset = light ? Cos(glow.p[kPhaseOffset]) : 1.0;
  glow.sin_offset = light ? Sin(glow.p[kPhaseOffset]) : 0.0;
}

// F - 1 at dt = t - t0 (0 with the planet behind the star); with d
// non-null, d[j] = dF/d parameter j (Param order); with du non-null,
// du[0..curve.n_du) = dF/du. A refused planet (Planet::valid) or a time
// that is NaN or +-inf gives NaN everywhere. The sky's gradient comes after
// the light curve, from the eccentric anomaly kept: on the GPU the
// gradient is then not live across the light curve's call (docs/gpu.md).
template <typename Curve>
JAXEXT_HD_CALLED double FluxAt(const PlanetOf<Curve>& planet, double dt, double* d,
                               double* du) {
  using namespace detail;
  const int n_du = planet.curve.n_du;
  const bool refused = !planet.valid || !IsFinite(dt);
  const Sky sky = refused ? Sky{} : SkyAt(planet.orbit, dt, false);
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
    double d_b2[kParamCount];
    SkyGradient(planet.orbit, dt, sky.sin_e, sky.cos_e, sky.den, d_b2);
    const double chain = PerSquareOfB(b, f.d_db);
    for (int j = 0; j < kParamCount; ++j) d[j] = chain * d_b2[j];
    d[kRadius] = f.d_dr;
  }
  return f.value;
}

// The planet's light and the star's modulation at one place in the orbit,
// what does not depend on the disks' overlap: with phi = omega + f - pi/2
// the planet's phase angle (0 at inferior conjunction), from the position
// in the orbit's plane (cos(omega + f) = x_w / |x|, sin(omega + f) = y_w /
// |x|),
//   star - 1 = -beaming (cos(omega + f) + e cos omega) - ellipsoidal cos(2 phi),
//   phase = night + (day - night) shape,  shape = (1 - cos(phi + offset)) / 2,
// the star's flux less one and the planet's at full disk, and phase's
// derivative in the offset; with d_xw and d_yw (the position's derivatives,
// SkyGradient's) not null, d_star and d_phase per orbital parameter.
struct LightTerms {
  double shape, phase, d_phase_d_offset, velocity, cos_2phi, star_minus_one;
  double d_star[kParamCount], d_phase[kParamCount];
};

// d star and d phase in parameter j, from LightTermsAt's terms k at the
// position (x_w, y_w) with inv = 1 / |x| and the position's derivatives in
// j (SkyColumn's d_xw and d_yw).
JAXEXT_HD JAXEXT_ALWAYS_INLINE void LightTermsColumn(const Orbit& o, const Glow& glow,
                                                     const LightTerms& k, double xw, double yw,
                                                     double inv, double d_xw, double d_yw,
                                                     int j, double* d_star, double* d_phase) {
  const double* g = glow.p;
  const double cos_wf = xw * inv, sin_wf = yw * inv;
  // d(omega + f) from d x_w and d y_w: (x_w d y_w - y_w d x_w) / |x|^2.
  const double d_angle = (xw * d_yw - yw * d_xw) * inv * inv;
  const double d_cos_wf = -sin_wf * d_angle, d_sin_wf = cos_wf * d_angle;
  const double d_velocity =
      d_cos_wf + (j == kEccentricity ? o.cos_w : 0.0) - (j == kOmega ? o.e * o.sin_w : 0.0);
  const double d_cos_2phi = 2 * (sin_wf * d_sin_wf - cos_wf * d_cos_wf);
  *d_star = -g[kBeaming] * d_velocity - g[kEllipsoidal] * d_cos_2phi;
  // d(phi + offset) = d(omega + f).
  *d_phase = k.d_phase_d_offset * d_angle;
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE LightTerms LightTermsAt(const Orbit& o, const Glow& glow,
                                                       double xw, double yw, double den,
                                                       const double* d_xw, const double* d_yw) {
  const double* g = glow.p;
  LightTerms k;
  const double inv = 1 / (o.a * den);
  const double cos_wf = xw * inv, sin_wf = yw * inv;
  // phi + offset: cos phi = sin(omega + f), sin phi = -cos(omega + f).
  const double cos_po = sin_wf * glow.cos_offset + cos_wf * glow.sin_offset;
  const double sin_po = -cos_wf * glow.cos_offset + sin_wf * glow.sin_offset;
  k.shape = (1 - cos_po) / 2;
  const double day_minus_night = g[kPlanetFlux] - g[kNightFlux];
  k.phase = g[kNightFlux] + day_minus_night * k.shape;
  // d(1 - cos x) / 2 = sin x / 2 dx.
  k.d_phase_d_offset = day_minus_night * sin_po / 2;
  k.velocity = cos_wf + o.e * o.cos_w;
  k.cos_2phi = (sin_wf - cos_wf) * (sin_wf + cos_wf);
  k.star_minus_one = -g[kBeaming] * k.velocity - g[kEllipsoidal] * k.cos_2phi;
  if (d_xw) {
    JAXEXT_UNROLL
    for (int j = 0; j < kParamCount; ++j) {
      LightTermsColumn(o, glow, k, xw, yw, inv, d_xw[j], d_yw[j], j, &k.d_star[j],
                       &k.d_phase[j]);
    }
  }
  return k;
}

// What the disks' overlap does at the separation b: in front, the transit's
// F - 1 of the star's law (`transit`, with dF/du into du where not null);
// behind, the planet's visible share, 1 - (the area the star hides) /
// (pi r^2) (limb_dark::OverlapOfDisks), and its derivatives in b and r (a
// planet of radius 0: hidden behind the disk, b < 1). No overlap (b >= 1 +
// r): {0, 0, 0} and 1.
struct Overlap {
  limb_dark::Flux transit;
  double visible, d_visible_db, d_visible_dr;
};

// The overlap of a planet of radius r > 0 behind the star from the area
// the star hides of it (limb_dark::OverlapOfDisks).
JAXEXT_HD JAXEXT_ALWAYS_INLINE Overlap BehindTheStar(const limb_dark::DiskOverlap& hidden,
                                                     double r) {
  const double disk = math::kPi * r * r;
  return {{0.0, 0.0, 0.0},
          1 - hidden.area / disk,
          -hidden.d_db / disk,
          -hidden.d_dr / disk + 2 * hidden.area / (disk * r)};
}

template <typename Curve>
JAXEXT_HD Overlap OverlapAt(const PlanetOf<Curve>& planet, bool front, double b, double* du) {
  using namespace detail;
  Overlap v = {{0.0, 0.0, 0.0}, 1.0, 0.0, 0.0};
  const double r = planet.r;
  if (front) {
    v.transit = limb_dark::CurveAt(planet.curve, b, r, du);
  } else if (r > 0) {
    v = BehindTheStar(limb_dark::OverlapOfDisks(b, r), r);
  } else {
    v.visible = b < 1 ? 0.0 : 1.0;
  }
  if (!front && du) {
    for (int j = 0; j < planet.curve.n_du; ++j) du[j] = 0;
  }
  return v;
}

// In parameter j: d(b^2), d star and d phase (LightTerms's d_star and
// d_phase).
struct LightColumn {
  double d_b2, d_star, d_phase;
};

// F - 1 = S (1 + delta) - 1 + v P from the terms (LightTermsAt: S = 1 + star
// - 1, P = phase) and the overlap (OverlapAt: delta = transit, v =
// visible), b = sqrt(b^2); with d non-null (and column(j), the
// LightColumn of each parameter j), d[Param], d_glow[LightParam] and du
// (OverlapAt's dF/du, scaled by S here) where not null. kUnrolled: the
// loop over the parameters unrolled (a CPU loop over times around it then
// vectorises over times); else rolled, one column's registers at a time.
template <bool kUnrolled = true, typename Column>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double CombineLightBy(const LightTerms& k, const Overlap& v,
                                                     double b, const Column& column, int n_du,
                                                     double* d, double* d_glow, double* du) {
  const double star = 1 + k.star_minus_one;
  const double one_plus_transit = 1 + v.transit.value;
  if (d) {
    const double per_b2 = PerSquareOfB(b, v.transit.d_db * star + k.phase * v.d_visible_db);
    const auto at = [&](int j) {
      const LightColumn c = column(j);
      d[j] = per_b2 * c.d_b2 + one_plus_transit * c.d_star + v.visible * c.d_phase;
    };
    if constexpr (kUnrolled) {
      JAXEXT_UNROLL
      for (int j = 0; j < kParamCount; ++j) at(j);
    } else {
      JAXEXT_NO_UNROLL
      for (int j = 0; j < kParamCount; ++j) at(j);
    }
    d[kRadius] = v.transit.d_dr * star + k.phase * v.d_visible_dr;
    d_glow[kPlanetFlux] = v.visible * k.shape;
    d_glow[kNightFlux] = v.visible * (1 - k.shape);
    d_glow[kPhaseOffset] = v.visible * k.d_phase_d_offset;
    d_glow[kBeaming] = -k.velocity * one_plus_transit;
    d_glow[kEllipsoidal] = -k.cos_2phi * one_plus_transit;
  }
  if (du) {
    for (int j = 0; j < n_du; ++j) du[j] *= star;
  }
  return v.transit.value * star + k.star_minus_one + v.visible * k.phase;
}

// CombineLightBy with the columns in arrays: d_b2, d(b^2) per parameter,
// and the terms' d_star and d_phase (LightTermsAt with the position's
// derivatives).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double CombineLight(const LightTerms& k, const Overlap& v, double b,
                                                   const double* d_b2, int n_du, double* d,
                                                   double* d_glow, double* du) {
  const auto column = [&](int j) { return LightColumn{d_b2[j], k.d_star[j], k.d_phase[j]}; };
  return CombineLightBy(k, v, b, column, n_du, d, d_glow, du);
}

// F - 1 with the planet's light and the star's modulation (Planet::light),
// the system's flux over the star's unocculted, unmodulated flux, minus one
// (CombineLight of LightTermsAt and OverlapAt at the planet's position).
// d: dF/d parameter (Param order), d_glow: dF/d LightParam, du: dF/du, each
// where not null; NaN everywhere where the planet is refused or dt is NaN
// or infinite. known: null, or the eccentric anomaly at dt (not solved
// again).
template <typename Curve>
JAXEXT_HD_CALLED double LightFluxAt(const PlanetOf<Curve>& planet, double dt, double* d,
                                    double* d_glow, double* du,
                                    const kepler_solve::Eccentric<double>* known = nullptr) {
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
  const Sky sky =
      known ? SkyOfEccentric<false>(planet.orbit, dt, *known) : SkyAt(planet.orbit, dt, false);
  const double b = Sqrt(sky.b2);
  const Overlap overlap = OverlapAt(planet, sky.front, b, du);
  const Orbit& o = planet.orbit;
  const LightTerms terms = LightTermsAt(o, planet.glow, sky.xw, sky.yw, sky.den, nullptr, nullptr);
  // The derivatives a parameter at a time (SkyGradientColumn,
  // LightTermsColumn), the same values as SkyGradient's and LightTermsAt's
  // arrays: on the GPU none of those arrays is held, and the loop stays
  // rolled (168 registers with the arrays; 128 without, 64 B spilled here
  // in the exposed times' batches, 80 B with the loop unrolled; nvcc 13.5,
  // sm_90).
  const PlanePoint p = PlaneAt(o, sky.sin_e, sky.cos_e);
  const double inv_den = 1 / sky.den, inv = 1 / (o.a * sky.den);
  const auto column = [&](int j) {
    const SkyColumn c = SkyGradientColumn(o, p, dt, sky.sin_e, sky.cos_e, inv_den, j);
    LightColumn light;
    light.d_b2 = c.d_b2;
    LightTermsColumn(o, planet.glow, terms, sky.xw, sky.yw, inv, c.d_xw, c.d_yw, j,
                     &light.d_star, &light.d_phase);
    return light;
  };
#ifdef __CUDA_ARCH__
  constexpr bool kUnrolled = false;
#else
  constexpr bool kUnrolled = true;
#endif
  return CombineLightBy<kUnrolled>(terms, overlap, b, column, n_du, d, d_glow, du);
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_PLANET_FLUX_H_
