// Limb-darkened transit light curves: the closed form of E. Agol, R. Luger
// and D. Foreman-Mackey, "Analytic planetary transit light curves and
// derivatives for stars with polynomial limb darkening", AJ 159, 123 (2020),
// arXiv:1908.03222 (section numbers in these files are that paper's).
//
// This header holds the kernel's per-element bodies; the math is in the
// headers it includes, one object each, read top-down: polynomial_flux.h
// (the polynomial laws' light curve at a point), tabulated_law.h (an
// intensity table's), law_flux.h (the other laws', with laws.h, the laws
// themselves), polynomial_law.h (the polynomial law's
// coefficients in the Green's basis and its edge polynomial),
// solution_vector.h (s_n and its derivatives), edge_rules.h (the blocked flux
// as an integral over the occultor's edge), geometry.h, elliptic.h,
// elementary.h, and nodes.h (tables written by tools/math_tables.py).
// power_sums.h holds the power laws' nodes, powers and flux from their
// sums, for law_flux.h's points and for law_blocks.h, the CPU loops' alone,
// which evaluates those laws' points in blocks, one point per vector lane
// (limb_dark_cpu_loops.cc).
//
// Header-only; usable from host C++17 and from CUDA device code. Computes in
// double whatever the input dtype (the handlers round the results). The
// device path (JAXEXT_DEVICE_PATH, jaxlib_ext/host_device.h: nvcc's device
// pass, or a host compilation that tests it) differs from the host's only in
// calling the C math functions of the global namespace (CUDA's on the
// device) instead of std::'s; LightCurveElement is the CUDA kernel's
// per-element body.
//
// A star of unit radius with intensity I(mu) = 1 - sum_{n=1}^N u_n (1-mu)^n
// is occulted by a disk of radius r at projected separation b >= 0. The
// blocked flux is written in the "Green's basis" (sec. 2): with g the
// coefficients of the law in that basis (GreensCoefficients) and s_n(b, r)
// the integral of its n-th member over the visible disk (SolutionVector),
// the flux normalised to 1 out of transit is
//   F = (s . g) / (pi g_0 + 2 pi g_1 / 3).
// SolutionVector also returns ds_n/db and ds_n/dr (sec. 5-7), so that the
// flux's derivatives come with it. For laws of three or more coefficients
// the value is instead the law's own intensity integrated over the
// occultor's edge (the edge rules, edge_rules.h): the Green's
// coefficients of such laws can be tens of times the normalisation, and
// would multiply the rounding of s_n.
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_

#include <cstdint>
#include <type_traits>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/limb_dark/law_flux.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/limb_dark/polynomial_flux.h"
#include "jaxlib_ext/limb_dark/polynomial_law.h"
#include "jaxlib_ext/limb_dark/tabulated_law.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// The most derivatives in u a point has, one result of the op each: the
// polynomial law's coefficients or a table's intensities.
constexpr int kMaxDerivativesInU = kMaxTableSize > kMaxOrder ? kMaxTableSize : kMaxOrder;

// Element i of a light curve of a polynomial law, as the CUDA kernel
// computes it (one thread per element, limb_dark_kernel.cu, through
// CurveElement below) and as tests/device_path_loops.cc runs it on the host: the buffers of Params (limb_dark_kernel.h), u holding
// `order` coefficients per group of group_size consecutive elements. Stores
// flux[i] = F - 1 at (b[i], r[i]); d_db[i] and d_dr[i] unless d_db is null
// (d_db and d_dr both null: the value alone); d_du[j][i] = dF/du_{j+1}, j <
// order, unless d_du[0] is null (d_du holds kMaxOrder pointers). Forms its
// row's Green's coefficients itself: at most kMaxOrder^2 flops, small next
// to the point's own work.
// LawCurveElement: the same for a law of laws.h (law != kPolynomial),
// order = LawCoefficients(law); with kOnly, the code of that edge rule
// alone, for a point of that rule (law_flux.h's LawLightCurvePointOf).
// The row of element i (with the power code's fields where kCode may take
// them; each coefficient's index known at compile time once the loop is
// unrolled: a GPU keeps the array in registers).
template <LawCode kCode = LawCode::kAll, typename T>
JAXEXT_HD LawRow LawRowOf(Law law, const T* u, int order, std::int64_t group_size,
                          std::int64_t i) {
  double coefficients[kMaxLawTerms];
  const T* row = u + (i / group_size) * order;
  JAXEXT_UNROLL
  for (int j = 0; j < kMaxLawTerms; ++j) {
    coefficients[j] = j < order ? static_cast<double>(row[j]) : 0.0;
  }
  return MakeLawRow(law, coefficients, kCode != LawCode::kOthers);
}

template <LawRule kOnly = LawRule::kAny, LawCode kCode = LawCode::kAll, typename T>
JAXEXT_HD void LawCurveElement(Law law, const T* u, const T* b, const T* r, int order,
                               std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                               T* d_dr, T* const* d_du) {
  const LawFlux f =
      LawLightCurvePointOf<kOnly, kCode>(LawRowOf<kCode>(law, u, order, group_size, i),
                                  static_cast<double>(b[i]), static_cast<double>(r[i]));
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du[0]) {
    for (int j = 0; j < order; ++j) d_du[j][i] = static_cast<T>(f.du[j]);
  }
}

// LawCurveElement as the GPU runs it, in passes by edge rule (law_flux.h's
// LawRule), so that a warp's threads run one rule: the first,
// LawRuleElement, computes the points without an edge sum and marks each
// other point with its rule (MarkLeft(&flux[i], rule)); then, for each rule,
// LeftLawElement<kRule, PassCode(law, kRule)> computes the points marked
// with it.
static_assert(static_cast<int>(LawRule::kAny) <= LeftMark<double>::kMarks,
              "a mark for each rule");

template <typename T>
JAXEXT_HD void LawRuleElement(Law law, const T* u, const T* b, const T* r, int order,
                              std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                              T* d_dr, T* const* d_du) {
  const LawRule rule = LawRuleOf(LawRowOf<LawCode::kOthers>(law, u, order, group_size, i),
                                 static_cast<double>(b[i]), static_cast<double>(r[i]));
  if (rule == LawRule::kNoEdge) {
    LawCurveElement<LawRule::kNoEdge>(law, u, b, r, order, group_size, i, flux, d_db, d_dr,
                                      d_du);
  } else {
    MarkLeft(&flux[i], static_cast<int>(rule));
  }
}

template <LawRule kRule, LawCode kCode = LawCode::kAll, typename T>
JAXEXT_HD void LeftLawElement(Law law, const T* u, const T* b, const T* r, int order,
                              std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                              T* d_dr, T* const* d_du) {
  if (IsMarkedLeft(flux[i], static_cast<int>(kRule))) {
    LawCurveElement<kRule, kCode>(law, u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

// The code the pass of a rule runs for law (LawCode): a power law's inside
// and crossing rules the power code alone, every other pass the edge
// moments alone.
JAXEXT_HD LawCode PassCode(Law law, LawRule rule) {
  return rule != LawRule::kContact && IsPowerLaw(law) ? LawCode::kPowers : LawCode::kOthers;
}

// kMax: the largest order the caller passes, which sizes the point's arrays
// (the GPU's pass for the left points of laws of at most two coefficients
// keeps them at three values); orders beyond it give NaN. kRule: the
// point's edge rule where the caller knows it (SolutionVector's).
template <int kMax = kMaxOrder, int kRule = kChooseRule, typename T>
JAXEXT_HD void LightCurveElement(const T* u, const T* b, const T* r, int order,
                                 std::int64_t group_size, std::int64_t i, T* flux,
                                 T* d_db, T* d_dr, T* const* d_du) {
  static_assert(kMax >= 1 && kMax <= kMaxOrder, "an order the op accepts");
  if (order > kMax) {
    flux[i] = static_cast<T>(NaN());
    if (d_db) d_db[i] = d_dr[i] = static_cast<T>(NaN());
    for (int j = 0; d_du[0] && j < order; ++j) d_du[j][i] = static_cast<T>(NaN());
    return;
  }
  // The law's g and q in a scope of their own, not held with dF/du's work
  // (which is ds itself); on the GPU, for laws of three or more
  // coefficients, the edge rule's flux (EdgeBlocked) first, then g in q's
  // array: a thread's stack holds one array of up to 35 values less.
  const T* law = u + (i / group_size) * order;
  const double bi = static_cast<double>(b[i]), ri = static_cast<double>(r[i]);
  double ds[kMax + 1], norm;
  Flux f;
#if JAXEXT_DEVICE_PATH
  if constexpr (kMax >= 3 && kRule != kNoEdgeRule) {
    const detail::PointSetUp point = detail::SetUpPoint(bi, ri);
    double edge = 0, q_then_g[kMax + 2];
    if (order >= 3 && point.overlap == detail::Overlap::kPartial) {
      EdgePolynomial(law, order, q_then_g);
      edge = EdgeBlocked<kRule>(point.b, ri, q_then_g, order);
    }
    GreensCoefficients(law, order, q_then_g);
    norm = Normalisation(law, order);
    f = LightCurvePoint<kMax, kRule>(bi, ri, q_then_g, nullptr, order, norm, ds, &edge);
  } else
#endif
  {
    double g[kMax + 1], q[kMax + 2];
    norm = GreensRow(law, order, g, q);
    f = LightCurvePoint<kMax, kRule>(bi, ri, g, q, order, norm, ds);
  }
  flux[i] = static_cast<T>(f.value);
  if (d_db) {  // null: the value alone
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du[0]) {
    FluxGradientInUBy(ds, f.value, norm, order, ds,
                      [&](int j, double du) { d_du[j][i] = static_cast<T>(du); });
  }
}

// LightCurveElement for laws of three or more coefficients as the GPU runs
// it, in passes by edge rule (PolynomialRuleOf), so that a warp's threads
// run one rule: the first, PolynomialRuleElement, computes the points
// without one (out of transit, hidden, NaN) and marks each other point
// with its rule (MarkLeft(&flux[i], 1 + rule)); then, for each rule,
// LeftPolynomialElement<rule> computes the points marked with it.
template <typename T>
JAXEXT_HD void PolynomialRuleElement(const T* u, const T* b, const T* r, int order,
                                     std::int64_t group_size, std::int64_t i, T* flux,
                                     T* d_db, T* d_dr, T* const* d_du) {
  const int rule = PolynomialRuleOf(static_cast<double>(b[i]), static_cast<double>(r[i]));
  if (rule == kNoEdgeRule) {
    LightCurveElement<kMaxOrder, kNoEdgeRule>(u, b, r, order, group_size, i, flux, d_db, d_dr,
                                              d_du);
  } else {
    MarkLeft(&flux[i], 1 + rule);
  }
}

template <int kRule, typename T>
JAXEXT_HD void LeftPolynomialElement(const T* u, const T* b, const T* r, int order,
                                     std::int64_t group_size, std::int64_t i, T* flux,
                                     T* d_db, T* d_dr, T* const* d_du) {
  if (IsMarkedLeft(flux[i], 1 + kRule)) {
    LightCurveElement<kMaxOrder, kRule>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

// LightCurveElement for laws of at most two coefficients (order <= 2), as
// the GPU runs them, in two passes over the elements. The first,
// LowOrderFastElement, runs LowOrderLightCurvePoint (polynomial_flux.h): a
// path without branches whose arrays are of three values, so that a thread
// keeps its point in registers (LightCurveElement's are sized for
// kMaxOrder). The law is taken as one of two coefficients, the missing ones
// 0: the same Green's coefficients, normalisation and derivatives in the
// coefficients it has, to the bit. The points that path leaves (`ok` false:
// b = 0, b = r, b + r next to 1, r > 1, NaN) and laws with NaN or inf (which
// must give NaN out of transit too) it marks (MarkLeft, host_device.h, in
// flux[i]) and returns false. The second, LeftLightCurveElement, runs
// LightCurveElement on the marked points alone. So the fast kernel carries
// neither LightCurveElement's registers nor its stack, and the rare points
// cost the second pass a read of flux.
//
// M is the type the point is computed in: double (CurveElement's choice for
// both dtypes), or float for float32 inputs (LowOrderFastElementIn<float>:
// the float32-in-float32 path, every step of the point in float, the law's
// coefficients formed in double and rounded once; the points it leaves go
// through LightCurveElement in double as above). Its accuracy on the host
// build: tests/device_path_test.py, Float32MathTest. No kernel calls it:
// the float64 path alone meets the CPU's float32 bounds (docs/gpu.md).
template <typename M, typename T>
JAXEXT_HD bool LowOrderFastElementIn(const T* u, const T* b, const T* r, int order,
                                     std::int64_t group_size, std::int64_t i, T* flux,
                                     T* d_db, T* d_dr, T* const* d_du) {
  const T* row = u + (i / group_size) * order;
  const double u2[2] = {order >= 1 ? static_cast<double>(row[0]) : 0.0,
                        order >= 2 ? static_cast<double>(row[1]) : 0.0};
  double g64[3];
  GreensCoefficients(u2, 2, g64);
  const double norm64 = Normalisation(u2, 2);
  const M g[3] = {static_cast<M>(g64[0]), static_cast<M>(g64[1]), static_cast<M>(g64[2])};
  const M norm = static_cast<M>(norm64);
  const LowOrderPointOf<M> p =
      LowOrderLightCurvePoint(static_cast<M>(b[i]), static_cast<M>(r[i]), g, norm);
  const bool finite_law = IsFinite(norm) && IsFinite(g[0]) &&
                          IsFinite(g[1]) && IsFinite(g[2]);
  if (!(p.ok && finite_law)) {
    MarkLeft(&flux[i]);
    return false;
  }
  flux[i] = static_cast<T>(p.flux.value);
  if (d_db) {
    d_db[i] = static_cast<T>(p.flux.d_db);
    d_dr[i] = static_cast<T>(p.flux.d_dr);
  }
  if (d_du[0]) {
    M du[2];
    FluxGradientInU(p.ds, p.flux.value, norm, 2, du);
    for (int j = 0; j < order; ++j) d_du[j][i] = static_cast<T>(du[j]);
  }
  return true;
}

template <typename T>
JAXEXT_HD bool LowOrderFastElement(const T* u, const T* b, const T* r, int order,
                                   std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                                   T* d_dr, T* const* d_du) {
  return LowOrderFastElementIn<double>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
}

template <typename T>
JAXEXT_HD void LeftLightCurveElement(const T* u, const T* b, const T* r, int order,
                                     std::int64_t group_size, std::int64_t i, T* flux,
                                     T* d_db, T* d_dr, T* const* d_du) {
  if (IsMarkedLeft(flux[i])) {
    LightCurveElement<2>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

// Both passes on one element, for code that runs an element at a time
// (the host's tests of the device path; on the device a call of its own,
// PolynomialCurveCall, so that LightCurveElement's registers are not the
// fast path's).
template <typename T>
JAXEXT_HD_CALLED void PolynomialCurveCall(const T* u, const T* b, const T* r, int order,
                                          std::int64_t group_size, std::int64_t i, T* flux,
                                          T* d_db, T* d_dr, T* const* d_du) {
  LightCurveElement<2>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
}

template <typename M, typename T>
JAXEXT_HD void LowOrderCurveElementIn(const T* u, const T* b, const T* r, int order,
                                      std::int64_t group_size, std::int64_t i, T* flux,
                                      T* d_db, T* d_dr, T* const* d_du) {
  if (!LowOrderFastElementIn<M>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du)) {
    PolynomialCurveCall(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

template <typename T>
JAXEXT_HD void LowOrderCurveElement(const T* u, const T* b, const T* r, int order,
                                    std::int64_t group_size, std::int64_t i, T* flux,
                                    T* d_db, T* d_dr, T* const* d_du) {
  LowOrderCurveElementIn<double>(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
}

// TableCurveElement: the same for the tabulated law (tabulated_law.h), u
// holding the grid then the intensities, `order` = 2 M values per row;
// d_du[j] for the M intensities. On a GPU (JAXEXT_DEVICE_PATH) the table is
// read from its row a grid point at a time (TabulatedPointOfRow).
template <typename T>
JAXEXT_HD void TableCurveElement(const T* u, const T* b, const T* r, int order,
                                 std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                                 T* d_dr, T* const* d_du) {
  const T* row = u + (i / group_size) * order;
#if JAXEXT_DEVICE_PATH
  const TableFlux f = TabulatedPointOfRow(
      row, order, static_cast<double>(b[i]), static_cast<double>(r[i]), d_du[0] != nullptr,
      [&](int j, double du) { d_du[j][i] = static_cast<T>(du); });
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
#else
  double coefficients[2 * kMaxTableSize], du[kMaxTableSize];
  for (int j = 0; j < order && j < 2 * kMaxTableSize; ++j) {
    coefficients[j] = static_cast<double>(row[j]);
  }
  const TableRow table = MakeTableRow(coefficients, order);
  const TableFlux f = TabulatedLightCurvePoint(table, static_cast<double>(b[i]),
                                               static_cast<double>(r[i]), d_du[0] ? du : nullptr);
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du[0]) {
    for (int j = 0; j < table.size; ++j) d_du[j][i] = static_cast<T>(du[j]);
  }
#endif
}

// The per-element body for any law: LowOrderCurveElement for the
// polynomial laws of at most two coefficients, LightCurveElement for the
// others, TableCurveElement for the tabulated law, LawCurveElement for the
// other laws (the CUDA kernels make this choice per launch,
// limb_dark_kernel.cu).
template <typename T>
JAXEXT_HD void CurveElement(Law law, const T* u, const T* b, const T* r, int order,
                            std::int64_t group_size, std::int64_t i, T* flux, T* d_db, T* d_dr,
                            T* const* d_du) {
  if (law == Law::kPolynomial && order <= 2) {
    LowOrderCurveElement(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  } else if (law == Law::kPolynomial) {
    LightCurveElement(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  } else if (law == Law::kTabulated) {
    TableCurveElement(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  } else {
    LawCurveElement(law, u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

// A law of any kind made ready for its points, for callers that evaluate
// one row at points they compute themselves (the transit model,
// jaxlib_ext/transit/): the polynomial law's Green's row, a law of laws.h,
// or a table; u as the op takes it (the tabulated law's grid then its
// intensities).
struct CurveRow {
  static constexpr int kMaxCoefficients = 2 * kMaxTableSize;  // order, at most
  static constexpr int kMaxDerivatives = kMaxDerivativesInU;  // n_du, at most
  Law law;
  int order;  // u's values
  int n_du;   // the derivatives in u a point gives: order, or the table's size
  double g[kMaxOrder + 1], q[kMaxOrder + 2], norm;
  LawRow law_row;
  TableRow table;
};

JAXEXT_HD_CALLED void MakeCurveRow(Law law, const double* u, int order, CurveRow* row) {
  row->law = law;
  row->order = order;
  row->n_du = DerivativesInU(static_cast<std::int32_t>(law), order);
  if (law == Law::kPolynomial) {
    row->norm = GreensRow(u, order, row->g, row->q);
  } else if (law == Law::kTabulated) {
    row->table = MakeTableRow(u, order);
  } else {
    row->law_row = MakeLawRow(law, u);
  }
}

// F - 1 at (b, r) of a law of laws.h (`order` coefficients) or of a
// table, and its derivatives in b and r; du as CurveAt's. kByRule: a
// rule's code at a time (LawLightCurvePointByRule).
template <bool kByRule = false>
JAXEXT_HD Flux LawCurveAt(const LawRow& row, int order, double b, double r, double* du) {
  const LawFlux f =
      kByRule ? LawLightCurvePointByRule(row, b, r) : LawLightCurvePoint(row, b, r);
  if (du) {
    for (int j = 0; j < order; ++j) du[j] = f.du[j];
  }
  return {f.value, f.d_db, f.d_dr};
}

JAXEXT_HD Flux TableCurveAt(const TableRow& table, double b, double r, double* du) {
  const TableFlux f = TabulatedLightCurvePoint(table, b, r, du);
  return {f.value, f.d_db, f.d_dr};
}

// F - 1 at (b, r) and its derivatives in b and r; du[0..n_du) the
// derivatives in u unless du is null.
JAXEXT_HD_CALLED Flux CurveAt(const CurveRow& row, double b, double r, double* du) {
  if (row.law == Law::kPolynomial) {
    double ds[kMaxOrder + 1];
    const Flux f = LightCurvePoint(b, r, row.g, row.q, row.order, row.norm, ds);
    if (du) FluxGradientInU(ds, f.value, row.norm, row.order, du);
    return f;
  }
  if (row.law == Law::kTabulated) return TableCurveAt(row.table, b, r, du);
  return LawCurveAt(row.law_row, row.order, b, r, du);
}

// The rows of one family of laws, what a caller that runs that family alone
// holds instead of CurveRow (the transit model's kernels, one a family), so
// that it carries neither the other families' code nor their arrays: the
// same MakeCurveRow and CurveAt, the same values. Any other law or order is
// refused (order -1: NaN at every point).
//
// The polynomial laws of at most kMax coefficients, in arrays sized for
// them (kMax = 2: the quadratic law's kernels; kMaxOrder: the others).
template <int kMax>
struct PolynomialCurveRow {
  static constexpr int kMaxCoefficients = kMax;
  static constexpr int kMaxDerivatives = kMax;
  int order, n_du;
  double g[kMax + 1], q[kMax + 2], norm;
};

template <int kMax>
JAXEXT_HD void MakeCurveRow(Law law, const double* u, int order, PolynomialCurveRow<kMax>* row) {
  const bool accepted = law == Law::kPolynomial && order >= 0 && order <= kMax;
  row->order = accepted ? order : -1;
  row->n_du = accepted ? order : 0;
  row->norm = accepted ? GreensRow(u, order, row->g, row->q) : NaN();
}

template <int kMax>
JAXEXT_HD_CALLED Flux CurveAt(const PolynomialCurveRow<kMax>& row, double b, double r,
                              double* du) {
  if (row.order < 0) return {NaN(), NaN(), NaN()};
  double ds[kMax + 1];
  const Flux f = LightCurvePoint<kMax>(b, r, row.g, row.q, row.order, row.norm, ds);
  if (du) FluxGradientInU<kMax>(ds, f.value, row.norm, row.order, du);
  return f;
}

namespace detail {

// F - 1 at b = r + 2, away from the star (CurveAwayFromStar, the verdict
// a planet made ready keeps), as LightCurvePoint computes it there, from
// blocked = sum_k 0 g_k (0, or NaN where a g_k is not finite) and the
// norm. b = r + 2 >= 1 + r in floating point too (rounding is monotone),
// so the disks never overlap in part: the solution vector is pi, 2 pi /
// 3, then 0, with no deficit, and F - 1 = blocked / norm; but -1 where the
// occultor hides the disk as well (r beyond 2^53, where r + 2 and r + 1
// round to r), and NaN where r is refused.
JAXEXT_HD double PolynomialAwayFromStar(double r, double blocked, double norm) {
  const double b = r + 2;
  const bool hidden = DiskHidden(b, r);
  const bool unsupported = r > kMaxCrossingRadius && !NoOverlap(b, r) && !hidden;
  if (!(r >= 0) || !IsFinite(b) || !IsFinite(r) || unsupported) return NaN();
  if (!(r == 0 || NoOverlap(b, r)) && !hidden) return NaN();  // a partial overlap: not reached
  return hidden ? -norm / norm : blocked / norm;
}

}  // namespace detail

// CurveAwayFromStar without the light curve's code.
template <int kMax>
JAXEXT_HD double CurveAwayFromStar(const PolynomialCurveRow<kMax>& row, double r) {
  if (row.order < 0) return NaN();
  double blocked = 0 * row.g[0];
  for (int k = 1; k <= row.order; ++k) blocked += 0 * row.g[k];
  return detail::PolynomialAwayFromStar(r, blocked, row.norm);
}

// The polynomial law's verdict alone (whether its g_k are finite, and its
// norm; u read where it lies: no array but p's), for a GPU kernel that
// only asks whether a planet is accepted (the transit model's window
// pass): PolynomialCurveRow's order, n_du and CurveAwayFromStar, no
// points.
template <int kMax>
struct PolynomialVerdictRow {
  static constexpr int kMaxCoefficients = kMax;
  static constexpr int kMaxDerivatives = kMax;
  int order, n_du;
  bool finite;
  double norm;
};

template <int kMax, typename U>
JAXEXT_HD void MakeCurveRow(Law law, const U* u, int order, PolynomialVerdictRow<kMax>* row) {
  const bool accepted = law == Law::kPolynomial && order >= 0 && order <= kMax;
  row->order = accepted ? order : -1;
  row->n_du = accepted ? order : 0;
  row->finite = accepted && GreensFinite<kMax>(u, order);
  row->norm = accepted ? Normalisation(u, order) : NaN();
}

template <int kMax>
JAXEXT_HD double CurveAwayFromStar(const PolynomialVerdictRow<kMax>& row, double r) {
  if (row.order < 0) return NaN();
  return detail::PolynomialAwayFromStar(r, row.finite ? 0.0 : NaN(), row.norm);
}

// A law of laws.h.
struct LawCurveRow {
  static constexpr int kMaxCoefficients = kMaxLawTerms;
  static constexpr int kMaxDerivatives = kMaxLawTerms;
  int order, n_du;
  LawRow law_row;
};

JAXEXT_HD void MakeCurveRow(Law law, const double* u, int order, LawCurveRow* row) {
  const bool accepted = law != Law::kPolynomial && law != Law::kTabulated &&
                        order == LawCoefficients(static_cast<std::int32_t>(law));
  row->order = accepted ? order : -1;
  row->n_du = accepted ? order : 0;
  if (accepted) MakeLawRowAt(law, u, &row->law_row);
}

JAXEXT_HD_CALLED Flux CurveAt(const LawCurveRow& row, double b, double r, double* du) {
  if (row.order < 0) return {NaN(), NaN(), NaN()};
  return LawCurveAt<false>(row.law_row, row.order, b, r, du);
}

// The same row whose points run, on the device path, their rule's code
// alone in a call of its own (LawLightCurvePointByRule): what a GPU kernel
// that holds a point of any rule at a time takes where its stack, not its
// registers, is what the rules' code side by side would overfill
// (transit.h's PassCurve). The same values as LawCurveRow's.
struct LawCurveRowByRule : LawCurveRow {};

JAXEXT_HD_CALLED Flux CurveAt(const LawCurveRowByRule& row, double b, double r, double* du) {
  if (row.order < 0) return {NaN(), NaN(), NaN()};
  return LawCurveAt<JAXEXT_DEVICE_PATH != 0>(row.law_row, row.order, b, r, du);
}

// F - 1 of a row at b = r + 2, away from the star: 0 where the row's law
// and the radius are accepted, NaN otherwise (the light curve's verdict on
// them, which a planet made ready keeps: transit/planet_flux.h). For the
// laws of laws.h without the rules' code, which a GPU kernel that makes
// its planets ready need not carry.
template <typename Row>
JAXEXT_HD double CurveAwayFromStar(const Row& row, double r) {
  return CurveAt(row, r + 2, r, nullptr).value;
}

JAXEXT_HD double CurveAwayFromStar(const LawCurveRow& row, double r) {
  if (row.order < 0) return NaN();
  return LawLightCurvePointOf<LawRule::kNoEdge>(row.law_row, r + 2, r).value;
}

// The tabulated law (`order` values: the grid, then the intensities), read
// where it lies, in the op's dtype (`f` for float32, `d` for float64, as
// `is_float` says; detail::ReadTable's view of the row, which has checked
// it and holds its norm): a point reads the table a grid point at a time
// (TabulatedPointOfTable), so that a row holds no copy of the table and a
// point no array of its size (the transit kernels' rows of this law, a GPU
// thread's own).
struct TableCurveRow {
  static constexpr int kMaxCoefficients = 2 * kMaxTableSize;
  static constexpr int kMaxDerivatives = kMaxTableSize;
  int order, n_du;
  bool is_float;
  detail::TableOfRow<float> f;
  detail::TableOfRow<double> d;
};

template <typename U>
JAXEXT_HD void MakeCurveRow(Law law, const U* u, int order, TableCurveRow* row) {
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, double>, "a row of float or double");
  const bool accepted = law == Law::kTabulated && order >= 0 && order <= 2 * kMaxTableSize;
  row->order = accepted ? order : -1;
  row->n_du = accepted ? DerivativesInU(static_cast<std::int32_t>(law), order) : 0;
  row->is_float = std::is_same_v<U, float>;
  if constexpr (std::is_same_v<U, float>) {
    row->f = detail::ReadTable(u, order);
  } else {
    row->d = detail::ReadTable(u, order);
  }
}

JAXEXT_HD_CALLED Flux CurveAt(const TableCurveRow& row, double b, double r, double* du) {
  if (row.order < 0) return {NaN(), NaN(), NaN()};
  const auto at = [du](int j, double value) { du[j] = value; };
  const TableFlux f = row.is_float ? TabulatedPointOfTable(row.f, b, r, du != nullptr, at)
                                   : TabulatedPointOfTable(row.d, b, r, du != nullptr, at);
  return {f.value, f.d_db, f.d_dr};
}

// The tabulated law's verdict alone (the table's norm, read from the row
// where it lies: no array of the table's size), for a GPU kernel that only
// asks whether a planet is accepted (the transit model's window pass):
// TableCurveRow's order, n_du and CurveAwayFromStar, no points.
struct TableVerdictRow {
  static constexpr int kMaxCoefficients = TableCurveRow::kMaxCoefficients;
  static constexpr int kMaxDerivatives = TableCurveRow::kMaxDerivatives;
  int order, n_du;
  double norm;
};

// Rows that MakeCurveRow reads where they lie, in the op's dtype
// (kReadsRowOf<Row>: the caller passes the row's own pointer, not a copy
// of its coefficients in double).
template <typename Row>
constexpr bool kReadsRowOf =
    std::is_same_v<Row, TableVerdictRow> || std::is_same_v<Row, TableCurveRow>;
template <int kMax>
constexpr bool kReadsRowOf<PolynomialVerdictRow<kMax>> = true;

template <typename U>
JAXEXT_HD void MakeCurveRow(Law law, const U* u, int order, TableVerdictRow* row) {
  const bool accepted = law == Law::kTabulated && order >= 0 && order <= 2 * kMaxTableSize;
  row->order = accepted ? order : -1;
  row->n_du = accepted ? DerivativesInU(static_cast<std::int32_t>(law), order) : 0;
  row->norm = accepted ? detail::ReadTable(u, order).norm : NaN();
}

// TabulatedLightCurvePoint's value at b = r + 2 from the norm (MakeTableRow
// keeps ReadTable's): NaN for a refused table or radius, -1 where the
// occultor hides the disk, else 0 (no partial overlap there:
// detail::PolynomialAwayFromStar).
JAXEXT_HD double CurveAwayFromStar(const TableVerdictRow& row, double r) {
  using namespace detail;
  if (row.order < 0) return NaN();
  const PointSetUp point = SetUpPoint(r + 2, r);
  if (!(row.norm > 0) || point.overlap == Overlap::kInvalid) return NaN();
  if (point.overlap == Overlap::kPartial) return NaN();  // not reached
  return point.overlap == Overlap::kHidden ? -1.0 : 0.0;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_
