// The edge sums of a power law (power_sums.h: power2, Claret's four
// coefficients, square root) at many points at once, on the CPU: one point
// per vector lane, each step a loop over the lanes that the compiler
// vectorises, for the two rules most points take: inside the disk (the
// midpoint rule of 4 to 64 nodes, kInsideNodes) and crossing the limb (the
// graded rule of 32 nodes). law_flux.h evaluates one point at a time, its
// nodes across the lanes: a chain of 8 to 32 nodes, too short to keep the
// vector units busy; here the lanes are independent points. Both take
// their nodes, powers, sums and flux from power_sums.h; a point's nodes are
// summed in another order (here one node after another).
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_

#include <cstddef>

#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/law_flux.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/limb_dark/power_sums.h"
#include "jaxlib_ext/math/nodes.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;
namespace detail {

// Points per block, and the lanes each rule's points are padded to.
constexpr int kLawBlock = 1024;
constexpr int kLawLanes = 8;

// A block's sums, a point a lane.
using BlockSums = PowerSums<kLawBlock>;

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

// The rules run kLawLanes lanes at a time, all of a rule's nodes, one node
// after another, into sums of those lanes that stay in registers (one
// vector each with AVX-512), not loaded and stored at every node;
// StoreLaneSums hands them to the block's sums.
JAXEXT_ALWAYS_INLINE inline void StoreLaneSums(const PowerSums<kLawLanes>& acc, int start,
                                               BlockSums* s) {
  for (int i = 0; i < kLawLanes; ++i) {
    for (int k = 0; k < 4; ++k) s->p[k][start + i] = acc.p[k][i];
    s->q[start + i] = acc.q[i];
    s->s[start + i] = acc.s[i];
    s->t[start + i] = acc.t[i];
    s->area[start + i] = acc.area[i];
    s->w_r[start + i] = acc.w_r[i];
    s->w_b[start + i] = acc.w_b[i];
  }
}

// Inside the disk: the midpoint rule of 2 M steps (InsideLawMoments') for
// lanes [0, n) (n a multiple of kLawLanes), nodes in [0, pi] (the
// integrands are even in psi).
template <int M, bool kHalf, bool kDerivatives>
void InsidePowerSums(const PowerTerms& pt, const PowerLanes& in, int n, BlockSums* s) {
  constexpr Table<M> kCos = HalfPeriodMidCos<M>();
  constexpr Table<M> kOneMinusCos = HalfPeriodMidOneMinusCos<M>();
  for (int start = 0; start < n; start += kLawLanes) {
    PowerSums<kLawLanes> acc;
    ClearPowerSums(kLawLanes, &acc);
    for (int j = 0; j < M; ++j) {
      const double cos_psi = kCos.v[j], one_minus_cos = kOneMinusCos.v[j];
      for (int i = 0; i < kLawLanes; ++i) {
        const InsideNode node = InsideNodeAt(in.a[start + i], in.two_br[start + i],
                                             in.d2[start + i], in.r[start + i], cos_psi,
                                             one_minus_cos);
        AddPowerNode<kHalf, kDerivatives>(pt, node.log_z2, node.g, node.w_e, 1.0, cos_psi, i,
                                          &acc);
      }
    }
    StoreLaneSums(acc, start, s);
  }
}

// Crossing the limb: CrossingLawMoments' nodes (CrossingNodeAt) for lanes
// [0, n) (n a multiple of kLawLanes).
template <bool kHalf, bool kDerivatives>
void CrossingPowerSums(const PowerTerms& pt, const PowerLanes& in, int n, BlockSums* s) {
  constexpr int kNodes = 32;
  constexpr Table<kNodes> kCos = GradedHalfPiCos();
  constexpr Table<kNodes> kSin2 = GradedHalfPiSin2();
  constexpr Table<kNodes> kWeight = GradedHalfPiWeight();
  constexpr Table<kNodes> kLogCos2 = GradedHalfPiLogCos2();
  for (int start = 0; start < n; start += kLawLanes) {
    PowerSums<kLawLanes> acc;
    ClearPowerSums(kLawLanes, &acc);
    for (int j = 0; j < kNodes; ++j) {
      const double cos_t = kCos.v[j], sin2 = kSin2.v[j];
      const double weight = 4 * kWeight.v[j] * cos_t, log_cos2 = kLogCos2.v[j];
      for (int i = 0; i < kLawLanes; ++i) {
        const int l = start + i;
        const CrossingNode node = CrossingNodeAt(in.c2[l], in.log_c2[l], in.k2[l], in.k[l],
                                                 in.d2[l], in.r_rmb[l], cos_t, sin2, weight,
                                                 log_cos2);
        acc.area[i] += node.w_e;
        if (kDerivatives) {
          acc.w_r[i] += node.w;
          acc.w_b[i] += node.w_b;
        }
        AddPowerNode<kHalf, kDerivatives>(pt, node.log_z2, node.g, node.w_e, node.w, node.w_b, i,
                                          &acc);
      }
    }
    StoreLaneSums(acc, start, s);
  }
}

// F - 1 and its derivatives per lane (PowerFluxOf).
struct PowerOutputs {
  double value[kLawBlock], d_db[kLawBlock], d_dr[kLawBlock];
  double du[kMaxLawTerms][kLawBlock];
};

template <bool kDerivatives>
void PowerLaneOutputs(const PowerConstants& k, const PowerLanes& l, const BlockSums& s, int n,
                      PowerOutputs* out) {
  // Each term's P_n, by its power.
  const double* p[4];
  for (int j = 0; j < 4; ++j) p[j] = s.p[k.index[j]];
  for (int i = 0; i < n; ++i) {
    PowerSumsOfPoint sums;
    for (int j = 0; j < 4; ++j) sums.p[j] = p[j][i];
    sums.q = s.q[i];
    sums.s = s.s[i];
    sums.t = s.t[i];
    sums.area = s.area[i];
    sums.w_r = s.w_r[i];
    sums.w_b = s.w_b[i];
    sums.scale = s.scale;
    const LawFlux f = PowerFluxOf<kDerivatives>(k, sums, l.limb[i], l.r[i], l.sign_b[i]);
    out->value[i] = f.value;
    if (!kDerivatives) continue;
    out->d_dr[i] = f.d_dr;
    out->d_db[i] = f.d_db;
    for (int j = 0; j < 4; ++j) out->du[j][i] = f.du[j];
  }
}

// Lanes [0, n) through the inside rule of M nodes: their nodes' weights
// are (r^2 - b r cos psi, r, -r cos psi) times 2 pi / M (the scale), the
// area 2 pi r^2, sum w_r M, sum w_b 0 (the cosines sum to 0).
template <int M, bool kDerivatives>
void InsidePowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, BlockSums* s) {
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
void CrossingPowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, BlockSums* s) {
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
