// Complete elliptic integrals for the light curve: Bulirsch's general
// integral cel (R. Bulirsch, Numer. Math. 13, 305, 1969) and the combinations
// of it the solution vector needs, one pass of the iteration for several.
#ifndef JAXLIB_EXT_MATH_ELLIPTIC_H_
#define JAXLIB_EXT_MATH_ELLIPTIC_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"

namespace jaxext::math {
inline namespace JAXEXT_MATH_NAMESPACE {


// One step of Bulirsch's iteration (R. Bulirsch, Numer. Math. 13, 305,
// 1969), in the pieces Cel, CelP1 and CelFixedSteps share. The iteration
// converges quadratically; it stops at sqrt of double's epsilon (of
// float's, 2.4e-4, in the float32 low-order path's CelFixedSteps<float>).
constexpr double kCelTolerance = 1.5e-8;
template <typename F>
JAXEXT_HD constexpr F CelTolerance() {
  return sizeof(F) == 4 ? F(2.5e-4) : F(kCelTolerance);
}

// A pair (a, b) at the current p, with inv_p = 1 / p and g = e / p (the
// caller then adds g to p).
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void CelPairStep(F inv_p, F g, F& a, F& b) {
  const F f = a;
  a += b * inv_p;
  b = 2 * (b + f * g);
}

// m += qc; true when this step reached the tolerance (the iteration's
// results are then those of the current variables).
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool CelStepM(F qc, F& m) {
  const F m_old = m;
  m += qc;
  return Abs(m_old - qc) <= m_old * CelTolerance<F>();
}

// The next qc and e, for the next step.
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void CelStepQc(F m, F& qc, F& e) {
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
template <typename F>
struct CelBasisOf {
  F d, c, e;
};
using CelBasis = CelBasisOf<double>;
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
// benchmark's points): callers must use CelP1 and Cel there. Five steps
// are the fastest choice (docs/accuracy_and_speed.md, light curve: speed).
// F: double, or float for the float32 low-order path (its tolerance
// CelTolerance<float>).
constexpr int kCelSteps = 5;
template <typename F>
struct CelTripleOf {
  CelBasisOf<F> basis;
  F third;
  bool converged;
};
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE CelTripleOf<F> CelFixedSteps(F kc, F p3, F a3, F b3) {
  F qc = Abs(kc);
  F e = qc;
  F m = 1;
  F p1 = 1;
  F a1 = 1, b1 = 0;  // the (a, b) = (1, 0) lane of CelP1
  F a2 = 0, b2 = 1;  // its (a, b) = (0, 1) lane
  p3 = Sqrt(p3);
  b3 /= p3;
  bool converged = false;
  for (int i = 0; i < kCelSteps; ++i) {
    const F inv_p1 = 1 / p1, inv_p3 = 1 / p3;
    const F g1 = e * inv_p1, g3 = e * inv_p3;
    CelPairStep(inv_p1, g1, a1, b1);
    CelPairStep(inv_p1, g1, a2, b2);
    CelPairStep(inv_p3, g3, a3, b3);
    p1 += g1;
    p3 += g3;
    converged = CelStepM(qc, m) || converged;
    CelStepQc(m, qc, e);
  }
  const F half_pi = F(0.5 * kPi);
  const F scale1 = half_pi / (m * (m + p1));
  const F d = (b1 + a1 * m) * scale1;
  const F c = (b2 + a2 * m) * scale1;
  const F third = half_pi * (b3 + a3 * m) / (m * (m + p3));
  return {{d, c, d + kc * kc * c}, third, converged};
}


}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::math

#endif  // JAXLIB_EXT_MATH_ELLIPTIC_H_
