// The contact times of a transit (and of a secondary eclipse): where the
// planet's disk meets the star's limb from outside (b = 1 + r) and from
// inside (b = |1 - r|), around the time of least separation near
// conjunction. The flux is smooth between them and goes as a 3/2 power of
// the time at each (exposure.h splits its integrals there).
#ifndef JAXLIB_EXT_TRANSIT_CONTACTS_H_
#define JAXLIB_EXT_TRANSIT_CONTACTS_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/transit/orbit.h"
#include "jaxlib_ext/transit/planet_flux.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// The transit's breakpoints, times relative to t0 (one transit; the others
// are these plus multiples of the period), ascending:
//   count 0: no transit (the planet never overlaps the star);
//   count 3: grazing, (first contact, least separation, last contact);
//   count 4: full, the outer and inner contacts (tau_1, tau_2, tau_3, tau_4).
// valid false: the breakpoints are not defined (a refused planet, or an
// orbit whose periastron distance a (1 - e) is not beyond 1 + r, which
// passes through the star).
struct Contacts {
  bool valid;
  int count;
  double tau[4];
};

namespace detail {

// b^2 - R^2 and its derivative in time at dt.
struct Miss {
  double value, slope;
};

JAXEXT_HD Miss MissAt(const Orbit& o, double dt, double radius2) {
  const Sky s = SkyAt(o, dt, true);
  // M depends on t - t0 alone: d/dt = -d/dt0.
  return {s.b2 - radius2, -s.d_b2[kT0]};
}

// The root of b^2(dt) = R^2 between lo (b < R) and the side's direction
// `side` (+1 later, -1 earlier), from the start `guess` (a distance from
// lo): the bracket widened until b >= R, then Newton's method kept inside it
// (bisection where a step would leave it).
JAXEXT_HD double ContactTime(const Orbit& o, double lo, double side, double guess,
                             double radius2, double limit) {
  double step = guess;
  double hi = lo + side * step;
  int widen = 0;
  while (MissAt(o, hi, radius2).value < 0) {
    step *= 2;
    hi = lo + side * step;
    if (++widen > 64 || step > limit) return NaN();
  }
  // Invariant: miss(lo) < 0 <= miss(hi), in the direction `side`.
  double x = hi;
  for (int it = 0; it < 100; ++it) {
    const Miss m = MissAt(o, x, radius2);
    if (m.value < 0) {
      lo = x;
    } else {
      hi = x;
    }
    double next = x - m.value / m.slope;
    const bool inside = side > 0 ? (next > lo && next < hi) : (next < lo && next > hi);
    if (!inside || !(m.slope == m.slope)) next = (lo + hi) / 2;
    const double moved = Abs(next - x);
    x = next;
    if (moved <= 1e-15 * (Abs(x) + Abs(hi - lo)) || hi == lo) break;
  }
  return x;
}

// The first step from the least separation towards a contact at radius^2
// R^2: a little beyond the straight-line crossing at the conjunction's speed.
JAXEXT_HD double FirstStep(double radius2, double b2_min, double scale) {
  return (1.1 * Sqrt(radius2 - b2_min) + 1e-4) * scale;
}

// The contacts of the conjunction near `centre` (a time relative to t0)
// where the planet crosses the star's line of sight at sky speed `speed`
// (stellar radii per unit time): the transit's at inferior conjunction, the
// eclipse's at superior conjunction (b^2 is the same function of time in
// front and behind).
JAXEXT_HD Contacts ContactsNear(const PlanetBody& planet, double centre, double speed) {
  Contacts c = {};
  const Orbit& o = planet.orbit;
  const double r = planet.r;
  c.valid = planet.valid && o.a * (1 - o.e) > 1 + r;
  if (!c.valid) return c;
  const double scale = 1 / speed;
  // Least separation: Newton's method on d(b^2)/dt = 0 from the
  // conjunction, its slope by central differences.
  double t_min = centre;
  const double h = 1e-4 * scale;
  for (int it = 0; it < 50; ++it) {
    const double g = MissAt(o, t_min, 0).slope;
    const double curvature =
        (MissAt(o, t_min + h, 0).slope - MissAt(o, t_min - h, 0).slope) / (2 * h);
    if (!(curvature > 0)) break;
    const double step = g / curvature;
    t_min -= step;
    if (Abs(step) <= 1e-14 * scale) break;
  }
  const double b2_min = SkyAt(o, t_min, false).b2;
  const double outer = (1 + r) * (1 + r), inner = (1 - r) * (1 - r);
  if (!(b2_min < outer)) return c;  // no transit (no eclipse)
  // The widest a transit can be is half an orbit.
  const double limit = o.period / 2;
  const double first = ContactTime(o, t_min, -1, FirstStep(outer, b2_min, scale), outer, limit);
  const double last = ContactTime(o, t_min, 1, FirstStep(outer, b2_min, scale), outer, limit);
  if (b2_min < inner) {
    c.count = 4;
    c.tau[0] = first;
    c.tau[1] = ContactTime(o, t_min, -1, FirstStep(inner, b2_min, scale), inner, limit);
    c.tau[2] = ContactTime(o, t_min, 1, FirstStep(inner, b2_min, scale), inner, limit);
    c.tau[3] = last;
  } else {
    c.count = 3;
    c.tau[0] = first;
    c.tau[1] = t_min;
    c.tau[2] = last;
  }
  for (int k = 0; k < c.count; ++k) c.valid = c.valid && c.tau[k] == c.tau[k];
  return c;
}

}  // namespace detail

// The transit's contacts. The time scale: the sky speed at inferior
// conjunction, n a (1 + e sin w) / sqrt(1 - e^2).
JAXEXT_HD_CALLED Contacts FindContacts(const PlanetBody& planet) {
  const Orbit& o = planet.orbit;
  return detail::ContactsNear(planet, 0.0, o.mean_motion * o.a * (1 + o.e * o.sin_w) / o.root);
}

// The secondary eclipse's contacts, around superior conjunction (true
// anomaly 3 pi / 2 - omega, the first after t0), where the sky speed is
// n a (1 - e sin w) / sqrt(1 - e^2).
JAXEXT_HD_CALLED Contacts FindEclipseContacts(const PlanetBody& planet) {
  using namespace detail;
  const Orbit& o = planet.orbit;
  const double e_s = EccentricAnomalyAt(1.5 * kPi - o.omega, o.e);
  const double turns = (e_s - o.e * Sin(e_s) - o.mean_at_t0) / (2 * kPi);
  const double centre = (turns - Floor(turns)) * o.period;
  return ContactsNear(planet, centre, o.mean_motion * o.a * (1 - o.e * o.sin_w) / o.root);
}

// One orbit's breakpoints with the planet's light, times relative to t0,
// ascending from tau[0] to tau[count - 1] = tau[0] + P: the transit's
// contacts, the eclipse's, and the next transit's first. Segment j, from
// tau[j] to tau[j + 1], is `smooth` between the two events, where F is the
// phase curve and the star's modulation alone (analytic in the eccentric
// anomaly, exposure.h integrates it there); within an event it goes as a
// 3/2 power of the time at each contact, as the transit does. The orbit
// starts at the transit's first contact, or the eclipse's without a
// transit, or t0 without either. valid: as Contacts'.
struct OrbitBreaks {
  bool valid;
  int count;
  double tau[9];
  bool smooth[8];
  // The orbit's numbers the smooth segments use: M at t0, 2 pi / P, e.
  double mean_at_t0, mean_motion, e;
};

JAXEXT_HD_CALLED OrbitBreaks FindOrbitBreaks(const PlanetBody& planet) {
  using namespace detail;
  OrbitBreaks b = {};
  const Orbit& o = planet.orbit;
  b.mean_at_t0 = o.mean_at_t0;
  b.mean_motion = o.mean_motion;
  b.e = o.e;
  const Contacts transit = FindContacts(planet), eclipse = FindEclipseContacts(planet);
  b.valid = transit.valid && eclipse.valid;
  if (!b.valid) return b;
  const double start = transit.count ? transit.tau[0] : eclipse.count ? eclipse.tau[0] : 0.0;
  for (int k = 0; k < transit.count; ++k) {
    b.smooth[b.count] = k + 1 == transit.count;
    b.tau[b.count++] = transit.tau[k];
  }
  // The eclipse within (start, start + P): the events do not overlap, as
  // the orbit stays beyond 1 + r from the star's centre.
  const double shift = Floor((eclipse.count ? eclipse.tau[0] - start : 0.0) / o.period) *
                       o.period;
  for (int k = 0; k < eclipse.count; ++k) {
    b.smooth[b.count] = k + 1 == eclipse.count;
    b.tau[b.count++] = eclipse.tau[k] - shift;
  }
  if (b.count == 0) b.smooth[b.count++] = true;  // tau[0] = 0
  b.tau[b.count++] = start + o.period;
  return b;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_CONTACTS_H_
