// The light curve's elementary functions, for host and device code: pi in
// two parts, the C math functions it calls (std::'s on the host, the global
// ones on the device path) and a branch-free atan2.
#ifndef JAXLIB_EXT_LIMB_DARK_ELEMENTARY_H_
#define JAXLIB_EXT_LIMB_DARK_ELEMENTARY_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/nodes.h"

#if !JAXEXT_DEVICE_PATH
#include <cmath>
#endif

namespace jaxext {
namespace limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {

constexpr double kPi = 3.14159265358979323846;
constexpr double kPiLo = 1.2246467991473532e-16;  // pi - kPi

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
JAXEXT_HD double Log(double x) { return LIMB_DARK_STD(log)(x); }
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
// fitted to the relative error of atan (AtanCoefficients, nodes.h): 1.2e-16
// relative in double, the rounding's level.
// The multiples of pi are added in two parts (hi + lo).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double Atan2NonNegative(double y, double x) {
  const double ax = Abs(x);
  const double num = Min(y, ax), den = Max(y, ax);
  // t = num / den; reduced, v = (t - 1) / (t + 1) = (num - den) / (num +
  // den): one division either way.
  const bool reduce = num > 0.41421356237309503 * den;  // t > tan(pi/8)
  const double v_num = reduce ? num - den : num;
  const double v_den = reduce ? num + den : (den > 0 ? den : 1.0);
  const double v = v_num / v_den;
  const double z = v * v;
  constexpr Table<11> kP = AtanCoefficients();
  double poly = kP.v[10];
  for (int k = 9; k >= 0; --k) poly = poly * z + kP.v[k];
  double a = v + v * z * poly;
  if (reduce) a = (0.25 * kPi + a) + 0.25 * kPiLo;   // atan(t), t <= 1
  if (y > ax) a = (0.5 * kPi - a) + 0.5 * kPiLo;      // atan(y / |x|)
  if (x < 0) a = (kPi - a) + kPiLo;
  return a;
}

#undef LIMB_DARK_STD

}  // namespace detail

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_ELEMENTARY_H_
