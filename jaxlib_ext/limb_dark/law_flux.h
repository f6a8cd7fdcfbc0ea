// The light curve of a law of laws.h (power-2, Claret's four coefficients,
// square root, logarithmic, exponential) and its first derivatives, by the edge rules of
// edge_rules.h with the law evaluated at each node.
//
// The flux blocked over the lens (occultor and disk overlapping) is, by the
// divergence theorem with the field (H / rho^2) (x, y) (edge_rules.h):
//   blocked = 2 kappa1 F(0) + integral over the occultor's arc inside the
//             disk of F(z) (r^2 - b r cos psi) dpsi,
// F = 1/2 - sum_k c_k Psi_k (laws.h), kappa1 = 0 inside the disk. It is
// linear in the coefficients: blocked = A / 2 - sum_k c_k B_k with A the
// lens' area and B_k the same integral of Psi_k. Its derivatives in r and b
// are integrals of the intensity over the same arc, the edge moving
// outward by dr, and by -cos psi db:
//   d blocked / dr = integral of I(z) r dpsi,
//   d blocked / db = -integral of I(z) r cos psi dpsi.
// One pass over the nodes of the rule that ChooseEdgeRule picks gives all
// of them (EdgeMoments). With norm = 2 pi F(0) (LawNormalisation) and F - 1
// = -blocked / norm:
//   dF/dc_k = (B_k + 2 pi Psi_k(0) (F - 1)) / norm,
//   dF/dalpha = c (B_alpha + 2 pi dPsi/dalpha(0) (F - 1)) / norm (power2).
//
// The rules are those of the polynomial laws with maps for where these
// laws are not analytic: z^alpha at z = 0, on the limb:
// - inside the disk, away from contact: the midpoint rule over the whole
//   edge (z > 0 on it), 8, 16 or 32 steps by how near the limb it comes;
// - crossing the limb: Gauss-Legendre in theta (sin(psi / 2) = k sin
//   theta, z = c cos theta), graded towards theta = pi / 2 (z = 0) by
//   theta = pi / 2 (1 - (1 - s)^3) (the GradedHalfPi tables);
// - next to the inner contact: the contact rule's split F(z) = F(X) + (F(z)
//   - F(X)), the first part graded towards u = u_lo by u = u_lo + (pi -
//   u_lo) s^5 (X^alpha at X = 0), the second in the contact rule's t = t_max
//   s^4 (z^alpha or X^alpha at t = 0); the exponential law's intensity,
//   infinite on the limb, not split but in t = t_max s alone.
// Their accuracy: docs/limb_darkening_laws.md. This is the path of one point
// at a time (the GPU's and the transit model's, and the CPU light curve's
// for the logarithmic and exponential laws and next to the contacts). A
// power law's points inside the disk and crossing the limb take
// power_sums.h's nodes, powers and flux, which the CPU light curve's blocks
// (law_blocks.h) share; those blocks' inside rule takes 4 to 64 nodes by x
// (kInsideNodes) and so serves x up to 0.955, where this path takes the
// contact rule past x = 0.85 (the blocks leave it the points beyond: 128
// nodes a lane took longer than its 96 nodes a point); next to the inner
// contact, where this path takes the contact rule, they take rules of 64
// nodes up to k^2 = 0.998 crossing (the graded rule) and x = 0.998 inside
// (the midpoint rule mapped towards the limb).
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_FLUX_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_FLUX_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/edge_rules.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/math/nodes.h"
#include "jaxlib_ext/limb_dark/power_sums.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

namespace detail {

// The sums over an edge rule's nodes, each node weighted by w_e = weight
// (r^2 - b r cos psi) dpsi, w_r = weight r dpsi or w_b = -weight r cos psi
// dpsi: area = sum of w_e (the lens' area less the limb's share); psi[k]
// = sum of w_e Psi_k; dpsi_dalpha = sum of w_e dPsi_0/dalpha; d_r and d_b
// the sums of w_r I and w_b I.
struct EdgeMoments {
  double area;
  double psi[kMaxLawTerms];
  double dpsi_dalpha;
  double d_r, d_b;
};

// Adds the nodes' weighted law (not the area) to m, each sum over the nodes
// in SumOfNodes' order; the intensity's limb part (the exponential term's)
// unless without_limb_part.
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddNodes(const LawTerms& t, LawAtNodes<N>& v,
                                             const double* w_e, const double* w_r,
                                             const double* w_b, EdgeMoments* m,
                                             bool without_limb_part = false) {
  double product[N];
  for (int k = 0; k < t.count; ++k) {
    for (int j = 0; j < N; ++j) product[j] = w_e[j] * v.psi[k][j];
    m->psi[k] += SumOfNodes<N>(product);
  }
  if (t.with_alpha) {
    for (int j = 0; j < N; ++j) product[j] = w_e[j] * v.dpsi_dalpha[j];
    m->dpsi_dalpha += SumOfNodes<N>(product);
  }
  if (!without_limb_part) {
    for (int j = 0; j < N; ++j) v.intensity[j] += v.limb_intensity[j];
  }
  for (int j = 0; j < N; ++j) product[j] = w_r[j] * v.intensity[j];
  m->d_r += SumOfNodes<N>(product);
  for (int j = 0; j < N; ++j) product[j] = w_b[j] * v.intensity[j];
  m->d_b += SumOfNodes<N>(product);
}

// The law at nodes z, weighted: area and law both (without the intensity's
// limb part where without_limb_part: AddNodes).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddLawAt(const LawTerms& t, const double* z,
                                             const double* w_e, const double* w_r,
                                             const double* w_b, EdgeMoments* m,
                                             bool without_limb_part = false) {
  LawAtNodes<N> v;
  EvaluateLaw<N>(t, z, &v);
  m->area += SumOfNodes<N>(w_e);
  AddNodes<N>(t, v, w_e, w_r, w_b, m, without_limb_part);
}

// The contact rule's second part: the law at z less the law at x (the
// constant term has no share: the first part has the whole area), without
// the intensity's limb part (ContactLawMoments integrates it alone: at x it
// is -c / x, near-singular at u = 0).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddLawDifference(const LawTerms& t, const double* z,
                                                     const double* x, const double* w_e,
                                                     const double* w_r, const double* w_b,
                                                     EdgeMoments* m) {
  LawAtNodes<N> v, vx;
  EvaluateLaw<N>(t, z, &v);
  EvaluateLaw<N>(t, x, &vx);
  for (int k = 0; k < t.count; ++k) {
    for (int j = 0; j < N; ++j) v.psi[k][j] -= vx.psi[k][j];
  }
  for (int j = 0; j < N; ++j) {
    v.dpsi_dalpha[j] -= vx.dpsi_dalpha[j];
    v.intensity[j] -= vx.intensity[j];
  }
  AddNodes<N>(t, v, w_e, w_r, w_b, m, /*without_limb_part=*/true);
}

// The intensity's limb part alone at nodes z (the contact rule).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddLimbIntensity(const LawTerms& t, const double* z,
                                                     const double* w_r, const double* w_b,
                                                     EdgeMoments* m) {
  double limb[N], product[N];
  for (int j = 0; j < N; ++j) limb[j] = LimbIntensity(t, Max(z[j], 1e-300));
  for (int j = 0; j < N; ++j) product[j] = w_r[j] * limb[j];
  m->d_r += SumOfNodes<N>(product);
  for (int j = 0; j < N; ++j) product[j] = w_b[j] * limb[j];
  m->d_b += SumOfNodes<N>(product);
}

// A node of an edge rule: z, where the law is evaluated, X (the contact
// rule's difference part: the law at z less the law at X), and the weights
// w_e, w_r, w_b (EdgeMoments).
struct EdgeNode {
  double z, x, w_e, w_r, w_b;
};

// What a rule's nodes add to the sums: the area and the law (kLaw), the
// same without the intensity's limb part (kLawWithoutLimb), the law at z
// less the law at X without the limb part (kDifference), or the limb part
// alone (kLimbIntensity): AddLawAt, AddLawDifference and AddLimbIntensity.
enum class EdgeSum : int { kLaw, kLawWithoutLimb, kDifference, kLimbIntensity };

// kSum of the N nodes in arrays (z, x and the weights).
template <int N, EdgeSum kSum>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddSumOf(const LawTerms& t, const double* z, const double* x,
                                             const double* w_e, const double* w_r,
                                             const double* w_b, EdgeMoments* m) {
  if constexpr (kSum == EdgeSum::kLaw || kSum == EdgeSum::kLawWithoutLimb) {
    AddLawAt<N>(t, z, w_e, w_r, w_b, m, kSum == EdgeSum::kLawWithoutLimb);
  } else if constexpr (kSum == EdgeSum::kDifference) {
    AddLawDifference<N>(t, z, x, w_e, w_r, w_b, m);
  } else {
    AddLimbIntensity<N>(t, z, w_r, w_b, m);
  }
}

// How a GPU runs a rule's loop over its nodes: the inside rules' loop
// JAXEXT_INSIDE_NODES_A_STEP nodes a step (power_sums.h: in full unless
// the kernel's source says fewer; node_at reads its table with
// InsideTableAt), or rolled (node_at reads its tables with TableAt, from
// constant memory). The crossing and the contact rule, in every kernel,
// run rolled: unrolled, the 32 nodes of every law's terms (each node with
// the calls of its divisions' and square roots' slow paths) made the light
// curve's crossing pass about ten times the code, with 204 B spilled across
// those calls, and the transit model's kernel of these laws took 129 s of
// ptxas instead of 48 s, with the same 128 registers (nvcc 13.5, sm_90).
enum class NodeLoop : int { kInsideStep, kRolled };

// A rule's N nodes (node_at(j), j < N) added to m as kSum says. On a CPU,
// every node first into arrays, then loops over them that vectorise
// (AddLawAt and the others); node_at, a lambda marked JAXEXT_ALWAYS_INLINE
// (a call per node keeps the first loop from vectorising: the contact
// rule's nodes took twice the time so). On a GPU (JAXEXT_DEVICE_PATH), one node after
// another straight into the sums (the same functions with N = 1): arrays
// of N values per thread would live in local memory (the sums' order
// differs from the CPU's by rounding), the loop as kLoop says.
template <int N, EdgeSum kSum, NodeLoop kLoop = NodeLoop::kInsideStep, typename NodeAt>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddRuleNodes(const LawTerms& t, const NodeAt& node_at,
                                                 EdgeMoments* m) {
#if JAXEXT_DEVICE_PATH
  const auto add = [&](int j) {
    const EdgeNode node = node_at(j);
    AddSumOf<1, kSum>(t, &node.z, &node.x, &node.w_e, &node.w_r, &node.w_b, m);
  };
  if constexpr (kLoop == NodeLoop::kRolled) {
    JAXEXT_NO_UNROLL
    for (int j = 0; j < N; ++j) add(j);
  } else if constexpr (JAXEXT_INSIDE_NODES_A_STEP < N) {
    JAXEXT_UNROLL_BY(JAXEXT_INSIDE_NODES_A_STEP)
    for (int j = 0; j < N; ++j) add(j);
  } else {
    JAXEXT_UNROLL
    for (int j = 0; j < N; ++j) add(j);
  }
#else
  double z[N], x[N], w_e[N], w_r[N], w_b[N];
  for (int j = 0; j < N; ++j) {
    const EdgeNode node = node_at(j);
    z[j] = node.z;
    x[j] = node.x;
    w_e[j] = node.w_e;
    w_r[j] = node.w_r;
    w_b[j] = node.w_b;
  }
  AddSumOf<N, kSum>(t, z, x, w_e, w_r, w_b, m);
#endif
}

// Inside the disk (b + r <= 1), x = 2 b r / a up to kWideEdgeRuleMaxX, a =
// 1 - b^2 - r^2: the midpoint rule of 2 M steps over psi in [-pi, pi], its
// M nodes in [0, pi] (the integrands are even in psi; M a multiple of the
// vector width, unlike the trapezoidal rule's M + 1 nodes). Its error falls
// as the trapezoidal rule's, exp(-2 M acosh(1 / x)) (edge_rules.h): below
// 1e-17 up to InsideRuleMaxXOf<M>() (math/nodes.h's InsideRuleMaxX, the one
// error model of this rule, which the CPU's blocks, law_blocks.h, read too):
// x = 0.172 for M = 8, 0.542 for 16, 0.838 for 32 (to 0.85, the wide edge
// rule's end, it errs by 5e-17).
constexpr int kInsideRules = sizeof(InsideRuleNodeCount().v) / sizeof(int);

template <int M>
JAXEXT_HD constexpr double InsideRuleMaxXOf() {
  constexpr IntTable<kInsideRules> kCounts = InsideRuleNodeCount();
  constexpr Table<kInsideRules> kMaxX = InsideRuleMaxX();
  for (int k = 0; k < kInsideRules; ++k) {
    if (kCounts.v[k] == M) return kMaxX.v[k];
  }
  return 0;  // M is no count of the table
}

template <int M>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void InsideLawMomentsInline(const LawTerms& t, double b, double r,
                                                          double a, EdgeMoments* m) {
  const double w = 2 * kPi / M;  // each node stands for two
  const double br = b * r;
  const auto node_at = [&](int j) JAXEXT_ALWAYS_INLINE {
    const double cos_psi = InsideTableAt<HalfPeriodMidCos<M>, M>(j);
    return EdgeNode{Sqrt(a + 2 * br * cos_psi), 0.0, w * (r * r - br * cos_psi), w * r,
                    -w * r * cos_psi};
  };
  AddRuleNodes<M, EdgeSum::kLaw>(t, node_at, m);
}

// The same as a call of its own on a GPU, for kernels that run every rule
// and the passes of 8 and 16 nodes; the pass of 32 nodes inlines it (nvcc
// 13.5, sm_90: 20 B spilled so, 60 B with the call).
template <int M>
JAXEXT_HD_CALLED void InsideLawMoments(const LawTerms& t, double b, double r, double a,
                                       EdgeMoments* m) {
  InsideLawMomentsInline<M>(t, b, r, a, m);
}

// Crossing the limb with k^2 < kCrossingRuleMaxK2: CrossingEdgeFlux's
// theta, graded towards z = 0. sin(psi / 2) = k sin(theta): cos psi = 1 - 2
// k^2 sin^2(theta), dpsi = 2 k cos(theta) dtheta / sqrt(1 - k^2
// sin^2(theta)), both halves of the arc.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void CrossingLawMomentsInline(const LawTerms& t,
                                                             const Geometry& geo,
                                                             EdgeMoments* m) {
  constexpr int kNodes = 32;
  const double b = geo.b, r = geo.r;
  const double c2 = geo.one_minus_bmr2, c = Sqrt(c2), k2 = geo.k2, k = Sqrt(k2);
  const double r_rmb = r * (r - b);
  const auto node_at = [&](int j) JAXEXT_ALWAYS_INLINE {
    const double cos_t = TableAt<GradedHalfPiCos<kNodes>>(j);
    const double sin2 = TableAt<GradedHalfPiSin2<kNodes>>(j);
    const double w =
        2 * TableAt<GradedHalfPiWeight<kNodes>>(j) * 2 * k * cos_t / Sqrt(1 - k2 * sin2);
    return EdgeNode{c * cos_t, 0.0, w * (r_rmb + 0.5 * c2 * sin2), w * r,
                    -w * r * (1 - 2 * k2 * sin2)};
  };
  AddRuleNodes<kNodes, EdgeSum::kLaw, NodeLoop::kRolled>(t, node_at, m);
}

JAXEXT_HD_CALLED void CrossingLawMoments(const LawTerms& t, const Geometry& geo, EdgeMoments* m) {
  CrossingLawMomentsInline(t, geo, m);
}

// Next to the inner contact (where ChooseEdgeRule picks kContact):
// ContactEdgeFlux's variables. u = pi - psi in [u_lo, pi] (u_lo = 0
// inside, the arc's end crossing), X = 2 sqrt(b r) sin(u / 2), z^2 = Z^2 +
// X^2 with Z^2 = 1 - (b + r)^2; r^2 - b r cos psi = r (r + b) - 2 b r
// sin^2(u / 2) and -cos psi = cos u = 1 - 2 sin^2(u / 2); both halves.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void ContactLawMomentsInline(const LawTerms& t,
                                                            const Geometry& geo,
                                                            EdgeMoments* m) {
  constexpr int kNodes = 32;
  const double b = geo.b, r = geo.r, br = b * r, root_br = Sqrt(br);
  const double z2_min = geo.one_minus_bpr2;  // Z^2, < 0 crossing
  const bool crossing = !geo.inside;
  const double kp = Sqrt(Abs(z2_min) / (4 * br));
  const double eps = crossing ? Asin(Min(1.0, kp)) : kp;
  const double u_lo = crossing ? 2 * eps : 0.0;
  const double r_rpb = r * (r + b);
  // The law at X over [u_lo, pi], u = u_lo + span s^5.
  const double span = kPi - u_lo;
  const auto at_x = [&](int j) JAXEXT_ALWAYS_INLINE {
    const double s = TableAt<GaussUnitNode>(j), s2 = s * s, s4 = s2 * s2;
    const double w = 2 * TableAt<GaussUnitWeight>(j) * 5 * span * s4;
    const double sin_half = SinCosOfNode(0.5 * (u_lo + span * s4 * s)).sin;
    const double sin2 = sin_half * sin_half;
    const double x = 2 * root_br * sin_half;
    return EdgeNode{x, x, w * (r_rpb - 2 * br * sin2), w * r, w * r * (1 - 2 * sin2)};
  };
  AddRuleNodes<kNodes, EdgeSum::kLawWithoutLimb, NodeLoop::kRolled>(t, at_x, m);
  // The law at z less the law at X, t in [0, t_max] (ContactMap), however
  // near the contact: the intensity's limb part (the exponential law's) has
  // no other share. Inside, the map holds for any eps > 0: at least
  // kContactMinK, where what it leaves out, of order 4 b r k'^2 log(1 / k'),
  // is below 1e-18, but for that limb part, whose integral grows as
  // log(1 / k') (the intensity is infinite on the limb).
  const ContactMap map = MakeContactMap(geo, crossing ? eps : Max(eps, kContactMinK));
  const auto difference = [&](int j) JAXEXT_ALWAYS_INLINE {
    // t = t_max s^4: z^alpha (crossing) and X^alpha (inside) at t = 0, of
    // order s^(4 alpha) (s^3 left power2's alpha = 0.05 at 3e-10 relative
    // in d/db; s^5, as in the first part, loses the branch points'
    // resolution: 2e-13 in F).
    const double s = TableAt<GaussUnitNode>(j), s3 = s * s * s;
    const ContactPoint p = ContactMapAt(map, map.t_max * s3 * s);
    const double w = 2 * map.t_max * 4 * s3 * TableAt<GaussUnitWeight>(j) * p.du;
    const double sin2 = p.sin_half * p.sin_half;
    return EdgeNode{Sqrt(Max(p.z2, 0.0)), 2 * root_br * p.sin_half,
                    w * (r_rpb - 2 * br * sin2), w * r, w * r * (1 - 2 * sin2)};
  };
  AddRuleNodes<kNodes, EdgeSum::kDifference, NodeLoop::kRolled>(t, difference, m);
  if (!HasLimbTerm(t)) return;
  // The intensity's limb part at z alone, t = t_max s: at t = 0 it is
  // analytic inside (z >= Z > 0) and, times du/dt, crossing (z and du/dt
  // both vanish as t); its branch points are at t = +-i pi / 2.
  const auto limb_part = [&](int j) JAXEXT_ALWAYS_INLINE {
    const ContactPoint p = ContactMapAt(map, map.t_max * TableAt<GaussUnitNode>(j));
    const double w = 2 * map.t_max * TableAt<GaussUnitWeight>(j) * p.du;
    return EdgeNode{Sqrt(Max(p.z2, 0.0)), 0.0, 0.0, w * r,
                    w * r * (1 - 2 * p.sin_half * p.sin_half)};
  };
  AddRuleNodes<kNodes, EdgeSum::kLimbIntensity, NodeLoop::kRolled>(t, limb_part, m);
}

JAXEXT_HD_CALLED void ContactLawMoments(const LawTerms& t, const Geometry& geo, EdgeMoments* m) {
  ContactLawMomentsInline(t, geo, m);
}

}  // namespace detail

// A law of laws.h made ready for its points (as GreensRow does for the
// polynomial laws): its terms, and the star's flux norm = 2 pi F(0) (NaN
// where the law is refused: NaN or +-inf in u, power2's alpha <= 0, or a
// flux that is not positive); for a power law (power_sums.h) its powers and
// constants, which the inside and crossing rules take.
struct LawRow {
  detail::LawTerms terms;
  double norm;
  bool power;
  detail::PowerTerms power_terms;
  detail::PowerConstants power_constants;
};

// with_powers false: power false, the power fields not set (for code that
// has no power code, LawCode::kOthers).
// MakeLawRowAt fills *row where it lies (a GPU kernel's planet in shared
// or local memory), field by field.
JAXEXT_HD void MakeLawRowAt(Law law, const double* u, LawRow* row, bool with_powers = true) {
  const bool ok = detail::MakeLawTerms(law, u, &row->terms);
  const double norm = ok ? detail::LawNormalisation(row->terms) : NaN();
  row->norm = norm > 0 ? norm : NaN();
  row->power = with_powers && ok && detail::MakePowerTerms(row->terms, &row->power_terms);
  if (with_powers) row->power_constants = detail::MakePowerConstants(row->terms, row->norm);
}

JAXEXT_HD LawRow MakeLawRow(Law law, const double* u, bool with_powers = true) {
  LawRow row;
  MakeLawRowAt(law, u, &row, with_powers);
  return row;
}

// F - 1 and its derivatives from the edge sums m of a point (with the
// limb's share of the area, limb = 2 kappa1, 0 inside the disk; sign_b the
// sign of b): the flux blocked is A / 2 - sum_k c_k B_k.
JAXEXT_HD LawFlux LawFluxFromMoments(const detail::LawTerms& t, double norm, double sign_b,
                                     double limb, const detail::EdgeMoments& m) {
  using namespace detail;
  LawFlux out;
  for (int k = 0; k < kMaxLawTerms; ++k) out.du[k] = 0;
  // The limb's share, 2 kappa1 F(0).
  double blocked = 0.5 * (m.area + limb);
  double b_k[kMaxLawTerms];
  for (int k = 0; k < t.count; ++k) {
    b_k[k] = m.psi[k] + limb * PsiAtLimb(t, k);
    blocked -= t.c[k] * b_k[k];
  }
  const double inv_norm = 1 / norm;
  const double value = -blocked * inv_norm;
  out.value = value;
  out.d_dr = -m.d_r * inv_norm;
  out.d_db = -sign_b * m.d_b * inv_norm;
  for (int k = 0; k < t.count; ++k) {
    out.du[k] = (b_k[k] + 2 * kPi * PsiAtLimb(t, k) * value) * inv_norm;
  }
  if (t.with_alpha) {
    const double b_alpha = m.dpsi_dalpha + limb * DpsiDalphaAtLimb(t);
    out.du[1] = t.c[0] * (b_alpha + 2 * kPi * DpsiDalphaAtLimb(t) * value) * inv_norm;
  }
  return out;
}

// The sum of nodes a point takes (LawRuleOf): none (kNoEdge: the point is
// out of transit, hidden, or NaN: LawLightCurvePoint's first cases), the
// inside rule of 8, 16 or 32 nodes, the crossing rule or the contact rule.
// The GPU computes a law's points in passes by rule (limb_dark_kernel.cu),
// so that the threads of a warp run one rule.
enum class LawRule : int { kNoEdge, kInside8, kInside16, kInside32, kCrossing, kContact, kAny };

namespace detail {

// The inside rule of as few nodes as x = 2 b r / a needs (up to
// kWideEdgeRuleMaxX).
JAXEXT_HD LawRule InsideRuleOf(double b, double r, double a) {
  constexpr double kMaxX8 = InsideRuleMaxXOf<8>(), kMaxX16 = InsideRuleMaxXOf<16>();
  static_assert(kMaxX8 > 0 && kMaxX16 > kMaxX8, "8 and 16 are counts of InsideRuleNodeCount");
  const double two_br = 2 * b * r;
  return two_br <= kMaxX8 * a    ? LawRule::kInside8
         : two_br <= kMaxX16 * a ? LawRule::kInside16
                                 : LawRule::kInside32;
}

// The rule of a point that overlaps the disk in part (b >= 0 as SetUpPoint
// leaves it, a = 1 - b^2 - r^2); *geo is the point's geometry for the
// crossing and contact rules (not set for the inside rules).
JAXEXT_HD LawRule ChooseLawRule(double b, double r, double a, Geometry* geo) {
  // Inside, where ChooseEdgeRule picks an inside rule whatever the
  // rounding: without the geometry's other quantities (its two atan2 are a
  // sixth of a point).
  if (b + r <= 0.999 && 2 * b * r <= kWideEdgeRuleMaxX * a) return InsideRuleOf(b, r, a);
  *geo = MakeGeometry(b, r);
  switch (ChooseEdgeRule(*geo, a)) {
    case EdgeRule::kInside:
    case EdgeRule::kInsideWide:
      return InsideRuleOf(b, r, a);
    case EdgeRule::kCrossing:
      return LawRule::kCrossing;
    case EdgeRule::kContact:
      break;
  }
  return LawRule::kContact;
}

JAXEXT_HD constexpr bool RunsRule(LawRule only, LawRule rule) {
  return only == LawRule::kAny || only == rule;
}

}  // namespace detail

JAXEXT_HD LawRule LawRuleOf(const LawRow& row, double b, double r) {
  using namespace detail;
  const PointSetUp point = SetUpPoint(b, r);
  if (!(row.norm > 0) || point.overlap != Overlap::kPartial) return LawRule::kNoEdge;
  Geometry geo;
  return ChooseLawRule(point.b, r, (1 - r) * (1 + r) - point.b * point.b, &geo);
}

// Whether law's terms are all powers of power_sums.h, whatever its
// coefficients (power2, nonlinear, square root): LawRow::power for every
// row of such a law.
JAXEXT_HD bool IsPowerLaw(Law law) {
  const double u[kMaxLawTerms] = {0.5, 0.5, 0.5, 0.5};
  detail::LawTerms t;
  detail::PowerTerms p;
  return detail::MakeLawTerms(law, u, &t) && detail::MakePowerTerms(t, &p);
}

// The code a rule's function holds: a row's own (kAll: power_sums.h's for a
// power law inside the disk and crossing the limb, the edge moments
// otherwise), or one of the two alone (kPowers, for the rows of a power law;
// kOthers), so that a GPU kernel of one rule carries one law family's code.
enum class LawCode : int { kAll, kPowers, kOthers };

// LawLightCurvePoint with the code of one rule alone (kOnly; kAny: every
// rule, the point's own) and of kCode, for a point of that rule (LawRuleOf)
// and code: the same operations as LawLightCurvePoint's (a compiler may
// still contract them into FMAs differently in another kernel: on the GPU
// the two differ by 1e-16).
// kCopy: the rules' calls take the law's terms from a copy (true) or from
// the row itself (false). On a GPU, a reference into a row held in
// registers puts the whole row (its power fields too) in local memory for
// the call (nvcc 13.0: 230 B of stack more than the copy); a row already
// in memory (the transit model's planets) is better read where it lies
// (the copy's 96 B of stack less).
template <LawRule kOnly, LawCode kCode = LawCode::kAll, bool kCopy = true>
JAXEXT_HD LawFlux LawLightCurvePointOf(const LawRow& row, double b, double r) {
  using namespace detail;
  LawFlux out;
  const LawTerms copy_or_none = kCopy ? row.terms : LawTerms{};
  const LawTerms& t = kCopy ? copy_or_none : row.terms;
  const double norm = row.norm;
  const PointSetUp point = SetUpPoint(b, r);
  const double sign_b = point.sign_b;
  b = point.b;
  // kNoEdge: a point with an edge sum has none here (NaN).
  if (!(norm > 0) || point.overlap == Overlap::kInvalid ||
      (kOnly == LawRule::kNoEdge && point.overlap == Overlap::kPartial)) {
    out.value = out.d_db = out.d_dr = NaN();
    for (int k = 0; k < kMaxLawTerms; ++k) out.du[k] = NaN();
    return out;
  }
  out.d_db = out.d_dr = 0;
  for (int k = 0; k < kMaxLawTerms; ++k) out.du[k] = 0;
  if (point.overlap != Overlap::kPartial || kOnly == LawRule::kNoEdge) {
    out.value = point.overlap == Overlap::kHidden ? -1.0 : 0.0;
    return out;
  }
  const double a = (1 - r) * (1 + r) - b * b;
  Geometry geo;
  LawRule rule = kOnly;
  if (kOnly == LawRule::kAny) {
    rule = ChooseLawRule(b, r, a, &geo);
  } else if (kOnly == LawRule::kCrossing || kOnly == LawRule::kContact) {
    geo = MakeGeometry(b, r);
  }
  // The limb's share of the area, 2 kappa1 (0 inside the disk).
  const double limb =
      rule == LawRule::kCrossing || rule == LawRule::kContact ? 2 * geo.kappa1 : 0.0;
  // A power law inside the disk or crossing the limb: power_sums.h.
  if constexpr (kCode != LawCode::kOthers) {
    if (kCode == LawCode::kPowers || row.power) {
      const PowerTerms& pt = row.power_terms;
      const PowerConstants& k = row.power_constants;
      if (RunsRule(kOnly, LawRule::kInside8) && rule == LawRule::kInside8) {
        return PowerFluxOf<true>(k, InsidePowerPoint<8>(pt, k, b, r, a), limb, r, sign_b);
      } else if (RunsRule(kOnly, LawRule::kInside16) && rule == LawRule::kInside16) {
        return PowerFluxOf<true>(k, InsidePowerPoint<16>(pt, k, b, r, a), limb, r, sign_b);
      } else if (RunsRule(kOnly, LawRule::kInside32) && rule == LawRule::kInside32) {
        return PowerFluxOf<true>(k, InsidePowerPoint<32>(pt, k, b, r, a), limb, r, sign_b);
      } else if (RunsRule(kOnly, LawRule::kCrossing) && rule == LawRule::kCrossing) {
        return PowerFluxOf<true>(k, CrossingPowerPoint(pt, k, geo), limb, r, sign_b);
      }
    }
  }
  if constexpr (kCode == LawCode::kPowers) {
    // Not a point of the power code (the contact rule): NaN.
    out.value = out.d_db = out.d_dr = NaN();
    for (int k = 0; k < kMaxLawTerms; ++k) out.du[k] = NaN();
    return out;
  }
  EdgeMoments m = {};
  if constexpr (kOnly == LawRule::kInside32) {
    InsideLawMomentsInline<32>(t, b, r, a, &m);
  } else if (RunsRule(kOnly, LawRule::kInside8) && rule == LawRule::kInside8) {
    InsideLawMoments<8>(t, b, r, a, &m);
  } else if (RunsRule(kOnly, LawRule::kInside16) && rule == LawRule::kInside16) {
    InsideLawMoments<16>(t, b, r, a, &m);
  } else if (RunsRule(kOnly, LawRule::kInside32) && rule == LawRule::kInside32) {
    InsideLawMoments<32>(t, b, r, a, &m);
  } else if constexpr (kOnly == LawRule::kCrossing) {
    CrossingLawMomentsInline(t, geo, &m);
  } else if (RunsRule(kOnly, LawRule::kCrossing) && rule == LawRule::kCrossing) {
    CrossingLawMoments(t, geo, &m);
  } else if constexpr (kOnly == LawRule::kContact) {
    ContactLawMomentsInline(t, geo, &m);
  } else if (RunsRule(kOnly, LawRule::kContact) && rule == LawRule::kContact) {
    ContactLawMoments(t, geo, &m);
  }
  return LawFluxFromMoments(t, norm, sign_b, limb, m);
}

JAXEXT_HD LawFlux LawLightCurvePoint(const LawRow& row, double b, double r) {
  return LawLightCurvePointOf<LawRule::kAny>(row, b, r);
}

// LawLightCurvePoint with the point's rule chosen first (LawRuleOf), then
// that rule's code alone in a call of its own (the code the light curve's
// GPU pass of that rule runs: limb_dark.h's PassCode), so that a GPU
// thread's stack holds one rule's state, not every rule's side by side:
// the transit model's kernels, which compute a point of any rule with the
// row in their planet, in memory (the terms read where they lie).
template <LawRule kRule, LawCode kCode>
JAXEXT_HD_CALLED LawFlux LawPointOfRule(const LawRow& row, double b, double r) {
  return LawLightCurvePointOf<kRule, kCode, false>(row, b, r);
}

// A rule's call with the code of the rule's pass: the power code for a
// power law's inside and crossing rules, the edge moments' otherwise.
template <LawRule kRule>
JAXEXT_HD LawFlux LawPointOfRuleAndRow(const LawRow& row, double b, double r) {
  if constexpr (kRule == LawRule::kContact || kRule == LawRule::kNoEdge) {
    return LawPointOfRule<kRule, LawCode::kOthers>(row, b, r);
  } else {
    return row.power ? LawPointOfRule<kRule, LawCode::kPowers>(row, b, r)
                     : LawPointOfRule<kRule, LawCode::kOthers>(row, b, r);
  }
}

JAXEXT_HD LawFlux LawLightCurvePointByRule(const LawRow& row, double b, double r) {
  switch (LawRuleOf(row, b, r)) {
    case LawRule::kInside8:
      return LawPointOfRuleAndRow<LawRule::kInside8>(row, b, r);
    case LawRule::kInside16:
      return LawPointOfRuleAndRow<LawRule::kInside16>(row, b, r);
    case LawRule::kInside32:
      return LawPointOfRuleAndRow<LawRule::kInside32>(row, b, r);
    case LawRule::kCrossing:
      return LawPointOfRuleAndRow<LawRule::kCrossing>(row, b, r);
    case LawRule::kContact:
      return LawPointOfRuleAndRow<LawRule::kContact>(row, b, r);
    default:
      return LawPointOfRuleAndRow<LawRule::kNoEdge>(row, b, r);
  }
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_FLUX_H_
