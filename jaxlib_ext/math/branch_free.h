// Branch-free elementary functions for loops that the host compiler
// vectorises without fast-math (no libm calls, no data-dependent branches):
// fma where the target fuses it, a bitwise select, |x|, round to nearest,
// sqrt and z^(2/3) by bit-pattern guesses and Newton steps. On the device
// path they are CUDA's own functions. Kepler's equation's solver
// (jaxlib_ext/kepler_solve/kepler_solve.h) is written with them; the
// light curve's functions are elementary.h's.
#ifndef JAXLIB_EXT_MATH_BRANCH_FREE_H_
#define JAXLIB_EXT_MATH_BRANCH_FREE_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"

namespace jaxext::math::branch_free {
inline namespace JAXEXT_MATH_NAMESPACE {

JAXEXT_HD JAXEXT_ALWAYS_INLINE double Fma(double a, double b, double c) {
#if JAXEXT_DEVICE_PATH
  return ::fma(a, b, c);
#elif JAXEXT_HAS_HW_FMA
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE float Fma(float a, float b, float c) {
#if JAXEXT_DEVICE_PATH
  return ::fmaf(a, b, c);
#elif JAXEXT_HAS_HW_FMA
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}

#if !JAXEXT_DEVICE_PATH
JAXEXT_HD JAXEXT_ALWAYS_INLINE std::uint64_t BitsOf(double x) {
  std::uint64_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE double DoubleOf(std::uint64_t u) {
  double x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE std::uint32_t BitsOf(float x) {
  std::uint32_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE float FloatOf(std::uint32_t u) {
  float x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
}
#endif

// Select(c, a, b) == c ? a : b.  On x86 hosts with SSE4.2/AVX this is a
// bitwise blend: with a conditional, gcc (--config=hostcc) sinks the
// computation of an operand into a branch and then refuses to if-convert it
// (-ftrapping-math), which blocks vectorisation.  Plain SSE2 cannot
// vectorise the bool -> 64-bit mask conversion, so there (and on other
// targets) a plain conditional is used.
#if !defined(KEPLER_BITWISE_SELECT)
#if defined(__SSE4_2__) || defined(__AVX__) || defined(__aarch64__)
#define KEPLER_BITWISE_SELECT 1
#else
#define KEPLER_BITWISE_SELECT 0
#endif
#endif
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Select(bool c, double a, double b) {
#if JAXEXT_DEVICE_PATH || !KEPLER_BITWISE_SELECT
  return c ? a : b;
#else
  const std::uint64_t m = std::uint64_t{0} - static_cast<std::uint64_t>(c);
  return DoubleOf((BitsOf(a) & m) | (BitsOf(b) & ~m));
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE float Select(bool c, float a, float b) {
#if JAXEXT_DEVICE_PATH || !KEPLER_BITWISE_SELECT
  return c ? a : b;
#else
  const std::uint32_t m = std::uint32_t{0} - static_cast<std::uint32_t>(c);
  return FloatOf((BitsOf(a) & m) | (BitsOf(b) & ~m));
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE double Abs(double x) {
#if JAXEXT_DEVICE_PATH
  return ::fabs(x);
#else
  return __builtin_fabs(x);
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE float Abs(float x) {
#if JAXEXT_DEVICE_PATH
  return ::fabsf(x);
#else
  return __builtin_fabsf(x);
#endif
}

// Round to nearest integer (ties to even); exact for |x| < 2^51.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Rint(double x) {
#if JAXEXT_DEVICE_PATH
  return ::rint(x);
#else
  constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52
  const double r = (x + kShift) - kShift;
  return Select(Abs(x) < 2251799813685248.0, r, x);  // |x| >= 2^51: integer
#endif
}

JAXEXT_HD float Rint(float x) {
#if JAXEXT_DEVICE_PATH
  return ::rintf(x);
#else
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23
  const float r = (x + kShift) - kShift;
  return Select(Abs(x) < 4194304.0f, r, x);  // |x| >= 2^22
#endif
}

#if !JAXEXT_DEVICE_PATH
// 1/sqrt(x) on the host: the classic bit-pattern guess refined by kSteps
// Newton steps (each roughly doubles the correct digits).
template <int kSteps>
JAXEXT_ALWAYS_INLINE inline double RsqrtNewton(double x) {
  double y = DoubleOf(0x5FE6EB50C7B537A9ull - (BitsOf(x) >> 1));
  const double hx = 0.5 * x;
  for (int i = 0; i < kSteps; ++i) y = y * (1.5 - hx * y * y);
  return y;
}

template <int kSteps>
JAXEXT_ALWAYS_INLINE inline float RsqrtNewton(float x) {
  float y = FloatOf(0x5F375A86u - (BitsOf(x) >> 1));
  const float hx = 0.5f * x;
  for (int i = 0; i < kSteps; ++i) y = y * (1.5f - hx * y * y);
  return y;
}
#endif

// sqrt for x >= 0 (x is always finite and non-negative at the call sites).
// Host: RsqrtNewton + one residual correction (<= ~1 ulp with FMA), so that
// no errno-setting libm call appears in the loop.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Sqrt(double x) {
#if JAXEXT_DEVICE_PATH
  return ::sqrt(x);
#else
  const double y = RsqrtNewton<4>(x);
  const double s = x * y;
  return Fma(0.5 * y, Fma(-s, s, x), s);
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE float Sqrt(float x) {
#if JAXEXT_DEVICE_PATH
  return ::sqrtf(x);
#else
  const float y = RsqrtNewton<3>(x);
  const float s = x * y;
  return Fma(0.5f * y, Fma(-s, s, x), s);
#endif
}

// z^(2/3) for z in roughly [1e-22, 1e5] (the starter's range).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double PowTwoThirds(double z) {
#if JAXEXT_DEVICE_PATH
  const double c = ::cbrt(z);
  return c * c;
#else
  // Initial z^(-1/3) from the float bit pattern (range fits a float).
  const float zf = static_cast<float>(z);
  const std::int32_t b = static_cast<std::int32_t>(BitsOf(zf));
  double y = static_cast<double>(
      FloatOf(static_cast<std::uint32_t>(0x54a21d2a - b / 3)));
  constexpr double kThird = 1.0 / 3.0;
  y = y * (4.0 - z * (y * y * y)) * kThird;
  y = y * (4.0 - z * (y * y * y)) * kThird;
  y = y * (4.0 - z * (y * y * y)) * kThird;
  return z * y;  // z * z^(-1/3)
#endif
}

JAXEXT_HD JAXEXT_ALWAYS_INLINE float PowTwoThirds(float z) {
#if JAXEXT_DEVICE_PATH
  const float c = ::cbrtf(z);
  return c * c;
#else
  const std::int32_t b = static_cast<std::int32_t>(BitsOf(z));
  float y = FloatOf(static_cast<std::uint32_t>(0x54a21d2a - b / 3));
  constexpr float kThird = 1.0f / 3.0f;
  y = y * (4.0f - z * (y * y * y)) * kThird;
  y = y * (4.0f - z * (y * y * y)) * kThird;
  return z * y;
#endif
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::math::branch_free

#endif  // JAXLIB_EXT_MATH_BRANCH_FREE_H_
