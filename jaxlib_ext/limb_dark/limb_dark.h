// Limb-darkened transit light curves: the closed form of E. Agol, R. Luger
// and D. Foreman-Mackey, "Analytic planetary transit light curves and
// derivatives for stars with polynomial limb darkening", AJ 159, 123 (2020),
// arXiv:1908.03222 (section numbers below are that paper's).
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
// occultor's edge (the edge rules, from EdgeHornerNodes on): the Green's
// coefficients of such laws can be tens of times the normalisation, and
// would multiply the rounding of s_n.
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"

#if !JAXEXT_DEVICE_PATH
#include <cmath>
#endif

namespace jaxext {
namespace limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {

// The largest order N (number of coefficients u) the op accepts: the paper
// finds the closed form loses precision past N ~ 25 (sec. 9; the g_n grow and
// alternate in sign), and the kernels keep per-element arrays of N + 1.
constexpr int kMaxOrder = 32;

// An occultor larger than this whose limb crosses the disk gives NaN: the
// solution vector's terms cancel to about r * 1e-17 (1e-12 at r = 1e5, 0.2
// at r = 1e15 with six coefficients).
constexpr double kMaxCrossingRadius = 1e6;

constexpr double kPi = 3.14159265358979323846;

namespace detail {

// The device path calls the global C functions, which nvcc declares for
// device code (host_device.h includes <math.h> for a host compiler that
// runs that path); the host path, std::'s.
#if JAXEXT_DEVICE_PATH
#define LIMB_DARK_STD(f) ::f
#else
#define LIMB_DARK_STD(f) std::f
#endif

JAXEXT_HD double Sqrt(double x) { return LIMB_DARK_STD(sqrt)(x); }
JAXEXT_HD double Abs(double x) { return LIMB_DARK_STD(fabs)(x); }
JAXEXT_HD double Fma(double x, double y, double z) { return LIMB_DARK_STD(fma)(x, y, z); }
JAXEXT_HD double Acos(double x) { return LIMB_DARK_STD(acos)(x); }
JAXEXT_HD double Asin(double x) { return LIMB_DARK_STD(asin)(x); }
JAXEXT_HD double Sin(double x) { return LIMB_DARK_STD(sin)(x); }
JAXEXT_HD double Cos(double x) { return LIMB_DARK_STD(cos)(x); }
JAXEXT_HD double Expm1(double x) { return LIMB_DARK_STD(expm1)(x); }
JAXEXT_HD double Asinh(double x) { return LIMB_DARK_STD(asinh)(x); }
JAXEXT_HD double Acosh(double x) { return LIMB_DARK_STD(acosh)(x); }
JAXEXT_HD bool IsFinite(double x) { return LIMB_DARK_STD(isfinite)(x); }
JAXEXT_HD double NaN() { return LIMB_DARK_STD(nan)(""); }
JAXEXT_HD double Max(double a, double b) { return a > b ? a : b; }
JAXEXT_HD double Min(double a, double b) { return a < b ? a : b; }

// atan2(y, x) for y >= 0, in [0, pi], without branches or calls, so that the
// CPU loop that calls it vectorises (no vector libm is linked). |y| / |x| or
// its inverse is reduced to [0, tan(pi/8)] with atan(t) = pi/4 +
// atan((t - 1) / (t + 1)); there atan(t) = t + t^3 P(t^2), P of degree 10
// fitted here to the relative error of atan (least squares on Chebyshev
// nodes at 50 digits): 1.2e-16 relative in double, the rounding's level.
// The multiples of pi are added in two parts (hi + lo).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Atan2NonNegative(double y, double x) {
  constexpr double kPiLo = 1.2246467991473532e-16;  // pi - double(pi)
  const double ax = Abs(x);
  const double num = Min(y, ax), den = Max(y, ax);
  // t = num / den; reduced, v = (t - 1) / (t + 1) = (num - den) / (num +
  // den): one division either way.
  const bool reduce = num > 0.41421356237309503 * den;  // t > tan(pi/8)
  const double v_num = reduce ? num - den : num;
  const double v_den = reduce ? num + den : (den > 0 ? den : 1.0);
  const double v = v_num / v_den;
  const double z = v * v;
  double poly = -0.017887779925664465;
  poly = poly * z + 0.03804554892856584;
  poly = poly * z - 0.05038499894536994;
  poly = poly * z + 0.05847696323165607;
  poly = poly * z - 0.06663075229586649;
  poly = poly * z + 0.07692057439988456;
  poly = poly * z - 0.09090897585414695;
  poly = poly * z + 0.11111110776759447;
  poly = poly * z - 0.14285714280044026;
  poly = poly * z + 0.19999999999951815;
  poly = poly * z - 0.33333333333333187;
  double a = v + v * z * poly;
  if (reduce) a = (0.25 * kPi + a) + 0.25 * kPiLo;   // atan(t), t <= 1
  if (y > ax) a = (0.5 * kPi - a) + 0.5 * kPiLo;      // atan(y / |x|)
  if (x < 0) a = (kPi - a) + kPiLo;
  return a;
}

// One step of Bulirsch's iteration (R. Bulirsch, Numer. Math. 13, 305,
// 1969), in the pieces Cel, CelP1 and CelFixedSteps share. The iteration
// converges quadratically; it stops at sqrt of double's epsilon.
constexpr double kCelTolerance = 1.5e-8;

// A pair (a, b) at the current p, with inv_p = 1 / p and g = e / p (the
// caller then adds g to p).
JAXEXT_HD JAXEXT_ALWAYS_INLINE void CelPairStep(double inv_p, double g,
                                                double& a, double& b) {
  const double f = a;
  a += b * inv_p;
  b = 2 * (b + f * g);
}

// m += qc; true when this step reached the tolerance (the iteration's
// results are then those of the current variables).
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool CelStepM(double qc, double& m) {
  const double m_old = m;
  m += qc;
  return Abs(m_old - qc) <= m_old * kCelTolerance;
}

// The next qc and e, for the next step.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void CelStepQc(double m, double& qc, double& e) {
  qc = 2 * Sqrt(e);
  e = qc * m;
}

// Bulirsch's general complete elliptic integral (sec. 4): the integral over
// phi in [0, pi/2] of
// (a cos^2 + b sin^2) / ((cos^2 + p sin^2) sqrt(cos^2 + kc^2 sin^2)).
// p <= 0 gives the Cauchy principal value. kc must not be 0 (the integral
// diverges there; callers use the limits E and cel(0, 1, 1, 0) = 1).
JAXEXT_HD double Cel(double kc, double p, double a, double b) {
  double qc = Abs(kc);
  double e = qc;
  double m = 1;
  if (p > 0) {
    p = Sqrt(p);
    b /= p;
  } else {
    double f = qc * qc;
    double q = 1 - f;
    const double g = 1 - p;
    f -= p;
    q *= b - a * p;
    p = Sqrt(f / g);
    a = (a - b) / g;
    b = -q / (g * g * p) + a * p;
  }
  for (int i = 0; i < 64; ++i) {
    const double inv_p = 1 / p;  // one division per step
    const double g = e * inv_p;
    CelPairStep(inv_p, g, a, b);
    p += g;
    if (CelStepM(qc, m)) break;
    CelStepQc(m, qc, e);
  }
  return 0.5 * kPi * (b + a * m) / (m * (m + p));
}

// cel(kc, 1, a, b) is linear in (a, b): every call with p = 1 (all but one
// of those the light curve needs) is a combination of D = cel(kc, 1, 1, 0)
// and C = cel(kc, 1, 0, 1), which one pass of Bulirsch's iteration gives
// together (the iteration's other variables do not depend on a and b).
// E(m) = cel(kc, 1, 1, kc^2) = D + kc^2 C, and D = (E - (1 - m) K) / m, for
// m = 1 - kc^2. At kc = 0, E = D = 1 (their limits) and C diverges: callers
// must not use it there.
struct CelBasis {
  double d, c, e;
};
JAXEXT_HD CelBasis CelP1(double kc) {
  if (kc == 0) return {1, 0, 1};
  double qc = Abs(kc);
  double e = qc;
  double m = 1;
  double p = 1;
  double a1 = 1, b1 = 0;  // the (a, b) = (1, 0) lane
  double a2 = 0, b2 = 1;  // the (a, b) = (0, 1) lane
  for (int i = 0; i < 64; ++i) {
    const double inv_p = 1 / p;  // one division per step
    const double g = e * inv_p;
    CelPairStep(inv_p, g, a1, b1);
    CelPairStep(inv_p, g, a2, b2);
    p += g;
    if (CelStepM(qc, m)) break;
    CelStepQc(m, qc, e);
  }
  const double scale = 0.5 * kPi / (m * (m + p));
  const double d = (b1 + a1 * m) * scale;
  const double c = (b2 + a2 * m) * scale;
  return {d, c, d + kc * kc * c};
}

// D, C and E of CelP1 and a third integral cel(kc, p, a, b) with p > 0, in
// one pass of kCelSteps iterations whatever kc: no branches, so that a CPU
// loop over points vectorises. The iteration is Cel's; the three share its
// kc-dependent variables (e, m, qc). Iterating past convergence repeats an
// exact transformation, which leaves the results as they were. `converged`
// is false where kCelSteps did not reach Cel's tolerance (kc below 0.079:
// b + r within ~1e-3 of 1 at r = 0.1, 0.2% of the limb-darkening
// benchmark's points): callers must use CelP1 and Cel there. Five steps: a
// sixth costs every point more (8% of the value alone, AVX-512) than the
// scalar path costs those; four leave so many to it that the loop takes 1.7
// times as long.
constexpr int kCelSteps = 5;
struct CelTriple {
  CelBasis basis;
  double third;
  bool converged;
};
JAXEXT_HD JAXEXT_ALWAYS_INLINE CelTriple CelFixedSteps(double kc, double p3,
                                                       double a3, double b3) {
  double qc = Abs(kc);
  double e = qc;
  double m = 1;
  double p1 = 1;
  double a1 = 1, b1 = 0;  // the (a, b) = (1, 0) lane of CelP1
  double a2 = 0, b2 = 1;  // its (a, b) = (0, 1) lane
  p3 = Sqrt(p3);
  b3 /= p3;
  bool converged = false;
  for (int i = 0; i < kCelSteps; ++i) {
    const double inv_p1 = 1 / p1, inv_p3 = 1 / p3;
    const double g1 = e * inv_p1, g3 = e * inv_p3;
    CelPairStep(inv_p1, g1, a1, b1);
    CelPairStep(inv_p1, g1, a2, b2);
    CelPairStep(inv_p3, g3, a3, b3);
    p1 += g1;
    p3 += g3;
    converged = CelStepM(qc, m) || converged;
    CelStepQc(m, qc, e);
  }
  const double scale1 = 0.5 * kPi / (m * (m + p1));
  const double d = (b1 + a1 * m) * scale1;
  const double c = (b2 + a2 * m) * scale1;
  const double third = 0.5 * kPi * (b3 + a3 * m) / (m * (m + p3));
  return {{d, c, d + kc * kc * c}, third, converged};
}

// Per-element geometry of the overlap (sec. 2).
struct Geometry {
  double b, r;
  double k2;        // (1 - (b - r)^2) / (4 b r); +inf at b = 0
  double kc;        // sqrt(1 - m_k), computed from b and r (sec. 2.3)
  bool inside;      // b + r <= 1: the occultor is inside the disk (k^2 >= 1)
  double kite;      // A_kite, twice the area of the triangle (1, r, b)
  double kappa0, kappa1;
  double one_minus_bmr2;  // 1 - (b - r)^2
  double one_minus_bpr2;  // 1 - (b + r)^2
};

// Without branches (selects only), as everything on the way from (b, r) to
// s_0..s_2 for a generic point: the CPU loop over points vectorises.
JAXEXT_HD JAXEXT_ALWAYS_INLINE Geometry MakeGeometry(double b, double r) {
  Geometry g;
  g.b = b;
  g.r = r;
  // 1 - (b - r)^2 = (1 + b - r)(1 - b + r), each factor rounded once where
  // it is small: 1 - r is exact for r in [0.5, 2], b - r for b in [r/2, 2r]
  // (r = 1, b = 1e-17: 1 + (b - r) would round to 0).
  const double one_plus_bmr = r <= 2 ? (1 - r) + b : 1 + (b - r);
  const double one_minus_bmr = b <= 2 ? (1 - b) + r : 1 - (b - r);
  g.one_minus_bmr2 = one_plus_bmr * one_minus_bmr;
  // Kahan's product for Heron's formula, sides sorted x >= y >= z (sec. 2.4):
  // q = (1 + b + r)(b + r - 1)(1 + b - r)(1 - b + r)
  //   = (1 - (b - r)^2) ((b + r)^2 - 1),
  // accurate even where b + r is within rounding of 1, where forming
  // 1 - (b + r)^2 from the rounded sum would lose most digits. Positive
  // where the limbs cross, negative where the occultor is inside.
  const double hi = Max(b, r), lo = Min(b, r);
  const double x = Max(hi, 1.0), z = Min(lo, 1.0), y = Max(lo, Min(hi, 1.0));
  const double q = (x + (y + z)) * (z - (x - y)) * (z + (x - y)) * (x + (y - z));
  g.one_minus_bpr2 = -q / g.one_minus_bmr2;
  g.inside = q <= 0;
  g.k2 = b > 0 ? g.one_minus_bmr2 / (4 * b * r) : 1e300;  // +inf at b = 0
  g.kite = 0.5 * Sqrt(Max(0.0, q));
  // Inside: kc = sqrt((1 - (b + r)^2) / (1 - (b - r)^2)); crossing: kc =
  // sqrt(((b + r)^2 - 1) / (4 b r)).
  g.kc = Sqrt(Abs(q) / (g.one_minus_bmr2 *
                        (g.inside ? g.one_minus_bmr2 : 4 * b * r)));
  const double kappa0 = Atan2NonNegative(2 * g.kite, (r - 1) * (r + 1) + b * b);
  const double kappa1 = Atan2NonNegative(2 * g.kite, (1 - r) * (1 + r) + b * b);
  g.kappa0 = g.inside ? kPi : kappa0;
  g.kappa1 = g.inside ? 0.0 : kappa1;  // not used inside
  return g;
}

// Below this, b is taken as 0: F is even in b and smooth there (at r = 1,
// F(b) - F(0) ~ b^1.5), far below F's rounding, while Heron's product, of
// order b^2 r^2, would underflow (r = 1, b = 1e-170: NaN).
constexpr double kTinyB = 1e-50;

// b >= 1 + r (the occultor misses the disk) and b <= r - 1 (it hides the
// whole disk), decided without rounding 1 + r or r - 1 (which are r itself
// from r = 2^53 on): b - r and r - b are exact where they decide.
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool NoOverlap(double b, double r) {
  return r >= 1 ? b - r >= 1 : b >= 1 + r;
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool DiskHidden(double b, double r) {
  return r <= 2 ? b <= r - 1 : r - b >= 1;
}

// The arguments (p, a, b) of the one cel with p != 1 in the generic Lambda,
// crossing (k^2 < 1) or inside (k^2 > 1): p > 0 unless b = r.
struct CelArgs {
  double p, a, b;
};
JAXEXT_HD JAXEXT_ALWAYS_INLINE CelArgs ThirdCelArgs(const Geometry& g) {
  const double bmr = g.b - g.r, bpr = g.b + g.r;
  const double q = 3 * bmr / (bpr * g.one_minus_bmr2);
  const double p_in = (bmr / bpr) * (bmr / bpr) * g.one_minus_bpr2 / g.one_minus_bmr2;
  const double p_cross = bmr * bmr * g.kc * g.kc;
  return {g.inside ? p_in : p_cross, g.inside ? 1 + q : 0.0,
          g.inside ? p_in + q : 3.0};
}

// Lambda(b, r) of the linear term and its derivatives (sec. 5.1, 5.3), for an
// overlapping configuration (|b - r| < 1, r > 0), cases in the paper's order.
struct Lambda {
  double value, d_db, d_dr;
};

// Lambda for a generic configuration (b > 0, b != r, kc > 0), crossing
// (k^2 < 1) or inside (k^2 > 1), from D, C, E (CelP1) and the cel of
// ThirdCelArgs. Both forms are computed and one selected (no branches).
JAXEXT_HD JAXEXT_ALWAYS_INLINE Lambda LambdaFromCel(const Geometry& g,
                                                   const CelBasis& cb,
                                                   double third) {
  const double b = g.b, r = g.r, kc = g.kc;
  // k^2 < 1; b^2 - r^2 as (b - r)(b + r): next to b = r, b * b - r * r
  // lost ~1e-8 of it without FMA. d_db and d_dr are cel(kc, 1, -2 r,
  // (1 - (b + r)^2) / b) and cel(kc, 1, 2 r (1 - (b - r)^2), 0) written with
  // D and C.
  const double sqrt_br = Sqrt(b * r);
  // The derivatives multiply by reciprocals (one division each, shared):
  // a rounding more than dividing, far below their accuracy (~1e-13).
  const double inv_b = 1 / b;
  const double inv_pi_sqrt_br = 1 / (kPi * sqrt_br);
  const double cross_value =
      g.one_minus_bmr2 / (9 * kPi * sqrt_br) *
      (kc * kc * ((b - r) * (b + r)) * third - (3 - 6 * r * r - 2 * b * r) * cb.d -
       4 * b * r * cb.e);
  const double cross_dr = 2 * r * g.one_minus_bmr2 * cb.d * inv_pi_sqrt_br;
  const double cross_db = g.one_minus_bmr2 * inv_pi_sqrt_br * (1.0 / 3) *
                          (-2 * r * cb.d + g.one_minus_bpr2 * inv_b * cb.c);
  // k^2 > 1; cel(kc, 1, -1, kc^2) = -D + kc^2 C.
  const double s = Sqrt(g.one_minus_bmr2);
  const double in_value =
      2 * s / (9 * kPi) *
      (g.one_minus_bpr2 * third - (4 - 7 * r * r - b * b) * cb.e);
  const double in_db = r * (4 / (3 * kPi)) * s * (-cb.d + kc * kc * cb.c);
  const double in_dr = r * (4 / kPi) * s * cb.e;
  return {g.inside ? in_value : cross_value, g.inside ? in_db : cross_db,
          g.inside ? in_dr : cross_dr};
}

JAXEXT_HD Lambda LinearLambda(const Geometry& g) {
  const double b = g.b, r = g.r;
  if (b == 0) {
    const double s = Sqrt((1 - r) * (1 + r));
    return {-2.0 / 3.0 * s * s * s, 0, 2 * r * s};
  }
  if (b == r) {
    if (r == 0.5) {
      return {1.0 / 3.0 - 4.0 / (9 * kPi), -2.0 / (3 * kPi), 2.0 / kPi};
    }
    if (r < 0.5) {
      const double m = 4 * r * r;
      const double kc = Sqrt((1 - 2 * r) * (1 + 2 * r));
      return {1.0 / 3.0 + 2.0 / (9 * kPi) * Cel(kc, 1, m - 3, (1 - m) * (2 * m - 3)),
              4 * r / (3 * kPi) * Cel(kc, 1, -1, kc * kc),
              4 * r / kPi * Cel(kc, 1, 1, kc * kc)};
    }
    const double m = 1 / (4 * r * r);
    const double kc = Sqrt(1 - m);
    return {1.0 / 3.0 + 4 * r / (9 * kPi) * Cel(kc, 1, 1 - 3 * m, m - 1),
            -2.0 / (3 * kPi) * Cel(kc, 1, 1, 2 * kc * kc),
            2.0 / kPi * Cel(kc, 1, 1, 0)};
  }
  // b + r = 1 exactly (kc is 0 there and only there: Kahan's product in
  // MakeGeometry is exact at contact). Not where b + r merely rounds to 1:
  // there sqrt(r b) and the r-only terms belong to different points (at
  // b = 1e-9, r = 1 - 1e-9, b + r = 1 + 2.8e-17, this form is off by 6e-13),
  // and the general form below is accurate.
  if (g.kc == 0) {
    const double s = Sqrt(r * (1 - r));
    const double theta = r > 0.5 ? 1 : 0;
    return {2.0 / (9 * kPi) *
                (3 * Acos(1 - 2 * r) - 2 * (3 + 2 * r - 8 * r * r) * Sqrt(r * b) -
                 3 * kPi * theta),
            -8 * r / (3 * kPi) * s, 8 * r / kPi * s};
  }
  const CelArgs third = ThirdCelArgs(g);
  return LambdaFromCel(g, CelP1(g.kc), Cel(g.kc, third.p, third.a, third.b));
}

// M_n (sec. 7.2-7.5) for n = 0..n_max, overlapping configurations: half
// the integral of z^n = (1 - b^2 - r^2 + 2 b r cos psi)^(n/2) over the arc of
// the occultor's edge inside the disk, psi in [-kappa0, kappa0] (m must hold
// n_max + 1 values, n_max <= kMaxOrder + 2). Where k^2 < 1/2, M_n for n >=
// n_low (2 or 4) come from the series.
JAXEXT_HD void ComputeM(const Geometry& g, int n_max, double* m, int n_low) {
  const double b = g.b, r = g.r;
  const double k2 = g.k2;
  const CelBasis ed = CelP1(g.kc);
  if (g.inside) {
    const double s = Sqrt(g.one_minus_bmr2);
    const double inv_k2 = b > 0 ? 4 * b * r / g.one_minus_bmr2 : 0;
    m[0] = kPi;
    if (n_max >= 1) m[1] = 2 * s * ed.e;
    if (n_max >= 2) m[2] = kPi * (1 - b * b - r * r);
    if (n_max >= 3) {
      m[3] = 2.0 / 3.0 * s * s * s * ((3 - 2 * inv_k2) * ed.e + inv_k2 * ed.d);
    }
  } else {
    const double k = Sqrt(k2);
    const double sqrt_4br = Sqrt(4 * b * r);
    m[0] = g.kappa0;
    if (n_max >= 1) m[1] = 2 * sqrt_4br * k2 * ed.d;
    if (n_max >= 2) m[2] = 4 * b * r * ((k2 - 0.5) * g.kappa0 + k * g.kc);
    if (n_max >= 3) {
      m[3] = 2.0 / 3.0 * (4 * b * r) * sqrt_4br * k2 * (ed.e + (3 * k2 - 2) * ed.d);
    }
  }
  const double a = (1 - r) * (1 + r) - b * b;
  const double c = -g.one_minus_bmr2 * g.one_minus_bpr2;  // (1-(b-r)^2)((b+r)^2-1)
  if (g.inside || k2 >= 0.5) {
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
    const double root = Sqrt(g.one_minus_bmr2);
    for (int j = 0; j < n; ++j) scale *= root;
    m[n] = scale * k * sum;
  }
  for (int n = n_max - 4; n >= n_low; --n) {
    m[n] = ((n + 4) * m[n + 4] - 2 * (n + 3) * a * m[n + 2]) / ((n + 2) * c);
  }
}

// InsideEdgeIntegrals serves x = 2 b r / (1 - b^2 - r^2) up to this: its
// rule's error grows with x (below).
constexpr double kEdgeRuleMaxX = 0.5;

// The sum of a quadrature rule's N node values, in an order that a CPU
// compiler vectorises: eight lanes (lane k sums v_k, v_{k+8}, ... over the
// full groups of eight), the lanes in pairs, then the rest one at a time (a
// loop's running sum sets the order of one add at a time, which it keeps).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double SumOfNodes(const double* v) {
  static_assert(N >= 8, "at least one full group of eight");
  double lane[8];
  for (int k = 0; k < 8; ++k) lane[k] = v[k];
  for (int j = 8; j + 8 <= N; j += 8) {
    for (int k = 0; k < 8; ++k) lane[k] += v[j + k];
  }
  for (int k = 0; k < 4; ++k) lane[k] += lane[k + 4];
  double sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
  for (int j = N / 8 * 8; j < N; ++j) sum += v[j];
  return sum;
}

// The flux a law I(z) = 1 - sum_n u_n (1 - z)^n blocks, by the divergence
// theorem with the radial field H(rho) (x, y) / rho^2, H(rho) the integral
// of I rho' drho' from 0 to rho (divergence I; regular at rho = 0, unlike a
// field that vanishes on the limb): over a region of the disk bounded by
// the occultor's arc and part of the limb,
//   blocked = H(1) (the limb's angle inside the occultor)
//           + integral over the arc of (H / rho^2) (x dy - y dx),
// and on the occultor's edge, psi its angle from the point nearest the
// star's centre, x dy - y dx = (r^2 - b r cos psi) dpsi. With w = 1 - z and
// rho^2 = w (2 - w), H / rho^2 = P(w) / (1 + z), P(w) = sum_m q_m w^m the
// edge polynomial of the law (EdgePolynomial): one value per node, of the
// size of the intensity, whatever the law. The Green's basis instead sums
// s_n g_n with g_n up to ~30 times the normalisation for steep laws, each
// s_n a few ulps of 1 off. H(1) = P(1) = norm / (2 pi) (EdgeAtLimb).
//
// EdgeHornerNodes: h[j] = F(z[j]) = P(1 - z[j]) / (1 + z[j]) for j < N,
// each step of Horner's scheme over all nodes at once (loops a CPU compiler
// vectorises, one node per lane).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void EdgeHornerNodes(const double* q, int degree,
                                                    const double* z, double* h) {
  double w[N];
  for (int j = 0; j < N; ++j) {
    w[j] = 1 - z[j];
    h[j] = q[degree];
  }
  for (int m = degree - 1; m >= 0; --m) {
    for (int j = 0; j < N; ++j) h[j] = h[j] * w[j] + q[m];
  }
  for (int j = 0; j < N; ++j) h[j] /= 1 + z[j];
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE double EdgeAtLimb(const double* q, int degree) {
  double p1 = 0;
  for (int m = degree; m >= 0; --m) p1 += q[m];
  return p1;
}

// For an occultor inside the disk (b + r <= 1) with x = 2 b r / a <= 1/2
// (kEdgeRuleMaxX), a = 1 - b^2 - r^2: s_n = -P(G_n) for n = 3..n_max and
// the linear term's deficit s_1 - 2 pi / 3 = -J_1, J_1 the integral of z
// over the occultor, as integrals over its edge with terms of their own size.
// On the edge z^2 = a + 2 b r cos psi, and
//   P(G_n) = integral of z^n (r^2 - b r cos psi),
//   J_1    = integral of (z + 1 / (1 + z)) (r^2 - b r cos psi) / 3,
// over psi in [-pi, pi] (J_1 by the divergence theorem with the radial field
// (1 - z^3) / (3 rho^2) (x, y), whose divergence is z; (1 - z^3) / (1 - z^2)
// = z + 1 / (1 + z)). For a small occultor these are of order r^2, and the
// closed forms (LowOrderTerms' Lambda, SolutionVector's M_n) take them as
// differences of terms of order 1: up to ~4e-16 off in J_1 and ~2e-15 in
// s_n at r ~ 0.1 in double, which a law whose Green's coefficients are
// large against its normalisation multiplies (~35 times for some
// six-coefficient laws with a non-increasing intensity). The integrands are
// periodic and analytic in a strip of half-width acosh(1 / x) (z = 0 off
// the real axis), so the trapezoidal rule converges geometrically: 32 nodes
// give ~1e-17 absolute at r <= 0.1 and a few ulps of the integrals beyond
// (measured against mpmath); for even n it is exact (a trigonometric
// polynomial of degree n / 2 + 1 < 32). The integrands are even in psi: 17
// nodes in [0, pi], the end ones at half weight.
// Unless q is null, also *blocked = the flux a law blocks (unnormalised),
// by the same rule: the integral of F(z) (r^2 - b r cos psi) (F =
// EdgeHornerNodes, above).
JAXEXT_HD void InsideEdgeIntegrals(double b, double r, double a, int n_max,
                                   double* s, double* deficit1,
                                   const double* q, int degree, double* blocked) {
  constexpr int kNodes = 17;
  // cos(pi j / 16), j = 0..16.
  const double kNodeCos[kNodes] = {
      1.0,                      0.980785280403230449126,  0.923879532511286756128,
      0.831469612302545237079,  0.707106781186547524401,  0.555570233019602224743,
      0.382683432365089771728,  0.195090322016128267848,  0.0,
      -0.195090322016128267848, -0.382683432365089771728, -0.555570233019602224743,
      -0.707106781186547524401, -0.831469612302545237079, -0.923879532511286756128,
      -0.980785280403230449126, -1.0};
  const double r2 = r * r, br = b * r;
  double z[kNodes], term[kNodes], linear[kNodes], law[kNodes];
  for (int j = 0; j < kNodes; ++j) {
    const double weight = (j == 0 || j == kNodes - 1) ? 0.5 : 1.0;
    z[j] = Sqrt(a + 2 * br * kNodeCos[j]);
    const double edge = weight * (r2 - br * kNodeCos[j]);
    linear[j] = (z[j] + 1 / (1 + z[j])) * edge;
    term[j] = z[j] * z[j] * z[j] * edge;  // z^n (r^2 - b r cos psi), n = 3
    law[j] = edge;
  }
  if (q) {
    double h[kNodes];
    EdgeHornerNodes<kNodes>(q, degree, z, h);
    for (int j = 0; j < kNodes; ++j) law[j] *= h[j];
  }
  // The rule's step is 2 pi / 32; each node but the ends stands for two.
  constexpr double kTwiceStep = 2 * (2 * kPi / 32);
  if (q) *blocked = kTwiceStep * SumOfNodes<kNodes>(law);
  for (int n = 3; n <= n_max; ++n) {
    s[n] = -kTwiceStep * SumOfNodes<kNodes>(term);
    for (int j = 0; j < kNodes; ++j) term[j] *= z[j];
  }
  *deficit1 = -kTwiceStep * SumOfNodes<kNodes>(linear) / 3;
}

// InsideEdgeFlux serves x = 2 b r / (1 - b^2 - r^2) up to this (where
// InsideEdgeIntegrals does not): its rule is within ~1e-16 of the integral
// up to x = 0.9 (against mpmath), 4e-12 at 0.99.
constexpr double kWideEdgeRuleMaxX = 0.85;

// The flux a law blocks (unnormalised) for an occultor inside the disk with
// 1/2 < x <= 0.85 (kWideEdgeRuleMaxX), as InsideEdgeIntegrals' *blocked
// with 64 nodes instead of 32: its integrand's branch points (z = 0, at
// distance acosh(1 / x) from the real axis) come nearer as x grows.
JAXEXT_HD double InsideEdgeFlux(double b, double r, double a, const double* q, int degree) {
  constexpr int kNodes = 33;
  // cos(pi j / 32), j = 0..32.
  const double kNodeCos[kNodes] = {
      1.0, 0.995184726672196886245, 0.980785280403230449126,
      0.956940335732208864936, 0.923879532511286756128, 0.881921264348355029713,
      0.831469612302545237079, 0.773010453362736960811, 0.707106781186547524401,
      0.634393284163645498215, 0.555570233019602224743, 0.471396736825997648556,
      0.382683432365089771728, 0.290284677254462367636, 0.195090322016128267848,
      0.0980171403295606019942, 0.0, -0.0980171403295606019942,
      -0.195090322016128267848, -0.290284677254462367636, -0.382683432365089771728,
      -0.471396736825997648556, -0.555570233019602224743, -0.634393284163645498215,
      -0.707106781186547524401, -0.773010453362736960811, -0.831469612302545237079,
      -0.881921264348355029713, -0.923879532511286756128, -0.956940335732208864936,
      -0.980785280403230449126, -0.995184726672196886245, -1.0,
  };
  const double r2 = r * r, br = b * r;
  double z[kNodes], v[kNodes];
  for (int j = 0; j < kNodes; ++j) z[j] = Sqrt(a + 2 * br * kNodeCos[j]);
  EdgeHornerNodes<kNodes>(q, degree, z, v);
  for (int j = 0; j < kNodes; ++j) {
    const double weight = (j == 0 || j == kNodes - 1) ? 0.5 : 1.0;
    v[j] *= weight * (r2 - br * kNodeCos[j]);
  }
  return 2 * (2 * kPi / 64) * SumOfNodes<kNodes>(v);
}

// CrossingEdgeFlux serves crossing occultors with k^2 below this: the
// integrand's singularities (sin(theta) = 1 / k, at distance acosh(1 / k)
// from theta = pi / 2) slow its rule's convergence as k^2 grows; at 0.95 the
// rule is within 0.07 ulp of the integral (in exact arithmetic; 2.3 ulps at
// 0.98).
constexpr double kCrossingRuleMaxK2 = 0.95;

// For an occultor crossing the limb with k^2 < 0.95 (kCrossingRuleMaxK2),
// laws of three or more coefficients: the flux the law blocks, over the
// lens (occultor and disk overlapping), unnormalised: the limb's share
// H(1) 2 kappa1 (H(1) = P(1), EdgeAtLimb; over the same norm as the arc's,
// which for laws of many coefficients differs from 2 pi P(1) by the Green's
// coefficients' rounding) plus the integral of F(z) (EdgeHornerNodes) (r^2
// - b r cos psi) over the occultor's arc inside the disk, psi in [-kappa0,
// kappa0]. With sin(psi / 2) = k sin(theta) the square root that z has at
// the arc's ends goes away: z = c cos(theta), c^2 = 1 - (b - r)^2, r^2 - b r
// cos psi = r (r - b) + c^2 sin^2(theta) / 2, dpsi = 2 k cos(theta) dtheta /
// sqrt(1 - k^2 sin^2(theta)), an even integrand analytic across theta in
// [-pi/2, pi/2], done by 32-point Gauss-Legendre on [0, pi/2]. On the 328
// crossing points with k^2 < 0.95 of benchmarks/accuracy_sweep.py,
// simulated in double: within 6.7e-16 of mpmath for laws of up to six
// coefficients from [-4, 4]^6 (those with a non-negative, non-increasing
// intensity); the Green's basis alone is up to 1.3e-14 off there.
JAXEXT_HD double CrossingEdgeFlux(const Geometry& g, const double* q, int degree) {
  constexpr int kNodes = 32;
  // theta_j, w_j: Gauss-Legendre on [0, pi/2]; cos(theta_j), sin^2(theta_j).
  const double kCos[kNodes] = {
      0.999997690990907408236, 0.999936147855095473837, 0.999617053372721025663,
      0.998693419787124030699, 0.996686476348639148535, 0.993009956580842223784,
      0.987001334097306214937, 0.977959215123168303865, 0.965185571160920261946,
      0.948030895998110027997, 0.925939785190303755948, 0.898493972882347981957,
      0.865449632317801074357, 0.826765844214066883277, 0.782621610399897818391,
      0.733419628792972767651, 0.679776175002609245493, 0.6224977228352490535,
      0.562546210404977565256, 0.500995942020474782803, 0.438985854776773563902,
      0.377671172055445790322, 0.318178283723167831948, 0.26156607811940777186,
      0.208796009434272041747, 0.160712060811059591404, 0.118030615228905087234,
      0.0813392147966377603948, 0.0511023803153948944274, 0.0276721268867899695635,
      0.0113004518809047373819, 0.00214895622423085623252,
  };
  const double kSin2[kNodes] = {
      0.00000461801285366053805149, 0.000127700212712643416896, 0.000765746606438604332991,
      0.00261145327389925958965, 0.00661606786373357518111, 0.0139312261313138414981,
      0.0258283664901377160924, 0.0435957735556766194628, 0.0684168132227681291507,
      0.101237420233020687703, 0.14263551420173413723, 0.192708580694094529231,
      0.250996933920982930195, 0.316458238841001289104, 0.38750341493507055091,
      0.462095648101178030842, 0.537904351898821969158, 0.61249658506492944909,
      0.683541761158998710896, 0.749003066079017069805, 0.807291419305905470769,
      0.85736448579826586277, 0.898762579766979312297, 0.931583186777231870849,
      0.956404226444323380537, 0.974171633509862283908, 0.986068773868686158502,
      0.993383932136266424819, 0.99738854672610074041, 0.999234253393561395667,
      0.999872299787287356583, 0.999995381987146339462,
  };
  const double kWeight[kNodes] = {
      0.00551240341104076115751, 0.0127818797320584236954, 0.019942881458762481817,
      0.0269186289844229512173, 0.0336432356341372234173, 0.0400537820815044762469,
      0.0460903792386859924125, 0.0516966528792922855072, 0.0568202538226195524111,
      0.0614133421400564895576, 0.0654330322769513601052, 0.0688417928636010803806,
      0.071607796877474694904, 0.0737052186832010921966, 0.0751144750999451365891,
      0.0758224082136943080005, 0.0758224082136943080005, 0.0751144750999451365891,
      0.0737052186832010921966, 0.071607796877474694904, 0.0688417928636010803806,
      0.0654330322769513601052, 0.0614133421400564895576, 0.0568202538226195524111,
      0.0516966528792922855072, 0.0460903792386859924125, 0.0400537820815044762469,
      0.0336432356341372234173, 0.0269186289844229512173, 0.019942881458762481817,
      0.0127818797320584236954, 0.00551240341104076115751,
  };
  const double b = g.b, r = g.r;
  const double c2 = g.one_minus_bmr2, c = Sqrt(c2), k2 = g.k2;
  const double r_rmb = r * (r - b);
  double z[kNodes], v[kNodes];
  for (int j = 0; j < kNodes; ++j) z[j] = c * kCos[j];
  EdgeHornerNodes<kNodes>(q, degree, z, v);
  for (int j = 0; j < kNodes; ++j) {
    v[j] *= kWeight[j] * (r_rmb + 0.5 * c2 * kSin2[j]) * kCos[j] / Sqrt(1 - k2 * kSin2[j]);
  }
  // Both halves of the arc, times 2 k from dpsi.
  return 2 * g.kappa1 * EdgeAtLimb(q, degree) + 4 * Sqrt(k2) * SumOfNodes<kNodes>(v);
}

// P(w2) and the divided difference (P(w1) - P(w2)) / (w1 - w2) of the edge
// polynomial, by Horner's scheme for both: with P_k(w) = P_{k+1}(w) w + q_k,
// the difference d_k = d_{k+1} w1 + P_{k+1}(w2). No cancellation where w1
// and w2 are close.
JAXEXT_HD JAXEXT_ALWAYS_INLINE void EdgeDividedDifference(const double* q, int degree,
                                                          double w1, double w2,
                                                          double* p2, double* dd) {
  double p = q[degree], d = 0;
  for (int m = degree - 1; m >= 0; --m) {
    d = d * w1 + p;
    p = p * w2 + q[m];
  }
  *p2 = p;
  *dd = d;
}

// Below this k' = sqrt(|1 - (b + r)^2| / (4 b r)), ContactEdgeFlux takes the
// occultor as touching the limb: the part it leaves out is of order
// 4 b r k'^2 log(1 / k'), below 1e-18.
constexpr double kContactMinK = 1e-10;

// For laws of three or more coefficients where the other edge rules do not
// serve: the occultor crossing the limb with k^2 >= 0.95
// (kCrossingRuleMaxK2) or inside the disk with 2 b r > 0.85 (1 - b^2 - r^2)
// (kWideEdgeRuleMaxX), near where the two limbs touch inside (k^2 = 1, b +
// r = 1). The flux the law blocks, unnormalised, as CrossingEdgeFlux's: the
// limb's share (crossing) plus twice the integral of F(z) E(u) over u = pi -
// psi in [u_lo, pi], F(z) = P(1 - z) / (1 + z) (EdgeHornerNodes), E = r^2 -
// b r cos psi = r (r + b) - 2 b r sin^2(u / 2), u_lo = 0 inside and the
// arc's end crossing. On the
// edge z^2 = Z^2 + X^2, X = 2 sqrt(b r) sin(u / 2), Z^2 = 1 - (b + r)^2
// (negative where crossing), so z has branch points at sin(u / 2) = +-i k'
// (inside; crossing, the arc's end sin(u_lo / 2) = k'), k'^2 = |Z^2| / (4 b
// r): next to u = 0 as the limbs near contact, where neither rule above
// converges. Split F(z) = F(X) + D:
// - F(X) is analytic in u (X is): 32-point Gauss-Legendre on [u_lo, pi];
// - D = F(z) - F(X) = -(z - X) (P[1 - z, 1 - X] + P(1 - X) / (1 + X)) /
//   (1 + z), with z - X = Z^2 / (z + X) and the divided difference of P
//   (EdgeDividedDifference): formed without cancellation, and of order Z^2
//   / X away from u_lo, so what is left to resolve is a small term next to
//   the branch points: with u / 2 = eps sinh(t) (inside, eps = k') or eps
//   cosh(t) (crossing, eps = u_lo / 2), which puts them at t ~ +-i pi / 2
//   and takes the square root at the arc's end away, 32-point Gauss-Legendre
//   in t up to u = pi.
// On the 54 points of benchmarks/accuracy_sweep.py this rule serves (on and
// within 1e-12 to 1e-3 of b = 1 - r, and random ones; b = 1e-9, r = 1 - 1e-9
// among them), simulated in double: within 5.6e-16 of mpmath for laws of
// six coefficients from [-4, 4]^6 and [-1, 1]^6 with a non-negative,
// non-increasing intensity; the Green's basis alone is up to 1.3e-14 off there.
JAXEXT_HD double ContactEdgeFlux(const Geometry& g, const double* q, int degree) {
  constexpr int kNodes = 32;
  // Gauss-Legendre on [0, 1]: nodes and weights.
  const double kNode[kNodes] = {
      0.00136806907525921822751, 0.00719424422736583229991, 0.0176188722062467846131,
      0.0325469620311301554145, 0.0518394221169739380173, 0.0753161931337150149332,
      0.102758102016028796518, 0.133908940629855159806, 0.168477866534892399512,
      0.206142121379618835480, 0.246550045533885304988, 0.289324361934682327318,
      0.334065698858936175110, 0.380356318873931462728, 0.427764019208601753257,
      0.475846167156130841883, 0.524153832843869158117, 0.572235980791398246743,
      0.619643681126068537272, 0.665934301141063824890, 0.710675638065317672682,
      0.753449954466114695012, 0.793857878620381164520, 0.831522133465107600488,
      0.866091059370144840194, 0.897241897983971203482, 0.924683806866284985067,
      0.948160577883026061983, 0.967453037968869844585, 0.982381127793753215387,
      0.992805755772634167700, 0.998631930924740781772,
  };
  const double kWeight[kNodes] = {
      0.00350930500473504830020, 0.00813719736545283530259, 0.0126960326546310297279,
      0.0171369314565107165513, 0.0214179490111133403284, 0.0254990296311880880981,
      0.0293420467392677735726, 0.0329111113881809234188, 0.0361728970544242531127,
      0.0390969478935351532359, 0.0416559621134733776111, 0.0438260465022019055714,
      0.0455869393478819423564, 0.0469221995404022828196, 0.0478193600396374297095,
      0.0482700442573639002834, 0.0482700442573639002834, 0.0478193600396374297095,
      0.0469221995404022828196, 0.0455869393478819423564, 0.0438260465022019055714,
      0.0416559621134733776111, 0.0390969478935351532359, 0.0361728970544242531127,
      0.0329111113881809234188, 0.0293420467392677735726, 0.0254990296311880880981,
      0.0214179490111133403284, 0.0171369314565107165513, 0.0126960326546310297279,
      0.00813719736545283530259, 0.00350930500473504830020,
  };
  const double b = g.b, r = g.r, br = b * r, root_br = Sqrt(br);
  const double z2_min = g.one_minus_bpr2;  // Z^2: z^2 at u = 0, < 0 crossing
  const bool crossing = !g.inside;
  const double kp = Sqrt(Abs(z2_min) / (4 * br));
  const double eps = crossing ? Asin(Min(1.0, kp)) : kp;
  const double u_lo = crossing ? 2 * eps : 0.0;
  const double r_rpb = r * (r + b);
  double x[kNodes], v[kNodes];
  // F(X) E over [u_lo, pi].
  const double span = kPi - u_lo;
  for (int j = 0; j < kNodes; ++j) x[j] = 2 * root_br * Sin(0.5 * (u_lo + span * kNode[j]));
  EdgeHornerNodes<kNodes>(q, degree, x, v);
  for (int j = 0; j < kNodes; ++j) v[j] *= kWeight[j] * (r_rpb - 0.5 * x[j] * x[j]);
  double arc = span * SumOfNodes<kNodes>(v);
  // D E, t in [0, t_max] (u = pi at t_max).
  if (kp >= kContactMinK) {
    const double t_max = crossing ? Acosh(0.5 * kPi / eps) : Asinh(0.5 * kPi / eps);
    // Crossing: sin(eps), cos(eps), sin(2 eps), cos(2 eps), for the angle
    // sums below.
    const double s1 = Sin(eps), c1 = Cos(eps), s2 = 2 * s1 * c1, c2 = (c1 - s1) * (c1 + s1);
    for (int j = 0; j < kNodes; ++j) {
      // sinh and cosh of y = t / 2 (crossing) or t (inside) from one expm1,
      // without cancellation: e^y = 1 + m, sinh y = (m + m / (1 + m)) / 2,
      // cosh y = sinh y + 1 / (1 + m).
      const double y = crossing ? 0.5 * t_max * kNode[j] : t_max * kNode[j];
      const double m = Expm1(y), inv = 1 / (1 + m);
      const double sh = 0.5 * (m + m * inv), ch = sh + inv;
      double s, du, z2;  // sin(u / 2), du / dt, z^2
      if (crossing) {
        // u / 2 = eps cosh t = a + eps, a = 2 eps sinh^2(t / 2); u / 2 -
        // u_lo / 2 = a and u / 2 + u_lo / 2 = a + 2 eps, so that sin^2(u /
        // 2) - sin^2(u_lo / 2) = sin(a) sin(a + 2 eps), a product without
        // cancellation next to the arc's end; every angle sum below adds
        // positive terms (a + 2 eps <= pi / 2 + eps < pi).
        const double a = 2 * eps * sh * sh;
        const double sa = Sin(a), ca = Cos(a);
        s = sa * c1 + ca * s1;
        du = 4 * eps * sh * ch;
        z2 = 4 * br * sa * (sa * c2 + ca * s2);
      } else {
        s = Sin(eps * sh);
        du = 2 * eps * ch;
        z2 = z2_min + 4 * br * s * s;
      }
      const double z = Sqrt(Max(z2, 0.0));
      const double x = 2 * root_br * s;
      double p_x, dd;
      EdgeDividedDifference(q, degree, 1 - z, 1 - x, &p_x, &dd);
      const double d = -(z2_min / (z + x)) * (dd + p_x / (1 + x)) / (1 + z);
      v[j] = kWeight[j] * du * d * (r_rpb - 2 * br * s * s);
    }
    arc += t_max * SumOfNodes<kNodes>(v);
  }
  return (crossing ? 2 * g.kappa1 * EdgeAtLimb(q, degree) : 0.0) + 2 * arc;
}

// kappa - sin(kappa) cos(kappa), the area a chord at half-angle kappa
// (in [0, pi]) cuts off the unit disk, given sin and cos of kappa. Below
// kappa = 1 by its series sum_j (-1)^(j+1) (2 kappa)^(2j+1) / (2 (2j+1)!),
// j >= 1, whose first term dominates: the difference rounds away ~1 /
// kappa^2 of the digits (13 times at kappa = 0.35, which r = b = 2.9 has).
JAXEXT_HD double SegmentArea(double kappa, double sin_k, double cos_k) {
  if (kappa >= 1) return kappa - sin_k * cos_k;
  const double x2 = 4 * kappa * kappa;
  double term = 2 * kappa * x2 / 12;
  double sum = term;
  for (int j = 2; j < 20; ++j) {
    term *= -x2 / ((2 * j) * (2 * j + 1));
    sum += term;
    if (Abs(term) <= 1e-17 * sum) break;
  }
  return sum;
}

// s_0, s_1, s_2 and their derivatives for an overlapping configuration,
// from its geometry and Lambda; no branches. deficit: s_0 - pi and s_1 -
// 2 pi / 3 (what the flux needs), formed without adding and then taking
// away pi and 2 pi / 3, which rounds to ulps of those (1.3e-15 seen in
// s_1 - 2 pi / 3 for a small planet over the centre).
struct LowOrder {
  double s[3], ds_db[3], ds_dr[3], deficit[2];
};
JAXEXT_HD JAXEXT_ALWAYS_INLINE LowOrder LowOrderTerms(const Geometry& g,
                                                     const Lambda& lambda) {
  const double b = g.b, r = g.r;
  const double inv_b = 1 / b;  // derivatives only (see LambdaFromCel)
  LowOrder o;
  // s_0, the uniform disk (sec. 3).
  o.deficit[0] = g.inside ? -kPi * r * r : -(g.kappa1 + r * r * g.kappa0 - g.kite);
  o.s[0] = kPi + o.deficit[0];
  o.ds_dr[0] = -2 * r * g.kappa0;  // kappa0 = pi inside
  o.ds_db[0] = g.inside ? 0.0 : 2 * g.kite * inv_b;
  // s_1, the linear term (sec. 5).
  const double theta = r > b ? 1 : 0;
  o.deficit[1] = -kPi * lambda.value - 2 * kPi / 3 * theta;
  o.s[1] = 2 * kPi / 3 + o.deficit[1];
  o.ds_db[1] = -kPi * lambda.d_db;
  o.ds_dr[1] = -kPi * lambda.d_dr;
  // s_2, the quadratic term (sec. 6): s_2 = 2 s_0 + 4 pi eta - 2 pi, written
  // with the kappa1 terms and the 2 pi cancelled by hand (kappa0 = pi and no
  // kite inside): a smaller difference to round. Its terms still grow as r^4
  // for r > 1: SolutionVector replaces it where k^2 < 0.3 and r > 1/2 (by
  // P(G_2) from M_n).
  // Derivatives from eta.
  const double deta_dr =
      g.inside ? 2 * r * (r * r + b * b)
               : r * (2 / kPi) * ((r * r + b * b) * g.kappa0 - 2 * g.kite);
  const double deta_db =
      g.inside ? 2 * b * r * r
               : (4 * r * r * b * b * g.kappa0 - 2 * (1 + b * b + r * r) * g.kite) *
                     inv_b * (0.5 / kPi);
  o.s[2] = 2 * r * r * ((r - 1) * (r + 1) + 2 * b * b) * g.kappa0 -
           ((5 * r * r - 1) + b * b) * g.kite;
  o.ds_db[2] = 2 * o.ds_db[0] + 4 * kPi * deta_db;
  o.ds_dr[2] = 2 * o.ds_dr[0] + 4 * kPi * deta_dr;
  return o;
}

}  // namespace detail

// s_n(b, r) and its derivatives for n = 0..n_max (n_max <= kMaxOrder), b >= 0
// and r >= 0 finite (the caller handles anything else).
// deficit (two values): s_0 - pi and s_1 - 2 pi / 3 (minus the
// flux the disk blocks of the first two terms; s_0 and s_1 are pi and
// 2 pi / 3 plus these), formed without rounding to ulps of pi.
// Unless q is null (q[0..n_max + 1]: the law's EdgePolynomial), for laws of
// three or more coefficients and an occultor that overlaps the disk without
// hiding it, also *blocked = the flux the law blocks by the edge rules
// (CrossingEdgeFlux, InsideEdgeIntegrals, InsideEdgeFlux, ContactEdgeFlux;
// unnormalised: F - 1 = -blocked / norm), returning true; false elsewhere.
JAXEXT_HD bool SolutionVector(double b, double r, int n_max, double* s,
                              double* ds_db, double* ds_dr, double* deficit,
                              const double* q = nullptr, double* blocked = nullptr) {
  using namespace detail;
  deficit[0] = deficit[1] = 0;
  for (int n = 0; n <= n_max; ++n) s[n] = ds_db[n] = ds_dr[n] = 0;
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
  const Geometry g = MakeGeometry(b, r);

  // Crossing: s_0 - pi is minus the lens's area, the two segments its chord
  // cuts off the star (half-angle kappa1, half-chord h = A_kite / b, at x_c
  // = (1 + b^2 - r^2) / (2 b) from the star's centre) and off the occultor
  // (kappa0, at b - x_c from its centre): SegmentArea keeps a thin segment's
  // digits, which kappa1 + r^2 kappa0 - A_kite loses (4 ulps at r = b = 2.9).
  double d0 = -kPi * r * r;
  if (!g.inside) {
    const double h = g.kite / b;
    const double xc = ((1 - r) * (1 + r) + b * b) / (2 * b);
    const double bxc = ((r - 1) * (r + 1) + b * b) / (2 * b);
    d0 = -(SegmentArea(g.kappa1, h, xc) + r * r * SegmentArea(g.kappa0, h / r, bxc / r));
  }
  // Crossing, laws of three or more coefficients: the flux the law blocks
  // by CrossingEdgeFlux, or ContactEdgeFlux next to contact (those of one or
  // two keep the Green's basis, as the vectorised path has it: their Green's
  // coefficients are not large against the normalisation).
  bool with_edge = false;
  if (q && n_max >= 3 && !g.inside) {
    *blocked = g.k2 < kCrossingRuleMaxK2 ? CrossingEdgeFlux(g, q, n_max + 1)
                                         : ContactEdgeFlux(g, q, n_max + 1);
    with_edge = true;
  }

  // s_0..s_2 (sec. 3, 5, 6).
  const Lambda lambda = n_max >= 1 ? LinearLambda(g) : Lambda{0, 0, 0};
  const LowOrder low = LowOrderTerms(g, lambda);
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
  const bool low_k = !g.inside && g.k2 < 0.3 && r > 0.5;
  if (n_max < 2 || (n_max < 3 && !low_k)) return with_edge;

  // s_n = -P(G_n), n >= 3, from M_n (sec. 7).
  double m[kMaxOrder + 3];
  ComputeM(g, low_k ? n_max + 2 : n_max, m, low_k ? 2 : 4);
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
  if (n_max < 3) return with_edge;
  const double a = (1 - r) * (1 + r) - b * b;
  const double c = -g.one_minus_bmr2 * g.one_minus_bpr2;
  // For small b (inside the disk), dP/db without the 1/b, from the N_n
  // (sec. 7.7-7.8; the paper's b_c = 1e-3; its printed form has a spurious
  // "-3" inside the bracket): the 1/b form loses digits as b -> 0 (2.8e-4
  // relative at b = 1e-6).
  constexpr double kSmallB = 1e-3;
  double nn[kMaxOrder + 1];
  const bool small_b = g.inside && b < kSmallB;
  if (small_b) {
    const CelBasis cb = CelP1(g.kc);
    nn[0] = kPi / 2;
    nn[1] = 2.0 / 3.0 * Sqrt(g.one_minus_bmr2) * (2 * cb.e - cb.d);
    for (int n = 2; n <= n_max - 2; ++n) {
      nn[n] = (m[n] + n * g.one_minus_bpr2 * nn[n - 2]) / (n + 2);
    }
  }
  // Inside the disk, away from its limb: the values of s_n and s_1 - 2 pi /
  // 3 by InsideEdgeIntegrals, without the closed forms' cancellation; the
  // derivatives from M_n and Lambda as elsewhere. Laws of one or two
  // coefficients (returned above) keep the closed forms, as the vectorised
  // path computes them: their Green's coefficients are not large against
  // the normalisation.
  const bool edge_rule = g.inside && 2 * b * r <= kEdgeRuleMaxX * a;
  if (edge_rule) {
    InsideEdgeIntegrals(b, r, a, n_max, s, &deficit[1], q, n_max + 1, blocked);
  } else if (q && g.inside) {
    *blocked = 2 * b * r <= kWideEdgeRuleMaxX * a ? InsideEdgeFlux(b, r, a, q, n_max + 1)
                                                   : ContactEdgeFlux(g, q, n_max + 1);
  }
  if (g.inside) with_edge = q != nullptr;
  for (int n = 3; n <= n_max; ++n) {
    if (!edge_rule) {
      s[n] = -(low_k ? one_plus_r2_minus_b2 * m[n] - m[n + 2]
                     : 2 * r * r * m[n] - double(n) / (n + 2) * (a * m[n] + c * m[n - 2]));
    }
    ds_dr[n] = -2 * r * ((n + 2) * m[n] - n * m[n - 2]);
    if (small_b) {
      ds_db[n] = -n * (b * m[n] +
                       (2 * r * r * r + b * b * b - 3 * r * r * b - b) * m[n - 2] -
                       4 * r * r * r * nn[n - 2]);
    } else {
      ds_db[n] = -n / b *
                 ((r * r + b * b) * (m[n] - m[n - 2]) +
                  ((r - b) * (r + b)) * ((r - b) * (r + b)) * m[n - 2]);
    }
  }
  return with_edge;
}

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

// The Green's-basis coefficients g_0..g_N of the law with coefficients
// u_1..u_N (u[0..N-1]), sec. 1: p = A1 u (with u_0 = -1), then g by downward
// recursion. g must hold N + 1 values (and work N + 3).
JAXEXT_HD void GreensCoefficients(const double* u, int order, double* g,
                                  double* work) {
  // work: the polynomial-basis coefficients p_0..p_N, then room for g_{N+1},
  // g_{N+2} = 0.
  double* p = work;
  for (int i = 0; i <= order; ++i) {
    // p_i = (-1)^(i+1) sum_j C(j, i) u_j, u_0 = -1.
    double sum = 0;
    double binom = 1;  // C(j, i), starting at j = i
    for (int j = i; j <= order; ++j) {
      const double uj = j == 0 ? -1.0 : u[j - 1];
      sum += binom * uj;
      binom = binom * (j + 1) / (j + 1 - i);
    }
    p[i] = (i % 2 == 1) ? sum : -sum;
  }
  double g_next2 = 0, g_next1 = 0;  // g_{n+2}, g_{n+1}
  for (int n = order; n >= 0; --n) {
    const double gn = n >= 2 ? p[n] / (n + 2) + g_next2 : p[n] + (n + 2) * g_next2;
    g[n] = gn;
    g_next2 = g_next1;
    g_next1 = gn;
  }
}

// The edge polynomial of the law with coefficients u_1..u_N (u[0..N-1]):
// q[0..N+1] with P(w) = sum_m q_m w^m = H(rho) / rho^2 (1 + z), w = 1 - z,
// H the integral of I rho' drho' from 0 to rho (EdgeHornerNodes). With a_0 = 1,
// a_n = -u_n (I = sum_n a_n w^n) and z dz = -(1 - w) dw, H = sum_n a_n
// (w^(n+1) / (n + 1) - w^(n+2) / (n + 2)) and rho^2 = w (2 - w), so
// q_m = (a_m - a_{m-1}) / (m + 1).
JAXEXT_HD void EdgePolynomial(const double* u, int order, double* q) {
  double previous = 0;  // a_{m-1}
  for (int m = 0; m <= order + 1; ++m) {
    const double a = m == 0 ? 1.0 : m <= order ? -u[m - 1] : 0.0;
    q[m] = (a - previous) / (m + 1);
    previous = a;
  }
}

// The star's flux out of transit, pi (1 - sum_n 2 u_n / ((n + 1) (n + 2)))
// (= pi g_0 + 2 pi g_1 / 3), correctly rounded but for a few ulps of
// the last place: summed in double-double (each quotient's remainder by
// FMA), as is the product by pi. The Green's form rounds g_0 and g_1, which
// for steep laws are several times the result (8e-15 relative seen for
// six coefficients from [-4, 4]^6, an error F - 1 carries whole where the
// planet hides most of the disk). Once per law.
JAXEXT_HD double Normalisation(const double* u, int order) {
  using namespace detail;
  double hi = 1, lo = 0;
  for (int n = 1; n <= order; ++n) {
    const double d = 0.5 * (n + 1) * (n + 2);  // exact
    const double t = -u[n - 1] / d;
    const double t_lo = -Fma(t, d, u[n - 1]) / d;  // -u / d - t, to rounding
    const double sum = hi + t;  // two-sum of hi and t
    const double back = sum - hi;
    lo += ((hi - (sum - back)) + (t - back)) + t_lo;
    hi = sum;
  }
  constexpr double kPiLo = 1.2246467991473532e-16;  // pi - kPi
  const double p = hi * kPi;
  return p + (Fma(hi, kPi, -p) + (hi * kPiLo + lo * kPi));
}

// g[0..order] and q[0..order + 1] (EdgePolynomial) of the law with
// coefficients u[0..order-1] (any float type), and the flux normalisation
// (Normalisation).
template <typename T>
JAXEXT_HD double GreensRow(const T* u, int order, double* g, double* q) {
  double ud[kMaxOrder], work[kMaxOrder + 3];
  for (int k = 0; k < order; ++k) ud[k] = static_cast<double>(u[k]);
  GreensCoefficients(ud, order, g, work);
  EdgePolynomial(ud, order, q);
  return Normalisation(ud, order);
}

// The gradient in u of a function of g: du[j - 1] = sum_k dg[k] dg_k/du_j
// for j = 1..N, from dg[0..N] = its gradient in g. GreensCoefficients'
// map u -> p -> g is linear, and this is its transpose: first y = dF/dp
// (g_n = c_n p_n + d_n g_{n+2}, so y_m = c_m a_m with a_m = dg_m + d_{m-2}
// a_{m-2}), then dF/du_j = sum_{i<=j} (-1)^(i+1) C(j, i) y_i.
JAXEXT_HD void GreensTranspose(const double* dg, int order, double* du) {
  double y[kMaxOrder + 1];
  double a_back2 = 0, a_back1 = 0;  // a_{m-2}, a_{m-1}
  for (int m = 0; m <= order; ++m) {
    const double d = m >= 4 ? 1.0 : m;  // d_{m-2}: 1 from n = 2 on, else n + 2
    const double a = dg[m] + d * a_back2;
    y[m] = m >= 2 ? a / (m + 2) : a;
    a_back2 = a_back1;
    a_back1 = a;
  }
  for (int j = 1; j <= order; ++j) {
    double sum = 0;
    double binom = 1;  // C(j, i), from i = 0
    for (int i = 0; i <= j; ++i) {
      sum += (i % 2 == 1 ? binom : -binom) * y[i];
      binom = binom * (j - i) / (i + 1);
    }
    du[j - 1] = sum;
  }
}

// dF/du_1..dF/du_N of one point (into du) from ds_k = s_k - s0_k (its
// solution vector less the unocculted star's, s0 = (pi, 2 pi / 3, 0, ...),
// as LightCurvePoint returns it), its F - 1 (`value`) and the law's norm:
// dF/dg_k = (s_k - F s0_k) / norm = (ds_k - (F - 1) s0_k) / norm, through
// GreensTranspose. Formed from ds, not from s_k and F, whose difference
// for k = 0, 1 would round to ulps of pi (1e-12 relative at r = 0.1 next
// to contact, 1e-8 at r = 0.01).
JAXEXT_HD void FluxGradientInU(const double* ds, double value, double norm, int order,
                               double* du) {
  double dg[kMaxOrder + 1];
  for (int k = 0; k <= order; ++k) {
    const double s0 = k == 0 ? kPi : k == 1 ? 2 * kPi / 3 : 0.0;
    dg[k] = (ds[k] - value * s0) / norm;
  }
  GreensTranspose(dg, order, du);
}

// Element i of a light curve, as the CUDA kernel computes it (one thread
// per element, limb_dark_kernel.cu) and as tests/device_path_loops.cc runs
// it on the host: the buffers of Params (limb_dark_kernel.h), u holding
// `order` coefficients per group of group_size consecutive elements. Stores
// flux[i] = F - 1 at (b[i], r[i]); d_db[i] and d_dr[i] unless d_db is null
// (d_db and d_dr both null: the value alone); d_du[j][i] = dF/du_{j+1}, j <
// order, unless d_du[0] is null (d_du holds kMaxOrder pointers). Forms its
// row's Green's coefficients itself: at most kMaxOrder^2 flops, small next
// to the point's own work.
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

#undef LIMB_DARK_STD

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_H_
