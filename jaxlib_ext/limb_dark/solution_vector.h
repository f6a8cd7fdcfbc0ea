// The solution vector s_n(b, r) of the Green's basis (E. Agol, R. Luger and
// D. Foreman-Mackey, AJ 159, 123 (2020), arXiv:1908.03222; section numbers
// are that paper's) and its derivatives in b and r: the integral of each
// basis member over the visible disk.
#ifndef JAXLIB_EXT_LIMB_DARK_SOLUTION_VECTOR_H_
#define JAXLIB_EXT_LIMB_DARK_SOLUTION_VECTOR_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/edge_rules.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/math/elliptic.h"
#include "jaxlib_ext/limb_dark/geometry.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// The largest order N (number of coefficients u) the op accepts: the paper
// finds the closed form loses precision past N ~ 25 (sec. 9; the g_n grow and
// alternate in sign), and the kernels keep per-element arrays of N + 1.
constexpr int kMaxOrder = 32;

namespace detail {

// The arguments (p, a, b) of the one cel with p != 1 in the generic Lambda,
// crossing (k^2 < 1) or inside (k^2 > 1): p > 0 unless b = r.
// F: double, or float (the float32 low-order path), here and in
// LambdaFromCel and LowOrderTerms.
template <typename F>
struct CelArgsOf {
  F p, a, b;
};
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE CelArgsOf<F> ThirdCelArgs(const GeometryOf<F>& geo) {
  const F bmr = geo.b - geo.r, bpr = geo.b + geo.r;
  const F shift = 3 * bmr / (bpr * geo.one_minus_bmr2);  // added to a and b inside
  const F p_in = (bmr / bpr) * (bmr / bpr) * geo.one_minus_bpr2 / geo.one_minus_bmr2;
  const F p_cross = bmr * bmr * geo.kc * geo.kc;
  return {geo.inside ? p_in : p_cross, geo.inside ? 1 + shift : F(0),
          geo.inside ? p_in + shift : F(3)};
}
using CelArgs = CelArgsOf<double>;

// pi Lambda(b, r) of the linear term and its derivatives (sec. 5.1, 5.3),
// for an overlapping configuration (|b - r| < 1, r > 0), cases in the
// paper's order. s_1 takes Lambda times pi, and the paper's forms of Lambda
// divide by pi: kept times pi, neither the division nor the product is
// rounded (nor computed).
template <typename F>
struct LambdaOf {
  F value, d_db, d_dr;  // pi Lambda, pi dLambda/db, pi dLambda/dr
};
using Lambda = LambdaOf<double>;

// pi Lambda for a generic configuration (b > 0, b != r, kc > 0), crossing
// (k^2 < 1) or inside (k^2 > 1), from D, C, E (CelP1) and the cel of
// ThirdCelArgs. Both forms are computed and one selected (no branches).
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE LambdaOf<F> LambdaFromCel(const GeometryOf<F>& geo,
                                                        const CelBasisOf<F>& cb, F third) {
  const F b = geo.b, r = geo.r, kc = geo.kc;
  // k^2 < 1; b^2 - r^2 as (b - r)(b + r): next to b = r, b * b - r * r
  // lost ~1e-8 of it without FMA. d_db and d_dr are cel(kc, 1, -2 r,
  // (1 - (b + r)^2) / b) and cel(kc, 1, 2 r (1 - (b - r)^2), 0) written with
  // D and C.
  const F sqrt_br = Sqrt(b * r);
  // The derivatives multiply by reciprocals (one division each, shared):
  // a rounding more than dividing, far below their accuracy (~1e-13).
  const F inv_b = 1 / b;
  const F inv_sqrt_br = 1 / sqrt_br;
  const F cross_value =
      geo.one_minus_bmr2 / (9 * sqrt_br) *
      (kc * kc * ((b - r) * (b + r)) * third - (3 - 6 * r * r - 2 * b * r) * cb.d -
       4 * b * r * cb.e);
  const F cross_dr = 2 * r * geo.one_minus_bmr2 * cb.d * inv_sqrt_br;
  const F cross_db = geo.one_minus_bmr2 * inv_sqrt_br * F(1.0 / 3) *
                     (-2 * r * cb.d + geo.one_minus_bpr2 * inv_b * cb.c);
  // k^2 > 1; cel(kc, 1, -1, kc^2) = -D + kc^2 C.
  const F s = Sqrt(geo.one_minus_bmr2);
  const F in_value =
      F(2.0 / 9) * s * (geo.one_minus_bpr2 * third - (4 - 7 * r * r - b * b) * cb.e);
  const F in_db = r * F(4.0 / 3) * s * (-cb.d + kc * kc * cb.c);
  const F in_dr = 4 * r * s * cb.e;
  return {geo.inside ? in_value : cross_value, geo.inside ? in_db : cross_db,
          geo.inside ? in_dr : cross_dr};
}

JAXEXT_HD Lambda LinearLambda(const Geometry& geo) {
  const double b = geo.b, r = geo.r;
  if (b == 0) {
    const double s = Sqrt((1 - r) * (1 + r));
    return {-2 * kPi / 3 * s * s * s, 0, 2 * kPi * r * s};
  }
  if (b == r) {
    if (r == 0.5) {
      return {kPi / 3 - 4.0 / 9, -2.0 / 3, 2.0};
    }
    if (r < 0.5) {
      const double m = 4 * r * r;
      const double kc = Sqrt((1 - 2 * r) * (1 + 2 * r));
      return {kPi / 3 + 2.0 / 9 * Cel(kc, 1, m - 3, (1 - m) * (2 * m - 3)),
              4 * r / 3 * Cel(kc, 1, -1, kc * kc), 4 * r * Cel(kc, 1, 1, kc * kc)};
    }
    const double m = 1 / (4 * r * r);
    const double kc = Sqrt(1 - m);
    return {kPi / 3 + 4 * r / 9 * Cel(kc, 1, 1 - 3 * m, m - 1),
            -2.0 / 3 * Cel(kc, 1, 1, 2 * kc * kc), 2 * Cel(kc, 1, 1, 0)};
  }
  // b + r = 1 exactly (kc is 0 there and only there: Kahan's product in
  // MakeGeometry is exact at contact). Not where b + r merely rounds to 1:
  // there sqrt(r b) and the r-only terms belong to different points (at
  // b = 1e-9, r = 1 - 1e-9, b + r = 1 + 2.8e-17, this form is off by 6e-13),
  // and the general form below is accurate.
  if (geo.kc == 0) {
    const double s = Sqrt(r * (1 - r));
    const double theta = r > 0.5 ? 1 : 0;
    return {2.0 / 9 *
                (3 * Acos(1 - 2 * r) - 2 * (3 + 2 * r - 8 * r * r) * Sqrt(r * b) -
                 3 * kPi * theta),
            -8 * r / 3 * s, 8 * r * s};
  }
  const CelArgs third = ThirdCelArgs(geo);
  return LambdaFromCel(geo, CelP1(geo.kc), Cel(geo.kc, third.p, third.a, third.b));
}

// M_n (sec. 7.2-7.5) for n = 0..n_max, overlapping configurations: half
// the integral of z^n = (1 - b^2 - r^2 + 2 b r cos psi)^(n/2) over the arc of
// the occultor's edge inside the disk, psi in [-kappa0, kappa0] (m must hold
// n_max + 1 values, n_max <= kMaxOrder + 2). Where k^2 < 1/2, M_n for n >=
// n_low (2 or 4) come from the series.
JAXEXT_HD void ComputeM(const Geometry& geo, int n_max, double* m, int n_low) {
  const double b = geo.b, r = geo.r;
  const double k2 = geo.k2;
  const CelBasis ed = CelP1(geo.kc);
  if (geo.inside) {
    const double s = Sqrt(geo.one_minus_bmr2);
    const double inv_k2 = b > 0 ? 4 * b * r / geo.one_minus_bmr2 : 0;
    m[0] = kPi;
    if (n_max >= 1) m[1] = 2 * s * ed.e;
    if (n_max >= 2) m[2] = kPi * (1 - b * b - r * r);
    if (n_max >= 3) {
      m[3] = 2.0 / 3.0 * s * s * s * ((3 - 2 * inv_k2) * ed.e + inv_k2 * ed.d);
    }
  } else {
    const double k = Sqrt(k2);
    const double sqrt_4br = Sqrt(4 * b * r);
    m[0] = geo.kappa0;
    if (n_max >= 1) m[1] = 2 * sqrt_4br * k2 * ed.d;
    if (n_max >= 2) m[2] = 4 * b * r * ((k2 - 0.5) * geo.kappa0 + k * geo.kc);
    if (n_max >= 3) {
      m[3] = 2.0 / 3.0 * (4 * b * r) * sqrt_4br * k2 * (ed.e + (3 * k2 - 2) * ed.d);
    }
  }
  const double a = (1 - r) * (1 + r) - b * b;
  const double c = -geo.one_minus_bmr2 * geo.one_minus_bpr2;  // (1-(b-r)^2)((b+r)^2-1)
  if (geo.inside || k2 >= 0.5) {
    for (int n = 4; n <= n_max; ++n) {
      m[n] = (2 * (n - 1) * a * m[n - 2] + (n - 2) * c * m[n - 4]) / n;
    }
    return;
  }
  // k^2 < 1/2 (then a < 0 < c): the top four from the series, then downward
  // (sec. 7.3, 7.5) to n_low: both terms of the downward step are positive.
  // n_low = 2 replaces the closed forms of M_2 and M_3 above, which cancel to
  // ~k^2 of their terms (7.7e-15 relative for M_2 at b = r = 3).
  const double k = Sqrt(k2);
  for (int n = n_max - 3; n <= n_max; ++n) {
    if (n < n_low) continue;
    // alpha_0 = sqrt(pi) Gamma(1 + n/2) / Gamma(3/2 + n/2), by its recursion
    // in n from n = 0 (2) and n = 1 (pi / 2).
    double alpha = (n % 2 == 0) ? 2.0 : kPi / 2;
    for (int j = (n % 2 == 0) ? 2 : 3; j <= n; j += 2) alpha *= double(j) / (j + 1);
    double sum = alpha, term = alpha, kpow = 1;
    for (int j = 1; j < 200; ++j) {
      term *= double(2 * j - 1) * (2 * j - 1) / (2.0 * j * (1 + n + 2 * j));
      kpow *= k2;
      const double add = term * kpow;
      sum += add;
      if (add < 1e-17 * sum) break;
    }
    double scale = 1;  // (1 - (b - r)^2)^(n/2)
    const double root = Sqrt(geo.one_minus_bmr2);
    for (int j = 0; j < n; ++j) scale *= root;
    m[n] = scale * k * sum;
  }
  for (int n = n_max - 4; n >= n_low; --n) {
    m[n] = ((n + 4) * m[n + 4] - 2 * (n + 3) * a * m[n + 2]) / ((n + 2) * c);
  }
}

// s_0, s_1, s_2 and their derivatives for an overlapping configuration,
// from its geometry and Lambda; no branches. deficit: s_0 - pi and s_1 -
// 2 pi / 3 (what the flux needs), formed without adding and then taking
// away pi and 2 pi / 3, which rounds to ulps of those (1.3e-15 seen in
// s_1 - 2 pi / 3 for a small planet over the centre).
template <typename F>
struct LowOrderOf {
  F s[3], ds_db[3], ds_dr[3], deficit[2];
};
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE LowOrderOf<F> LowOrderTerms(const GeometryOf<F>& geo,
                                                          const LambdaOf<F>& lambda) {
  const F b = geo.b, r = geo.r;
  const F pi = F(kPi), two_pi_3 = F(2 * kPi / 3);
  const F inv_b = 1 / b;  // derivatives only (see LambdaFromCel)
  LowOrderOf<F> o;
  // s_0, the uniform disk (sec. 3).
  o.deficit[0] = geo.inside ? -pi * r * r : -(geo.kappa1 + r * r * geo.kappa0 - geo.kite);
  o.s[0] = pi + o.deficit[0];
  o.ds_dr[0] = -2 * r * geo.kappa0;  // kappa0 = pi inside
  o.ds_db[0] = geo.inside ? F(0) : 2 * geo.kite * inv_b;
  // s_1, the linear term (sec. 5).
  const F theta = r > b ? 1 : 0;
  o.deficit[1] = -lambda.value - two_pi_3 * theta;  // lambda: pi Lambda
  o.s[1] = two_pi_3 + o.deficit[1];
  o.ds_db[1] = -lambda.d_db;
  o.ds_dr[1] = -lambda.d_dr;
  // s_2, the quadratic term (sec. 6): s_2 = 2 s_0 + 4 pi eta - 2 pi, written
  // with the kappa1 terms and the 2 pi cancelled by hand (kappa0 = pi and no
  // kite inside): a smaller difference to round. Its terms still grow as r^4
  // for r > 1: SolutionVector replaces it where k^2 < 0.3 and r > 1/2 (by
  // P(G_2) from M_n).
  // Derivatives from eta.
  const F deta_dr =
      geo.inside ? 2 * r * (r * r + b * b)
                 : r * F(2 / kPi) * ((r * r + b * b) * geo.kappa0 - 2 * geo.kite);
  const F deta_db =
      geo.inside ? 2 * b * r * r
                 : (4 * r * r * b * b * geo.kappa0 - 2 * (1 + b * b + r * r) * geo.kite) *
                       inv_b * F(0.5 / kPi);
  o.s[2] = 2 * r * r * ((r - 1) * (r + 1) + 2 * b * b) * geo.kappa0 -
           ((5 * r * r - 1) + b * b) * geo.kite;
  o.ds_db[2] = 2 * o.ds_db[0] + 4 * pi * deta_db;
  o.ds_dr[2] = 2 * o.ds_dr[0] + 4 * pi * deta_dr;
  return o;
}
using LowOrder = LowOrderOf<double>;

}  // namespace detail

// s_n(b, r) and its derivatives for n = 0..n_max (n_max <= kMaxOrder), b >= 0
// and r >= 0 finite (the caller handles anything else): s[0..n_max], and
// the derivatives in ds_db and ds_dr, of every s_n for kMax <= 2, of s_0..s_2
// for laws of more coefficients, whose others go to tail(n, ds_n/db,
// ds_n/dr), n = 3..n_max in that order, each once it is formed and after
// the first three are final (the caller sums them: no arrays of them, 528
// B of a GPU thread's stack for kMaxOrder). A point with nothing to form
// (no overlap, hidden, NaN) calls no tail: those derivatives are 0 (NaN).
// deficit (two values): s_0 - pi and s_1 - 2 pi / 3 (minus the
// flux the disk blocks of the first two terms; s_0 and s_1 are pi and
// 2 pi / 3 plus these), formed without rounding to ulps of pi.
// For laws of three or more coefficients and an occultor that overlaps the
// disk without hiding it, returns true (an edge rule serves: the value is
// the edge rule's) and, unless q is null (q[0..n_max + 1]: the law's
// EdgePolynomial), sets *blocked = the flux the law blocks by the edge rule
// ChooseEdgeRule picks (edge_rules.h; unnormalised: F - 1 = -blocked /
// norm; EdgeBlocked computes it apart); false elsewhere. kMax: the largest
// n_max the caller passes (GreensRow's), which sizes the work arrays; the
// derivatives' arrays hold kMax + 1 values for kMax <= 2, else 3. kRule:
// the edge rule, when the caller knows it (a GPU pass over the points of
// one rule: static_cast<int>(EdgeRule), the code of the others left out), or
// kChooseRule (ChooseEdgeRule's), or kNoEdgeRule for a point the caller
// knows needs none (r = 0, no overlap, hidden: the code past those cases
// left out; any other point then gives NaN).
constexpr int kChooseRule = -1, kNoEdgeRule = -2;

template <int kMax = kMaxOrder, int kRule = kChooseRule, typename Tail>
JAXEXT_HD bool SolutionVector(double b, double r, int n_max, double* s, double* ds_db,
                              double* ds_dr, const Tail& tail, double* deficit,
                              const double* q = nullptr, double* blocked = nullptr) {
  using namespace detail;
  deficit[0] = deficit[1] = 0;
  for (int n = 0; n <= n_max; ++n) {
    s[n] = 0;
    if (kMax < 3 || n <= 2) ds_db[n] = ds_dr[n] = 0;
  }
  if (r == 0 || NoOverlap(b, r)) {
    s[0] = kPi;
    if (n_max >= 1) s[1] = 2 * kPi / 3;
    return false;
  }
  if (DiskHidden(b, r)) {
    deficit[0] = -kPi;
    deficit[1] = -2 * kPi / 3;
    return false;
  }
  if constexpr (kRule == kNoEdgeRule) {
    for (int n = 0; n <= n_max; ++n) {
      s[n] = NaN();
      if (kMax < 3 || n <= 2) ds_db[n] = ds_dr[n] = NaN();
    }
    deficit[0] = deficit[1] = NaN();
    return false;
  }
  const Geometry geo = MakeGeometry(b, r);

  // Crossing: s_0 - pi is minus the lens's area, the two segments its chord
  // cuts off the star (half-angle kappa1, half-chord h = A_kite / b, at x_c
  // = (1 + b^2 - r^2) / (2 b) from the star's centre) and off the occultor
  // (kappa0, at b - x_c from its centre): SegmentArea keeps a thin segment's
  // digits, which kappa1 + r^2 kappa0 - A_kite loses (4 ulps at r = b = 2.9).
  double d0 = -kPi * r * r;
  if (!geo.inside) {
    const double h = geo.kite / b;
    const double xc = ((1 - r) * (1 + r) + b * b) / (2 * b);
    const double bxc = ((r - 1) * (r + 1) + b * b) / (2 * b);
    d0 = -(SegmentArea(geo.kappa1, h, xc) + r * r * SegmentArea(geo.kappa0, h / r, bxc / r));
  }
  // Laws of three or more coefficients: the flux the law blocks by the edge
  // rule for where the occultor is (those of one or two keep the Green's
  // basis, as the vectorised path has it: their Green's coefficients are not
  // large against the normalisation). Inside the disk away from its limb,
  // InsideEdgeIntegrals gives it below, with s_n.
  const double a = (1 - r) * (1 + r) - b * b;
  const EdgeRule rule = kRule < 0 ? ChooseEdgeRule(geo, a) : static_cast<EdgeRule>(kRule);
  const bool with_edge = kMax >= 3 && n_max >= 3;
  if (with_edge && q && rule != EdgeRule::kInside) {
    *blocked = EdgeFlux(rule, geo, a, q, n_max + 1);
  }

  // s_0..s_2 (sec. 3, 5, 6).
  const Lambda lambda = n_max >= 1 ? LinearLambda(geo) : Lambda{0, 0, 0};
  const LowOrder low = LowOrderTerms(geo, lambda);
  for (int n = 0; n <= n_max && n <= 2; ++n) {
    s[n] = low.s[n];
    ds_db[n] = low.ds_db[n];
    ds_dr[n] = low.ds_dr[n];
  }
  s[0] = kPi + d0;
  deficit[0] = d0;
  deficit[1] = n_max >= 1 ? low.deficit[1] : 0.0;
  // Crossing with k^2 < 0.3 and r > 1/2 (every r >= 1.1 among them): s_n =
  // -P(G_n), n >= 2, from M_n and M_{n+2}, all from the series. P(G_n) is
  // the integral of z^n (r^2 - b r cos psi) over the occultor's edge inside
  // the disk (G_n = z^n (-y, x) vanishes on the limb), and 2 b r cos psi =
  // z^2 - (1 - b^2 - r^2) gives
  //   P(G_n) = (1 + r^2 - b^2) M_n - M_{n+2},
  // which rounds terms up to ~50 times smaller than the paper's form below
  // (and than s_2's, LowOrderTerms) where r > 1 next to b = r: 5.5e-14
  // there in those forms (with M_2, M_3 from their closed forms), 2e-16 in
  // this one. Elsewhere the two are as accurate (~1e-15 for k^2 from 0.3 to
  // 1/2; terms below 0.2 ulp of 1 for r < 1/2), and the paper's needs no
  // series for n_max <= 3.
  const bool low_k = !geo.inside && geo.k2 < 0.3 && r > 0.5;
  if (kMax < 2 || n_max < 2 || (n_max < 3 && !low_k)) return with_edge;

  // s_n = -P(G_n), n >= 3, from M_n (sec. 7); M_0..M_4 at least (s_2 where
  // low_k).
  double m[kMax + 3 > 5 ? kMax + 3 : 5];
  ComputeM(geo, low_k ? n_max + 2 : n_max, m, low_k ? 2 : 4);
  const double one_plus_r2_minus_b2 = 1 + (r - b) * (r + b);
  if (low_k) {
    // s_2 and its derivatives as s_n's below (which hold for n = 2): the
    // derivatives from eta (LowOrderTerms) cancel as its value does (6e-15
    // at b = 2.5, r = 3 against 1e-15). Not d/db for b < 1/2, where the 1/b
    // of this form multiplies its rounding (nearly full occultations with r
    // next to 1: 3e-8 relative at b = 2e-9, r = 1 + 1e-9).
    s[2] = -(one_plus_r2_minus_b2 * m[2] - m[4]);
    ds_dr[2] = -2 * r * (4 * m[2] - 2 * m[0]);
    if (b >= 0.5) {
      ds_db[2] = -2 / b *
                 ((r * r + b * b) * (m[2] - m[0]) +
                  ((r - b) * (r + b)) * ((r - b) * (r + b)) * m[0]);
    }
  }
  if (kMax < 3 || n_max < 3) return with_edge;
  const double c = -geo.one_minus_bmr2 * geo.one_minus_bpr2;
  // For small b (inside the disk), dP/db without the 1/b, from the N_n
  // (sec. 7.7-7.8; the paper's b_c = 1e-3; its printed form has a spurious
  // "-3" inside the bracket): the 1/b form loses digits as b -> 0 (2.8e-4
  // relative at b = 1e-6). N_n = (M_n + n (1 - (b + r)^2) N_{n-2}) / (n +
  // 2) from N_0 and N_1, formed as the loop below needs them (no array of
  // them): at step n, nn_back = N_{n-3} and nn_last = N_{n-2}.
  constexpr double kSmallB = 1e-3;
  const bool small_b = geo.inside && b < kSmallB;
  double nn_back = 0, nn_last = 0;
  if (small_b) {
    const CelBasis cb = CelP1(geo.kc);
    nn_back = kPi / 2;
    nn_last = 2.0 / 3.0 * Sqrt(geo.one_minus_bmr2) * (2 * cb.e - cb.d);
  }
  // Inside the disk, away from its limb: the values of s_n and s_1 - 2 pi /
  // 3 by InsideEdgeIntegrals, without the closed forms' cancellation; the
  // derivatives from M_n and Lambda as elsewhere. Laws of one or two
  // coefficients (returned above) keep the closed forms, as the vectorised
  // path computes them: their Green's coefficients are not large against
  // the normalisation.
  const bool inside_rule = rule == EdgeRule::kInside;
  if (inside_rule) InsideEdgeIntegrals(b, r, a, n_max, s, &deficit[1], q, n_max + 1, blocked);
  for (int n = 3; n <= n_max; ++n) {
    if (!inside_rule) {
      s[n] = -(low_k ? one_plus_r2_minus_b2 * m[n] - m[n + 2]
                     : 2 * r * r * m[n] - double(n) / (n + 2) * (a * m[n] + c * m[n - 2]));
    }
    const double dn_dr = -2 * r * ((n + 2) * m[n] - n * m[n - 2]);
    double dn_db;
    if (small_b) {
      if (n >= 4) {
        const int k = n - 2;
        const double nn = (m[k] + k * geo.one_minus_bpr2 * nn_back) / (k + 2);
        nn_back = nn_last;
        nn_last = nn;
      }
      dn_db = -n * (b * m[n] + (2 * r * r * r + b * b * b - 3 * r * r * b - b) * m[n - 2] -
                    4 * r * r * r * nn_last);
    } else {
      dn_db = -n / b *
              ((r * r + b * b) * (m[n] - m[n - 2]) +
               ((r - b) * (r + b)) * ((r - b) * (r + b)) * m[n - 2]);
    }
    tail(n, dn_db, dn_dr);
  }
  return with_edge;
}

// SolutionVector's *blocked alone (the same rule and sums), for a point
// (b >= 0, r > 0 finite) whose occultor overlaps the disk without hiding
// it and a law of three or more coefficients (q[0..order + 1]: its
// EdgePolynomial): what a GPU thread computes before the Green's
// coefficients, so that it never holds q and them at once (limb_dark.h's
// LightCurveElement). kRule: as SolutionVector's (not kNoEdgeRule).
template <int kRule = kChooseRule>
JAXEXT_HD double EdgeBlocked(double b, double r, const double* q, int order) {
  using namespace detail;
  const Geometry geo = MakeGeometry(b, r);
  const double a = (1 - r) * (1 + r) - b * b;
  const EdgeRule rule = kRule < 0 ? ChooseEdgeRule(geo, a) : static_cast<EdgeRule>(kRule);
  if (rule != EdgeRule::kInside) return EdgeFlux(rule, geo, a, q, order + 1);
  double no_s, no_deficit, blocked;  // n_max = 2: no s_n
  InsideEdgeIntegrals(b, r, a, 2, &no_s, &no_deficit, q, order + 1, &blocked);
  return blocked;
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_SOLUTION_VECTOR_H_
