// The light-curve loop, written once; compiled once per instruction-set
// variant like kepler_solve_cpu_loops.cc (per_isa_cc_library), with
// JAXEXT_ISA_NAMESPACE naming its entry point's namespace and
// JAXEXT_MATH_NAMESPACE giving its copy of the math symbols of its own.
#include <cmath>
#include <cstddef>

#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/limb_dark/limb_dark_cpu_loops.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext {
namespace limb_dark {
namespace JAXEXT_ISA_NAMESPACE {
namespace {

template <typename T>
void StorePoint(const Flux& f, const double* s, int order, size_t i,
                T* flux, T* d_db, T* d_dr, T* const* s_out) {
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (s_out) {
    for (int k = 0; k <= order; ++k) s_out[k][i] = static_cast<T>(s[k]);
  }
}

// Any order: one point at a time.
template <typename T>
void GeneralLoop(const double* g, int order, double norm, const T* b,
                 const T* r, T* flux, T* d_db, T* d_dr, T* const* s_out, size_t n) {
  double s[kMaxOrder + 1];
  for (size_t i = 0; i < n; ++i) {
    const Flux f = LightCurvePoint(static_cast<double>(b[i]),
                                   static_cast<double>(r[i]), g,
                                   order, norm, s);
    StorePoint(f, s, order, i, flux, d_db, d_dr, s_out);
  }
}

// At most two coefficients (the quadratic law and below): blocks of points
// through LowOrderLightCurvePoint, a loop clang vectorises in the avx2 and
// avx512 variants (one point per lane; not in baseline, where its cost model
// declines) and that stores every point's results, then LightCurvePoint
// over the points that path leaves (ok false: b = 0, b = r, b + r near 1,
// r > 1, NaN), whose results replace those stored. kDerivatives false: the
// value alone, and the vectorised loop keeps only what the value needs (the
// compiler drops the derivatives' arithmetic); kS false: no solution vector
// (s_out null).
template <bool kDerivatives, bool kS, typename T>
void LowOrderBlocks(const double* g, const double* g3, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* const* s_out, size_t n) {
  constexpr size_t kBlock = 256;
  bool ok[kBlock];
  T unused1[kBlock], unused2[kBlock];  // s_1, s_2 of a law of lower order
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t m = n - start < kBlock ? n - start : kBlock;
    const T* __restrict bb = b + start;
    const T* __restrict rr = r + start;
    // XLA's buffers do not overlap: restrict lets clang vectorise the
    // stores without checking.
    T* __restrict ff = flux + start;
    T* __restrict fb = kDerivatives ? d_db + start : nullptr;
    T* __restrict fr = kDerivatives ? d_dr + start : nullptr;
    T* __restrict s0 = kS ? s_out[0] + start : nullptr;
    T* __restrict s1 = kS && order >= 1 ? s_out[1] + start : unused1;
    T* __restrict s2 = kS && order >= 2 ? s_out[2] + start : unused2;
    for (size_t i = 0; i < m; ++i) {
      const LowOrderPoint p = LowOrderLightCurvePoint(
          static_cast<double>(bb[i]), static_cast<double>(rr[i]), g3, norm);
      ff[i] = static_cast<T>(p.flux.value);
      if (kDerivatives) {
        fb[i] = static_cast<T>(p.flux.d_db);
        fr[i] = static_cast<T>(p.flux.d_dr);
      }
      if (kS) {
        s0[i] = static_cast<T>(p.s[0]);
        s1[i] = static_cast<T>(p.s[1]);
        s2[i] = static_cast<T>(p.s[2]);
      }
      ok[i] = p.ok;
    }
    double s[kMaxOrder + 1];
    for (size_t i = 0; i < m; ++i) {
      if (ok[i]) continue;
      const Flux point = LightCurvePoint(static_cast<double>(bb[i]),
                                         static_cast<double>(rr[i]), g, order, norm, s);
      StorePoint(point, s, order, start + i, flux, kDerivatives ? d_db : nullptr,
                 kDerivatives ? d_dr : nullptr, kS ? s_out : nullptr);
    }
  }
}

template <typename T>
void LowOrderLoop(const double* g, int order, double norm, const T* b,
                  const T* r, T* flux, T* d_db, T* d_dr, T* const* s_out, size_t n) {
  const double g3[3] = {g[0], order >= 1 ? g[1] : 0.0, order >= 2 ? g[2] : 0.0};
  // A law with NaN or inf in it makes every point NaN, out of transit too:
  // the vectorised path returns 0 there without reading g, the scalar one
  // does not.
  if (!(std::isfinite(norm) && std::isfinite(g3[0]) && std::isfinite(g3[1]) &&
        std::isfinite(g3[2]))) {
    GeneralLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, n);
    return;
  }
  if (s_out) {  // the handler asks for s only with the derivatives
    LowOrderBlocks<true, true>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, n);
  } else if (d_db) {
    LowOrderBlocks<true, false>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, n);
  } else {
    LowOrderBlocks<false, false>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, n);
  }
}

template <typename T>
void LightCurveLoop(const double* g, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* const* s_out, size_t n) {
  if (order <= 2) {
    LowOrderLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, n);
  } else {
    GeneralLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, n);
  }
}

}  // namespace

const LightCurveLoops& Loops() {
  static constexpr LightCurveLoops kLoops = {&LightCurveLoop<float>,
                                             &LightCurveLoop<double>};
  return kLoops;
}

}  // namespace JAXEXT_ISA_NAMESPACE
}  // namespace limb_dark
}  // namespace jaxext
