// The edge rules: the flux a law blocks as an integral over the occultor's
// edge inside the disk (the divergence theorem; EdgeHornerNodes below says
// how), by quadratures chosen for where the occultor is: inside the disk
// (InsideEdgeIntegrals, InsideEdgeFlux), crossing its limb
// (CrossingEdgeFlux) and next to contact (ContactEdgeFlux); ChooseEdgeRule,
// at the end, says which serves where.
#ifndef JAXLIB_EXT_LIMB_DARK_EDGE_RULES_H_
#define JAXLIB_EXT_LIMB_DARK_EDGE_RULES_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/math/nodes.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

namespace detail {

// InsideEdgeIntegrals serves x = 2 b r / (1 - b^2 - r^2) up to this: its
// rule's error grows with x (below).
constexpr double kEdgeRuleMaxX = 0.5;

// The sum of a quadrature rule's N node values, in an order that a CPU
// compiler vectorises: eight lanes (lane k sums v_k, v_{k+8}, ... over the
// full groups of eight), the lanes in pairs, then the rest one at a time (a
// loop's running sum sets the order of one add at a time, which it keeps).
// Fewer than eight values (a node at a time on the device path, N = 1):
// one at a time.
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double SumOfNodes(const double* v) {
  if constexpr (N < 8) {
    double sum = v[0];
    for (int j = 1; j < N; ++j) sum += v[j];
    return sum;
  } else {
    double lane[8];
    for (int k = 0; k < 8; ++k) lane[k] = v[k];
    for (int j = 8; j + 8 <= N; j += 8) {
      for (int k = 0; k < 8; ++k) lane[k] += v[j + k];
    }
    for (int k = 0; k < 4; ++k) lane[k] += lane[k + 4];
    double sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (int j = N / 8 * 8; j < N; ++j) sum += v[j];
    return sum;
  }
}

// The flux a law I(z) = 1 - sum_n u_n (1 - z)^n blocks, by the divergence
// theorem with the radial field H(rho) (x, y) / rho^2, H(rho) the integral
// of I rho' drho' from 0 to rho (divergence I; regular at rho = 0, unlike a
// field that vanishes on the limb): over a region of the disk bounded by
// the occultor's arc and part of the limb,
//   blocked = H(1) (the limb's angle inside the occultor)
//           + integral over the arc of (H / rho^2) (x dy - y dx),
// and on the occultor's edge, psi its angle from the point nearest the
// star's centre, x dy - y dx = (r^2 - b r cos psi) dpsi. With w = 1 - z and
// rho^2 = w (2 - w), H / rho^2 = P(w) / (1 + z), P(w) = sum_m q_m w^m the
// edge polynomial of the law (EdgePolynomial): one value per node, of the
// size of the intensity, whatever the law. The Green's basis instead sums
// s_n g_n with g_n up to ~30 times the normalisation for steep laws, each
// s_n a few ulps of 1 off. H(1) = P(1) = norm / (2 pi) (EdgeAtLimb).
//
// EdgeHornerNodes: h[j] = F(z[j]) = P(1 - z[j]) / (1 + z[j]) for j < N,
// each step of Horner's scheme over all nodes at once (loops a CPU compiler
// vectorises, one node per lane).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void EdgeHornerNodes(const double* q, int degree,
                                                    const double* z, double* h) {
  double w[N];
  for (int j = 0; j < N; ++j) {
    w[j] = 1 - z[j];
    h[j] = q[degree];
  }
  for (int m = degree - 1; m >= 0; --m) {
    for (int j = 0; j < N; ++j) h[j] = h[j] * w[j] + q[m];
  }
  for (int j = 0; j < N; ++j) h[j] /= 1 + z[j];
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE double EdgeAtLimb(const double* q, int degree) {
  double p1 = 0;
  for (int m = degree; m >= 0; --m) p1 += q[m];
  return p1;
}

// The rules on a GPU (JAXEXT_DEVICE_PATH): one node after another straight
// into the sums, the loop rolled and the nodes' tables read with TableAt
// (constant memory), where the CPU's arrays of a rule's N values per
// thread would live in local memory (the sums' order differs from
// SumOfNodes' by rounding). EdgeHornerAt: EdgeHornerNodes' value at one
// node, the same steps.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double EdgeHornerAt(const double* q, int degree, double z) {
  const double w = 1 - z;
  double h = q[degree];
  for (int m = degree - 1; m >= 0; --m) h = h * w + q[m];
  return h / (1 + z);
}

template <int N, typename NodeAt>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double SumNodeByNode(const NodeAt& node_at) {
  double sum = 0;
  JAXEXT_NO_UNROLL
  for (int j = 0; j < N; ++j) sum += node_at(j);
  return sum;
}

// The trapezoidal rule over the whole edge of an occultor inside the disk,
// psi in [-pi, pi] in 2 (N - 1) steps, for integrands even in psi: its N
// nodes in [0, pi], the end ones at half weight. Fills z[j] = sqrt(a + 2 b
// r cos psi_j) (a = 1 - b^2 - r^2) and edge[j] = (r^2 - b r cos psi_j)
// times the node's weight, and returns twice the step (each node but the
// ends stands for two), by which the sum of the nodes' values is multiplied.
// HalfPeriodNodeAt: node j's z and edge from cos psi_j (r2 = r^2, br = b r).
struct HalfPeriodNode {
  double z, edge;
};
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE HalfPeriodNode HalfPeriodNodeAt(int j, double cos_psi, double r2,
                                                               double br, double a) {
  const double weight = (j == 0 || j == N - 1) ? 0.5 : 1.0;
  return {Sqrt(a + 2 * br * cos_psi), weight * (r2 - br * cos_psi)};
}
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double HalfPeriodTwiceStep() {
  return 2 * (2 * kPi / (2 * (N - 1)));
}
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double HalfPeriodNodes(double b, double r, double a, double* z,
                                                      double* edge) {
  constexpr Table<N> kCos = HalfPeriodCos<N>();
  const double r2 = r * r, br = b * r;
  for (int j = 0; j < N; ++j) {
    const HalfPeriodNode node = HalfPeriodNodeAt<N>(j, kCos.v[j], r2, br, a);
    z[j] = node.z;
    edge[j] = node.edge;
  }
  return HalfPeriodTwiceStep<N>();
}

// For an occultor inside the disk (b + r <= 1) with x = 2 b r / a <= 1/2
// (kEdgeRuleMaxX), a = 1 - b^2 - r^2: s_n = -P(G_n) for n = 3..n_max and
// the linear term's deficit s_1 - 2 pi / 3 = -J_1, J_1 the integral of z
// over the occultor, as integrals over its edge with terms of their own size.
// On the edge z^2 = a + 2 b r cos psi, and
//   P(G_n) = integral of z^n (r^2 - b r cos psi),
//   J_1    = integral of (z + 1 / (1 + z)) (r^2 - b r cos psi) / 3,
// over psi in [-pi, pi] (J_1 by the divergence theorem with the radial field
// (1 - z^3) / (3 rho^2) (x, y), whose divergence is z; (1 - z^3) / (1 - z^2)
// = z + 1 / (1 + z)). For a small occultor these are of order r^2, and the
// closed forms (LowOrderTerms' Lambda, SolutionVector's M_n) take them as
// differences of terms of order 1: up to ~4e-16 off in J_1 and ~2e-15 in
// s_n at r ~ 0.1 in double, which a law whose Green's coefficients are
// large against its normalisation multiplies (~35 times for some
// six-coefficient laws with a non-increasing intensity). The integrands are
// periodic and analytic in a strip of half-width acosh(1 / x) (z = 0 off
// the real axis), so the trapezoidal rule converges geometrically: 32 nodes
// give ~1e-17 absolute at r <= 0.1 and a few ulps of the integrals beyond
// (measured against mpmath); for even n it is exact (a trigonometric
// polynomial of degree n / 2 + 1 < 32). The integrands are even in psi: 17
// nodes in [0, pi], the end ones at half weight.
// Unless q is null, also *blocked = the flux a law blocks (unnormalised),
// by the same rule: the integral of F(z) (r^2 - b r cos psi) (F =
// EdgeHornerNodes, above).
JAXEXT_HD void InsideEdgeIntegrals(double b, double r, double a, int n_max,
                                   double* s, double* deficit1,
                                   const double* q, int degree, double* blocked) {
  constexpr int kNodes = 17;
#if JAXEXT_DEVICE_PATH
  const double r2 = r * r, br = b * r, twice_step = HalfPeriodTwiceStep<kNodes>();
  double linear = 0, law = 0;
  for (int n = 3; n <= n_max; ++n) s[n] = 0;
  JAXEXT_NO_UNROLL
  for (int j = 0; j < kNodes; ++j) {
    const HalfPeriodNode node =
        HalfPeriodNodeAt<kNodes>(j, TableAt<HalfPeriodCos<kNodes>>(j), r2, br, a);
    const double z = node.z;
    linear += (z + 1 / (1 + z)) * node.edge;
    if (q) law += EdgeHornerAt(q, degree, z) * node.edge;
    double term = z * z * z * node.edge;
    for (int n = 3; n <= n_max; ++n) {
      s[n] += term;
      term *= z;
    }
  }
  if (q) *blocked = twice_step * law;
  for (int n = 3; n <= n_max; ++n) s[n] = -twice_step * s[n];
  *deficit1 = -twice_step * linear / 3;
#else
  double z[kNodes], edge[kNodes], term[kNodes], linear[kNodes];
  const double twice_step = HalfPeriodNodes<kNodes>(b, r, a, z, edge);
  for (int j = 0; j < kNodes; ++j) {
    linear[j] = (z[j] + 1 / (1 + z[j])) * edge[j];
    term[j] = z[j] * z[j] * z[j] * edge[j];  // z^n (r^2 - b r cos psi), n = 3
  }
  if (q) {
    double law[kNodes];
    EdgeHornerNodes<kNodes>(q, degree, z, law);
    for (int j = 0; j < kNodes; ++j) law[j] *= edge[j];
    *blocked = twice_step * SumOfNodes<kNodes>(law);
  }
  for (int n = 3; n <= n_max; ++n) {
    s[n] = -twice_step * SumOfNodes<kNodes>(term);
    for (int j = 0; j < kNodes; ++j) term[j] *= z[j];
  }
  *deficit1 = -twice_step * SumOfNodes<kNodes>(linear) / 3;
#endif
}

// InsideEdgeFlux serves x = 2 b r / (1 - b^2 - r^2) up to this (where
// InsideEdgeIntegrals does not): its rule is within ~1e-16 of the integral
// up to x = 0.9 (against mpmath), 4e-12 at 0.99.
constexpr double kWideEdgeRuleMaxX = 0.85;

// The flux a law blocks (unnormalised) for an occultor inside the disk with
// 1/2 < x <= 0.85 (kWideEdgeRuleMaxX), as InsideEdgeIntegrals' *blocked
// with 64 steps instead of 32: its integrand's branch points (z = 0, at
// distance acosh(1 / x) from the real axis) come nearer as x grows.
JAXEXT_HD double InsideEdgeFlux(double b, double r, double a, const double* q, int degree) {
  constexpr int kNodes = 33;
#if JAXEXT_DEVICE_PATH
  const double r2 = r * r, br = b * r;
  return HalfPeriodTwiceStep<kNodes>() * SumNodeByNode<kNodes>([&](int j) {
           const HalfPeriodNode node =
               HalfPeriodNodeAt<kNodes>(j, TableAt<HalfPeriodCos<kNodes>>(j), r2, br, a);
           return EdgeHornerAt(q, degree, node.z) * node.edge;
         });
#else
  double z[kNodes], edge[kNodes], law[kNodes];
  const double twice_step = HalfPeriodNodes<kNodes>(b, r, a, z, edge);
  EdgeHornerNodes<kNodes>(q, degree, z, law);
  for (int j = 0; j < kNodes; ++j) law[j] *= edge[j];
  return twice_step * SumOfNodes<kNodes>(law);
#endif
}

// CrossingEdgeFlux serves crossing occultors with k^2 below this: the
// integrand's singularities (sin(theta) = 1 / k, at distance acosh(1 / k)
// from theta = pi / 2) slow its rule's convergence as k^2 grows; at 0.95 the
// rule is within 0.07 ulp of the integral (in exact arithmetic; 2.3 ulps at
// 0.98).
constexpr double kCrossingRuleMaxK2 = 0.95;

// For an occultor crossing the limb with k^2 < 0.95 (kCrossingRuleMaxK2),
// laws of three or more coefficients: the flux the law blocks, over the
// lens (occultor and disk overlapping), unnormalised: the limb's share
// H(1) 2 kappa1 (H(1) = P(1), EdgeAtLimb; over the same norm as the arc's,
// which for laws of many coefficients differs from 2 pi P(1) by the Green's
// coefficients' rounding) plus the integral of F(z) (EdgeHornerNodes) (r^2
// - b r cos psi) over the occultor's arc inside the disk, psi in [-kappa0,
// kappa0]. With sin(psi / 2) = k sin(theta) the square root that z has at
// the arc's ends goes away: z = c cos(theta), c^2 = 1 - (b - r)^2, r^2 - b r
// cos psi = r (r - b) + c^2 sin^2(theta) / 2, dpsi = 2 k cos(theta) dtheta /
// sqrt(1 - k^2 sin^2(theta)), an even integrand analytic across theta in
// [-pi/2, pi/2], done by 32-point Gauss-Legendre on [0, pi/2] (its
// accuracy: docs/accuracy_and_speed.md, the edge rules).
JAXEXT_HD double CrossingEdgeFlux(const Geometry& geo, const double* q, int degree) {
  constexpr int kNodes = 32;
  const double b = geo.b, r = geo.r;
  const double c2 = geo.one_minus_bmr2, c = Sqrt(c2), k2 = geo.k2;
  const double r_rmb = r * (r - b);
  // theta_j, w_j: Gauss-Legendre on [0, pi/2]; cos(theta_j), sin^2(theta_j).
  // Node j's weight, times F(z_j) its value.
  const auto weight = [&](double w, double cos_t, double sin2) JAXEXT_ALWAYS_INLINE {
    return w * (r_rmb + 0.5 * c2 * sin2) * cos_t / Sqrt(1 - k2 * sin2);
  };
#if JAXEXT_DEVICE_PATH
  const double sum = SumNodeByNode<kNodes>([&](int j) {
    const double cos_t = TableAt<GaussHalfPiCos>(j);
    return EdgeHornerAt(q, degree, c * cos_t) *
           weight(TableAt<GaussHalfPiWeight>(j), cos_t, TableAt<GaussHalfPiSin2>(j));
  });
#else
  constexpr Table<kNodes> kCos = GaussHalfPiCos();
  constexpr Table<kNodes> kSin2 = GaussHalfPiSin2();
  constexpr Table<kNodes> kWeight = GaussHalfPiWeight();
  double z[kNodes], v[kNodes];
  for (int j = 0; j < kNodes; ++j) z[j] = c * kCos.v[j];
  EdgeHornerNodes<kNodes>(q, degree, z, v);
  for (int j = 0; j < kNodes; ++j) v[j] *= weight(kWeight.v[j], kCos.v[j], kSin2.v[j]);
  const double sum = SumOfNodes<kNodes>(v);
#endif
  // Both halves of the arc, times 2 k from dpsi.
  return 2 * geo.kappa1 * EdgeAtLimb(q, degree) + 4 * Sqrt(k2) * sum;
}

// P(w2) and the divided difference (P(w1) - P(w2)) / (w1 - w2) of the edge
// polynomial, by Horner's scheme for both: with P_k(w) = P_{k+1}(w) w + q_k,
// the difference d_k = d_{k+1} w1 + P_{k+1}(w2). No cancellation where w1
// and w2 are close.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void EdgeDividedDifference(const double* q, int degree,
                                                          double w1, double w2,
                                                          double* p2, double* dd) {
  double p = q[degree], d = 0;
  for (int m = degree - 1; m >= 0; --m) {
    d = d * w1 + p;
    p = p * w2 + q[m];
  }
  *p2 = p;
  *dd = d;
}

// The contact rule's second variable (ContactEdgeFlux, below; the laws'
// ContactLawMoments): u / 2 = eps sinh(t) inside the disk, eps cosh(t)
// crossing (eps = u_lo / 2), t in [0, t_max], t_max where u = pi.
struct ContactMap {
  bool crossing;
  double eps, t_max, br, z2_min;
  double sin_eps, cos_eps, sin_2eps, cos_2eps;  // for the angle sums, crossing
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE ContactMap MakeContactMap(const Geometry& geo, double eps) {
  ContactMap map;
  map.crossing = !geo.inside;
  map.eps = eps;
  map.t_max = map.crossing ? Acosh(0.5 * kPi / eps) : Asinh(0.5 * kPi / eps);
  map.br = geo.b * geo.r;
  map.z2_min = geo.one_minus_bpr2;
  const double s1 = Sin(eps), c1 = Cos(eps);
  map.sin_eps = s1;
  map.cos_eps = c1;
  map.sin_2eps = 2 * s1 * c1;
  map.cos_2eps = (c1 - s1) * (c1 + s1);
  return map;
}

// At t: sin(u / 2), du / dt and z^2 = Z^2 + 4 b r sin^2(u / 2).
struct ContactPoint {
  double sin_half, du, z2;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE ContactPoint ContactMapAt(const ContactMap& map, double t) {
  // sinh and cosh of y = t / 2 (crossing) or t (inside) from one expm1,
  // without cancellation: e^y = 1 + m, sinh y = (m + m / (1 + m)) / 2,
  // cosh y = sinh y + 1 / (1 + m).
  const double y = map.crossing ? 0.5 * t : t;
  const double m = Expm1OfNode(y), inv = 1 / (1 + m);
  const double sh = 0.5 * (m + m * inv), ch = sh + inv;
  const double eps = map.eps;
  ContactPoint p;
  if (map.crossing) {
    // u / 2 = eps cosh t = delta + eps, delta = 2 eps sinh^2(t / 2); u / 2
    // - u_lo / 2 = delta and u / 2 + u_lo / 2 = delta + 2 eps, so that
    // sin^2(u / 2) - sin^2(u_lo / 2) = sin(delta) sin(delta + 2 eps), a
    // product without cancellation next to the arc's end; every angle sum
    // below adds positive terms (delta + 2 eps <= pi / 2 + eps < pi).
    const double delta = 2 * eps * sh * sh;
    const SinCos delta_sc = SinCosOfNode(delta);
    const double sd = delta_sc.sin, cd = delta_sc.cos;
    p.sin_half = sd * map.cos_eps + cd * map.sin_eps;
    p.du = 4 * eps * sh * ch;
    p.z2 = 4 * map.br * sd * (sd * map.cos_2eps + cd * map.sin_2eps);
  } else {
    p.sin_half = SinCosOfNode(eps * sh).sin;
    p.du = 2 * eps * ch;
    p.z2 = map.z2_min + 4 * map.br * p.sin_half * p.sin_half;
  }
  return p;
}

// Below this k' = sqrt(|1 - (b + r)^2| / (4 b r)), ContactEdgeFlux takes the
// occultor as touching the limb: the part it leaves out is of order
// 4 b r k'^2 log(1 / k'), below 1e-18.
constexpr double kContactMinK = 1e-10;

// For laws of three or more coefficients where the other edge rules do not
// serve: the occultor crossing the limb with k^2 >= 0.95
// (kCrossingRuleMaxK2) or inside the disk with 2 b r > 0.85 (1 - b^2 - r^2)
// (kWideEdgeRuleMaxX), near where the two limbs touch inside (k^2 = 1, b +
// r = 1). The flux the law blocks, unnormalised, as CrossingEdgeFlux's: the
// limb's share (crossing) plus twice the integral of F(z) E(u) over u = pi -
// psi in [u_lo, pi], F(z) = P(1 - z) / (1 + z) (EdgeHornerNodes), E = r^2 -
// b r cos psi = r (r + b) - 2 b r sin^2(u / 2), u_lo = 0 inside and the
// arc's end crossing. On the
// edge z^2 = Z^2 + X^2, X = 2 sqrt(b r) sin(u / 2), Z^2 = 1 - (b + r)^2
// (negative where crossing), so z has branch points at sin(u / 2) = +-i k'
// (inside; crossing, the arc's end sin(u_lo / 2) = k'), k'^2 = |Z^2| / (4 b
// r): next to u = 0 as the limbs near contact, where neither rule above
// converges. Split F(z) = F(X) + D:
// - F(X) is analytic in u (X is): 32-point Gauss-Legendre on [u_lo, pi];
// - D = F(z) - F(X) = -(z - X) (P[1 - z, 1 - X] + P(1 - X) / (1 + X)) /
//   (1 + z), with z - X = Z^2 / (z + X) and the divided difference of P
//   (EdgeDividedDifference): formed without cancellation, and of order Z^2
//   / X away from u_lo, so what is left to resolve is a small term next to
//   the branch points: with u / 2 = eps sinh(t) (inside, eps = k') or eps
//   cosh(t) (crossing, eps = u_lo / 2), which puts them at t ~ +-i pi / 2
//   and takes the square root at the arc's end away, 32-point Gauss-Legendre
//   in t up to u = pi.
// Its accuracy: docs/accuracy_and_speed.md, the edge rules.
JAXEXT_HD double ContactEdgeFlux(const Geometry& geo, const double* q, int degree) {
  constexpr int kNodes = 32;
#if !JAXEXT_DEVICE_PATH
  // Gauss-Legendre on [0, 1]: nodes and weights.
  constexpr Table<kNodes> kNode = GaussUnitNode();
  constexpr Table<kNodes> kWeight = GaussUnitWeight();
#endif
  const double b = geo.b, r = geo.r, br = b * r, root_br = Sqrt(br);
  const double z2_min = geo.one_minus_bpr2;  // Z^2: z^2 at u = 0, < 0 crossing
  const bool crossing = !geo.inside;
  const double kp = Sqrt(Abs(z2_min) / (4 * br));
  const double eps = crossing ? Asin(Min(1.0, kp)) : kp;
  const double u_lo = crossing ? 2 * eps : 0.0;
  const double r_rpb = r * (r + b);
  // F(X) E over [u_lo, pi]: X at node s of [0, 1].
  const double span = kPi - u_lo;
  const auto x_at = [&](double s) JAXEXT_ALWAYS_INLINE {
    return 2 * root_br * SinCosOfNode(0.5 * (u_lo + span * s)).sin;
  };
  // D E, t in [0, t_max] (u = pi at t_max): node s of [0, 1], weight w.
  const auto d_at = [&](const ContactMap& map, double s, double w) JAXEXT_ALWAYS_INLINE {
    const ContactPoint p = ContactMapAt(map, map.t_max * s);
    const double z = Sqrt(Max(p.z2, 0.0));
    const double x = 2 * root_br * p.sin_half;
    double p_x, dd;
    EdgeDividedDifference(q, degree, 1 - z, 1 - x, &p_x, &dd);
    const double d = -(z2_min / (z + x)) * (dd + p_x / (1 + x)) / (1 + z);
    return w * p.du * d * (r_rpb - 2 * br * p.sin_half * p.sin_half);
  };
#if JAXEXT_DEVICE_PATH
  double arc = span * SumNodeByNode<kNodes>([&](int j) {
                 const double x = x_at(TableAt<GaussUnitNode>(j));
                 return EdgeHornerAt(q, degree, x) *
                        (TableAt<GaussUnitWeight>(j) * (r_rpb - 0.5 * x * x));
               });
  if (kp >= kContactMinK) {
    const ContactMap map = MakeContactMap(geo, eps);
    arc += map.t_max * SumNodeByNode<kNodes>([&](int j) {
             return d_at(map, TableAt<GaussUnitNode>(j), TableAt<GaussUnitWeight>(j));
           });
  }
#else
  double x[kNodes], v[kNodes];
  for (int j = 0; j < kNodes; ++j) x[j] = x_at(kNode.v[j]);
  EdgeHornerNodes<kNodes>(q, degree, x, v);
  for (int j = 0; j < kNodes; ++j) v[j] *= kWeight.v[j] * (r_rpb - 0.5 * x[j] * x[j]);
  double arc = span * SumOfNodes<kNodes>(v);
  if (kp >= kContactMinK) {
    const ContactMap map = MakeContactMap(geo, eps);
    for (int j = 0; j < kNodes; ++j) v[j] = d_at(map, kNode.v[j], kWeight.v[j]);
    arc += map.t_max * SumOfNodes<kNodes>(v);
  }
#endif
  return (crossing ? 2 * geo.kappa1 * EdgeAtLimb(q, degree) : 0.0) + 2 * arc;
}

// The edge rule that serves an occultor overlapping the disk without hiding
// it (a = 1 - b^2 - r^2), by where it is: crossing the limb, inside the
// disk with x = 2 b r / a up to kEdgeRuleMaxX or kWideEdgeRuleMaxX, or next
// to the inner contact (b + r = 1).
enum class EdgeRule { kInside, kInsideWide, kCrossing, kContact };
constexpr int kEdgeRuleCount = static_cast<int>(EdgeRule::kContact) + 1;

JAXEXT_HD EdgeRule ChooseEdgeRule(const Geometry& geo, double a) {
  if (!geo.inside) return geo.k2 < kCrossingRuleMaxK2 ? EdgeRule::kCrossing : EdgeRule::kContact;
  const double two_br = 2 * geo.b * geo.r;
  if (two_br <= kEdgeRuleMaxX * a) return EdgeRule::kInside;
  return two_br <= kWideEdgeRuleMaxX * a ? EdgeRule::kInsideWide : EdgeRule::kContact;
}

// The flux a law blocks (unnormalised) by `rule`, any but kInside, whose
// flux InsideEdgeIntegrals gives with the s_n it takes from the same nodes.
JAXEXT_HD double EdgeFlux(EdgeRule rule, const Geometry& geo, double a, const double* q,
                          int degree) {
  if (rule == EdgeRule::kCrossing) return CrossingEdgeFlux(geo, q, degree);
  if (rule == EdgeRule::kInsideWide) return InsideEdgeFlux(geo.b, geo.r, a, q, degree);
  return ContactEdgeFlux(geo, q, degree);
}

}  // namespace detail

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_EDGE_RULES_H_
