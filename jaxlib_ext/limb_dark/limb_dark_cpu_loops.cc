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
    // Two vectors of points a step: each point is a long chain of
    // dependent divisions and square roots (Bulirsch's iteration, the
    // angles), and two independent chains side by side keep the core's
    // units busier (about 5% on Zen 5, with AVX2 and AVX-512).
#ifdef __clang__
#pragma clang loop interleave_count(2)
#endif
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
  if (detail::TakesPowerBlocks(row)) {
    const std::unique_ptr<detail::PowerBlockScratch> scratch(new detail::PowerBlockScratch);
    if (d_db) {
      detail::PowerLawBlocks<true>(row, order, b, r, flux, d_db, d_dr, d_du, n, scratch.get());
    } else {
      detail::PowerLawBlocks<false>(row, order, b, r, flux, d_db, d_dr, d_du, n, scratch.get());
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    detail::StoreLawPoint(
        LawLightCurvePoint(row, static_cast<double>(b[i]), static_cast<double>(r[i])), order, i,
        flux, d_db, d_dr, d_du);
  }
}

}  // namespace

JAXEXT_ISA_LOOPS(LawCurveLoops, LawLoops, LawCurveLoop)
JAXEXT_ISA_LOOPS(LightCurveLoops, Loops, LightCurveLoop)

}  // namespace jaxext::limb_dark::JAXEXT_ISA_NAMESPACE
