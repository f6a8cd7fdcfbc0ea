// A power law's edge sums (laws.h's laws whose every term is 1 - z^alpha:
// power2, Claret's four coefficients, square root) at the nodes of the
// inside and crossing rules, and F - 1 and its derivatives from them,
// written once for lanes of sums (PowerSums<L>): the light curve takes its
// points either one at a time, a point's nodes spread over kPointLanes
// lanes (law_flux.h: the GPU's path, one lane, and the transit model's),
// or in blocks, a point a lane (law_blocks.h: the CPU's light curve). A
// node is computed and added to its lane by the same code either way.
//
// law_flux.h's sums for a law, with fewer terms. With m_n = z^alpha_n - 1
// at a node, g = z^2 / rho^2 and L = log z^2, a term's Psi = alpha / (2
// beta) + g m / beta (laws.h), so that, w_e the node's weight of the area,
// w_r and w_b those of d/dr and d/db:
//   sum of w_e Psi_n          = Psi_n(0) A + P_n / beta_n,  P_n = sum w_e g m_n,
//   sum of w_e dPsi/dalpha    = A / beta^2 + Q / (2 beta) - P / beta^2,
//                               Q = sum w_e g (1 + m) L  (power2),
//   sum of w_r I, of w_b I    = sum w_r + S,  sum w_b + T,
//                               S = sum w_r (I - 1), T = sum w_b (I - 1),
// A = sum w_e (2 pi r^2 inside: the cosines of the midpoint nodes sum to
// 0), I - 1 = sum_k c_k m_k. The one power's from L, expm1(alpha L / 2):
// L and 1 / rho^2 share one division (PowerNodeOf), and L is log(1 -
// rho^2) from rho^2 itself where z^2 >= sqrt(1/2), so that g m keeps its
// limit -alpha / 2 at the star's centre, however small rho^2. The half
// powers' (z^(n/2), n = 1..4) without L: s = z^(1/2) by two square roots,
// s - 1 and g (s - 1) with one division by a number from 1 to 4, not by
// rho^2 (AddHalfPowerNode), then m_n = (s - 1)(1 + s + ... + s^(n-1)).
#ifndef JAXLIB_EXT_LIMB_DARK_POWER_SUMS_H_
#define JAXLIB_EXT_LIMB_DARK_POWER_SUMS_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/math/branch_free.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/math/nodes.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;
namespace detail {

// A power law as the sums take it: one power (power2: m = z^alpha - 1, its
// coefficient c) or the four half powers (m_n = z^(n/2) - 1, n = 1..4, with
// the coefficients c_n of the terms that have them, 0 for the others).
struct PowerTerms {
  bool half;
  double half_alpha;  // alpha / 2 (one power)
  double c[4];        // c (one power) or c_1..c_4 (half powers)
};

// Whether every term of law t is a power of this file, and its PowerTerms.
// Every index into the arrays is known at compile time once the loops are
// unrolled: on a GPU, an array indexed at run time lives in local memory.
JAXEXT_HD bool MakePowerTerms(const LawTerms& t, PowerTerms* p) {
  bool powers = true;
  for (int n = 0; n < 4; ++n) p->c[n] = 0;
  p->half = !t.with_alpha;
  p->half_alpha = 0.5 * t.alpha[0];
  for (int k = 0; k < kMaxLawTerms; ++k) {
    if (k >= t.count) break;
    const double twice = 2 * t.alpha[k];
    powers = powers && t.kind[k] == Term::kPower &&
             (!p->half || (twice == static_cast<int>(twice) && twice >= 1 && twice <= 4));
    for (int n = 0; n < 4; ++n) {
      const bool here = p->half ? twice == n + 1 : n == 0;
      p->c[n] += here ? t.c[k] : 0.0;
    }
  }
  return powers && (p->half || t.count == 1);
}

// What the flux needs of the law, per term k (four, those past its count
// with c = 0): c_k, Psi_k(0), 1 / beta_k, the index n of its P_n; 1 / norm.
struct PowerConstants {
  double c[4], at_limb[4], inv_beta[4];
  int index[4];
  bool with_alpha;
  double inv_norm;
};

JAXEXT_HD PowerConstants MakePowerConstants(const LawTerms& t, double norm) {
  PowerConstants k;
  for (int j = 0; j < 4; ++j) {
    const bool term = j < t.count;
    k.c[j] = term ? t.c[j] : 0.0;
    k.at_limb[j] = term ? PsiAtLimb(t, j) : 0.0;
    k.inv_beta[j] = term ? 1 / (t.alpha[j] + 2) : 0.0;
    k.index[j] = term && !t.with_alpha ? static_cast<int>(2 * t.alpha[j]) - 1 : 0;
  }
  k.with_alpha = t.with_alpha;
  k.inv_norm = 1 / norm;
  return k;
}

// L = log z^2 and g = z^2 / rho^2 at a node, from z^2 (at least 1e-300)
// and rho^2 = 1 - z^2, each computed from the geometry.
struct PowerNode {
  double log_z2, g;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE PowerNode PowerNodeOf(double z2, double rho2) {
#if JAXEXT_DEVICE_PATH
  const bool near_centre = z2 >= 0.7071067811865476;
  return {near_centre ? ::log1p(-rho2) : ::log(z2), z2 / rho2};
#else
  const LogReduction x = ReduceForLog(z2);
  const bool near_centre = x.e == 0;  // z^2 in [sqrt(1/2), 1]
  const double num = near_centre ? -rho2 : x.m - 1;
  const double den = near_centre ? 2 - rho2 : x.m + 1;
  const double inv = 1 / (den * rho2);
  return {LogFromRatio(x.e, num * rho2 * inv), z2 * den * inv};
#endif
}

// A node of the inside rule, psi with cos psi and 1 - cos psi, for a = 1 -
// b^2 - r^2, 2 b r and d^2 = (b - r)^2: z^2, rho^2 and w_e / scale = r^2 -
// b r cos psi (w_r / scale = r, w_b / scale = -r cos psi).
struct InsideNode {
  double z2, rho2, w_e;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE InsideNode InsideNodeAt(double a, double two_br, double d2,
                                                       double r, double cos_psi,
                                                       double one_minus_cos) {
  return {Max(a + two_br * cos_psi, 1e-300), d2 + two_br * one_minus_cos,
          r * r - 0.5 * two_br * cos_psi};
}

// A node of the crossing rule (law_flux.h's CrossingLawMoments), theta
// with cos theta, sin^2 theta, log cos^2 theta and 4 w_j cos theta (its
// weight), for c^2 = 1 - (b - r)^2 with log c^2, k^2 with k, r (r - b) and
// d^2: z = c cos theta, so z^2 = c^2 cos^2, L = log c^2 + log cos^2 and
// rho^2 = sin^2 + d^2 cos^2; the weight 4 w_j k cos / sqrt(1 - k^2 sin^2)
// (w) shares its division with 1 / rho^2; w_b = w (1 - 2 k^2 sin^2), the r
// of w_r and w_b left out.
struct CrossingNode {
  double z2, rho2, log_z2, g, w_e, w, w_b;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE CrossingNode CrossingNodeAt(double c2, double log_c2, double k2,
                                                           double k, double d2, double r_rmb,
                                                           double cos_t, double sin2,
                                                           double weight, double log_cos2) {
  const double cos2 = cos_t * cos_t;
  const double root = Sqrt(1 - k2 * sin2);
  const double rho2 = sin2 + d2 * cos2;
  const double inv = 1 / (root * rho2);
  const double w = weight * k * rho2 * inv;
  return {c2 * cos2, rho2, log_c2 + log_cos2, c2 * cos2 * root * inv,
          w * (r_rmb + 0.5 * c2 * sin2), w, w * (1 - 2 * k2 * sin2)};
}

// One point's sums: P_n of each term (the P_n of its power, PowerConstants'
// index), Q, S, T, the area A, sum w_r and sum w_b, each weight over
// `scale` (the inside rule's 2 pi / M, 1 crossing).
struct PowerSumsOfPoint {
  double p[4];
  double q, s, t;
  double area, w_r, w_b;
  double scale;
};

// F - 1 and its derivatives from a point's sums (with the limb's share of
// the area, limb = 2 kappa1, 0 inside the disk; sign_b the sign of b), as
// law_flux.h's LawFluxFromMoments makes them from the edge moments: with
// the whole area A + 2 kappa1 and B_k = Psi_k(0) (A + 2 kappa1) + P_k /
// beta_k, blocked = (A + 2 kappa1) / 2 - sum_k c_k B_k and dF/dc_k = (B_k +
// 2 pi Psi_k(0) (F - 1)) / norm; d/dr and d/db from S and T with their
// weights, times scale r and -scale r. kDerivatives false: the value alone.
template <bool kDerivatives>
JAXEXT_HD JAXEXT_ALWAYS_INLINE LawFlux PowerFluxOf(const PowerConstants& k,
                                                   const PowerSumsOfPoint& s, double limb,
                                                   double r, double sign_b) {
  LawFlux out;
  const double scale = s.scale, inv_norm = k.inv_norm;
  const double whole = s.area + limb;
  double blocked = 0.5 * whole, b_k[4];
  for (int j = 0; j < 4; ++j) {
    b_k[j] = k.at_limb[j] * whole + scale * s.p[j] * k.inv_beta[j];
    blocked -= k.c[j] * b_k[j];
  }
  const double value = -blocked * inv_norm;
  out.value = value;
  if (!kDerivatives) return out;
  out.d_dr = -scale * r * (s.w_r + s.s) * inv_norm;
  out.d_db = sign_b * scale * r * (s.w_b + s.t) * inv_norm;
  for (int j = 0; j < 4; ++j) out.du[j] = (b_k[j] + 2 * kPi * k.at_limb[j] * value) * inv_norm;
  // power2's alpha: sum of w_e dPsi/dalpha, the limb's share 2 kappa1 /
  // beta^2 (DpsiDalphaAtLimb).
  const double ib = k.inv_beta[0];
  const double b_alpha = ib * (whole * ib + scale * (0.5 * s.q - s.p[0] * ib));
  const double du_alpha = k.c[0] * (b_alpha + 2 * kPi * ib * ib * value) * inv_norm;
  out.du[1] = k.with_alpha ? du_alpha : out.du[1];
  return out;
}

// The sums of L lanes, each lane a point (law_blocks.h's blocks) or a
// share of one point's nodes (PointLanes): P_n (n = 0..3: the half powers,
// or the one power's P in p[0]), Q, S, T, and A, sum w_r and sum w_b where
// the rule does not know them, each weight over `scale`.
template <int L>
struct PowerSums {
  double p[4][L];
  double q[L];
  double s[L], t[L];
  double area[L], w_r[L], w_b[L];
  double scale;
};

template <int L>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void ClearPowerSums(int n, PowerSums<L>* s) {
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) s->p[k][i] = 0;
    s->q[i] = s->s[i] = s->t[i] = s->area[i] = s->w_r[i] = s->w_b[i] = 0;
  }
}

// One node of lane i of the one power (m = expm1(alpha L / 2) at L = log
// z^2), added with weights w_e g (P, Q), w_r (S) and w_b (T). kDerivatives
// false: P alone, the value the same to the bit as with them: P's sums are
// explicit fused multiply-adds where the CPU has them (branch_free::Fma),
// since a compiler free to fuse or not may choose differently in the two
// (clang for aarch64 vectorised the value's loop over the nodes, a multiply
// then the adds in order).
template <bool kDerivatives, int L>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddPowerNode(const PowerTerms& pt, double log_z2, double g,
                                                 double w_e, double w_r, double w_b, int i,
                                                 PowerSums<L>* s) {
  const double weg = w_e * g;
  const double m = Expm1OfNode(pt.half_alpha * log_z2);
  s->p[0][i] = branch_free::Fma(weg, m, s->p[0][i]);
  if (kDerivatives) {
    const double excess = pt.c[0] * m;
    s->s[i] += w_r * excess;
    s->t[i] += w_b * excess;
    s->q[i] += weg * (1 + m) * log_z2;
  }
}

// AddPowerNode's sums for the half powers (PowerTerms::half: the nonlinear
// and square-root laws) from z^2 and rho^2 = 1 - z^2, each computed from
// the geometry, without a logarithm, an exponential or a division by
// rho^2: s = z^(1/2) by two square roots; with f = (1 + z)(1 + s), s - 1 =
// -rho^2 / f (1 - z^2 = (1 - z)(1 + z), 1 - z = (1 - s)(1 + s)), exact to
// a few ulps relative next to z = 1, and g (s - 1) = -z^2 / f; then m_n =
// (s - 1) S_n and w_e g m_n = w_e g (s - 1) S_n, S_n = 1 + s + ... +
// s^(n-1), P's sums fused as AddPowerNode's. (Q is the one power's alone.)
template <bool kDerivatives, int L>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddHalfPowerNode(const PowerTerms& pt, double z2, double rho2,
                                                     double w_e, double w_r, double w_b, int i,
                                                     PowerSums<L>* s) {
  const double z = Sqrt(z2), root = Sqrt(z);
  const double inv_f = 1 / ((1 + z) * (1 + root));
  const double weg_root_minus_one = -w_e * z2 * inv_f;
  double sum = 1, power = 1, c_sum = 0;
  for (int n = 0; n < 4; ++n) {
    if (n > 0) {
      power *= root;
      sum += power;
    }
    s->p[n][i] = branch_free::Fma(weg_root_minus_one, sum, s->p[n][i]);
    c_sum += pt.c[n] * sum;
  }
  if (kDerivatives) {
    const double excess = -rho2 * inv_f * c_sum;
    s->s[i] += w_r * excess;
    s->t[i] += w_b * excess;
  }
}

// One node of lane i from its z^2 and rho^2 (InsideNodeAt's, or the mapped
// inside rule's): the half powers' (AddHalfPowerNode), or L and g
// (PowerNodeOf) and the one power's (AddPowerNode).
template <bool kHalf, bool kDerivatives, int L>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddNodeOf(const PowerTerms& pt, double z2, double rho2,
                                              double w_e, double w_r, double w_b, int i,
                                              PowerSums<L>* s) {
  if constexpr (kHalf) {
    AddHalfPowerNode<kDerivatives>(pt, z2, rho2, w_e, w_r, w_b, i, s);
  } else {
    const PowerNode node = PowerNodeOf(z2, rho2);
    AddPowerNode<kDerivatives>(pt, node.log_z2, node.g, w_e, w_r, w_b, i, s);
  }
}

// A node of the crossing rule of lane i (CrossingNodeAt's): its z^2 and
// rho^2 for the half powers, its L and g (no logarithm of its own) for the
// one power.
template <bool kHalf, bool kDerivatives, int L>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddCrossingNodeOf(const PowerTerms& pt,
                                                      const CrossingNode& node, int i,
                                                      PowerSums<L>* s) {
  if constexpr (kHalf) {
    AddHalfPowerNode<kDerivatives>(pt, node.z2, node.rho2, node.w_e, node.w, node.w_b, i, s);
  } else {
    AddPowerNode<kDerivatives>(pt, node.log_z2, node.g, node.w_e, node.w, node.w_b, i, s);
  }
}

// One point at a time, its nodes in PointLanes lanes (node j in lane j mod
// PointLanes): on the CPU eight, so that each step is a loop over eight
// nodes that the compiler vectorises; on a GPU one (a thread is a lane:
// nothing indexed at run time, no local memory). The lanes' sums are added
// as SumOfNodes adds its eight.
constexpr int kPointLanes = JAXEXT_DEVICE_PATH ? 1 : 8;

// How many of an inside rule's nodes a GPU thread's loop takes a step
// (AddInsideNodes, law_flux.h's InsideLawMomentsInline): unrolled in full
// by default (the node tables' entries then constants in the code); a
// kernel source may define fewer (transit_kernel.cu).
#ifndef JAXEXT_INSIDE_NODES_A_STEP
#define JAXEXT_INSIDE_NODES_A_STEP 32
#endif

// Entry j of the table kMake of an inside rule of M nodes, in its loop:
// where that loop is unrolled in full, a constant in the code (the CPU's;
// on a GPU, where the source leaves JAXEXT_INSIDE_NODES_A_STEP at M or
// more), else read with TableAt.
template <auto kMake, int M>
JAXEXT_HD double InsideTableAt(int j) {
  if constexpr (!JAXEXT_DEVICE_PATH || JAXEXT_INSIDE_NODES_A_STEP >= M) {
    constexpr Table<M> kTable = kMake();
    return kTable.v[j];
  } else {
    return TableAt<kMake>(j);
  }
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE double SumOfLanes(const double* v) {
  if (kPointLanes == 1) return v[0];
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

// A point's sums for PowerFluxOf: each term's P_n picked by its power
// without indexing an array (on a GPU, an array indexed at run time lives
// in local memory).
JAXEXT_HD JAXEXT_ALWAYS_INLINE PowerSumsOfPoint SumsOfPoint(const PowerConstants& k,
                                                           const PowerSums<kPointLanes>& lanes,
                                                           double area, double w_r,
                                                           double w_b) {
  double p_n[4];
  for (int n = 0; n < 4; ++n) p_n[n] = SumOfLanes(lanes.p[n]);
  PowerSumsOfPoint s;
  for (int j = 0; j < 4; ++j) {
    const int i = k.index[j];
    s.p[j] = i == 0 ? p_n[0] : i == 1 ? p_n[1] : i == 2 ? p_n[2] : p_n[3];
  }
  s.q = SumOfLanes(lanes.q);
  s.s = SumOfLanes(lanes.s);
  s.t = SumOfLanes(lanes.t);
  s.scale = lanes.scale;
  s.area = area;
  s.w_r = w_r;
  s.w_b = w_b;
  return s;
}

// A point inside the disk (a = 1 - b^2 - r^2 > 0) by the inside rule of 2
// M steps, its M nodes in [0, pi] (the integrands are even in psi): the
// weights (r^2 - b r cos psi, r, -r cos psi) times 2 pi / M (the scale),
// the area 2 pi r^2, sum w_r M and sum w_b 0 (the cosines sum to 0).
template <int M, bool kHalf>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddInsideNodes(const PowerTerms& pt, double b, double r,
                                                   double a, PowerSums<kPointLanes>* s) {
  static_assert(M % kPointLanes == 0, "whole lanes");
  const double two_br = 2 * b * r, d2 = (b - r) * (b - r);
  if constexpr (JAXEXT_DEVICE_PATH && JAXEXT_INSIDE_NODES_A_STEP < M) {
    // One node after another, JAXEXT_INSIDE_NODES_A_STEP a step.
    JAXEXT_UNROLL_BY(JAXEXT_INSIDE_NODES_A_STEP)
    for (int j = 0; j < M; ++j) {
      const double cos_psi = TableAt<HalfPeriodMidCos<M>>(j);
      const InsideNode node =
          InsideNodeAt(a, two_br, d2, r, cos_psi, TableAt<HalfPeriodMidOneMinusCos<M>>(j));
      AddNodeOf<kHalf, true>(pt, node.z2, node.rho2, node.w_e, 1.0, cos_psi, 0, s);
    }
  } else {
    constexpr Table<M> kCos = HalfPeriodMidCos<M>();
    constexpr Table<M> kOneMinusCos = HalfPeriodMidOneMinusCos<M>();
    JAXEXT_UNROLL
    for (int j0 = 0; j0 < M; j0 += kPointLanes) {
      for (int i = 0; i < kPointLanes; ++i) {
        const double cos_psi = kCos.v[j0 + i];
        const InsideNode node =
            InsideNodeAt(a, two_br, d2, r, cos_psi, kOneMinusCos.v[j0 + i]);
        AddNodeOf<kHalf, true>(pt, node.z2, node.rho2, node.w_e, 1.0, cos_psi, i, s);
      }
    }
  }
}

// A point inside the disk by the inside rule of M nodes: a call of its
// own on a GPU, in the kernels that run every rule (the transit model's)
// as in a power law's pass of this rule alone (nvcc 13.5, sm_90: inlined
// into the pass of 32 nodes it spilled 84 B, as a call nothing).
template <int M>
JAXEXT_HD_CALLED PowerSumsOfPoint InsidePowerPoint(const PowerTerms& pt,
                                                   const PowerConstants& k, double b, double r,
                                                   double a) {
  PowerSums<kPointLanes> s;
  ClearPowerSums(kPointLanes, &s);
  if (pt.half) {
    AddInsideNodes<M, true>(pt, b, r, a, &s);
  } else {
    AddInsideNodes<M, false>(pt, b, r, a, &s);
  }
  s.scale = 2 * kPi / M;
  return SumsOfPoint(k, s, 2 * kPi * r * r, M, 0);
}

// A point crossing the limb by the crossing rule (its weights in full:
// scale 1).
template <bool kHalf>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void AddCrossingNodes(const PowerTerms& pt, const Geometry& geo,
                                                     PowerSums<kPointLanes>* s) {
  constexpr int kNodes = 32;
  constexpr Table<kNodes> kCos = GradedHalfPiCos<kNodes>();
  constexpr Table<kNodes> kSin2 = GradedHalfPiSin2<kNodes>();
  constexpr Table<kNodes> kWeight = GradedHalfPiWeight<kNodes>();
  constexpr Table<kNodes> kLogCos2 = GradedHalfPiLogCos2<kNodes>();
  static_assert(kNodes % kPointLanes == 0, "whole lanes");
  const double b = geo.b, r = geo.r, c2 = geo.one_minus_bmr2, k2 = geo.k2;
  const double log_c2 = LogOfNode(c2), k = Sqrt(k2), r_rmb = r * (r - b), d2 = (b - r) * (b - r);
  JAXEXT_UNROLL
  for (int j0 = 0; j0 < kNodes; j0 += kPointLanes) {
    for (int i = 0; i < kPointLanes; ++i) {
      const int j = j0 + i;
      const double cos_t = kCos.v[j];
      const CrossingNode node = CrossingNodeAt(c2, log_c2, k2, k, d2, r_rmb, cos_t, kSin2.v[j],
                                               4 * kWeight.v[j] * cos_t, kLogCos2.v[j]);
      s->area[i] += node.w_e;
      s->w_r[i] += node.w;
      s->w_b[i] += node.w_b;
      AddCrossingNodeOf<kHalf, true>(pt, node, i, s);
    }
  }
}

JAXEXT_HD_CALLED PowerSumsOfPoint CrossingPowerPoint(const PowerTerms& pt,
                                                     const PowerConstants& k,
                                                     const Geometry& geo) {
  PowerSums<kPointLanes> s;
  ClearPowerSums(kPointLanes, &s);
  if (pt.half) {
    AddCrossingNodes<true>(pt, geo, &s);
  } else {
    AddCrossingNodes<false>(pt, geo, &s);
  }
  s.scale = 1;
  return SumsOfPoint(k, s, SumOfLanes(s.area), SumOfLanes(s.w_r), SumOfLanes(s.w_b));
}

}  // namespace detail
}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_POWER_SUMS_H_
