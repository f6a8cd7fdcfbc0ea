// The light-curve loop, written once; compiled once per instruction-set
// variant like kepler_solve_cpu_loops.cc (per_isa_cc_library), with
// JAXEXT_ISA_NAMESPACE naming its entry point's namespace and
// JAXEXT_MATH_NAMESPACE giving its copy of the math symbols of its own.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "jaxlib_ext/limb_dark/law_blocks.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/limb_dark/limb_dark_cpu_loops.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext::limb_dark::JAXEXT_ISA_NAMESPACE {
namespace {

template <typename T>
void StorePoint(const Flux& f, const double* ds, int order, double norm, size_t i,
                T* flux, T* d_db, T* d_dr, T* const* d_du) {
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du) {
    double du[kMaxOrder];
    FluxGradientInU(ds, f.value, norm, order, du);
    for (int j = 0; j < order; ++j) d_du[j][i] = static_cast<T>(du[j]);
  }
}

// Any order: one point at a time.
template <typename T>
void GeneralLoop(const double* g, const double* q, int order, double norm, const T* b,
                 const T* r, T* flux, T* d_db, T* d_dr, T* const* d_du, size_t n) {
  double ds[kMaxOrder + 1];
  for (size_t i = 0; i < n; ++i) {
    const Flux f = LightCurvePoint(static_cast<double>(b[i]),
                                   static_cast<double>(r[i]), g, q,
                                   order, norm, ds);
    StorePoint(f, ds, order, norm, i, flux, d_db, d_dr, d_du);
  }
}

// At most two coefficients (the quadratic law and below): blocks of points
// through LowOrderLightCurvePoint, a loop clang vectorises in the avx2 and
// avx512 variants (one point per lane; not in baseline, where its cost model
// declines) and that stores every point's results, then LightCurvePoint
// over the points that path leaves (ok false: b = 0, b = r, b + r near 1,
// r > 1, NaN), whose results replace those stored. kDerivatives false: the
// value alone, and the vectorised loop keeps only what the value needs (the
// compiler drops the derivatives' arithmetic); kU false: no gradient in u
// (d_du null).
template <bool kDerivatives, bool kU, typename T>
void LowOrderBlocks(const double* g, const double* g3, const double* q, int order,
                    double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* const* d_du, size_t n) {
  constexpr size_t kBlock = 256;
  bool ok[kBlock];
  T unused1[kBlock], unused2[kBlock];  // dF/du_j of a law of lower order
  // dF/du_j = sum_k a[k][j] (ds_k - (F - 1) s0_k) for k < 3, j < 2: the rows of
  // GreensTranspose / norm (zero for coefficients the law does not have).
  double a[3][2] = {};
  for (int k = 0; kU && k <= order; ++k) {
    // Sized for any order: gcc cannot see that order <= 2 here and warns of
    // GreensTranspose's loops reading past three values.
    double unit[kMaxOrder + 1] = {}, column[kMaxOrder] = {};
    unit[k] = 1 / norm;
    GreensTranspose(unit, order, column);
    a[k][0] = column[0];
    a[k][1] = column[1];
  }
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t m = n - start < kBlock ? n - start : kBlock;
    const T* __restrict bb = b + start;
    const T* __restrict rr = r + start;
    // XLA's buffers do not overlap: restrict lets clang vectorise the
    // stores without checking.
    T* __restrict ff = flux + start;
    T* __restrict fb = kDerivatives ? d_db + start : nullptr;
    T* __restrict fr = kDerivatives ? d_dr + start : nullptr;
    T* __restrict fu1 = kU && order >= 1 ? d_du[0] + start : unused1;
    T* __restrict fu2 = kU && order >= 2 ? d_du[1] + start : unused2;
    for (size_t i = 0; i < m; ++i) {
      const LowOrderPoint p = LowOrderLightCurvePoint(
          static_cast<double>(bb[i]), static_cast<double>(rr[i]), g3, norm);
      ff[i] = static_cast<T>(p.flux.value);
      if (kDerivatives) {
        fb[i] = static_cast<T>(p.flux.d_db);
        fr[i] = static_cast<T>(p.flux.d_dr);
      }
      if (kU) {
        const double v = p.flux.value;  // as FluxGradientInU
        const double q0 = p.ds[0] - kPi * v, q1 = p.ds[1] - 2 * kPi / 3 * v, q2 = p.ds[2];
        fu1[i] = static_cast<T>(a[0][0] * q0 + a[1][0] * q1 + a[2][0] * q2);
        fu2[i] = static_cast<T>(a[0][1] * q0 + a[1][1] * q1 + a[2][1] * q2);
      }
      ok[i] = p.ok;
    }
    double ds[kMaxOrder + 1];
    for (size_t i = 0; i < m; ++i) {
      if (ok[i]) continue;
      const Flux point = LightCurvePoint(static_cast<double>(bb[i]),
                                         static_cast<double>(rr[i]), g, q, order, norm, ds);
      StorePoint(point, ds, order, norm, start + i, flux, kDerivatives ? d_db : nullptr,
                 kDerivatives ? d_dr : nullptr, kU ? d_du : nullptr);
    }
  }
}

template <typename T>
void LowOrderLoop(const double* g, const double* q, int order, double norm, const T* b,
                  const T* r, T* flux, T* d_db, T* d_dr, T* const* d_du, size_t n) {
  const double g3[3] = {g[0], order >= 1 ? g[1] : 0.0, order >= 2 ? g[2] : 0.0};
  // A law with NaN or inf in it makes every point NaN, out of transit too:
  // the vectorised path returns 0 there without reading g, the scalar one
  // does not.
  if (!(std::isfinite(norm) && std::isfinite(g3[0]) && std::isfinite(g3[1]) &&
        std::isfinite(g3[2]))) {
    GeneralLoop(g, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
    return;
  }
  if (d_du) {  // the handler asks for d_du only with the other derivatives
    LowOrderBlocks<true, true>(g, g3, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
  } else if (d_db) {
    LowOrderBlocks<true, false>(g, g3, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
  } else {
    LowOrderBlocks<false, false>(g, g3, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
  }
}

template <typename T>
void LightCurveLoop(const double* g, const double* q, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* const* d_du, size_t n) {
  if (order <= 2) {
    LowOrderLoop(g, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
  } else {
    GeneralLoop(g, q, order, norm, b, r, flux, d_db, d_dr, d_du, n);
  }
}

// The tabulated law: one point at a time.
template <typename T>
void TableCurveLoop(const double* u, int order, const T* b, const T* r, T* flux, T* d_db,
                    T* d_dr, T* const* d_du, size_t n) {
  const TableRow row = MakeTableRow(u, order);
  double du[kMaxTableSize];
  for (size_t i = 0; i < n; ++i) {
    const TableFlux f = TabulatedLightCurvePoint(row, static_cast<double>(b[i]),
                                                 static_cast<double>(r[i]), d_du ? du : nullptr);
    flux[i] = static_cast<T>(f.value);
    if (d_db) {
      d_db[i] = static_cast<T>(f.d_db);
      d_dr[i] = static_cast<T>(f.d_dr);
    }
    if (d_du) {
      for (int j = 0; j < row.size; ++j) d_du[j][i] = static_cast<T>(du[j]);
    }
  }
}

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

// The rules of law_blocks.h a block's points are sorted into: the inside
// rule of each node count of kInsideNodes, then the crossing rule.
constexpr int kCrossingRule = detail::kInsideRules;
constexpr int kPowerRules = detail::kInsideRules + 1;

// Lanes [0, n) of l through rule `rule`: the inside rule of
// kInsideNodes[rule] nodes, each count of the list one instantiation, or the
// crossing rule.
template <bool kDerivatives, int K = 0>
void RunPowerRule(int rule, const detail::PowerTerms& pt, detail::PowerLanes& l, int n,
                  detail::BlockSums* sums) {
  using namespace detail;
  if constexpr (K < kInsideRules) {
    if (rule == K) return InsidePowerRule<kInsideNodes.v[K], kDerivatives>(pt, l, n, sums);
    return RunPowerRule<kDerivatives, K + 1>(rule, pt, l, n, sums);
  } else {
    return CrossingPowerRule<kDerivatives>(pt, l, n, sums);
  }
}

// A power law (power2, nonlinear, square root): blocks of kLawBlock points,
// each point sorted by its rule (as LawLightCurvePoint chooses it, but for
// the inside rule's node count, kInsideNodes); those inside the disk and
// crossing the limb through law_blocks.h's loops over lanes, one rule at a
// time, the others (no overlap, the contact rule, NaN, r below 1e-100,
// where rho^2 at a node could underflow) one at a time. A point's result
// does not depend on the others in its block: its lane computes it alone,
// the padding lanes repeat the first. kDerivatives false: the value alone.
template <bool kDerivatives, typename T>
void PowerLawBlocks(const LawRow& row, int order, const T* b, const T* r, T* flux, T* d_db,
                    T* d_dr, T* const* d_du, size_t n) {
  using namespace detail;
  const PowerTerms& pt = row.power_terms;
  // The block's points by their place in it: rule, |b|, b's sign, r, and
  // for the crossing rule 2 kappa1, 1 - (b - r)^2, k^2 (MakeGeometry's).
  struct BlockPoints {
    int rule[kLawBlock];
    double b[kLawBlock], sign_b[kLawBlock], r[kLawBlock];
    double limb[kLawBlock], c2[kLawBlock], k2[kLawBlock];
  };
  // The points past the inside rules, gathered: their place, b, r, and
  // their rule with what it keeps.
  struct EdgePoints {
    int at[kLawBlock], rule[kLawBlock];
    double b[kLawBlock], r[kLawBlock], limb[kLawBlock], c2[kLawBlock], k2[kLawBlock];
  };
  struct Scratch {
    BlockPoints points;
    EdgePoints edge;
    int by_rule[kLawBlock];  // places in the block, sorted by rule
    PowerLanes lanes;
    BlockSums sums;
    PowerOutputs outputs;
  };
  const std::unique_ptr<Scratch> scratch(new Scratch);
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
    // ChooseEdgeRule picks it (Geometry's 2 kappa1, 1 - (b - r)^2 and k^2
    // kept), else kPowerRules, in a loop that vectorises...
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
      edge.rule[e] = ChooseEdgeRule(geo, a) == EdgeRule::kCrossing ? kCrossingRule : kPowerRules;
      edge.limb[e] = 2 * geo.kappa1;
      edge.c2[e] = geo.one_minus_bmr2;
      edge.k2[e] = geo.k2;
    }
    for (int e = 0; e < n_edge; ++e) {
      const int i = edge.at[e];
      p.rule[i] = edge.rule[e];
      p.limb[i] = edge.limb[e];
      p.c2[i] = edge.c2[e];
      p.k2[i] = edge.k2[e];
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
        l.limb[j] = 0;  // the limb's share: the crossing rule's alone
      }
      for (int j = 0; rule == kCrossingRule && j < padded; ++j) {
        const int i = scratch->by_rule[first + (j < lanes ? j : 0)];
        l.limb[j] = p.limb[i];
        l.c2[j] = p.c2[i];
        l.k2[j] = p.k2[i];
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

// A law of laws.h, or the tabulated law: the power laws by PowerLawBlocks,
// the others one point at a time.
template <typename T>
void LawCurveLoop(Law law, const double* u, int order, const T* b, const T* r, T* flux,
                  T* d_db, T* d_dr, T* const* d_du, size_t n) {
  if (law == Law::kTabulated) {
    TableCurveLoop(u, order, b, r, flux, d_db, d_dr, d_du, n);
    return;
  }
  const LawRow row = MakeLawRow(law, u);
  if (row.norm > 0 && row.power) {
    if (d_db) {
      PowerLawBlocks<true>(row, order, b, r, flux, d_db, d_dr, d_du, n);
    } else {
      PowerLawBlocks<false>(row, order, b, r, flux, d_db, d_dr, d_du, n);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    StoreLawPoint(LawLightCurvePoint(row, static_cast<double>(b[i]), static_cast<double>(r[i])),
                  order, i, flux, d_db, d_dr, d_du);
  }
}

}  // namespace

JAXEXT_ISA_LOOPS(LawCurveLoops, LawLoops, LawCurveLoop)
JAXEXT_ISA_LOOPS(LightCurveLoops, Loops, LightCurveLoop)

}  // namespace jaxext::limb_dark::JAXEXT_ISA_NAMESPACE
