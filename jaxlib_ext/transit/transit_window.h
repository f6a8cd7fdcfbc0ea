// Where in its orbit a planet can overlap the star at all: a window of
// times around each conjunction, found without solving Kepler's equation,
// outside which F - 1 is exactly 0 (a CPU loop skips the orbit there).
//
// With f_c = pi/2 - omega the true anomaly at conjunction and f = f_c +
// delta, the rotated position is x_w = d cos(omega + f) = -d sin(delta),
// y_w = d cos(delta), with d = a (1 - e cos E) >= a (1 - e). So
//   b >= |x_w| >= a (1 - e) |sin(delta)|,
// and b >= 1 + r wherever |sin(delta)| >= s = (1 + r) / (a (1 - e)); and
// where cos(delta) < 0, Z = y_w sin(i) < 0 (sin i > 0): behind the star. For
// s < 1 and delta_w = asin(s) < pi/2 the planet can overlap the star only
// for |delta| < delta_w (mod 2 pi). The window is that range of true
// anomaly, widened (kWiden), as a range of mean anomaly (monotonic in f),
// then of time.
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_WINDOW_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_WINDOW_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/transit/orbit.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// The times dt = t - t0 with (dt - start) mod period < width; every time
// where `every` (no window: an orbit that can overlap the star far from
// conjunction, sin i <= 0, or a refused orbit).
struct TransitWindow {
  bool every;
  double start, width, period;
};

namespace detail {

// The mean anomaly at the true anomaly f (e < 1).
JAXEXT_HD double MeanAnomalyAt(double f, double e) {
  const double ecc_anomaly = EccentricAnomalyAt(f, e);
  return ecc_anomaly - e * Sin(ecc_anomaly);
}

// x reduced into [0, 2 pi).
JAXEXT_HD double TurnFraction(double x) { return x - 2 * kPi * Floor(x / (2 * kPi)); }

}  // namespace detail

// The factor on s: a margin far above the rounding of b, M and the window's
// own arithmetic, the sky distance within it computed exactly as elsewhere.
constexpr double kWiden = 1.01;

JAXEXT_HD TransitWindow MakeTransitWindow(const Orbit& o, double r) {
  using namespace detail;
  TransitWindow w = {true, 0.0, 0.0, o.period};
  const double s = kWiden * (1 + r) / (o.a * (1 - o.e));
  // delta_w below about 1.43 (sin 0.99): the opposite side stays behind.
  if (!o.valid || !(s < 0.99) || !(o.sin_i > 0)) return w;
  const double delta = math::Asin(s);
  const double f_c = kPi / 2 - o.omega;
  // The mean anomalies at f_c -+ delta_w, relative to M_c, into
  // (-2 pi, 0] and [0, 2 pi).
  const double before = TurnFraction(MeanAnomalyAt(f_c - delta, o.e) - o.mean_at_t0) - 2 * kPi;
  const double after = TurnFraction(MeanAnomalyAt(f_c + delta, o.e) - o.mean_at_t0);
  w.every = false;
  w.start = before / o.mean_motion;
  w.width = (after - before) / o.mean_motion;
  return w;
}

namespace detail {

// How far dt - start lies into its orbit: in [0, period] (period itself
// where rounding gives it), NaN for NaN and +-inf.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double IntoOrbit(const TransitWindow& w, double dt) {
  const double q = dt - w.start;
  return q - w.period * Floor(q / w.period);
}

}  // namespace detail

// Whether the planet may overlap the star at dt (false for NaN and +-inf).
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool MayTransit(const TransitWindow& w, double dt) {
  return w.every || detail::IntoOrbit(w, dt) < w.width;
}

// Whether the whole exposure [dt - T/2, dt + T/2] (T >= 0, finite dt) lies
// between two windows: false where `every`, and where rounding puts its
// start at exactly a period into the orbit (MayTransit says no transit
// there; this test keeps the exposure).
JAXEXT_HD bool ExposureMissesWindows(const TransitWindow& w, double dt, double T) {
  const double into = detail::IntoOrbit(w, dt - T / 2);
  return !w.every && into >= w.width && into + T < w.period;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_WINDOW_H_
