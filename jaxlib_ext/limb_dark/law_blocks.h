// The edge sums of a power law (power_sums.h: power2, Claret's four
// coefficients, square root) at many points at once, on the CPU: one point
// per vector lane, each step a loop over the lanes that the compiler
// vectorises, for the rules of all but a few points next to the inner
// contact: inside the disk (the midpoint rule of 4 to 64 nodes,
// kInsideNodes; next to the contact, 64 nodes mapped towards it) and
// crossing the limb (the graded rule of 32 nodes, of 64 next to the
// contact). law_flux.h evaluates one point at a time, its nodes across the
// lanes: a chain of 8 to 32 nodes, too short to keep the vector units
// busy; here the lanes are independent points. Both take their nodes,
// powers, sums and flux from power_sums.h; a point's nodes are summed in
// another order (here one node after another). PowerLawBlocks, at the end,
// sorts any points into those rules' blocks: the CPU light curve's loop,
// and the transit model's times in transit (transit_cpu_loops.cc).
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

// Points per block, and the lanes a rule's sums run at a time (and its
// points are padded to): a rule keeps up to ten sums a lane in registers,
// as many lanes as one vector of the variant holds: eight with AVX-512,
// four elsewhere (AVX2 has 16 registers of 4 doubles; with eight lanes the
// power laws took 7% longer on a Zen 3 core, the same sums).
constexpr int kLawBlock = 1024;
#ifdef __AVX512F__
constexpr int kLawLanes = 8;
#else
constexpr int kLawLanes = 4;
#endif

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
  // The mapped inside rule: Z^2 = 1 - (b + r)^2, 4 b r, its map's eps.
  double z2_min[kLawBlock], four_br[kLawBlock], eps[kLawBlock];
};

// The inside rule's kInsideRules node counts (math/nodes.h,
// InsideRuleNodeCount; law_flux.h), and the largest x = 2 b r / a each
// takes (InsideRuleMaxX: its error below 1e-17). Past the last, the mapped
// inside rule (MappedInsidePowerSums), then the contact rule (one point at a
// time).
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
// vector each), not loaded and stored at every node;
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
        const int l = start + i;
        const InsideNode node =
            InsideNodeAt(in.a[l], in.two_br[l], in.d2[l], in.r[l], cos_psi, one_minus_cos);
        AddNodeOf<kHalf, kDerivatives>(pt, node.z2, node.rho2, node.w_e, 1.0, cos_psi, i, &acc);
      }
    }
    StoreLaneSums(acc, start, s);
  }
}

// Inside the disk next to the inner contact (x up to kMappedInsideRuleMaxX):
// the midpoint rule of 2 M steps (M = 64) in phi, psi = pi + theta with
// tan(theta / 2) = eps tan(phi / 2), eps = (Z^2 / c^2)^(1/4) (Z^2 = 1 - (b +
// r)^2, c^2 = 1 - (b - r)^2), for lanes [0, n) (n a multiple of kLawLanes).
// The integrand's branch points (z = 0) at theta = +-i acosh(1 / x), next
// to the real axis as x nears 1, move to phi = +-2i atanh(eps), as far as
// the map's own poles: the rule errs as the plain one would with the strip
// 2 atanh(eps), about sqrt(2 acosh(1 / x)) wide instead of acosh(1 / x).
// With t^2 = tan^2(phi / 2) from a table and one division a node, 1 / (1 +
// eps^2 t^2) = cos^2(theta / 2): sin^2(theta / 2), dtheta / dphi = eps (1 +
// t^2) / (1 + eps^2 t^2), z^2 = Z^2 + 4 b r sin^2(theta / 2) and rho^2 = (b
// - r)^2 + 4 b r cos^2(theta / 2) without cancellation, cos psi = 2
// sin^2(theta / 2) - 1. The weights (r^2 - b r cos psi, r, -r cos psi) times
// dtheta / dphi and 2 pi / M (the scale), whose sums are the plain rule's
// (SetInsideRuleWeights).
constexpr int kMappedInsideNodes = 64;

template <bool kHalf, bool kDerivatives>
void MappedInsidePowerSums(const PowerTerms& pt, const PowerLanes& in, int n, BlockSums* s) {
  constexpr Table<kMappedInsideNodes> kTan2 = HalfPeriodMidHalfTan2();
  for (int start = 0; start < n; start += kLawLanes) {
    PowerSums<kLawLanes> acc;
    ClearPowerSums(kLawLanes, &acc);
    for (int j = 0; j < kMappedInsideNodes; ++j) {
      const double t2 = kTan2.v[j];
      for (int i = 0; i < kLawLanes; ++i) {
        const int l = start + i;
        const double eps = in.eps[l], e2t2 = eps * eps * t2, cos2 = 1 / (1 + e2t2);
        const double sin2 = e2t2 * cos2, w = eps * (1 + t2) * cos2;
        const double cos_psi = 2 * sin2 - 1;
        const double z2 = in.z2_min[l] + in.four_br[l] * sin2;
        const double rho2 = in.d2[l] + in.four_br[l] * cos2;
        const double r = in.r[l];
        const double w_e = w * (r * r - 0.25 * in.four_br[l] * cos_psi);
        AddNodeOf<kHalf, kDerivatives>(pt, z2, rho2, w_e, w, w * cos_psi, i, &acc);
      }
    }
    StoreLaneSums(acc, start, s);
  }
}

// Crossing the limb: CrossingLawMoments' nodes (CrossingNodeAt) of the
// graded rule of kNodes nodes for lanes [0, n) (n a multiple of kLawLanes).
template <int kNodes, bool kHalf, bool kDerivatives>
void CrossingPowerSums(const PowerTerms& pt, const PowerLanes& in, int n, BlockSums* s) {
  constexpr Table<kNodes> kCos = GradedHalfPiCos<kNodes>();
  constexpr Table<kNodes> kSin2 = GradedHalfPiSin2<kNodes>();
  constexpr Table<kNodes> kWeight = GradedHalfPiWeight<kNodes>();
  constexpr Table<kNodes> kLogCos2 = GradedHalfPiLogCos2<kNodes>();
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
        AddCrossingNodeOf<kHalf, kDerivatives>(pt, node, i, &acc);
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

// The weights' sums of lanes [0, n) through an inside rule of M nodes,
// whose nodes' weights are (r^2 - b r cos psi, r, -r cos psi) times 2 pi /
// M (the scale; the mapped rule's times dtheta / dphi): the area 2 pi r^2,
// sum w_r M, sum w_b 0 (the cosines' integral).
inline void SetInsideRuleWeights(int m, const PowerLanes& lanes, int n, BlockSums* s) {
  s->scale = 2 * kPi / m;
  for (int i = 0; i < n; ++i) {
    const double r = lanes.r[i];
    s->area[i] = 2 * kPi * r * r;
    s->w_r[i] = m;
    s->w_b[i] = 0;
  }
}

// Lanes [0, n) through the inside rule of M nodes.
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
  SetInsideRuleWeights(M, lanes, n, s);
}

// Lanes [0, n) through the mapped inside rule (Z^2 and c^2 = 1 - (b - r)^2
// in z2_min and c2).
template <bool kDerivatives>
void MappedInsidePowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, BlockSums* s) {
  for (int i = 0; i < n; ++i) {
    const double b = lanes.b[i], r = lanes.r[i];
    lanes.four_br[i] = 4 * b * r;
    lanes.d2[i] = (b - r) * (b - r);
    lanes.eps[i] = Sqrt(Sqrt(lanes.z2_min[i] / lanes.c2[i]));
  }
  if (pt.half) {
    MappedInsidePowerSums<true, kDerivatives>(pt, lanes, n, s);
  } else {
    MappedInsidePowerSums<false, kDerivatives>(pt, lanes, n, s);
  }
  SetInsideRuleWeights(kMappedInsideNodes, lanes, n, s);
}

// Lanes [0, n) through the crossing rule of kNodes nodes (weights in full:
// scale 1).
template <int kNodes, bool kDerivatives>
void CrossingPowerRule(const PowerTerms& pt, PowerLanes& lanes, int n, BlockSums* s) {
  for (int i = 0; i < n; ++i) {
    const double b = lanes.b[i], r = lanes.r[i];
    lanes.log_c2[i] = LogOfNode(lanes.c2[i]);
    lanes.k[i] = Sqrt(lanes.k2[i]);
    lanes.r_rmb[i] = r * (r - b);
    lanes.d2[i] = (b - r) * (b - r);
  }
  if (pt.half) {
    CrossingPowerSums<kNodes, true, kDerivatives>(pt, lanes, n, s);
  } else {
    CrossingPowerSums<kNodes, false, kDerivatives>(pt, lanes, n, s);
  }
  s->scale = 1;
}

// A block's points by their place in it: rule, |b|, b's sign, r, and for
// the crossing and mapped inside rules 2 kappa1, 1 - (b - r)^2, k^2 and 1 -
// (b + r)^2 (MakeGeometry's).
struct BlockPoints {
  int rule[kLawBlock];
  double b[kLawBlock], sign_b[kLawBlock], r[kLawBlock];
  double limb[kLawBlock], c2[kLawBlock], k2[kLawBlock], z2_min[kLawBlock];
};

// The points past the inside rules, gathered: their place, b, r, and
// their rule with what it keeps.
struct EdgePoints {
  int at[kLawBlock], rule[kLawBlock];
  double b[kLawBlock], r[kLawBlock], limb[kLawBlock], c2[kLawBlock], k2[kLawBlock];
  double z2_min[kLawBlock];
};

// PowerLawBlocks' working arrays, about 360 kB: its callers keep one on the
// heap for all their calls.
struct PowerBlockScratch {
  BlockPoints points;
  EdgePoints edge;
  int by_rule[kLawBlock];  // places in the block, sorted by rule
  PowerLanes lanes;
  BlockSums sums;
  PowerOutputs outputs;
};

// A point's outputs, for the points PowerLawBlocks takes one at a time.
template <typename T>
void StoreLawPoint(const LawFlux& f, int order, size_t i, T* flux, T* d_db, T* d_dr,
                   T* const* d_du) {
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du) {
    for (int j = 0; j < order; ++j) d_du[j][i] = static_cast<T>(f.du[j]);
  }
}

// The rules a block's points are sorted into: the inside rule of each node
// count of kInsideNodes, then the crossing rule of 32 nodes and of 64
// (kWideCrossingRule, for k^2 from kCrossingRuleMaxK2 up to
// kWideCrossingRuleMaxK2) and the mapped inside rule, the last two where
// the per-point path takes the contact rule.
constexpr int kCrossingRule = kInsideRules;
constexpr int kWideCrossingRule = kInsideRules + 1;
constexpr int kMappedInsideRule = kInsideRules + 2;
constexpr int kPowerRules = kInsideRules + 3;

// The mapped inside rule serves x = 2 b r / a past the last of kInsideNodes'
// reach up to this (beyond, the contact rule): against mpmath's quadrature
// at x from 0.96 to 0.9979, r from 0.01 to 0.6, power-2 (alpha 0.6 and
// 0.05) and nonlinear, F within 1.1e-16 and dF/db, dF/dr within 1e-15
// relative, where the contact rule errs by up to 1.6e-15 and 2.6e-12
// (docs/limb_darkening_laws.md); at x = 0.999 the rule errs by 6e-16 of F.
constexpr double kMappedInsideRuleMaxX = 0.998;

// The graded rule of 64 nodes serves k^2 up to this: against mpmath's
// quadrature at k^2 from 0.96 to 0.9979 and r from 0.001 to 0.9, F within
// 6e-16 and dF/db within 1.1e-14 relative, where the contact rule errs by up
// to 1.3e-15 and 2.8e-13 (docs/limb_darkening_laws.md); 32 nodes err by
// 1.6e-13 in F at k^2 = 0.99 (r = 0.1).
constexpr double kWideCrossingRuleMaxK2 = 0.998;

// Lanes [0, n) of l through rule `rule`: the inside rule of
// kInsideNodes[rule] nodes, each count of the list one instantiation, or the
// crossing rule of 32 or 64 nodes.
template <bool kDerivatives, int K = 0>
void RunPowerRule(int rule, const PowerTerms& pt, PowerLanes& l, int n, BlockSums* sums) {
  if constexpr (K < kInsideRules) {
    if (rule == K) return InsidePowerRule<kInsideNodes.v[K], kDerivatives>(pt, l, n, sums);
    return RunPowerRule<kDerivatives, K + 1>(rule, pt, l, n, sums);
  } else {
    if (rule == kCrossingRule) return CrossingPowerRule<32, kDerivatives>(pt, l, n, sums);
    if (rule == kWideCrossingRule) return CrossingPowerRule<64, kDerivatives>(pt, l, n, sums);
    return MappedInsidePowerRule<kDerivatives>(pt, l, n, sums);
  }
}

// Whether PowerLawBlocks takes a law's row: a power law (power_sums.h's
// terms) with a positive flux.
inline bool TakesPowerBlocks(const LawRow& row) { return row.power && row.norm > 0; }

// A power law (power2, nonlinear, square root; TakesPowerBlocks): blocks
// of kLawBlock points, each point sorted by its rule (as LawLightCurvePoint
// chooses it, but for the inside rule's node count, kInsideNodes); those
// inside the disk and crossing the limb through the loops over lanes above,
// one rule at a time, the others (no overlap, the contact rule, NaN, r
// below 1e-100, where rho^2 at a node could underflow) one at a time. A
// point's result does not depend on the others in its block: its lane
// computes it alone, the padding lanes repeat the first. kDerivatives
// false: the value alone.
template <bool kDerivatives, typename T>
void PowerLawBlocks(const LawRow& row, int order, const T* b, const T* r, T* flux, T* d_db,
                    T* d_dr, T* const* d_du, size_t n, PowerBlockScratch* scratch) {
  const PowerTerms& pt = row.power_terms;
  BlockPoints& p = scratch->points;
  EdgePoints& edge = scratch->edge;
  PowerLanes& l = scratch->lanes;
  BlockSums* sums = &scratch->sums;
  PowerOutputs* outputs = &scratch->outputs;
  const PowerConstants& constants = row.power_constants;
  for (size_t start = 0; start < n; start += kLawBlock) {
    const int size = static_cast<int>(n - start < kLawBlock ? n - start : kLawBlock);
    // Every point's inside rule (kInsideRules: none; kPowerRules: not a
    // partial overlap, one at a time), in a loop without branches...
    for (int i = 0; i < size; ++i) {
      const double ri = static_cast<double>(r[start + i]);
      const PointSetUp point = SetUpPoint(static_cast<double>(b[start + i]), ri);
      const double bb = point.b;
      const double a = (1 - ri) * (1 + ri) - bb * bb, two_br = 2 * bb * ri;
      const bool partial = point.overlap == Overlap::kPartial && ri >= 1e-100;
      p.rule[i] = !partial ? kPowerRules : a > 0 ? InsideRule(two_br, a) : kInsideRules;
      p.b[i] = bb;
      p.sign_b[i] = point.sign_b;
      p.r[i] = ri;
    }
    // ... then, for the points past them (gathered), the crossing rule where
    // ChooseEdgeRule picks it, crossing the limb with k^2 up to
    // kWideCrossingRuleMaxK2 the rule of 64 nodes, inside the disk with x up
    // to kMappedInsideRuleMaxX the mapped inside rule (Geometry's 2 kappa1,
    // 1 - (b - r)^2, k^2 and 1 - (b + r)^2 kept), else kPowerRules, in a
    // loop that vectorises...
    int n_edge = 0;
    for (int i = 0; i < size; ++i) {
      edge.at[n_edge] = i;
      n_edge += p.rule[i] == kInsideRules;
    }
    for (int e = 0; e < n_edge; ++e) {
      edge.b[e] = p.b[edge.at[e]];
      edge.r[e] = p.r[edge.at[e]];
    }
    for (int e = 0; e < n_edge; ++e) {
      const double bb = edge.b[e], ri = edge.r[e];
      const Geometry geo = MakeGeometry(bb, ri);
      const double a = (1 - ri) * (1 + ri) - bb * bb;
      const EdgeRule rule = ChooseEdgeRule(geo, a);
      edge.rule[e] = rule == EdgeRule::kCrossing                          ? kCrossingRule
                     : !geo.inside && geo.k2 < kWideCrossingRuleMaxK2     ? kWideCrossingRule
                     : geo.inside && 2 * bb * ri <= kMappedInsideRuleMaxX * a ? kMappedInsideRule
                                                                          : kPowerRules;
      edge.limb[e] = 2 * geo.kappa1;
      edge.c2[e] = geo.one_minus_bmr2;
      edge.k2[e] = geo.k2;
      edge.z2_min[e] = geo.one_minus_bpr2;
    }
    for (int e = 0; e < n_edge; ++e) {
      const int i = edge.at[e];
      p.rule[i] = edge.rule[e];
      p.limb[i] = edge.limb[e];
      p.c2[i] = edge.c2[e];
      p.k2[i] = edge.k2[e];
      p.z2_min[i] = edge.z2_min[e];
    }
    // ... and the points of kPowerRules one at a time.
    // count[rule + 1]: the points of each rule (kPowerRules included), then
    // where each rule's points start in by_rule.
    int count[kPowerRules + 2] = {};
    for (int rule = 0; rule <= kPowerRules; ++rule) {
      int points = 0;
      for (int i = 0; i < size; ++i) points += p.rule[i] == rule;
      count[rule + 1] = points;
    }
    for (int i = 0; count[kPowerRules + 1] > 0 && i < size; ++i) {
      if (p.rule[i] == kPowerRules) {
        StoreLawPoint(LawLightCurvePoint(row, static_cast<double>(b[start + i]), p.r[i]), order,
                      start + i, flux, d_db, d_dr, d_du);
      }
    }
    for (int rule = 0; rule <= kPowerRules; ++rule) count[rule + 1] += count[rule];
    int next[kPowerRules + 1];
    for (int rule = 0; rule <= kPowerRules; ++rule) next[rule] = count[rule];
    for (int i = 0; i < size; ++i) scratch->by_rule[next[p.rule[i]]++] = i;
    for (int rule = 0; rule < kPowerRules; ++rule) {
      const int first = count[rule], lanes = count[rule + 1] - first;
      if (lanes == 0) continue;
      // Whole vectors: the padding lanes repeat the first point.
      const int padded = (lanes + kLawLanes - 1) / kLawLanes * kLawLanes;
      for (int j = 0; j < padded; ++j) {
        const int i = scratch->by_rule[first + (j < lanes ? j : 0)];
        l.b[j] = p.b[i];
        l.r[j] = p.r[i];
        l.sign_b[j] = p.sign_b[i];
        l.limb[j] = 0;  // the limb's share: the crossing rules' alone
      }
      for (int j = 0; rule >= kCrossingRule && j < padded; ++j) {
        const int i = scratch->by_rule[first + (j < lanes ? j : 0)];
        l.limb[j] = p.limb[i];
        l.c2[j] = p.c2[i];
        l.k2[j] = p.k2[i];
        l.z2_min[j] = p.z2_min[i];
      }
      RunPowerRule<kDerivatives>(rule, pt, l, padded, sums);
      PowerLaneOutputs<kDerivatives>(constants, l, *sums, padded, outputs);
      for (int j = 0; j < lanes; ++j) {
        const size_t i = start + scratch->by_rule[first + j];
        flux[i] = static_cast<T>(outputs->value[j]);
        if (!kDerivatives) continue;
        d_db[i] = static_cast<T>(outputs->d_db[j]);
        d_dr[i] = static_cast<T>(outputs->d_dr[j]);
        if (d_du) {
          for (int k = 0; k < order; ++k) d_du[k][i] = static_cast<T>(outputs->du[k][j]);
        }
      }
    }
  }
}

}  // namespace detail
}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_BLOCKS_H_
