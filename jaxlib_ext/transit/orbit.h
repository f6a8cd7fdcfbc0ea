// A planet's Keplerian orbit seen from the observer: its projected
// separation from the star's centre at a time, and that separation's
// derivatives in the orbital parameters.
//
// Conventions (batman's and jaxoplanet's; derived in docs/transit_model.md):
// t0 is a time of inferior conjunction, where the planet's true anomaly is
// f_c = pi/2 - omega (omega the planet's argument of periastron); the mean
// anomaly is M = M_c + 2 pi (t - t0) / P with M_c that of f_c. In the
// orbit's plane, with E solving Kepler's equation M = E - e sin E,
//   x = a (cos E - e),  y = a sqrt(1 - e^2) sin E        (from periastron),
// rotated by omega: (x_w, y_w) = (x cos w - y sin w, x sin w + y cos w)
// = d (cos(omega + f), sin(omega + f)), d = a (1 - e cos E); on the sky
//   b^2 = x_w^2 + cos(i)^2 y_w^2,   Z = y_w sin i  (Z > 0: in front).
// The inclination is given as i itself or by the impact parameter at
// conjunction, b0 = a cos i (1 - e^2) / (1 + e sin omega).
#ifndef JAXLIB_EXT_TRANSIT_ORBIT_H_
#define JAXLIB_EXT_TRANSIT_ORBIT_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/kepler_solve/kepler_solve.h"
#include "jaxlib_ext/math/elementary.h"


namespace jaxext::transit {

// (The types here and in transit.h's Outputs are shared by every CPU
// variant's copy of the math: outside its namespace.)

// The orbital parameters, in the order of the op's parameter row
// (transit_ffi.h); kRadius, the planet's radius, is the light curve's.
enum Param {
  kPeriod = 0,
  kT0 = 1,
  kSemiMajor = 2,
  kInclination = 3,  // the impact parameter b0 or the inclination i, by Geometry
  kRadius = 4,
  kEccentricity = 5,
  kOmega = 6,
  kParamCount = 7,
};

// The planet's own light and the star's modulation (planet_flux.h): in a
// row after the orbital parameters when the op's `light` attribute is 1,
// their derivatives after dF/dT.
enum LightParam {
  kPlanetFlux = 0,   // the day side's flux over the star's (batman's fp)
  kNightFlux = 1,    // the night side's
  kPhaseOffset = 2,  // radians; positive: the maximum before the eclipse
  kBeaming = 3,      // the star's flux by its radial velocity, per semi-amplitude
  kEllipsoidal = 4,  // the star's ellipsoidal variation's amplitude
  kLightParamCount = 5,
};

// How the row gives the inclination (the op's `geometry` attribute).
enum class Geometry { kImpactParameter = 0, kInclination = 1 };

inline namespace JAXEXT_MATH_NAMESPACE {

namespace detail {
using math::kPi;
using math::Abs;
using math::Atan2;
using math::Ceil;
using math::Cos;
using math::Floor;
using math::IsFinite;
using math::NaN;
using math::Sin;
using math::Sqrt;
// The eccentric anomaly at the true anomaly f (e < 1): tan(E/2) =
// sqrt((1-e)/(1+e)) tan(f/2).
JAXEXT_HD double EccentricAnomalyAt(double f, double e) {
  return 2 * Atan2(Sqrt(1 - e) * Sin(f / 2), Sqrt(1 + e) * Cos(f / 2));
}

}  // namespace detail

// One row's orbit made ready for its times.
struct Orbit {
  bool valid;  // false: a parameter outside its domain (every output NaN)
  double period, t0, a, e, omega;
  double mean_motion;          // 2 pi / P
  double sin_w, cos_w;         // of omega
  double root;                 // sqrt(1 - e^2)
  double cos_i, sin_i;         // sin i >= 0 for the impact parameter
  double d_cos_i[kParamCount];  // d cos i / d parameter
  double mean_at_t0;           // M_c
  double d_mean_at_t0_de, d_mean_at_t0_dw;
};

JAXEXT_HD Orbit MakeOrbit(const double* p, Geometry geometry) {
  using namespace detail;
  Orbit o = {};
  o.period = p[kPeriod];
  o.t0 = p[kT0];
  o.a = p[kSemiMajor];
  o.e = p[kEccentricity];
  o.omega = p[kOmega];
  const double incl = p[kInclination];
  o.valid = o.period > 0 && IsFinite(o.period) && IsFinite(o.t0) && o.a > 0 &&
            IsFinite(o.a) && o.e >= 0 && o.e < 1 && IsFinite(o.omega) && IsFinite(incl);
  o.mean_motion = 2 * kPi / o.period;
  o.sin_w = Sin(o.omega);
  o.cos_w = Cos(o.omega);
  const double one_minus_e2 = (1 - o.e) * (1 + o.e);
  o.root = Sqrt(one_minus_e2);
  if (geometry == Geometry::kImpactParameter) {
    const double factor = (1 + o.e * o.sin_w) / (o.a * one_minus_e2);
    o.cos_i = incl * factor;
    o.valid = o.valid && incl >= 0 && o.cos_i <= 1;
    o.sin_i = Sqrt((1 - o.cos_i) * (1 + o.cos_i));
    o.d_cos_i[kInclination] = factor;
    o.d_cos_i[kSemiMajor] = -o.cos_i / o.a;
    o.d_cos_i[kEccentricity] =
        incl * (o.sin_w * one_minus_e2 + 2 * o.e * (1 + o.e * o.sin_w)) /
        (o.a * one_minus_e2 * one_minus_e2);
    o.d_cos_i[kOmega] = incl * o.e * o.cos_w / (o.a * one_minus_e2);
  } else {
    o.cos_i = Cos(incl);
    o.sin_i = Sin(incl);
    o.d_cos_i[kInclination] = -o.sin_i;
  }
  // The conjunction: f_c = pi/2 - omega; dM/df = (1 - e cos E)^2 /
  // sqrt(1 - e^2) and, at fixed f, dE/de = -sin E / (1 - e^2).
  const double e_c = EccentricAnomalyAt(kPi / 2 - o.omega, o.e);
  const double sin_ec = Sin(e_c), cos_ec = Cos(e_c);
  const double den = 1 - o.e * cos_ec;
  o.mean_at_t0 = e_c - o.e * sin_ec;
  o.d_mean_at_t0_dw = -den * den / o.root;
  o.d_mean_at_t0_de = -sin_ec * (den / one_minus_e2 + 1);
  return o;
}

// The sky position at dt = t - t0: b^2, whether the planet is in front (Z > 0),
// the eccentric anomaly there (SkyGradient's input) and, when asked,
// d(b^2)/d parameter for each parameter (kRadius's 0). SkyAtFixed, the
// question fixed at compile time, is what a CPU loop over times inlines and
// vectorises.
struct Sky {
  double b2;
  bool front;
  double sin_e, cos_e, den;  // sin E, cos E, 1 - e cos E
  double xw, yw;             // the position in the orbit's plane, rotated by omega
  double d_b2[kParamCount];
};

// The planet in the orbit's plane, from periastron (x, y) and rotated by
// omega (x_w, y_w), from the eccentric anomaly's sine and cosine.
struct PlanePoint {
  double x, y, xw, yw;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE PlanePoint PlaneAt(const Orbit& o, double sin_e, double cos_e) {
  PlanePoint p;
  p.x = o.a * (cos_e - o.e);
  p.y = o.a * o.root * sin_e;
  p.xw = p.x * o.cos_w - p.y * o.sin_w;
  p.yw = p.x * o.sin_w + p.y * o.cos_w;
  return p;
}

// The derivatives in parameter j of the position in the orbit's plane
// rotated by omega (x_w, y_w) and of b^2 (kRadius's 0), at dt, from the
// planet there (PlaneAt), the eccentric anomaly's sine and cosine and
// inv_den = 1 / (1 - e cos E).
struct SkyColumn {
  double d_xw, d_yw, d_b2;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE SkyColumn SkyGradientColumn(const Orbit& o, const PlanePoint& p,
                                                         double dt, double sin_e, double cos_e,
                                                         double inv_den, int j) {
  const double c2 = o.cos_i * o.cos_i;
  // dM in parameter j, and the direct dependences on e, omega and a.
  const double d_mean = j == kT0            ? -o.mean_motion
                        : j == kPeriod       ? -o.mean_motion * dt / o.period
                        : j == kEccentricity ? o.d_mean_at_t0_de
                        : j == kOmega        ? o.d_mean_at_t0_dw
                                             : 0.0;
  const double de = j == kEccentricity ? 1.0 : 0.0;
  const double dw = j == kOmega ? 1.0 : 0.0;
  const double da = j == kSemiMajor ? 1.0 : 0.0;
  const double d_ecc_anomaly = (d_mean + sin_e * de) * inv_den;
  const double dx = -o.a * sin_e * d_ecc_anomaly - o.a * de + p.x / o.a * da;
  const double dy = o.a * o.root * cos_e * d_ecc_anomaly - o.a * o.e / o.root * sin_e * de +
                    p.y / o.a * da;
  SkyColumn c;
  c.d_xw = dx * o.cos_w - dy * o.sin_w - p.yw * dw;
  c.d_yw = dx * o.sin_w + dy * o.cos_w + p.xw * dw;
  c.d_b2 = 2 * (p.xw * c.d_xw + c2 * p.yw * c.d_yw + o.cos_i * o.d_cos_i[j] * p.yw * p.yw);
  return c;
}

// d(b^2)/d parameter at dt, for each parameter (kRadius's 0), from the
// eccentric anomaly there: its sine and cosine and den = 1 - e cos E; and,
// where d_xw and d_yw are not null, the derivatives of (x_w, y_w) too.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void SkyGradient(const Orbit& o, double dt, double sin_e,
                                                double cos_e, double den, double* d_b2,
                                                double* d_xw = nullptr,
                                                double* d_yw = nullptr) {
  const PlanePoint p = PlaneAt(o, sin_e, cos_e);
  const double inv_den = 1 / den;
  // Unrolled, so that a CPU loop over times around this vectorises over times.
  JAXEXT_UNROLL
  for (int j = 0; j < kParamCount; ++j) {
    const SkyColumn c = SkyGradientColumn(o, p, dt, sin_e, cos_e, inv_den, j);
    d_b2[j] = c.d_b2;
    if (d_xw) {
      d_xw[j] = c.d_xw;
      d_yw[j] = c.d_yw;
    }
  }
}

// The eccentric anomaly at dt (kepler_solve's). kCircular: for an orbit of
// e = 0, E = M without a solve (SolveCircular: the same values for a
// finite dt).
template <bool kCircular = false>
JAXEXT_HD JAXEXT_ALWAYS_INLINE kepler_solve::Eccentric<double> EccentricAt(const Orbit& o,
                                                                          double dt) {
  const double mean = o.mean_at_t0 + o.mean_motion * dt;
  return kCircular ? kepler_solve::SolveCircular(mean) : kepler_solve::SolveElement(mean, o.e);
}

// The sky position at dt from its eccentric anomaly, solved (SkyAtFixed) or
// known (the exposures' nodes in E: exposure.h).
template <bool kGradient>
JAXEXT_HD JAXEXT_ALWAYS_INLINE Sky SkyOfEccentric(const Orbit& o, double dt,
                                                 const kepler_solve::Eccentric<double>& ecc) {
  Sky s;
  const PlanePoint p = PlaneAt(o, ecc.s, ecc.c);
  s.b2 = p.xw * p.xw + o.cos_i * o.cos_i * p.yw * p.yw;
  s.front = p.yw * o.sin_i > 0;
  s.xw = p.xw;
  s.yw = p.yw;
  s.sin_e = ecc.s;
  s.cos_e = ecc.c;
  s.den = kepler_solve::OneMinusECos(ecc);
  if (kGradient) SkyGradient(o, dt, s.sin_e, s.cos_e, s.den, s.d_b2);
  return s;
}

template <bool kGradient>
JAXEXT_HD JAXEXT_ALWAYS_INLINE Sky SkyAtFixed(const Orbit& o, double dt) {
  return SkyOfEccentric<kGradient>(o, dt, EccentricAt(o, dt));
}

// E's solve from E itself (sin E, cos E, 1 - cos E = sin^2 E / (1 + cos E)
// where cos E > 0, without cancellation next to E = 0) for an orbit of
// eccentricity e.
JAXEXT_HD JAXEXT_ALWAYS_INLINE kepler_solve::Eccentric<double> EccentricOf(double sin_e,
                                                                         double cos_e,
                                                                         double e) {
  const double omc = cos_e > 0 ? sin_e * sin_e / (1 + cos_e) : 1 - cos_e;
  return {sin_e, cos_e, omc, e, false};
}

JAXEXT_HD_CALLED Sky SkyAt(const Orbit& o, double dt, bool with_gradient) {
  return with_gradient ? SkyAtFixed<true>(o, dt) : SkyAtFixed<false>(o, dt);
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_ORBIT_H_
