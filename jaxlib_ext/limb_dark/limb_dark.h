// Limb-darkened transit light curves: the closed form of E. Agol, R. Luger
// and D. Foreman-Mackey, "Analytic planetary transit light curves and
// derivatives for stars with polynomial limb darkening", AJ 159, 123 (2020),
// arXiv:1908.03222 (section numbers in these files are that paper's).
//
// This header holds the entry points of the polynomial laws and the
// kernel's per-element body; the math is in the headers it includes, one
// object each, read top-down: law_flux.h (the other laws' light curve, with
// laws.h, the laws themselves), polynomial_law.h (the polynomial law's
// coefficients in the Green's basis and its edge polynomial),
// solution_vector.h (s_n and its derivatives), edge_rules.h (the blocked flux
// as an integral over the occultor's edge), geometry.h, elliptic.h,
// elementary.h, and nodes.h (tables written by tools/limb_dark_nodes.py).
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

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/limb_dark/law_flux.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/limb_dark/polynomial_law.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"

namespace jaxext {
namespace limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {

// One point of the light curve, what every handler computes per element:
// with g[0..order] the Green's-basis coefficients, q[0..order + 1] the edge
// polynomial (EdgePolynomial; GreensRow gives both) and norm = pi g_0 +
// 2 pi g_1 / 3, F - 1 and its derivatives in b and r, and ds[0..order] the
// solution vector less the unocculted star's, s_k - s0_k with s0 = (pi,
// 2 pi / 3, 0, ...) (for derivatives in g: FluxGradientInU). F is that of
// |b|, and d_db its derivative in b itself (of the sign of b: F is even in
// b); r < 0 or NaN/inf in b or r give NaN everywhere.
struct Flux {
  double value, d_db, d_dr;
};

JAXEXT_HD Flux LightCurvePoint(double b, double r, const double* g, const double* q,
                               int order, double norm, double* ds) {
  using namespace detail;
  const double sign_b = b < 0 ? -1.0 : 1.0;
  b = Abs(b);
  if (b < kTinyB) b = 0;
  const bool hidden = DiskHidden(b, r);
  const bool unsupported = r > kMaxCrossingRadius && !NoOverlap(b, r) && !hidden;
  if (!(r >= 0) || !IsFinite(b) || !IsFinite(r) || unsupported) {
    for (int k = 0; k <= order; ++k) ds[k] = NaN();
    return {NaN(), NaN(), NaN()};
  }
  double ds_db[kMaxOrder + 1], ds_dr[kMaxOrder + 1];
  double deficit[2];
  double* s = ds;  // s_k, then s_k - s0_k (s0_k = 0 from k = 2 on)
  double edge_blocked;
  const bool with_edge =
      SolutionVector(b, r, order, s, ds_db, ds_dr, deficit, q, &edge_blocked);
  // F - 1 = sum_k (s_k - s_k out of transit) g_k / norm: exactly 0 out of
  // transit, and no cancellation against 1 for shallow transits.
  double blocked = deficit[0] * g[0];
  double fb = ds_db[0] * g[0], fr = ds_dr[0] * g[0];
  for (int k = 1; k <= order; ++k) {
    blocked += (k == 1 ? deficit[1] : s[k]) * g[k];
    fb += ds_db[k] * g[k];
    fr += ds_dr[k] * g[k];
  }
  // A hidden disk: exactly -1 (NaN without a normalisation), not the
  // rounding of -pi g_0 - 2 pi g_1 / 3 against norm, which differs by a few
  // ulps of |g_0| + |g_1| where a compiler fuses one sum and not the other
  // (beyond 1e-15 with 32 coefficients, seen on aarch64).
  // Where an edge rule serves, the value from it (SolutionVector).
  const double value = hidden      ? -norm / norm
                       : with_edge ? -edge_blocked / norm
                                   : blocked / norm;
  ds[0] = deficit[0];
  if (order >= 1) ds[1] = deficit[1];
  if (value != value) return {value, value, value};  // NaN: no derivatives either
  const double inv_norm = 1 / norm;  // derivatives: as in LambdaFromCel
  return {value, sign_b * fb * inv_norm, fr * inv_norm};
}

// LightCurvePoint for laws of at most two coefficients (g[0..2], zero past
// the order), in one branch-free pass that a CPU loop over points vectorises:
// for generic points (0 < b != r, 0 < r <= 1, kc > 0 and CelFixedSteps
// converged) and points out of transit. Elsewhere `ok` is false and the
// caller must use LightCurvePoint, which handles every case.
struct LowOrderPoint {
  Flux flux;
  double ds[3];  // s_k - s0_k, as LightCurvePoint's
  bool ok;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE LowOrderPoint LowOrderLightCurvePoint(
    double b, double r, const double* g, double norm) {
  using namespace detail;
  const double sign_b = b < 0 ? -1.0 : 1.0;  // of d_db, as in LightCurvePoint
  b = Abs(b);
  const bool finite = b - b == 0 && r - r == 0;  // no NaN, no inf
  const bool out = finite && r >= 0 && NoOverlap(b, r);
  const bool generic = r > 0 && r <= 1 && b >= kTinyB && b != r && b < 1 + r;
  // Points that are not generic run the same code on stand-in values.
  const Geometry geo = MakeGeometry(generic ? b : 0.5, generic ? r : 0.25);
  const CelArgs args = ThirdCelArgs(geo);
  const CelTriple cel = CelFixedSteps(geo.kc, args.p, args.a, args.b);
  const LowOrder low = LowOrderTerms(geo, LambdaFromCel(geo, cel.basis, cel.third));
  LowOrderPoint o;
  o.ok = out || (generic && geo.kc > 0 && cel.converged);
  // F - 1 as in LightCurvePoint: exactly 0 out of transit.
  const double blocked =
      low.deficit[0] * g[0] + low.deficit[1] * g[1] + low.s[2] * g[2];
  // The derivatives with g / norm (the same for every point: the loop
  // computes it once).
  const double gn[3] = {g[0] / norm, g[1] / norm, g[2] / norm};
  const double fb = low.ds_db[0] * gn[0] + low.ds_db[1] * gn[1] + low.ds_db[2] * gn[2];
  const double fr = low.ds_dr[0] * gn[0] + low.ds_dr[1] * gn[1] + low.ds_dr[2] * gn[2];
  o.flux = {out ? 0.0 : blocked / norm, out ? 0.0 : sign_b * fb, out ? 0.0 : fr};
  o.ds[0] = out ? 0.0 : low.deficit[0];
  o.ds[1] = out ? 0.0 : low.deficit[1];
  o.ds[2] = out ? 0.0 : low.s[2];
  return o;
}

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
// order = LawCoefficients(law).
template <typename T>
JAXEXT_HD void LawCurveElement(Law law, const T* u, const T* b, const T* r, int order,
                               std::int64_t group_size, std::int64_t i, T* flux, T* d_db,
                               T* d_dr, T* const* d_du) {
  double coefficients[kMaxLawTerms];
  const T* row = u + (i / group_size) * order;
  for (int j = 0; j < order; ++j) coefficients[j] = static_cast<double>(row[j]);
  const LawFlux f = LawLightCurvePoint(MakeLawRow(law, coefficients),
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

template <typename T>
JAXEXT_HD void LightCurveElement(const T* u, const T* b, const T* r, int order,
                                 std::int64_t group_size, std::int64_t i, T* flux,
                                 T* d_db, T* d_dr, T* const* d_du) {
  double g[kMaxOrder + 1], q[kMaxOrder + 2], ds[kMaxOrder + 1];
  const double norm = GreensRow(u + (i / group_size) * order, order, g, q);
  const Flux f = LightCurvePoint(static_cast<double>(b[i]), static_cast<double>(r[i]), g,
                                 q, order, norm, ds);
  flux[i] = static_cast<T>(f.value);
  if (d_db) {  // null: the value alone
    d_db[i] = static_cast<T>(f.d_db);
    d_dr[i] = static_cast<T>(f.d_dr);
  }
  if (d_du[0]) {
    double du[kMaxOrder];
    FluxGradientInU(ds, f.value, norm, order, du);
    for (int j = 0; j < order; ++j) d_du[j][i] = static_cast<T>(du[j]);
  }
}

// The per-element body for any law: LightCurveElement for the polynomial
// laws, LawCurveElement for the others (the CUDA kernels make this choice
// per launch, limb_dark_kernel.cu).
template <typename T>
JAXEXT_HD void CurveElement(Law law, const T* u, const T* b, const T* r, int order,
                            std::int64_t group_size, std::int64_t i, T* flux, T* d_db, T* d_dr,
                            T* const* d_du) {
  if (law == Law::kPolynomial) {
    LightCurveElement(u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  } else {
    LawCurveElement(law, u, b, r, order, group_size, i, flux, d_db, d_dr, d_du);
  }
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_
