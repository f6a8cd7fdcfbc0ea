// The flux averaged over an exposure [t - T/2, t + T/2], and its
// derivatives, exact to the quadrature's accuracy (within 1e-9, 2.5e-10
// the worst measured; docs/transit_model.md).
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
#include "jaxlib_ext/math/nodes.h"
#include "jaxlib_ext/transit/contacts.h"
#include "jaxlib_ext/transit/orbit.h"
#include "jaxlib_ext/transit/planet_flux.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// The most derivatives in u a time point has (the light curve's).
constexpr int kMaxDerivativesInU = limb_dark::kMaxDerivativesInU;

namespace detail {

// The Gauss-Legendre rules on [0, 1] of the counts GaussRuleIndex chooses,
// one after another in nodes.h's ExposureRuleNode and ExposureRuleWeight
// (rule k: ExposureRuleCount's k-th count of nodes, ascending), read with
// TableAt (on the device from constant memory: a local table indexed by a
// variable would be copied into each thread's stack).
constexpr int kRuleCount = 8;
static_assert(sizeof(math::ExposureRuleCount().v) / sizeof(int) == kRuleCount, "nodes.h's rules");
struct GaussRule {
  int count, start;  // rule k's nodes, and its first node's index
};
JAXEXT_HD GaussRule GaussRuleOf(int k) {
  GaussRule rule = {TableAt<math::ExposureRuleCount>(k), 0};
  for (int j = 0; j < k; ++j) rule.start += TableAt<math::ExposureRuleCount>(j);
  return rule;
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
  double x = 0.5 - Sin(math::Asin(1 - 2 * y) / 3);
  const double slope = GradeSlope(x);
  if (slope > 0) x -= (Grade(x) - y) / slope;
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

// Visits the nodes of the rule (on [0, 1]) over [x_p, x_q] of the segment
// [start, start + length] of the transit `shift` later: visit(time
// relative to t0, weight).
template <typename Visit>
JAXEXT_HD void VisitRule(double start, double length, double x_p, double x_q, double shift,
                         const GaussRule& rule, Visit& visit) {
  const double span = x_q - x_p;
  for (int i = 0; i < rule.count; ++i) {
    const double x = x_p + span * TableAt<math::ExposureRuleNode>(rule.start + i);
    const double w = TableAt<math::ExposureRuleWeight>(rule.start + i);
    visit(start + length * Grade(x) + shift, span * w * length * GradeSlope(x));
  }
}

// Whether segment j of the breakpoints is smooth (OrbitBreaks): a
// transit's segments never are.
JAXEXT_HD bool IsSmooth(const Contacts&, int) { return false; }
JAXEXT_HD bool IsSmooth(const OrbitBreaks& b, int j) { return b.smooth[j]; }

// The eccentric anomaly at dt (relative to t0), continuous in time:
// E = M + e sin E with M unreduced.
JAXEXT_HD double EccentricAnomalyOfTime(const OrbitBreaks& b, double dt) {
  const double m = b.mean_at_t0 + b.mean_motion * dt;
  return m + b.e * kepler_solve::SolveElement(m, b.e).s;
}

// Visits the nodes of [p, q] (times relative to t0, within a smooth
// segment of OrbitBreaks) of the orbit `shift` later, in the eccentric
// anomaly E: dt = (1 - e cos E) dE / n, where F is analytic but at
// cos E = 1/e, E = +-i acosh(1/e) (1 - e cos E = 0, where sin f and cos f
// have their poles). [E_p, E_q] is cut into pieces of half-width h at most
// min(pi/16, acosh(1/e) / 4) (at most kMaxSmoothPieces of them), each
// integrated by Gauss-Legendre with n nodes, rho^(-2 n) <= e^-32 for
// rho = d/h + sqrt(1 + (d/h)^2) (Gauss-Legendre's error bound for a pole at
// distance d; d capped at 2, where F is a trigonometric polynomial of
// degree 2 in E). The weights are scaled to sum to q - p exactly, so that
// the rounding of E_p and E_q does not reach the mean. Each node is
// visited with its eccentric anomaly (visit(time, weight, &E)), which the
// flux then need not solve for. Returns the nodes' number.
constexpr int kMaxSmoothPieces = 4096;
template <typename Visit>
JAXEXT_HD int VisitSmoothPart(const OrbitBreaks& b, double p, double q, double shift,
                              Visit& visit) {
  const double e_p = EccentricAnomalyOfTime(b, p), e_q = EccentricAnomalyOfTime(b, q);
  const double pole = b.e > 0 ? math::Log((1 + Sqrt((1 - b.e) * (1 + b.e))) / b.e) : 2.0;
  const double d = pole < 2 ? pole : 2.0;
  const double widest = d / 4 < kPi / 16 ? d / 4 : kPi / 16;
  double pieces = Ceil((e_q - e_p) / (2 * widest));
  pieces = pieces < 1 ? 1 : pieces > kMaxSmoothPieces ? kMaxSmoothPieces : pieces;
  const double width = (e_q - e_p) / pieces, ratio = 2 * d / width;
  const double rho = ratio + Sqrt(1 + ratio * ratio);
  const double wanted = 16 / math::Log(rho);
  int k = 0;  // at most 8 nodes: h <= d / 4
  while (k < 4 && TableAt<math::ExposureRuleCount>(k) < wanted) ++k;
  const GaussRule rule = GaussRuleOf(k);
  // The weights' sum first (the scale), then the visits.
  double sum = 0;
  for (int piece = 0; piece < pieces; ++piece) {
    for (int i = 0; i < rule.count; ++i) {
      const double x = TableAt<math::ExposureRuleNode>(rule.start + i);
      const double big_e = e_p + width * (piece + x);
      sum += TableAt<math::ExposureRuleWeight>(rule.start + i) * (1 - b.e * Cos(big_e));
    }
  }
  const double scale = (q - p) / sum;
  for (int piece = 0; piece < pieces; ++piece) {
    for (int i = 0; i < rule.count; ++i) {
      const double x = TableAt<math::ExposureRuleNode>(rule.start + i);
      const double big_e = e_p + width * (piece + x);
      const double sin_e = Sin(big_e), cos_e = Cos(big_e);
      const double node = (big_e - b.e * sin_e - b.mean_at_t0) / b.mean_motion;
      const kepler_solve::Eccentric<double> known = EccentricOf(sin_e, cos_e, b.e);
      const double w = TableAt<math::ExposureRuleWeight>(rule.start + i);
      visit(node + shift, scale * w * (1 - b.e * cos_e), &known);
    }
  }
  return static_cast<int>(pieces) * rule.count;
}
template <typename Visit>
JAXEXT_HD int VisitSmoothPart(const Contacts&, double, double, double, Visit&) {
  return 0;
}

// Visits the nodes of the integral of F over [lo, hi] (times relative to
// t0, within one transit's window, or one orbit's with OrbitBreaks) of the
// window `shift` (a multiple of the period) later; returns their number.
template <typename Breaks, typename Visit>
JAXEXT_HD int VisitWindowPart(const Breaks& c, double lo, double hi, double shift,
                              Visit& visit) {
  int count = 0;
  for (int j = 0; j + 1 < c.count; ++j) {
    const double start = c.tau[j], end = c.tau[j + 1];
    const double p = lo > start ? lo : start, q = hi < end ? hi : end;
    if (!(p < q)) continue;
    if (IsSmooth(c, j)) {
      count += VisitSmoothPart(c, p, q, shift, visit);
      continue;
    }
    const double length = end - start;
    const double x_p = p <= start ? 0.0 : InverseGrade((p - start) / length);
    const double x_q = q >= end ? 1.0 : InverseGrade((q - start) / length);
    const GaussRule rule = GaussRuleOf(GaussRuleIndex(x_q - x_p, x_p == 0 || x_q == 1));
    VisitRule(start, length, x_p, x_q, shift, rule, visit);
    count += rule.count;
  }
  return count;
}

}  // namespace detail

// The most nodes an exposure's quadrature of the transit alone (Contacts)
// has: two partial transits and a whole one, each up to three segments of
// the largest rule.
constexpr int kMaxExposureNodes =
    3 * 3 * math::ExposureRuleCount().v[detail::kRuleCount - 1];

// Where a node's weighted F goes: the partial transits' sum, or the whole
// transit's (at k = 0, counted as often as whole transits recur).
enum class NodeSum { kPart, kWhole };

// The largest orbit index (k of a transit at t0 + k P) an exposure's plan
// works with: up to 2^52 the indices, their differences and k + 1 are exact
// in a double, and an exposure's place in its orbit is resolved.
constexpr double kMaxOrbitIndex = 4503599627370496.0;  // 2^52
// The orbits beyond which an exposure's mean is taken as the orbit average:
// the two partial transits at its ends then weigh at most 2^-31 of the mean
// (relative), below the quadrature's own error (1e-9 of the depth).
constexpr double kAveragedOrbits = 4294967296.0;  // 2^32

// An exposure's quadrature, as VisitExposureNodes lays it out.
struct ExposurePlan {
  bool valid;            // false: NaN everywhere (refused contacts, time or T)
  double full, full_k;   // the whole transits: their count and the sum of their k
  int evaluations;       // the nodes visited
  // The exposure spans more than kAveragedOrbits orbits: its mean is the
  // orbit average, the whole transit's integral over the period (the exact
  // mean to a relative 2^-31: the partial transits at its ends are
  // dropped); `full` is then 1 / P, the whole transits per unit time.
  bool averaged;
};

// Visits the nodes of the mean of F - 1 over the exposure
// [dt - T/2, dt + T/2] (dt = t - t0, T > 0): visit(node, weight, NodeSum),
// node a time relative to t0. With Contacts, the windows are the transits
// and out of transit there are none; with OrbitBreaks (the planet's light),
// the windows are whole orbits. At most two
// partial transits and one whole one, whatever the inputs: an exposure of
// more than kAveragedOrbits orbits is averaged (ExposurePlan::averaged); one
// of fewer centred more than kMaxOrbitIndex orbits from t0, where the
// exposure's place in its orbit is lost to rounding, is not valid (NaN).
template <typename Breaks, typename Visit>
JAXEXT_HD ExposurePlan VisitExposureNodes(const Breaks& c, double period, double dt, double T,
                                          Visit& visit) {
  using namespace detail;
  ExposurePlan plan = {c.valid && IsFinite(dt) && T > 0 && IsFinite(T), 0.0, 0.0, 0, false};
  if (!plan.valid || c.count == 0) return plan;
  const double first = c.tau[0], last = c.tau[c.count - 1];
  if (T / period > kAveragedOrbits) {
    plan.averaged = true;
    plan.full = 1 / period;
    auto whole = [&visit](double node, double weight, const auto*... known) {
      visit(node, weight, NodeSum::kWhole, known...);
    };
    plan.evaluations = VisitWindowPart(c, first, last, 0.0, whole);
    return plan;
  }
  if (!(Abs(dt) / period <= kMaxOrbitIndex)) {
    plan.valid = false;
    return plan;
  }
  const double w0 = dt - T / 2, w1 = dt + T / 2;
  auto part = [&visit](double node, double weight, const auto*... known) {
    visit(node, weight, NodeSum::kPart, known...);
  };
  // Transits k (windows [first, last] + k P) that meet the exposure.
  const double k_lo = Ceil((w0 - last) / period);
  const double k_hi = Floor((w1 - first) / period);
  // The first and the last transit (one when k_lo = k_hi, none when the
  // exposure falls between two); those between are whole.
  const int ends = k_lo < k_hi ? 2 : k_lo == k_hi ? 1 : 0;
  for (int end = 0; end < ends; ++end) {
    const double k = end == 0 ? k_lo : k_hi;
    const double lo = w0 - k * period, hi = w1 - k * period;
    if (lo <= first && hi >= last) {
      plan.full += 1;
      plan.full_k += k;
    } else {
      plan.evaluations += VisitWindowPart(c, lo, hi, k * period, part);
    }
  }
  // The transits strictly between k_lo and k_hi are whole.
  if (k_hi > k_lo + 1) {
    const double count = k_hi - k_lo - 1;
    plan.full += count;
    plan.full_k += count * (k_lo + k_hi) / 2;
  }
  if (plan.full > 0) {
    auto whole = [&visit](double node, double weight, const auto*... known) {
      visit(node, weight, NodeSum::kWhole, known...);
    };
    plan.evaluations += VisitWindowPart(c, first, last, 0.0, whole);
  }
  return plan;
}

// Running sums of the weighted flux and its derivatives, of the partial
// transits and of the whole one (with the planet's light, orbits); at most
// kMaxDu derivatives in u.
template <int kMaxDu>
struct ExposureSums {
  struct Sum {
    double value;
    double d[kParamCount];
    double du[kMaxDu];
    double glow[kLightParamCount];
  } part, whole;
};

template <int kMaxDu>
JAXEXT_HD void ClearExposureSums(ExposureSums<kMaxDu>* s, int n_du) {
  s->part.value = s->whole.value = 0;
  for (int j = 0; j < kParamCount; ++j) s->part.d[j] = s->whole.d[j] = 0;
  for (int j = 0; j < n_du; ++j) s->part.du[j] = s->whole.du[j] = 0;
  for (int j = 0; j < kLightParamCount; ++j) s->part.glow[j] = s->whole.glow[j] = 0;
}

// Adds a node's F (f) and, with d non-null, its derivatives (d, du and,
// where not null, d_glow) times its weight.
template <int kMaxDu>
JAXEXT_HD void AddNode(double weight, NodeSum into, double f, const double* d, const double* du,
                       int n_du, ExposureSums<kMaxDu>* s, const double* d_glow = nullptr) {
  typename ExposureSums<kMaxDu>::Sum& sum = into == NodeSum::kWhole ? s->whole : s->part;
  sum.value += weight * f;
  if (d) {
    for (int j = 0; j < kParamCount; ++j) sum.d[j] += weight * d[j];
    for (int j = 0; j < n_du; ++j) sum.du[j] += weight * du[j];
  }
  if (d_glow) {
    for (int j = 0; j < kLightParamCount; ++j) sum.glow[j] += weight * d_glow[j];
  }
}

// The mean from the sums of its plan, and with d non-null its derivatives in
// the parameters (d[Param]), in u (du[0..n_du)), in T (*d_dT; `ends`:
// F(t - T/2) + F(t + T/2)) and, where d_glow is not null, in the planet's
// light (d_glow[LightParam]; periodic in time, with no term in k).
template <int kMaxDu>
JAXEXT_HD double FinishExposure(const ExposurePlan& plan, const ExposureSums<kMaxDu>& s, double T,
                                double ends, int n_du, double* d, double* du, double* d_dT,
                                double* d_glow = nullptr) {
  using namespace detail;
  if (d_glow) {
    const double whole = plan.averaged ? plan.full : plan.full / T;
    const double part = plan.averaged ? 0.0 : 1 / T;
    for (int j = 0; j < kLightParamCount; ++j) {
      d_glow[j] = plan.valid ? part * s.part.glow[j] + whole * s.whole.glow[j] : NaN();
    }
  }
  if (!plan.valid) {
    if (d) {
      for (int j = 0; j < kParamCount; ++j) d[j] = NaN();
      for (int j = 0; j < n_du; ++j) du[j] = NaN();
      *d_dT = NaN();
    }
    return NaN();
  }
  if (plan.averaged) {
    // The orbit average W / P of the whole transit's integral W: its
    // derivatives are those of W over P, and in P also -W / P^2.
    const double mean = plan.full * s.whole.value;
    if (d) {
      for (int j = 0; j < kParamCount; ++j) d[j] = plan.full * s.whole.d[j];
      d[kPeriod] -= plan.full * mean;
      for (int j = 0; j < n_du; ++j) du[j] = plan.full * s.whole.du[j];
      *d_dT = (ends / 2 - mean) / T;
    }
    return mean;
  }
  // One whole transit at k = 0; at k P later, dF/dP gains k dF/dt0 (M
  // depends on (t - t0) / P), the other derivatives are the same.
  const double mean = (s.part.value + plan.full * s.whole.value) / T;
  if (d) {
    for (int j = 0; j < kParamCount; ++j) {
      const double sum = s.part.d[j] + plan.full * s.whole.d[j];
      d[j] = (j == kPeriod ? sum + plan.full_k * s.whole.d[kT0] : sum) / T;
    }
    for (int j = 0; j < n_du; ++j) du[j] = (s.part.du[j] + plan.full * s.whole.du[j]) / T;
    *d_dT = (ends / 2 - mean) / T;
  }
  return mean;
}

// FinishExposure with the planet's light: d_glow[LightParam] where d and
// d_glow are not null, and for an exposure averaged over the orbit the
// term of F at the orbit's start (`start`, F at OrbitBreaks's tau[0]: read
// only then) in dF/dP.
template <int kMaxDu>
JAXEXT_HD double FinishLightExposure(const ExposurePlan& plan, const ExposureSums<kMaxDu>& s,
                                     double T, double ends, double start, int n_du, double* d,
                                     double* du, double* d_dT, double* d_glow) {
  const double mean = FinishExposure(plan, s, T, ends, n_du, d, du, d_dT, d ? d_glow : nullptr);
  if (d && plan.valid && plan.averaged) {
    // The orbit average does not depend on P; the whole orbit's integral W
    // from tau[0] to tau[0] + P has dW/dP = F(tau[0]) + its nodes' sum of
    // dF/dP (a transit's window, with F = 0 at its ends, has no such term).
    d[kPeriod] += plan.full * start;
  }
  return mean;
}

// The mean of F - 1 over the exposure [dt - T/2, dt + T/2] (dt = t - t0,
// T > 0), its nodes evaluated one at a time; with d non-null, its
// derivatives (FinishExposure). *evaluations: how many times F was
// evaluated for the mean (the benchmark's count). Refused contacts give NaN
// everywhere.
// The nodes are taken kNodeChunk at a time: the plan is visited again for
// each chunk, the chunk's nodes copied out, then F evaluated at each in the
// order of one visit (the same sums to the bit). So the visit's loop state
// is not live across F's call, around which ptxas spilled it on the GPU
// (380 B in this function, sm_90; none so). A transit's exposure has about
// 11 nodes (at most kMaxExposureNodes): most take two visits.
constexpr int kNodeChunk = 8;
template <typename Curve>
JAXEXT_HD_CALLED double ExposureMean(const PlanetOf<Curve>& planet, const Contacts& c, double dt,
                                     double T, double* d, double* du, double* d_dT,
                                     int* evaluations) {
  const int n_du = planet.curve.n_du;
  ExposureSums<Curve::kMaxDerivatives> s;
  ClearExposureSums(&s, n_du);
  double node_d[kParamCount], node_du[Curve::kMaxDerivatives];
  double chunk_node[kNodeChunk], chunk_weight[kNodeChunk];
  ExposurePlan plan;
  for (int first = 0;; first += kNodeChunk) {
    int taken = 0, index = 0;
    unsigned whole = 0;  // bit k: chunk node k goes to NodeSum::kWhole
    auto copy = [&](double node, double weight, NodeSum into) {
      if (index >= first && index < first + kNodeChunk) {
        chunk_node[taken] = node;
        chunk_weight[taken] = weight;
        whole |= static_cast<unsigned>(into == NodeSum::kWhole) << taken++;
      }
      ++index;
    };
    plan = VisitExposureNodes(c, planet.orbit.period, dt, T, copy);
    for (int k = 0; k < taken; ++k) {
      const double f = FluxAt(planet, chunk_node[k], d ? node_d : nullptr, d ? node_du : nullptr);
      AddNode(chunk_weight[k], (whole >> k) & 1 ? NodeSum::kWhole : NodeSum::kPart, f,
              d ? node_d : nullptr, node_du, n_du, &s);
    }
    if (first + kNodeChunk >= plan.evaluations) break;
  }
  const double ends = d && plan.valid ? FluxAt(planet, dt - T / 2, nullptr, nullptr) +
                                            FluxAt(planet, dt + T / 2, nullptr, nullptr)
                                      : 0.0;
  *evaluations = plan.evaluations;
  return FinishExposure(plan, s, T, ends, n_du, d, du, d_dT);
}

// ExposureMean with the planet's light (LightFluxAt), over the orbit's
// breakpoints; with d non-null, d_glow[LightParam] too.
template <typename Curve>
JAXEXT_HD_CALLED double LightExposureMean(const PlanetOf<Curve>& planet, const OrbitBreaks& b,
                                          double dt, double T, double* d, double* d_glow,
                                          double* du, double* d_dT, int* evaluations) {
  const int n_du = planet.curve.n_du;
  ExposureSums<Curve::kMaxDerivatives> s;
  ClearExposureSums(&s, n_du);
  double node_d[kParamCount], node_glow[kLightParamCount],
      node_du[Curve::kMaxDerivatives];
  auto visit = [&](double node, double weight, NodeSum into, const auto*... known) {
    const double f = LightFluxAt(planet, node, d ? node_d : nullptr, d ? node_glow : nullptr,
                                 d ? node_du : nullptr, known...);
    AddNode(weight, into, f, d ? node_d : nullptr, node_du, n_du, &s,
            d ? node_glow : nullptr);
  };
  const ExposurePlan plan = VisitExposureNodes(b, planet.orbit.period, dt, T, visit);
  const double ends =
      d && plan.valid ? LightFluxAt(planet, dt - T / 2, nullptr, nullptr, nullptr) +
                            LightFluxAt(planet, dt + T / 2, nullptr, nullptr, nullptr)
                      : 0.0;
  const double start = d && plan.valid && plan.averaged
                           ? LightFluxAt(planet, b.tau[0], nullptr, nullptr, nullptr)
                           : 0.0;
  *evaluations = plan.evaluations;
  return FinishLightExposure(plan, s, T, ends, start, n_du, d, du, d_dT, d_glow);
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_EXPOSURE_H_
