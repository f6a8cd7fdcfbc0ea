// The edge sums of law_flux.h for a power law of laws.h (every term 1 -
// z^alpha: power2, Claret's four coefficients, square root) at many points
// at once, on the CPU: one point per vector lane, each step a loop over the
// lanes that the compiler vectorises, for the two rules most points take:
// inside the disk (the midpoint rule of 4 to 128 nodes, kInsideNodes) and
// crossing the limb (the graded rule of 32 nodes). law_flux.h evaluates one point at
// a time, its nodes across the lanes: a chain of 8 to 32 nodes, too short
// to keep the vector units busy; here the lanes are independent points.
//
// The same nodes and weights as law_flux.h, with the sums over them in
// fewer terms. With m_n = z^alpha_n - 1 at a node, g = z^2 / rho^2 and L =
// log z^2, a term's Psi = alpha / (2 beta) + g m / beta (laws.h), so that,
// w_e the node's weight of the area, w_r and w_b those of d/dr and d/db:
//   sum of w_e Psi_n          = Psi_n(0) A + P_n / beta_n,  P_n = sum w_e g m_n,
//   sum of w_e dPsi/dalpha    = A / beta^2 + Q / (2 beta) - P / beta^2,
//                               Q = sum w_e g (1 + m) L  (power2),
//   sum of w_r I, of w_b I    = sum w_r + S,  sum w_b + T,
//                               S = sum w_r (I - 1), T = sum w_b (I - 1),
// A = sum w_e (2 pi r^2 inside: the cosines of the midpoint nodes sum to
// 0), I - 1 = sum_k c_k m_k. The powers: power2's from L, expm1(alpha L /
// 2); the others' (each a half power z^(n/2), n = 1..4) from z^(1/2) - 1 =
// expm1(L / 4) and (s - 1)(1 + s + ... + s^(n-1)) (HalfPowerMinusOne). L and
// 1 / rho^2 share one division (LogFromRatio's s = num / den, and 1 / (den
// rho^2)), and L is log(1 - rho^2) from rho^2 itself where z^2 >=
// sqrt(1/2): g m keeps its limit -alpha / 2 at the star's centre, however
// small rho^2.
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_

#include <cstddef>

#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/law_flux.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/math/nodes.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;
namespace detail {

// Points per block, and the lanes each rule's points are padded to.
constexpr int kLawBlock = 1024;
constexpr int kLawLanes = 8;

// A power law as the lane loops take it: one power (power2: m = z^alpha -
// 1, its coefficient c) or the four half powers (m_n = z^(n/2) - 1, n =
// 1..4, with the coefficients c_n of the terms that have them, 0 for the
// others). Every law of laws.h whose terms are all powers is one of these.
struct PowerTerms {
  bool half;
  double half_alpha;  // alpha / 2 (one power)
  double c[4];        // c (one power) or c_1..c_4 (half powers)
};

// Whether the block loops take law t, and its PowerTerms.
inline bool MakePowerTerms(const LawTerms& t, PowerTerms* p) {
  for (int k = 0; k < t.count; ++k) {
    if (t.kind[k] != Term::kPower) return false;
  }
  for (int n = 0; n < 4; ++n) p->c[n] = 0;
  p->half = !t.with_alpha;
  p->half_alpha = 0.5 * t.alpha[0];
  if (!p->half) {
    p->c[0] = t.c[0];
    return t.count == 1;
  }
  for (int k = 0; k < t.count; ++k) {
    const double twice = 2 * t.alpha[k];
    const int n = static_cast<int>(twice);
    if (!(twice == n && n >= 1 && n <= 4)) return false;
    p->c[n - 1] += t.c[k];
  }
  return true;
}

// Which of PowerSums' P_n term k of t takes.
inline int PowerIndex(const LawTerms& t, int k) {
  return t.with_alpha ? 0 : static_cast<int>(2 * t.alpha[k]) - 1;
}

// The sums per lane (the top comment's P_n, Q, S, T, and A, sum w_r, sum
// w_b where the rule does not know them).
struct PowerSums {
  double p[4][kLawBlock];
  double q[kLawBlock];
  double s[kLawBlock], t[kLawBlock];
  double area[kLawBlock], w_r[kLawBlock], w_b[kLawBlock];
  double scale;  // PowerLaneOutputs
};

// z^(n/2) - 1 from s = z^(1/2) and s - 1: (s - 1)(1 + s + ... + s^(n-1)).
JAXEXT_ALWAYS_INLINE inline double HalfPowerMinusOne(double root, double root_minus_one, int n) {
  double sum = 1, power = 1;
  for (int i = 1; i < n; ++i) {
    power *= root;
    sum += power;
  }
  return root_minus_one * sum;
}

// One node of lane i: the powers at L = log z^2, added with weights w_e g
// (P, Q), w_r (S) and w_b (T). kDerivatives false: P alone (summed as with
// them: the value is the same to the bit).
template <bool kHalf, bool kDerivatives>
JAXEXT_ALWAYS_INLINE inline void AddPowerNode(const PowerTerms& pt, double log_z2, double g,
                                              double w_e, double w_r, double w_b, int i,
                                              PowerSums* s) {
  const double weg = w_e * g;
  if (kHalf) {
    const double root_minus_one = Expm1OfNode(0.25 * log_z2), root = 1 + root_minus_one;
    double excess = 0;
    for (int n = 0; n < 4; ++n) {
      const double m = HalfPowerMinusOne(root, root_minus_one, n + 1);
      s->p[n][i] += weg * m;
      excess += pt.c[n] * m;
    }
    if (kDerivatives) {
      s->s[i] += w_r * excess;
      s->t[i] += w_b * excess;
    }
  } else {
    const double m = Expm1OfNode(pt.half_alpha * log_z2);
    s->p[0][i] += weg * m;
    if (kDerivatives) {
      const double excess = pt.c[0] * m;
      s->s[i] += w_r * excess;
      s->t[i] += w_b * excess;
      s->q[i] += weg * (1 + m) * log_z2;
    }
  }
}

inline void ClearPowerSums(int n, PowerSums* s) {
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) s->p[k][i] = 0;
    s->q[i] = s->s[i] = s->t[i] = s->area[i] = s->w_r[i] = s->w_b[i] = 0;
  }
}

// The points of a block that take one rule, one a lane: |b|, b's sign, r,
// the limb's share 2 kappa1, for the crossing rule c^2 = 1 - (b - r)^2 and
// k^2 (Geometry's), and what the rule derives from them (InsidePowerRule,
// CrossingPowerRule).
struct PowerLanes {
  double b[kLawBlock], sign_b[kLawBlock], r[kLawBlock], limb[kLawBlock];
  // Inside: a = 1 - b^2 - r^2, 2 b r, (b - r)^2. Crossing: log c^2, k, r (r
  // - b), (b - r)^2.
  double a[kLawBlock], two_br[kLawBlock];
  double c2[kLawBlock], log_c2[kLawBlock], k2[kLawBlock], k[kLawBlock], r_rmb[kLawBlock];
  double d2[kLawBlock];
};

// The inside rule's kInsideRules node counts (math/nodes.h,
// InsideRuleNodeCount; law_flux.h), and the largest x = 2 b r / a each
// takes (InsideRuleMaxX: its error below 1e-17). Past the last, the contact
// rule (one point at a time).
constexpr IntTable<kInsideRules> kInsideNodes = InsideRuleNodeCount();

// Which of kInsideNodes a point inside the disk takes, the fewest with
// two_br <= x a (a > 0), or kInsideRules: none; without branches.
JAXEXT_ALWAYS_INLINE inline int InsideRule(double two_br, double a) {
  constexpr Table<kInsideRules> kMaxX = InsideRuleMaxX();
  int rule = 0;
  for (int k = 0; k < kInsideRules; ++k) rule += two_br > kMaxX.v[k] * a;
  return rule;
}

// Lanes are summed in chunks whose sums stay in the first-level cache.
constexpr int kLaneChunk = 64;

// Inside the disk: the midpoint rule of 2 M steps (InsideLawMoments') for
// lanes [0, n), nodes in [0, pi] (the integrands are even in psi).
template <int M, bool kHalf, bool kDerivatives>
void InsidePowerSums(const PowerTerms& pt, const PowerLanes& in, int n, PowerSums* s) {
  constexpr Table<M> kCos = HalfPeriodMidCos<M>();
  constexpr Table<M> kOneMinusCos = HalfPeriodMidOneMinusCos<M>();
  ClearPowerSums(n, s);
  for (int start = 0; start < n; start += kLaneChunk) {
    const int end = n - start < kLaneChunk ? n : start + kLaneChunk;
    for (int j = 0; j < M; ++j) {
      const double cos_psi = kCos.v[j], one_minus_cos = kOneMinusCos.v[j];
      for (int i = start; i < end; ++i) {
        const double z2 = Max(in.a[i] + in.two_br[i] * cos_psi, 1e-300);
        const double rho2 = in.d2[i] + in.two_br[i] * one_minus_cos;
        const LogReduction x = ReduceForLog(z2);
        const bool near_centre = x.e == 0;  // z^2 in [sqrt(1/2), 1]
        const double num = near_centre ? -rho2 : x.m - 1;
        const double den = near_centre ? 2 - rho2 : x.m + 1;
        const double inv = 1 / (den * rho2);
        const double log_z2 = LogFromRatio(x.e, num * rho2 * inv);
        const double g = z2 * den * inv;
        const double w_e = in.r[i] * in.r[i] - 0.5 * in.two_br[i] * cos_psi;
        AddPowerNode<kHalf, kDerivatives>(pt, log_z2, g, w_e, 1.0, cos_psi, i, s);
      }
    }
  }
}

// Crossing the limb: CrossingLawMoments' nodes for lanes [0, n). With z =
// c cos(theta): z^2 = c^2 cos^2, log z^2 = log c^2 + log cos^2, rho^2 = 1 -
// z^2 = sin^2 + (b - r)^2 cos^2; the weight 4 w_j k cos / sqrt(1 - k^2
// sin^2) shares its division with 1 / rho^2.
template <bool kHalf, bool kDerivatives>
void CrossingPowerSums(const PowerTerms& pt, const PowerLanes& in, int n, PowerSums* s) {
  constexpr int kNodes = 32;
  constexpr Table<kNodes> kCos = GradedHalfPiCos();
  constexpr Table<kNodes> kSin2 = GradedHalfPiSin2();
  constexpr Table<kNodes> kWeight = GradedHalfPiWeight();
  constexpr Table<kNodes> kLogCos2 = GradedHalfPiLogCos2();
  ClearPowerSums(n, s);
  for (int start = 0; start < n; start += kLaneChunk) {
    const int end = n - start < kLaneChunk ? n : start + kLaneChunk;
    for (int j = 0; j < kNodes; ++j) {
      const double cos_t = kCos.v[j], cos2 = cos_t * cos_t, sin2 = kSin2.v[j];
      const double weight = 4 * kWeight.v[j] * cos_t, log_cos2 = kLogCos2.v[j];
      for (int i = start; i < end; ++i) {
        const double root = Sqrt(1 - in.k2[i] * sin2);
        const double rho2 = sin2 + in.d2[i] * cos2;
        const double inv = 1 / (root * rho2);
        const double w = weight * in.k[i] * rho2 * inv;
        const double g = in.c2[i] * cos2 * root * inv;
        const double w_e = w * (in.r_rmb[i] + 0.5 * in.c2[i] * sin2);
        const double w_b = w * (1 - 2 * in.k2[i] * sin2);
        s->area[i] += w_e;
        if (kDerivatives) {
          s->w_r[i] += w;
          s->w_b[i] += w_b;
        }
        AddPowerNode<kHalf, kDerivatives>(pt, in.log_c2[i] + log_cos2, g, w_e, w, w_b, i, s);
      }
    }
  }
}

// What the outputs need of the law, per term k (four, those past its
// count with c = 0): c_k, Psi_k(0), 1 / beta_k, P's index; 1 / norm.
struct PowerConstants {
  double c[4], at_limb[4], inv_beta[4];
  int index[4];
  bool with_alpha;
  double inv_norm;
};

inline PowerConstants MakePowerConstants(const LawTerms& t, double norm) {
  PowerConstants k;
  for (int j = 0; j < 4; ++j) {
    const bool term = j < t.count;
    k.c[j] = term ? t.c[j] : 0.0;
    k.at_limb[j] = term ? PsiAtLimb(t, j) : 0.0;
    k.inv_beta[j] = term ? 1 / (t.alpha[j] + 2) : 0.0;
    k.index[j] = term ? PowerIndex(t, j) : 0;
  }
  k.with_alpha = t.with_alpha;
  k.inv_norm = 1 / norm;
  return k;
}

// F - 1 and its derivatives per lane, as LawFluxFromMoments (law_flux.h)
// makes them from the edge sums: with the whole area A + 2 kappa1 and
// B_k = Psi_k(0) (A + 2 kappa1) + P_k / beta_k, blocked = (A + 2 kappa1) /
// 2 - sum_k c_k B_k and dF/dc_k = (B_k + 2 pi Psi_k(0) (F - 1)) / norm; d/dr
// and d/db from S and T with their weights, scale r and -scale r.
struct PowerOutputs {
  double value[kLawBlock], d_db[kLawBlock], d_dr[kLawBlock];
  double du[kMaxLawTerms][kLawBlock];
};

template <bool kDerivatives>
void PowerLaneOutputs(const PowerConstants& k, const PowerLanes& l, const PowerSums& s, int n,
                      PowerOutputs* out) {
  const double scale = s.scale, inv_norm = k.inv_norm;
  for (int i = 0; i < n; ++i) {
    const double whole = s.area[i] + l.limb[i];
    double blocked = 0.5 * whole, b_k[4];
    for (int j = 0; j < 4; ++j) {
      b_k[j] = k.at_limb[j] * whole + scale * s.p[k.index[j]][i] * k.inv_beta[j];
      blocked -= k.c[j] * b_k[j];
    }
    const double value = -blocked * inv_norm;
    out->value[i] = value;
    if (!kDerivatives) continue;
    const double r = l.r[i];
    out->d_dr[i] = -scale * r * (s.w_r[i] + s.s[i]) * inv_norm;
    out->d_db[i] = l.sign_b[i] * scale * r * (s.w_b[i] + s.t[i]) * inv_norm;
    for (int j = 0; j < 4; ++j) {
      out->du[j][i] = (b_k[j] + 2 * kPi * k.at_limb[j] * value) * inv_norm;
    }
    // power2's alpha: sum of w_e dPsi/dalpha, the limb's share 2 kappa1 /
    // beta^2 (DpsiDalphaAtLimb).
    const double ib = k.inv_beta[0];
    const double b_alpha = ib * (whole * ib + scale * (0.5 * s.q[i] - s.p[0][i] * ib));
    const double du_alpha = k.c[0] * (b_alpha + 2 * kPi * ib * ib * value) * inv_norm;
    out->du[1][i] = k.with_alpha ? du_alpha : out->du[1][i];
  }
}

// Lanes [0, n) through the inside rule of M nodes: their nodes' weights
// are (r^2 - b r cos psi, r, -r cos psi) times 2 pi / M (the scale), the
// area 2 pi r^2, sum w_r M, sum w_b 0 (the cosines sum to 0).
template <int M, bool kDerivatives>
void InsidePowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, PowerSums* s) {
  for (int i = 0; i < n; ++i) {
    const double b = lanes.b[i], r = lanes.r[i];
    lanes.a[i] = (1 - r) * (1 + r) - b * b;
    lanes.two_br[i] = 2 * b * r;
    lanes.d2[i] = (b - r) * (b - r);
  }
  if (pt.half) {
    InsidePowerSums<M, true, kDerivatives>(pt, lanes, n, s);
  } else {
    InsidePowerSums<M, false, kDerivatives>(pt, lanes, n, s);
  }
  s->scale = 2 * kPi / M;
  for (int i = 0; i < n; ++i) {
    const double r = lanes.r[i];
    s->area[i] = 2 * kPi * r * r;
    s->w_r[i] = M;
    s->w_b[i] = 0;
  }
}

// Lanes [0, n) through the crossing rule (weights in full: scale 1).
template <bool kDerivatives>
void CrossingPowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, PowerSums* s) {
  for (int i = 0; i < n; ++i) {
    const double b = lanes.b[i], r = lanes.r[i];
    lanes.log_c2[i] = LogOfNode(lanes.c2[i]);
    lanes.k[i] = Sqrt(lanes.k2[i]);
    lanes.r_rmb[i] = r * (r - b);
    lanes.d2[i] = (b - r) * (b - r);
  }
  if (pt.half) {
    CrossingPowerSums<true, kDerivatives>(pt, lanes, n, s);
  } else {
    CrossingPowerSums<false, kDerivatives>(pt, lanes, n, s);
  }
  s->scale = 1;
}

}  // namespace detail
}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_
