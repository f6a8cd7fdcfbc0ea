// The polynomial laws' light curve at one point, from the closed form
// (solution_vector.h: s_n and its derivatives) or, for laws of three or
// more coefficients, from the edge rules (edge_rules.h), whichever
// SolutionVector picks; and a branch-free variant for laws of at most two
// coefficients that a CPU loop over points vectorises.
#ifndef JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_FLUX_H_
#define JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_FLUX_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// One point of the light curve, what every handler computes per element:
// with g[0..order] the Green's-basis coefficients, q[0..order + 1] the edge
// polynomial (EdgePolynomial; GreensRow gives both) and norm = pi g_0 +
// 2 pi g_1 / 3, F - 1 and its derivatives in b and r, and ds[0..order] the
// solution vector less the unocculted star's, s_k - s0_k with s0 = (pi,
// 2 pi / 3, 0, ...) (for derivatives in g: FluxGradientInU). F is that of
// |b|, and d_db its derivative in b itself (of the sign of b: F is even in
// b); r < 0 or NaN/inf in b or r give NaN everywhere. kMax: the largest
// order the caller passes, and kRule the point's edge rule
// (SolutionVector's). edge: null, or the flux the law blocks by its edge
// rule (EdgeBlocked, computed before), for a caller that passes no q (laws
// of three or more coefficients; used only where an edge rule serves).
template <typename F>
struct FluxOf {
  F value, d_db, d_dr;
};
using Flux = FluxOf<double>;

template <int kMax = kMaxOrder, int kRule = kChooseRule>
JAXEXT_HD Flux LightCurvePoint(double b, double r, const double* g, const double* q,
                               int order, double norm, double* ds,
                               const double* edge = nullptr) {
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
  // fb, fr: d/db and d/dr of sum_k g_k s_k, in k's order. For kMax <= 2
  // the arrays hold every term's derivatives, summed below in one loop with
  // F - 1's terms (the form ptxas allocates best in the quadratic law's
  // kernels: summed otherwise, the transit model's exposed times with the
  // planet's light spilled 68 B instead of 40; nvcc 13.5, sm_90); for more
  // coefficients the first three's, summed before SolutionVector's tail
  // adds each other term as it forms it.
  constexpr int kHeld = kMax < 3 ? kMax + 1 : 3;
  double ds_db[kHeld], ds_dr[kHeld], fb, fr;
  bool held_summed = false;
  const auto sum_held = [&](const double* db, const double* dr) {
    fb = db[0] * g[0];
    fr = dr[0] * g[0];
    for (int k = 1; k <= order && k <= 2; ++k) {
      fb += db[k] * g[k];
      fr += dr[k] * g[k];
    }
    held_summed = true;
  };
  const auto tail = [&](int k, double dk_db, double dk_dr) {
    if (!held_summed) sum_held(ds_db, ds_dr);
    fb += dk_db * g[k];
    fr += dk_dr * g[k];
  };
  double deficit[2];
  double* s = ds;  // s_k, then s_k - s0_k (s0_k = 0 from k = 2 on)
  double edge_blocked;
  const bool with_edge = SolutionVector<kMax, kRule>(b, r, order, s, ds_db, ds_dr, tail,
                                                     deficit, q, &edge_blocked);
  // F - 1 = sum_k (s_k - s_k out of transit) g_k / norm: exactly 0 out of
  // transit, and no cancellation against 1 for shallow transits.
  double blocked = deficit[0] * g[0];
  if constexpr (kMax < 3) {
    fb = ds_db[0] * g[0];
    fr = ds_dr[0] * g[0];
    for (int k = 1; k <= order; ++k) {
      blocked += (k == 1 ? deficit[1] : s[k]) * g[k];
      fb += ds_db[k] * g[k];
      fr += ds_dr[k] * g[k];
    }
  } else {
    if (!held_summed) sum_held(ds_db, ds_dr);
    for (int k = 1; k <= order; ++k) blocked += (k == 1 ? deficit[1] : s[k]) * g[k];
  }
  // A hidden disk: exactly -1 (NaN without a normalisation), not the
  // rounding of -pi g_0 - 2 pi g_1 / 3 against norm, which differs by a few
  // ulps of |g_0| + |g_1| where a compiler fuses one sum and not the other
  // (beyond 1e-15 with 32 coefficients, seen on aarch64).
  // Where an edge rule serves, the value from it (SolutionVector).
  if (edge) edge_blocked = *edge;
  const double value = hidden      ? -norm / norm
                       : with_edge ? -edge_blocked / norm
                                   : blocked / norm;
  ds[0] = deficit[0];
  if (order >= 1) ds[1] = deficit[1];
  if (value != value) return {value, value, value};  // NaN: no derivatives either
  const double inv_norm = 1 / norm;  // derivatives: as in LambdaFromCel
  return {value, sign_b * fb * inv_norm, fr * inv_norm};
}

// The edge rule LightCurvePoint takes at (b, r) (static_cast<int>(EdgeRule)),
// or kNoEdgeRule where it takes none (no overlap, r = 0, hidden, NaN): the
// GPU computes the points of laws of three or more coefficients in passes
// by rule (limb_dark.h's PolynomialRuleElement), so that a warp's threads
// run one rule.
JAXEXT_HD int PolynomialRuleOf(double b, double r) {
  using namespace detail;
  const PointSetUp point = SetUpPoint(b, r);
  if (point.overlap != Overlap::kPartial) return kNoEdgeRule;
  return static_cast<int>(
      ChooseEdgeRule(MakeGeometry(point.b, r), (1 - r) * (1 + r) - point.b * point.b));
}

// LightCurvePoint for laws of at most two coefficients (g[0..2], zero past
// the order), in one branch-free pass that a CPU loop over points vectorises:
// for generic points (0 < b != r, 0 < r <= 1, kc > 0 and CelFixedSteps
// converged) and points out of transit. Elsewhere `ok` is false and the
// caller must use LightCurvePoint, which handles every case.
//
// F: double, or float for the float32-in-float32 path (every step in float:
// what a GPU with a low FP64 rate would run; limb_dark.h's
// LowOrderCurveElementIn<float>). There b below kTinyBFloat is not
// generic either (Heron's product, of order b^2 r^2, leaves float's range),
// and the convergence test is float's (CelTolerance<float>).
constexpr float kTinyBFloat = 1e-15f;

template <typename F>
struct LowOrderPointOf {
  FluxOf<F> flux;
  F ds[3];  // s_k - s0_k, as LightCurvePoint's
  bool ok;
};
using LowOrderPoint = LowOrderPointOf<double>;

template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE LowOrderPointOf<F> LowOrderLightCurvePoint(F b, F r, const F* g,
                                                                         F norm) {
  using namespace detail;
  const F sign_b = b < 0 ? F(-1) : F(1);  // of d_db, as in LightCurvePoint
  b = Abs(b);
  const bool finite = b - b == 0 && r - r == 0;  // no NaN, no inf
  const bool out = finite && r >= 0 && NoOverlap(b, r);
  const F tiny_b = sizeof(F) == 4 ? F(kTinyBFloat) : F(kTinyB);
  const bool generic = r > 0 && r <= 1 && b >= tiny_b && b != r && b < 1 + r;
  // Points that are not generic run the same code on stand-in values.
  const GeometryOf<F> geo = MakeGeometry(generic ? b : F(0.5), generic ? r : F(0.25));
  const CelArgsOf<F> args = ThirdCelArgs(geo);
  const CelTripleOf<F> cel = CelFixedSteps(geo.kc, args.p, args.a, args.b);
  const LowOrderOf<F> low = LowOrderTerms(geo, LambdaFromCel(geo, cel.basis, cel.third));
  LowOrderPointOf<F> o;
  o.ok = out || (generic && geo.kc > 0 && cel.converged);
  // F - 1 as in LightCurvePoint: exactly 0 out of transit.
  const F blocked = low.deficit[0] * g[0] + low.deficit[1] * g[1] + low.s[2] * g[2];
  // The derivatives with g / norm (the same for every point: the loop
  // computes it once).
  const F gn[3] = {g[0] / norm, g[1] / norm, g[2] / norm};
  const F fb = low.ds_db[0] * gn[0] + low.ds_db[1] * gn[1] + low.ds_db[2] * gn[2];
  const F fr = low.ds_dr[0] * gn[0] + low.ds_dr[1] * gn[1] + low.ds_dr[2] * gn[2];
  const F zero = 0;
  o.flux = {out ? zero : blocked / norm, out ? zero : sign_b * fb, out ? zero : fr};
  o.ds[0] = out ? zero : low.deficit[0];
  o.ds[1] = out ? zero : low.deficit[1];
  o.ds[2] = out ? zero : low.s[2];
  return o;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_FLUX_H_
