// The flux averaged over an exposure [t - T/2, t + T/2], and its
// derivatives, exact to the quadrature's accuracy (about 1e-12 and below;
// docs/transit_model.md).
//
// Out of transit F - 1 is 0, so only the parts of the exposure inside the
// transits' windows [tau_1, tau_4] (plus multiples of the period) count.
// Between two breakpoints (contacts.h) F is smooth; at a contact it goes as
// (t - tau_c)^(3/2) times a series in (t - tau_c)^(1/2). On the segment
// [tau_j, tau_j+1] of length L the substitution
//   t = tau_j + L h(x),  h(x) = 3 x^2 - 2 x^3,  x in [0, 1]
// is quadratic at both ends (h(x) ~ 3 x^2, 1 - h ~ 3 (1 - x)^2), so F(t(x))
// h'(x) is a smooth function of x there: the part of the exposure inside the
// segment, [x_p, x_q], is integrated by Gauss-Legendre in x with a number
// of nodes chosen by its length (GaussRuleIndex). Transits wholly inside an
// exposure are one integral over the window, counted as often as they
// recur.
//
// The derivatives: F is continuous, so moving breakpoints add nothing, and
// the derivative of the mean in a parameter is the mean of F's derivative
// (whose own singularity at a contact, (t - tau_c)^(1/2), the substitution
// makes smooth as well); in T, d/dT mean = (F(t + T/2) + F(t - T/2)) / (2 T)
// - mean / T.
#ifndef JAXLIB_EXT_TRANSIT_EXPOSURE_H_
#define JAXLIB_EXT_TRANSIT_EXPOSURE_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/contacts.h"
#include "jaxlib_ext/transit/orbit.h"
#include "jaxlib_ext/transit/planet_flux.h"

namespace jaxext {
namespace transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// The most derivatives in u a time point has (the light curve's).
constexpr int kMaxDerivativesInU = limb_dark::kMaxDerivativesInU;

namespace detail {

// cos(x) for x in [0, pi] by its Taylor series (40 terms; the rules'
// starting points only).
JAXEXT_HD constexpr double TaylorCos(double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < 40; ++k) {
    term *= -x * x / ((2 * k - 1) * (2 * k));
    sum += term;
  }
  return sum;
}

// The Gauss-Legendre rules on [0, 1] of the counts GaussRuleIndex chooses,
// one after another (rule k: count[k] nodes from start[k], ascending).
constexpr int kRuleCount = 8;
struct GaussRules {
  int count[kRuleCount], start[kRuleCount];
  double x[64], w[64];
};

// The rules, computed at compile time: the roots of the Legendre polynomial
// P_n by Newton's method from cos(pi (i + 3/4) / (n + 1/2)), the weights
// 2 / ((1 - x^2) P_n'(x)^2) on [-1, 1]; mapped to [0, 1].
JAXEXT_HD constexpr GaussRules MakeGaussRules() {
  GaussRules rules = {{3, 4, 5, 6, 8, 10, 12, 16}, {}, {}, {}};
  int at = 0;
  for (int k = 0; k < kRuleCount; ++k) {
    const int n = rules.count[k];
    rules.start[k] = at;
    for (int i = 0; i < n; ++i) {
      double x = TaylorCos(kPi * (i + 0.75) / (n + 0.5));
      double derivative = 1;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = x;
        for (int m = 2; m <= n; ++m) {
          const double p2 = ((2 * m - 1) * x * p1 - (m - 1) * p0) / m;
          p0 = p1;
          p1 = p2;
        }
        derivative = n * (x * p1 - p0) / (x * x - 1);
        const double step = p1 / derivative;
        x -= step;
        if (step == 0) break;
      }
      // Root i of P_n is the i-th from +1: ascending on [0, 1] as (1 - x) / 2.
      rules.x[at + i] = (1 - x) / 2;
      rules.w[at + i] = 1 / ((1 - x * x) * derivative * derivative);
    }
    at += n;
  }
  return rules;
}

// Node counts by the length of the interval in x and whether it reaches a
// breakpoint (x = 0 or 1), where F(t(x)) keeps a term x^4 log x (the 3/2
// power, 2-D, of the limb's sqrt: (t - tau_c)^2 log|t - tau_c|): chosen
// from the errors of each count on pieces of segments of six orbits and
// three laws (r up to 0.28), to keep each piece's error below about 1e-10
// times its duration (docs/transit_model.md).
JAXEXT_HD int GaussRuleIndex(double length, bool at_breakpoint) {
  // Indices into GaussRules: 0..7 for 3, 4, 5, 6, 8, 10, 12, 16 nodes.
  if (at_breakpoint) {
    return length <= 0.05 ? 2 : length <= 0.1 ? 3 : length <= 0.3 ? 4 : length <= 0.5 ? 5
           : length <= 0.7 ? 6 : 7;
  }
  return length <= 0.05 ? 0 : length <= 0.1 ? 1 : length <= 0.3 ? 2 : 4;
}

// x in [0, 1] with h(x) = 3 x^2 - 2 x^3 = y (y in [0, 1]): x = 1/2 -
// sin(asin(1 - 2 y) / 3), then one Newton step, which restores the digits
// asin loses next to y = 0 and y = 1.
JAXEXT_HD double Grade(double x) { return x * x * (3 - 2 * x); }
JAXEXT_HD double GradeSlope(double x) { return 6 * x * (1 - x); }
JAXEXT_HD double InverseGrade(double y) {
  using limb_dark::detail::Asin;
  double x = 0.5 - Sin(Asin(1 - 2 * y) / 3);
  const double slope = GradeSlope(x);
  if (slope > 0) x -= (Grade(x) - y) / slope;
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

// Running sums of the weighted flux and its derivatives.
struct Sums {
  double value;
  double d[kParamCount];
  double du[kMaxDerivativesInU];
  int evaluations;
};

JAXEXT_HD void ClearSums(Sums* s, int n_du) {
  s->value = 0;
  for (int j = 0; j < kParamCount; ++j) s->d[j] = 0;
  for (int j = 0; j < n_du; ++j) s->du[j] = 0;
  s->evaluations = 0;
}

// Adds the rule (nodes x, weights w on [0, 1], n of them) over [x_p, x_q]
// of the segment [start, start + length] of the transit `shift` later.
JAXEXT_HD_CALLED void AddRule(const Planet& planet, double start, double length, double x_p,
                              double x_q, double shift, bool derivatives, const double* nodes,
                              const double* weights, int n, Sums* s) {
  const int n_du = planet.curve.n_du;
  const double span = x_q - x_p;
  double d[kParamCount], du[kMaxDerivativesInU];
  for (int i = 0; i < n; ++i) {
    const double x = x_p + span * nodes[i];
    const double weight = span * weights[i] * length * GradeSlope(x);
    const double tau = start + length * Grade(x);
    const double f =
        FluxAt(planet, tau + shift, derivatives ? d : nullptr, derivatives ? du : nullptr);
    s->value += weight * f;
    if (derivatives) {
      for (int j = 0; j < kParamCount; ++j) s->d[j] += weight * d[j];
      for (int j = 0; j < n_du; ++j) s->du[j] += weight * du[j];
    }
  }
  s->evaluations += n;
}

// Adds the integral of F over [lo, hi] (times relative to t0, within one
// transit's window) of the transit `shift` (a multiple of the period) later.
JAXEXT_HD void AddWindowPart(const Planet& planet, const Contacts& c, double lo, double hi,
                             double shift, bool derivatives, Sums* s) {
  for (int j = 0; j + 1 < c.count; ++j) {
    const double start = c.tau[j], end = c.tau[j + 1];
    const double p = lo > start ? lo : start, q = hi < end ? hi : end;
    if (!(p < q)) continue;
    const double length = end - start;
    const double x_p = p <= start ? 0.0 : InverseGrade((p - start) / length);
    const double x_q = q >= end ? 1.0 : InverseGrade((q - start) / length);
    constexpr GaussRules rules = MakeGaussRules();
    const int k = GaussRuleIndex(x_q - x_p, x_p == 0 || x_q == 1);
    AddRule(planet, start, length, x_p, x_q, shift, derivatives, rules.x + rules.start[k],
            rules.w + rules.start[k], rules.count[k], s);
  }
}

}  // namespace detail

// The mean of F - 1 over the exposure [dt - T/2, dt + T/2] (dt = t - t0,
// T > 0); with d non-null, its derivatives in the parameters (d[Param]),
// in u (du[0..n_du)) and in T (*d_dT). *evaluations: how many times F was
// evaluated (the benchmark's count). Refused contacts give NaN everywhere.
JAXEXT_HD_CALLED double ExposureMean(const Planet& planet, const Contacts& c, double dt, double T,
                              double* d, double* du, double* d_dT, int* evaluations) {
  using namespace detail;
  const int n_du = planet.curve.n_du;
  const bool derivatives = d != nullptr;
  *evaluations = 0;
  if (!c.valid || !IsFinite(dt) || !(T > 0) || !IsFinite(T)) {
    if (derivatives) {
      for (int j = 0; j < kParamCount; ++j) d[j] = NaN();
      for (int j = 0; j < n_du; ++j) du[j] = NaN();
      *d_dT = NaN();
    }
    return NaN();
  }
  Sums s;
  ClearSums(&s, n_du);
  const double period = planet.orbit.period;
  const double w0 = dt - T / 2, w1 = dt + T / 2;
  if (c.count > 0) {
    const double first = c.tau[0], last = c.tau[c.count - 1];
    // Transits k (windows [first, last] + k P) that meet the exposure.
    const double k_lo = Ceil((w0 - last) / period);
    const double k_hi = Floor((w1 - first) / period);
    double full = 0, full_k = 0;  // transits wholly inside: their count and sum of k
    for (double k = k_lo; k <= k_hi; k = k == k_lo && k_hi > k_lo + 1 ? k_hi : k + 1) {
      const double lo = w0 - k * period, hi = w1 - k * period;
      if (lo <= first && hi >= last) {
        full += 1;
        full_k += k;
      } else {
        AddWindowPart(planet, c, lo, hi, k * period, derivatives, &s);
      }
    }
    // The transits strictly between k_lo and k_hi are whole.
    if (k_hi > k_lo + 1) {
      const double count = k_hi - k_lo - 1;
      full += count;
      full_k += count * (k_lo + k_hi) / 2;
    }
    if (full > 0) {
      // One whole transit at k = 0; at k P later, dF/dP gains k dF/dt0 (M
      // depends on (t - t0) / P), the other derivatives are the same.
      Sums whole;
      ClearSums(&whole, n_du);
      AddWindowPart(planet, c, first, last, 0.0, derivatives, &whole);
      s.value += full * whole.value;
      if (derivatives) {
        for (int j = 0; j < kParamCount; ++j) s.d[j] += full * whole.d[j];
        s.d[kPeriod] += full_k * whole.d[kT0];
        for (int j = 0; j < n_du; ++j) s.du[j] += full * whole.du[j];
      }
      s.evaluations += whole.evaluations;
    }
  }
  const double mean = s.value / T;
  if (derivatives) {
    for (int j = 0; j < kParamCount; ++j) d[j] = s.d[j] / T;
    for (int j = 0; j < n_du; ++j) du[j] = s.du[j] / T;
    const double ends = FluxAt(planet, w0, nullptr, nullptr) + FluxAt(planet, w1, nullptr, nullptr);
    *d_dT = (ends / 2 - mean) / T;
  }
  *evaluations = s.evaluations;
  return mean;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace transit
}  // namespace jaxext

#endif  // JAXLIB_EXT_TRANSIT_EXPOSURE_H_
