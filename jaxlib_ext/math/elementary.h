// The light curve's elementary functions, for host and device code: pi in
// two parts, the C math functions it calls (std::'s on the host, the global
// ones on the device path) and a branch-free atan2.
#ifndef JAXLIB_EXT_MATH_ELEMENTARY_H_
#define JAXLIB_EXT_MATH_ELEMENTARY_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/nodes.h"

#include <cstdint>

#if !JAXEXT_DEVICE_PATH
#include <cmath>
#endif

namespace jaxext::math {
inline namespace JAXEXT_MATH_NAMESPACE {

constexpr double kPi = 3.14159265358979323846;
constexpr double kPiLo = 1.2246467991473532e-16;  // pi - kPi


// The device path calls the global C functions, which nvcc declares for
// device code (host_device.h includes <math.h> for a host compiler that
// runs that path); the host path, std::'s.
#if JAXEXT_DEVICE_PATH
#define JAXEXT_STD(f) ::f
#else
#define JAXEXT_STD(f) std::f
#endif

JAXEXT_HD double Sqrt(double x) { return JAXEXT_STD(sqrt)(x); }
JAXEXT_HD double Abs(double x) { return JAXEXT_STD(fabs)(x); }
JAXEXT_HD double Fma(double x, double y, double z) { return JAXEXT_STD(fma)(x, y, z); }
JAXEXT_HD double Acos(double x) { return JAXEXT_STD(acos)(x); }
JAXEXT_HD double Asin(double x) { return JAXEXT_STD(asin)(x); }
JAXEXT_HD double Sin(double x) { return JAXEXT_STD(sin)(x); }
JAXEXT_HD double Cos(double x) { return JAXEXT_STD(cos)(x); }
JAXEXT_HD double Expm1(double x) { return JAXEXT_STD(expm1)(x); }
JAXEXT_HD double Log(double x) { return JAXEXT_STD(log)(x); }
JAXEXT_HD double Asinh(double x) { return JAXEXT_STD(asinh)(x); }
JAXEXT_HD double Acosh(double x) { return JAXEXT_STD(acosh)(x); }
JAXEXT_HD double Atan2(double y, double x) { return JAXEXT_STD(atan2)(y, x); }
JAXEXT_HD double Floor(double x) { return JAXEXT_STD(floor)(x); }
JAXEXT_HD double Ceil(double x) { return JAXEXT_STD(ceil)(x); }
JAXEXT_HD bool IsFinite(double x) { return JAXEXT_STD(isfinite)(x); }
JAXEXT_HD double NaN() { return JAXEXT_STD(nan)(""); }
JAXEXT_HD double Max(double a, double b) { return a > b ? a : b; }
JAXEXT_HD double Min(double a, double b) { return a < b ? a : b; }
// The float32 twins of those the low-order path calls (polynomial_flux.h's
// LowOrderLightCurvePoint<float>).
JAXEXT_HD float Sqrt(float x) { return JAXEXT_STD(sqrt)(x); }
JAXEXT_HD float Abs(float x) { return JAXEXT_STD(fabs)(x); }
JAXEXT_HD bool IsFinite(float x) { return JAXEXT_STD(isfinite)(x); }
JAXEXT_HD float Max(float a, float b) { return a > b ? a : b; }
JAXEXT_HD float Min(float a, float b) { return a < b ? a : b; }

// atan2(y, x) for y >= 0, in [0, pi], without branches or calls, so that the
// CPU loop that calls it vectorises (no vector libm is linked). |y| / |x| or
// its inverse is reduced to [0, tan(pi/8)] with atan(t) = pi/4 +
// atan((t - 1) / (t + 1)); there atan(t) = t + t^3 P(t^2), P of degree 10
// fitted to the relative error of atan (AtanCoefficients, nodes.h): 1.2e-16
// relative in double, the rounding's level.
// The multiples of pi are added in two parts (hi + lo). F: double, or
// float for the float32 low-order path (the same steps in float).
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE F Atan2NonNegative(F y, F x) {
  const F ax = Abs(x);
  const F num = Min(y, ax), den = Max(y, ax);
  // t = num / den; reduced, v = (t - 1) / (t + 1) = (num - den) / (num +
  // den): one division either way.
  const bool reduce = num > F(0.41421356237309503) * den;  // t > tan(pi/8)
  const F v_num = reduce ? num - den : num;
  const F v_den = reduce ? num + den : (den > 0 ? den : F(1));
  const F v = v_num / v_den;
  const F z = v * v;
  constexpr Table<11> kP = AtanCoefficients();
  F poly = F(kP.v[10]);
  for (int k = 9; k >= 0; --k) poly = poly * z + F(kP.v[k]);
  F a = v + v * z * poly;
  const F pi = F(kPi), pi_lo = F(kPiLo);
  if (reduce) a = (F(0.25) * pi + a) + F(0.25) * pi_lo;  // atan(t), t <= 1
  if (y > ax) a = (F(0.5) * pi - a) + F(0.5) * pi_lo;    // atan(y / |x|)
  if (x < 0) a = (pi - a) + pi_lo;
  return a;
}

// c[0] + c[1] x + ... + c[N-1] x^(N-1) as c[0] + x Q(x), Q by Estrin's
// scheme (pairs c[2i+1] + c[2i+2] x, then pairs of those with x^2, x^4,
// ...): about log2(N) + 1 steps one after another where Horner's scheme
// takes N - 1, for loops whose time is the chain of one lane's operations
// (the power law's nodes). Where the constant term dominates (the
// polynomials of LogFromRatio and Expm1OfNode below) it rounds as Horner's:
// once at the last step, Q's roundings scaled by |x Q / c[0]|.
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE double EstrinPolynomial(const double (&c)[N], double x) {
  static_assert(N >= 2, "c[0] + x Q(x)");
  double v[N];
  int n = 0;
  for (int i = 1; i < N; i += 2) v[n++] = i + 1 < N ? c[i] + c[i + 1] * x : c[i];
  for (double power = x * x; n > 1; power *= power) {
    const int pairs = n / 2;
    for (int i = 0; i < pairs; ++i) v[i] = v[2 * i] + v[2 * i + 1] * power;
    if (n % 2 == 1) v[pairs] = v[n - 1];
    n = pairs + n % 2;
  }
  return c[0] + x * v[0];
}

// log 2 in two parts: kLn2Hi its 32 leading bits, so that k kLn2Hi is exact
// for |k| < 2^21, and kLn2Lo = log 2 - kLn2Hi rounded.
constexpr double kLn2Hi = 0.6931471806019545;
constexpr double kLn2Lo = -4.2009150726810846e-11;

// log(x) and expm1(x) for the edge rules' nodes, in loops a CPU compiler
// vectorises: without branches, calls or 64-bit integer conversions (no
// vector libm is linked; AVX2 has none of those). The device path calls
// CUDA's.
//
// LogOfNode(x), x a normal positive double (the nodes' z, at least 1e-300):
// x = 2^e m with m in [sqrt(1/2), sqrt(2)) (ReduceForLog), log m = 2
// atanh(s) = 2 s P(s^2), s = (m - 1) / (m + 1), |s| <= 0.172, P of degree
// 7 fitted to atanh(s) / s within 2.4e-18 (LogRatioCoefficients, nodes.h;
// the series 1 + s^2 / 3 + s^4 / 5 + ... needs degree 10) (LogFromRatio).
// Within 2 ulps of log x, relative (elementary_test), next to x = 1 too.
// The two steps are host code (power_sums.h calls them apart).
#if !JAXEXT_DEVICE_PATH
struct LogReduction {
  double e, m;  // x = 2^e m
};

JAXEXT_ALWAYS_INLINE inline LogReduction ReduceForLog(double x) {
  std::uint64_t bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  // The mantissa with the exponent of [1, 2), and that exponent field.
  const std::uint64_t field = bits >> 52;
  std::uint64_t m_bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m;
  __builtin_memcpy(&m, &m_bits, sizeof m);
  // The field as a double, exactly: 2^52 + field, less 2^52 + 1023.
  const std::uint64_t e_bits = 0x4330000000000000ULL | field;
  double e;
  __builtin_memcpy(&e, &e_bits, sizeof e);
  e -= 4503599627371519.0;  // 2^52 + 1023
  const bool high = m > 1.4142135623730951;
  return {high ? e + 1 : e, high ? 0.5 * m : m};
}

// e log 2 + log m from s = (m - 1) / (m + 1).
JAXEXT_ALWAYS_INLINE inline double LogFromRatio(double e, double s) {
  constexpr Table<8> kP = LogRatioCoefficients();
  const double series = EstrinPolynomial(kP.v, s * s);
  return e * kLn2Hi + (2 * s * series + e * kLn2Lo);
}
#endif

JAXEXT_HD JAXEXT_ALWAYS_INLINE double LogOfNode(double x) {
#if JAXEXT_DEVICE_PATH
  return ::log(x);
#else
  const LogReduction x2m = ReduceForLog(x);
  return LogFromRatio(x2m.e, (x2m.m - 1) / (x2m.m + 1));
#endif
}

// 1 / n! for n = 0..17, each rounded once (n! is exact in double up to 18!).
struct InverseFactorials {
  double v[18];
};
JAXEXT_HD constexpr InverseFactorials MakeInverseFactorials() {
  InverseFactorials t{};
  double factorial = 1;
  for (int n = 0; n <= 17; ++n) {
    if (n > 0) factorial *= n;
    t.v[n] = 1 / factorial;
  }
  return t;
}

// Expm1OfNode(x) = e^x - 1 for x <= 700 (the nodes' alpha log z, the
// contact rule's map): x = k log 2 + y (k log 2 in two parts, exact),
// |y| <= log(2) / 2, e^x - 1 = 2^k (e^y - 1) + (2^k - 1), e^y - 1 = y +
// y^2 P(y), P of degree 10 fitted within 4e-19 of e^y - 1 relative
// (Expm1Coefficients, nodes.h; the Taylor series needs degree 12): within
// 1 ulp relative (elementary_test). x below -700 gives -1 (e^x < 1e-304).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Expm1OfNode(double x) {
#if JAXEXT_DEVICE_PATH
  return ::expm1(x);
#else
  x = Max(x, -700.0);
  constexpr double kInvLn2 = 1.4426950408889634;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double shifted = x * kInvLn2 + kRound;
  const double k = shifted - kRound;
  const double y = (x - k * kLn2Hi) - k * kLn2Lo;
  constexpr Table<11> kP = Expm1Coefficients();
  const double em1 = y + y * y * EstrinPolynomial(kP.v, y);  // e^y - 1 = y + y^2 P(y)
  // 2^k from the integer in shifted's low bits: (k + 1023) << 52.
  std::uint64_t bits;
  __builtin_memcpy(&bits, &shifted, sizeof bits);
  bits = (bits + 1023) << 52;
  double two_k;
  __builtin_memcpy(&two_k, &bits, sizeof two_k);
  return two_k * em1 + (two_k - 1);
#endif
}

// sin(x) and cos(x) for |x| <= 1e5 (the contact rule's angles, in [0,
// pi]), in loops a CPU compiler vectorises: x = k pi / 2 + y, |y| <= pi /
// 4, pi / 2 in two parts (y within an ulp of x - k pi / 2 for these x);
// sin y and cos y by their Taylor series to y^17 and y^16 (the next terms
// below 1e-17 relative), swapped and negated by k mod 4. The device path
// calls CUDA's.
struct SinCos {
  double sin, cos;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE SinCos SinCosOfNode(double x) {
#if JAXEXT_DEVICE_PATH
  return {::sin(x), ::cos(x)};
#else
  constexpr double kTwoOverPi = 0.6366197723675814;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double shifted = x * kTwoOverPi + kRound;
  const double k = shifted - kRound;
  constexpr double kHalfPiHi = 1.5707963267948966;     // pi / 2, rounded
  constexpr double kHalfPiLo = 6.123233995736766e-17;  // pi / 2 - kHalfPiHi
  const double y = (x - k * kHalfPiHi) - k * kHalfPiLo, y2 = y * y;
  constexpr InverseFactorials kInv = MakeInverseFactorials();
  // sin y = y (1 - y^2 / 3! + ...), cos y = 1 - y^2 / 2! + ...
  double sin_series = kInv.v[17], cos_series = kInv.v[16];
  for (int n = 15; n >= 3; n -= 2) sin_series = sin_series * -y2 + kInv.v[n];
  for (int n = 14; n >= 2; n -= 2) cos_series = cos_series * -y2 + kInv.v[n];
  const double sin_y = y - y * y2 * sin_series;
  const double cos_y = 1 - y2 * cos_series;
  std::uint64_t bits;
  __builtin_memcpy(&bits, &shifted, sizeof bits);
  const bool swap = (bits & 1) != 0, sin_negative = (bits & 2) != 0,
             cos_negative = ((bits + 1) & 2) != 0;
  const double s = swap ? cos_y : sin_y, c = swap ? sin_y : cos_y;
  return {sin_negative ? -s : s, cos_negative ? -c : c};
#endif
}

#undef JAXEXT_STD


}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::math

#endif  // JAXLIB_EXT_MATH_ELEMENTARY_H_
