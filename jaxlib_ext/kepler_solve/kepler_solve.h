// Branch-free, fixed-cost solver for Kepler's equation  M = E - e sin(E).
//
// Header-only; usable from host C++17 (clang, gcc) and from CUDA device code.
//
// Algorithm (per element, no data-dependent loops):
//   1. Accurate range reduction of M to (-pi, pi] (Cody-Waite, 2*pi split in
//      three parts; exact products via fma where the target has hardware FMA),
//      then the odd symmetry E(-M) = -E(M) folds the problem to m in [0, pi].
//   2. Starter: the cubic approximation of F. L. Markley, "Kepler equation
//      solver", Celestial Mechanics and Dynamical Astronomy 63, 101-111 (1995),
//      eqs. (5)-(20): closed-form root of a cubic whose coefficients follow a
//      Pade-like approximation of sin E (alpha(e, M) as in the paper). At
//      e = 0 the starter is m itself, so that a circular orbit's E is M to
//      the bit (SolveCircular computes it without the solve).
//   3. One fifth-order (double) / fourth-order (float) Householder-type
//      correction as in Markley (1995), eqs. (21)-(24).  The residual
//      f = E - e sin E - M and f' = 1 - e cos E are evaluated without
//      cancellation using E - sin E and 1 - cos E obtained directly from the
//      polynomial kernels (important for e -> 1, E -> 0).
//   4. sin/cos of the final E are obtained by rotating (sin E0, cos E0) by the
//      small correction delta with short Taylor series (no second trig call).
// No libm trig functions are used. sqrt and the cube root of the starter are
// computed with branch-free bit-level initial guesses + Newton steps on the
// host (so that the host compiler, zig's clang in the build, auto-vectorises
// the loops without -fno-math-errno), and with the CUDA intrinsics on the
// device.
//
// Invalid input (e < 0, e >= 1, NaN or +-inf in M or e) gives NaN in BOTH
// outputs.  Accuracy of the range reduction: ~1 ulp of pi for
// |M| < ~1e15 with hardware FMA (|M| < ~6e6 without FMA); for larger |M| the
// result is still finite and bounded but loses accuracy gradually.
#ifndef JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_H_
#define JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/branch_free.h"

namespace jaxext::kepler_solve {
inline namespace JAXEXT_MATH_NAMESPACE {
namespace detail {

using namespace ::jaxext::math::branch_free;

// ---------------------------------------------------------------------------
// Range reduction: returns M - 2*pi*k in [-pi, pi] (clamped).
// ---------------------------------------------------------------------------
JAXEXT_HD JAXEXT_ALWAYS_INLINE double ReduceTwoPi(double M) {
  constexpr double kInv2Pi = 0x1.45f306dc9c883p-3;
  constexpr double kPi = 0x1.921fb54442d18p+1;
  const double k = Rint(M * kInv2Pi);
#if JAXEXT_HAS_HW_FMA
  // k * hi is exact inside the fma; M - k*hi is exact for |k| < ~1e15.
  constexpr double kHi = 0x1.921fb54442d18p+2;
  constexpr double kMid = 0x1.1a62633145c07p-52;
  constexpr double kLo = -0x1.f1976b7ed8fbcp-108;
  double r = Fma(-k, kHi, M);
  r = Fma(-k, kMid, r);
  r = Fma(-k, kLo, r);
#else
  // 33-bit parts: k * hi, k * mid exact for |k| < 2^20.
  constexpr double kHi = 0x1.921fb544p+2;
  constexpr double kMid = 0x1.0b4611a6p-32;
  constexpr double kLo = 0x1.3198a2e037073p-67;
  double r = M - k * kHi;
  r = r - k * kMid;
  r = r - k * kLo;
#endif
  r = Select(r > kPi, kPi, r);
  r = Select(r < -kPi, -kPi, r);
  return r;
}

JAXEXT_HD float ReduceTwoPi(float M) {
#if JAXEXT_HAS_HW_FMA
  // Same scheme in single precision; exact first step for |k| < ~2^24.
  constexpr float kInv2Pi = 0.159154943091895335768883763372514362f;
  constexpr float kPi = 3.14159265358979323846f;
  constexpr float kHi = 0x1.921fb6p+2f;
  constexpr float kMid = -0x1.777a5cp-23f;
  constexpr float kLo = -0x1.ee59dap-48f;
  const float k = Rint(M * kInv2Pi);
  float r = Fma(-k, kHi, M);
  r = Fma(-k, kMid, r);
  r = Fma(-k, kLo, r);
  r = Select(r > kPi, kPi, r);
  r = Select(r < -kPi, -kPi, r);
  return r;
#else
  // Without FMA: exact products in double precision (24 x 24 bits).
  return static_cast<float>(ReduceTwoPi(static_cast<double>(M)));
#endif
}

// ---------------------------------------------------------------------------
// Core solvers.  Inputs assumed sanitised: 0 <= m <= pi, 0 <= e < 1.
// Outputs sin E, cos E and 1 - cos E (accurate near E = 0).
// ---------------------------------------------------------------------------

// The starter's division, square root and z^(2/3). With kFast, on a GPU,
// they are the hardware's approximations (MUFU reciprocal, rsqrt, log2 and
// exp2: ~1e-6 relative error or better), which the double solve's starter
// tolerates (its fifth-order correction needs ~1e-4) and which cost a few
// instructions instead of IEEE-exact sequences (a few per cent of the float64
// solve's speed on an H100: benchmarks/BENCHMARKS.md, "What was found on the
// way"). The float solve keeps the exact forms: with the fast ones its
// float32 true-anomaly backward error on the GPU exceeds the 4e-7 bound. The
// host always uses the exact forms (so the host test of the device path
// checks those).
template <bool kFast, typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T StarterDiv(T a, T b) {
#if defined(__CUDA_ARCH__)
  if (kFast) return __fdividef(a, b);  // b here is in [1, 2) or a product of normal floats
#endif
  return a / b;
}

// The square root, for x >= 0. On the host a low-accuracy one, x times
// RsqrtNewton with one step fewer than Sqrt's (relative error ~3e-11 in
// double, ~5e-6 in float); on the device path the correctly rounded sqrt.
template <bool kFast, typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T StarterSqrt(T x) {
#if defined(__CUDA_ARCH__)
  if (kFast) return x > T(0) ? x * ::rsqrtf(x) : T(0);
#endif
#if JAXEXT_DEVICE_PATH
  return Sqrt(x);
#else
  constexpr int kSteps = sizeof(T) == sizeof(double) ? 3 : 2;
  return x * RsqrtNewton<kSteps>(x);
#endif
}

template <bool kFast, typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T StarterPowTwoThirds(T z) {
#if defined(__CUDA_ARCH__)
  if (kFast) return ::exp2f(__log2f(z) * (2.0f / 3.0f));  // z = 0: exp2(-inf) = 0
#endif
  return PowTwoThirds(z);
}

// Markley's (1995) starting value E0 for 0 <= m <= pi, 0 <= e < 1 and
// ome = 1 - e, in T's precision. The float and double cores use it; so does
// the double core on the device path, in float: there FP64 throughput, not
// memory, bounds the op (on an H100 the double solve's arithmetic alone took
// longer than moving its bytes), and the starter needs far less than float's
// precision (the fifth-order correction turns a starter error d into
// O(d^5)), while float division, sqrt and cbrt cost a fraction of their
// double versions.
template <bool kFast, typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T MarkleyStarter(T m, T e, T ome) {
  static_assert(!kFast || sizeof(T) == sizeof(float), "the fast forms are float's");
  constexpr double kPiD = 0x1.921fb54442d18p+1;
  constexpr double kPiSq = kPiD * kPiD;
  constexpr T kPi = static_cast<T>(kPiD);
  constexpr T kA0 = static_cast<T>(3.0 * kPiSq / (kPiSq - 6.0));
  constexpr T kA1 = static_cast<T>(1.6 * kPiD / (kPiSq - 6.0));
  const T alpha = kA0 + StarterDiv<kFast>(kA1 * (kPi - m), T(1) + e);
  const T d = T(3) * ome + alpha * e;
  const T ad = alpha * d;
  const T m2 = m * m;
  const T q = T(2) * ad * ome - m2;
  const T r = (T(3) * ad * (d - ome) + m2) * m;
  const T q2 = q * q;
  const T disc = q2 * q + r * r;
  const T z = r + StarterSqrt<kFast>(Select(disc > T(0), disc, T(0)));
  const T w = StarterPowTwoThirds<kFast>(z);
  const T den0 = w * w + w * q + q2;
  return StarterDiv<kFast>(Fma(T(2) * r, w, m * den0), d * den0);
}

// sin, cos and 1 - cos of an angle 0 <= E0 <= pi by reduction to |x| <= pi/4
// (by the quarter turns nq = 0, 1, 2), with x - sin x (no cancellation) and
// whether E0 > pi/4 (z1), which the residual's forms need.
struct AngleSinCos {
  double s, c, omc, xms;
  bool z1;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE AngleSinCos SinCosOfAngle(double E0) {
  constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
  constexpr double kPio2Lo = 0x1.1a62633145c07p-54;
  constexpr double kPio4 = 0.78539816339744830962;
  constexpr double k3Pio4 = 2.35619449019234492885;
  const bool z1 = E0 > kPio4;
  const bool z2 = E0 > k3Pio4;
  const double nq = Select(z2, 2.0, Select(z1, 1.0, 0.0));
  const double x = (E0 - nq * kPio2Hi) - nq * kPio2Lo;
  const double x2 = x * x;
  // sin x = x + x^3 S(x^2),  Taylor through x^15.
  double S = -1.0 / 1307674368000.0;
  S = Fma(S, x2, 1.0 / 6227020800.0);
  S = Fma(S, x2, -1.0 / 39916800.0);
  S = Fma(S, x2, 1.0 / 362880.0);
  S = Fma(S, x2, -1.0 / 5040.0);
  S = Fma(S, x2, 1.0 / 120.0);
  S = Fma(S, x2, -1.0 / 6.0);
  const double xms = -(x * x2) * S;  // x - sin x (no cancellation)
  const double sx = x - xms;
  // 1 - cos x = x^2 C(x^2), Taylor through x^16.
  double C = 1.0 / 20922789888000.0;
  C = Fma(C, x2, -1.0 / 87178291200.0);
  C = Fma(C, x2, 1.0 / 479001600.0);
  C = Fma(C, x2, -1.0 / 3628800.0);
  C = Fma(C, x2, 1.0 / 40320.0);
  C = Fma(C, x2, -1.0 / 720.0);
  C = Fma(C, x2, 1.0 / 24.0);
  C = Fma(C, x2, -0.5);
  const double omcx = -x2 * C;  // 1 - cos x
  const double cx = 1.0 - omcx;
  AngleSinCos k;
  k.s = Select(z2, -sx, Select(z1, cx, sx));
  k.c = Select(z2, -cx, Select(z1, -sx, cx));
  k.omc = Select(z1, 1.0 - k.c, omcx);
  k.xms = xms;
  k.z1 = z1;
  return k;
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE void Core(double m, double e, double* sE, double* cE, double* omcE) {
  const double ome = 1.0 - e;  // exact for e >= 0.5

  // --- Markley (1995) starter ---
#if JAXEXT_DEVICE_PATH
  // In float (see MarkleyStarter); ome rounded from its double value, so
  // that 1 - e keeps its relative accuracy as e -> 1.
  const double starter = static_cast<double>(MarkleyStarter<true>(
      static_cast<float>(m), static_cast<float>(e), static_cast<float>(ome)));
#else
  const double starter = MarkleyStarter<false>(m, e, ome);
#endif
  // A circle's E is m itself: taken exactly, the residual below is 0 and so
  // is the correction, and the solve gives SinCosOfAngle(m) to the bit (what
  // SolveCircular computes alone).
  const double E0 = Select(e == 0.0, m, starter);

  // --- sin / cos of E0 by octant-free reduction to |x| <= pi/4 ---
  const AngleSinCos k = SinCosOfAngle(E0);
  const bool z1 = k.z1;
  const double xms = k.xms, s0 = k.s, c0 = k.c, omc0 = k.omc;

  // --- residual and derivatives, cancellation-free ---
  const double f_small = Fma(ome, E0, -m) + e * xms;  // E0 <= pi/4
  const double f_large = (E0 - m) - e * s0;
  const double f = Select(z1, f_large, f_small);
  const double f1 = Fma(e, omc0, ome);  // 1 - e cos E0
  const double f2 = e * s0;              // e sin E0
  const double f3 = e * c0;              // e cos E0

  // --- Markley's fifth-order correction ---
  const double d3 = -f * f1 / Fma(f1, f1, -0.5 * f * f2);
  const double d4 = -f / (f1 + d3 * (0.5 * f2 + d3 * f3 * (1.0 / 6.0)));
  const double d5 =
      -f / (f1 + d4 * (0.5 * f2 + d4 * (f3 * (1.0 / 6.0) -
                                        d4 * f2 * (1.0 / 24.0))));

  // --- rotate (s0, c0) by d5 ---
  const double dd = d5 * d5;
  const double sd = d5 * (1.0 - dd * (1.0 / 6.0) * (1.0 - dd * (1.0 / 20.0) * (1.0 - dd * (1.0 / 42.0))));
  const double omcd = dd * 0.5 * (1.0 - dd * (1.0 / 12.0) * (1.0 - dd * (1.0 / 30.0)));
  *sE = s0 + (c0 * sd - s0 * omcd);
  *cE = c0 - (c0 * omcd + s0 * sd);
  *omcE = omc0 + (c0 * omcd + s0 * sd);
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE void Core(float m, float e, float* sE, float* cE, float* omcE) {
  constexpr float kPio2Hi = 1.57079637050628662109375f;       // float(pi/2)
  constexpr float kPio2Lo = -4.37113900018624283e-8f;         // pi/2 - hi
  constexpr float kPio4 = 0.785398163397448f;
  constexpr float k3Pio4 = 2.356194490192345f;

  const float ome = 1.0f - e;
  const float E0 = MarkleyStarter<false>(m, e, ome);

  const bool z1 = E0 > kPio4;
  const bool z2 = E0 > k3Pio4;
  const float nq = Select(z2, 2.0f, Select(z1, 1.0f, 0.0f));
  const float x = (E0 - nq * kPio2Hi) - nq * kPio2Lo;
  const float x2 = x * x;
  // sin x = x + x^3 S(x^2), Taylor through x^9 (truncation < 2e-9).
  float S = 1.0f / 362880.0f;
  S = Fma(S, x2, -1.0f / 5040.0f);
  S = Fma(S, x2, 1.0f / 120.0f);
  S = Fma(S, x2, -1.0f / 6.0f);
  const float xms = -(x * x2) * S;
  const float sx = x - xms;
  // 1 - cos x = x^2 C(x^2), Taylor through x^10 (truncation < 2e-10).
  float C = -1.0f / 3628800.0f;
  C = Fma(C, x2, 1.0f / 40320.0f);
  C = Fma(C, x2, -1.0f / 720.0f);
  C = Fma(C, x2, 1.0f / 24.0f);
  C = Fma(C, x2, -0.5f);
  const float omcx = -x2 * C;
  const float cx = 1.0f - omcx;

  const float s0 = Select(z2, -sx, Select(z1, cx, sx));
  const float c0 = Select(z2, -cx, Select(z1, -sx, cx));
  const float omc0 = Select(z1, 1.0f - c0, omcx);

  const float f_small = Fma(ome, E0, -m) + e * xms;
  const float f_large = (E0 - m) - e * s0;
  const float f = Select(z1, f_large, f_small);
  const float f1 = Fma(e, omc0, ome);
  const float f2 = e * s0;
  const float f3 = e * c0;

  // Fourth-order step (Markley's d4) suffices in single precision.
  const float d3 = -f * f1 / Fma(f1, f1, -0.5f * f * f2);
  const float d5 = -f / (f1 + d3 * (0.5f * f2 + d3 * f3 * (1.0f / 6.0f)));

  const float dd = d5 * d5;
  const float sd = d5 * (1.0f - dd * (1.0f / 6.0f) * (1.0f - dd * (1.0f / 20.0f)));
  const float omcd = dd * 0.5f * (1.0f - dd * (1.0f / 12.0f));
  *sE = s0 + (c0 * sd - s0 * omcd);
  *cE = c0 - (c0 * omcd + s0 * sd);
  *omcE = omc0 + (c0 * omcd + s0 * sd);
}

// Shared front end: validation, reduction, symmetry.  Returns the NaN mask.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool Prepare(T M, T e, T* m, T* es, bool* neg) {
  // Finite M: M - M == 0 is false for +-inf and NaN.
  // Bitwise | (not ||): short-circuit evaluation would introduce branches.
  const bool bad = (!((M - M) == T(0))) | (!(e >= T(0))) | (!(e < T(1)));
  const T Ms = Select(bad, T(1), M);
  *es = Select(bad, T(0.5), e);
  const T r = ReduceTwoPi(Ms);
  *neg = r < T(0);
  *m = Abs(r);
  return bad;
}

template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T NaN();
template <>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double NaN<double>() {
  return __builtin_nan("");
}
template <>
JAXEXT_HD JAXEXT_ALWAYS_INLINE float NaN<float>() {
  return __builtin_nanf("");
}

}  // namespace detail

// One element's solve before the outputs are chosen: sin E (its sign
// restored), cos E, 1 - cos E, the sanitised eccentricity, and whether the
// input is invalid (then the caller writes NaN). Public, with SolveElement
// and OneMinusECos, for the ops that solve Kepler's equation inside their
// own elements (the transit model's orbit).
template <typename T>
struct Eccentric {
  T s, c, omc, e;
  bool bad;
};

template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE Eccentric<T> SolveElement(T mean_anomaly, T ecc) {
  static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double),
                "T must be float or double");
  Eccentric<T> x;
  T m;
  bool neg;
  x.bad = detail::Prepare(mean_anomaly, ecc, &m, &x.e, &neg);
  detail::Core(m, x.e, &x.s, &x.c, &x.omc);
  x.s = detail::Select(neg, -x.s, x.s);
  return x;
}

// SolveElement for a circular orbit (e = 0, where E = M) and a finite M:
// the same values to the bit, without the starter and the correction.
JAXEXT_HD JAXEXT_ALWAYS_INLINE Eccentric<double> SolveCircular(double mean_anomaly) {
  Eccentric<double> x;
  double m;
  bool neg;
  x.bad = detail::Prepare(mean_anomaly, 0.0, &m, &x.e, &neg);
  const detail::AngleSinCos k = detail::SinCosOfAngle(m);
  x.s = detail::Select(neg, -k.s, k.s);
  x.c = k.c;
  x.omc = k.omc;
  return x;
}

// 1 - e cos E without cancellation as e -> 1 and E -> 0.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE T OneMinusECos(const Eccentric<T>& x) {
  return detail::Fma(x.e, x.omc, T(1) - x.e);
}

namespace detail {

// The true anomaly of a solved element: sin f and cos f, and 1 / (1 - e cos E)
// and sqrt(1 - e^2), which its derivatives use.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void TrueFrom(const Eccentric<T>& x, T* sin_f, T* cos_f,
                                             T* inv_den, T* root) {
  const T ome = T(1) - x.e;
  const T inv = T(1) / OneMinusECos(x);
  const T rt = Sqrt(ome * (T(1) + x.e));  // sqrt(1 - e^2)
  T sf = rt * x.s * inv;
  T cf = (ome - x.omc) * inv;  // (cos E - e) / (1 - e cos E)
  // One first-order renormalisation step so that sf^2 + cf^2 = 1 to ~1 ulp.
  const T nm1 = Fma(sf, sf, Fma(cf, cf, T(-1)));
  const T h = T(-0.5) * nm1;
  *sin_f = Fma(h, sf, sf);
  *cos_f = Fma(h, cf, cf);
  *inv_den = inv;
  *root = rt;
}

}  // namespace detail

// sin and cos of the eccentric anomaly E solving M = E - ecc sin E.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void SolveEccentric(T mean_anomaly, T ecc, T* sin_E, T* cos_E) {
  const Eccentric<T> x = SolveElement(mean_anomaly, ecc);
  const T nan = detail::NaN<T>();
  *sin_E = detail::Select(x.bad, nan, x.s);
  *cos_E = detail::Select(x.bad, nan, x.c);
}

// sin and cos of the true anomaly f, tan(f/2) = sqrt((1+e)/(1-e)) tan(E/2).
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void SolveTrue(T mean_anomaly, T ecc, T* sin_f, T* cos_f) {
  const Eccentric<T> x = SolveElement(mean_anomaly, ecc);
  T sf, cf, inv, rt;
  detail::TrueFrom(x, &sf, &cf, &inv, &rt);
  const T nan = detail::NaN<T>();
  *sin_f = detail::Select(x.bad, nan, sf);
  *cos_f = detail::Select(x.bad, nan, cf);
}

// SolveEccentric and the outputs' tangents for input tangents (dM, de) (the
// JVP): dE = (dM + sin E de) / (1 - e cos E) (implicit differentiation of
// M = E - e sin E), d sin E = cos E dE, d cos E = -sin E dE. Invalid inputs
// give NaN in all four outputs.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void SolveEccentricJvp(T mean_anomaly, T ecc, T d_mean_anomaly,
                                                      T d_ecc, T* sin_E, T* cos_E, T* d_sin_E,
                                                      T* d_cos_E) {
  const Eccentric<T> x = SolveElement(mean_anomaly, ecc);
  const T d_E = detail::Fma(x.s, d_ecc, d_mean_anomaly) / OneMinusECos(x);
  const T nan = detail::NaN<T>();
  *sin_E = detail::Select(x.bad, nan, x.s);
  *cos_E = detail::Select(x.bad, nan, x.c);
  *d_sin_E = detail::Select(x.bad, nan, x.c * d_E);
  *d_cos_E = detail::Select(x.bad, nan, -x.s * d_E);
}

// SolveTrue and its JVP: df = dM sqrt(1 - e^2) / (1 - e cos E)^2
// + de sin f (2 + e cos f) / (1 - e^2), d sin f = cos f df, d cos f = -sin f df.
template <typename T>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void SolveTrueJvp(T mean_anomaly, T ecc, T d_mean_anomaly, T d_ecc,
                                                 T* sin_f, T* cos_f, T* d_sin_f, T* d_cos_f) {
  const Eccentric<T> x = SolveElement(mean_anomaly, ecc);
  T sf, cf, inv, rt;
  detail::TrueFrom(x, &sf, &cf, &inv, &rt);
  const T one_minus_e2 = (T(1) - x.e) * (T(1) + x.e);
  const T d_f = d_mean_anomaly * (rt * inv * inv) +
                d_ecc * (sf * detail::Fma(x.e, cf, T(2)) / one_minus_e2);
  const T nan = detail::NaN<T>();
  *sin_f = detail::Select(x.bad, nan, sf);
  *cos_f = detail::Select(x.bad, nan, cf);
  *d_sin_f = detail::Select(x.bad, nan, cf * d_f);
  *d_cos_f = detail::Select(x.bad, nan, -sf * d_f);
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::kepler_solve

#endif  // JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_H_
