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
                T* flux, T* d_db, T* d_dr, T* s_out, size_t s_plane) {
  flux[i] = static_cast<T>(f.value);
  if (d_db) {
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (s_out) {
    for (int k = 0; k <= order; ++k) s_out[k * s_plane + i] = static_cast<T>(s[k]);
  }
}

// Any order: one point at a time.
template <typename T>
void GeneralLoop(const double* g, int order, double norm, const T* b,
                 const T* r, T* flux, T* d_db, T* d_dr, T* s_out, size_t s_plane,
                 size_t n) {
  double s[kMaxOrder + 1];
  for (size_t i = 0; i < n; ++i) {
    const Flux f = LightCurvePoint(static_cast<double>(b[i]),
                                   static_cast<double>(r[i]), g,
                                   order, norm, s);
    StorePoint(f, s, order, i, flux, d_db, d_dr, s_out, s_plane);
  }
}

// At most two coefficients (the quadratic law and below): blocks of points
// through LowOrderLightCurvePoint, a loop clang vectorises in the avx2 and
// avx512 variants (one point per lane; not in baseline, where its cost model
// declines), then the block's results stored, with LightCurvePoint for the
// points that path leaves (ok false: b = 0, b = r, b + r near 1, r > 1, NaN).
// kDerivatives false: the value alone, and the vectorised loop keeps only
// what the value needs (the compiler drops the derivatives' arithmetic);
// kS false: no solution vector (s_out null), and the loop does not keep it.
template <bool kDerivatives, bool kS, typename T>
void LowOrderBlocks(const double* g, const double* g3, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* s_out, size_t s_plane,
                    size_t n) {
  constexpr size_t kBlock = 256;
  double f[kBlock], fb[kBlock], fr[kBlock], s0[kBlock], s1[kBlock], s2[kBlock];
  bool ok[kBlock];
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t m = n - start < kBlock ? n - start : kBlock;
    const T* bb = b + start;
    const T* rr = r + start;
    for (size_t i = 0; i < m; ++i) {
      const LowOrderPoint p = LowOrderLightCurvePoint(
          static_cast<double>(bb[i]), static_cast<double>(rr[i]), g3, norm);
      f[i] = p.flux.value;
      if (kDerivatives) {
        fb[i] = p.flux.d_db;
        fr[i] = p.flux.d_dr;
      }
      if (kS) {
        s0[i] = p.s[0];
        s1[i] = p.s[1];
        s2[i] = p.s[2];
      }
      ok[i] = p.ok;
    }
    double s[kMaxOrder + 1];
    for (size_t i = 0; i < m; ++i) {
      Flux point = {f[i], kDerivatives ? fb[i] : 0.0, kDerivatives ? fr[i] : 0.0};
      if (ok[i]) {
        if (kS) {
          s[0] = s0[i];
          s[1] = s1[i];
          s[2] = s2[i];
        }
      } else {
        point = LightCurvePoint(static_cast<double>(bb[i]),
                                static_cast<double>(rr[i]), g, order, norm, s);
      }
      StorePoint(point, s, order, start + i, flux, kDerivatives ? d_db : nullptr,
                 kDerivatives ? d_dr : nullptr, kS ? s_out : nullptr, s_plane);
    }
  }
}

template <typename T>
void LowOrderLoop(const double* g, int order, double norm, const T* b,
                  const T* r, T* flux, T* d_db, T* d_dr, T* s_out, size_t s_plane,
                  size_t n) {
  const double g3[3] = {g[0], order >= 1 ? g[1] : 0.0, order >= 2 ? g[2] : 0.0};
  // A law with NaN or inf in it makes every point NaN, out of transit too:
  // the vectorised path returns 0 there without reading g, the scalar one
  // does not.
  if (!(std::isfinite(norm) && std::isfinite(g3[0]) && std::isfinite(g3[1]) &&
        std::isfinite(g3[2]))) {
    GeneralLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
    return;
  }
  if (s_out) {  // the handler asks for s only with the derivatives
    LowOrderBlocks<true, true>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
  } else if (d_db) {
    LowOrderBlocks<true, false>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
  } else {
    LowOrderBlocks<false, false>(g, g3, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
  }
}

template <typename T>
void LightCurveLoop(const double* g, int order, double norm, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* s_out, size_t s_plane,
                    size_t n) {
  if (order <= 2) {
    LowOrderLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
  } else {
    GeneralLoop(g, order, norm, b, r, flux, d_db, d_dr, s_out, s_plane, n);
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
