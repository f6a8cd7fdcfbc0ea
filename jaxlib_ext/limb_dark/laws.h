// The limb-darkening laws that are not polynomials in 1 - mu, written as
//   I(mu) = 1 - sum_k c_k phi_k(mu),   phi_k = 1 - mu^alpha_k  or  mu log mu,
// and what the edge rules need of them (law_flux.h): per node of the
// occultor's edge, the intensity I and each term's share of the radial
// field F = H / rho^2, H(rho) = integral of I rho' drho' from 0 to rho.
//
// The laws, with the coefficients u in batman's order and meaning (a
// user's coefficients carry over):
//   power2       u = (c, alpha):       I = 1 - c (1 - mu^alpha), alpha > 0
//   nonlinear    u = (c1, c2, c3, c4): I = 1 - sum_k c_k (1 - mu^(k/2))
//   square_root  u = (u1, u2):         I = 1 - u1 (1 - mu) - u2 (1 - sqrt(mu))
//   logarithmic  u = (u1, u2):         I = 1 - u1 (1 - mu) - u2 mu log(mu)
//
// With z = mu and 1 - z^2 = rho^2, F(z) = 1/2 - sum_k c_k Psi_k(z), where
// Psi_k(z) = integral from z to 1 of phi_k(t) t dt, over 1 - z^2:
//   phi = 1 - z^a:    Psi = 1/2 - Q / (beta (1 + z)),  beta = a + 2,
//                     Q = (1 - z^beta) / (1 - z)
//   phi = z log z:    Psi = -((1 + z + z^2) / 9 + z^3 R / 3) / (1 + z),
//                     R = log(z) / (1 - z)
// and dPsi/da = (z^beta R / beta + Q / beta^2) / (1 + z) (the logarithmic
// term is -dPsi/da at a = 1). Q and R are formed from log z and one expm1
// per term, without cancellation next to z = 1 (the star's centre), where
// Q -> beta and R -> -1. At the limb (z = 0): Psi = a / (2 beta), -1/9, and dPsi/da =
// 1 / beta^2.
#ifndef JAXLIB_EXT_LIMB_DARK_LAWS_H_
#define JAXLIB_EXT_LIMB_DARK_LAWS_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/elementary.h"

namespace jaxext {
namespace limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {

// The laws the op takes, by the number its `law` attribute carries
// (kepler/limb_dark.py: LAWS, in this order).
enum class Law : std::int32_t {
  kPolynomial = 0,
  kPower2 = 1,
  kNonlinear = 2,
  kSquareRoot = 3,
  kLogarithmic = 4,
};
constexpr std::int32_t kLawCount = 5;

// How many coefficients u a law takes; -1: any number up to kMaxOrder (the
// polynomial law) or not a law.
JAXEXT_HD constexpr int LawCoefficients(std::int32_t law) {
  return law == static_cast<std::int32_t>(Law::kPower2)        ? 2
         : law == static_cast<std::int32_t>(Law::kNonlinear)   ? 4
         : law == static_cast<std::int32_t>(Law::kSquareRoot)  ? 2
         : law == static_cast<std::int32_t>(Law::kLogarithmic) ? 2
                                                               : -1;
}

// The most terms of a law (nonlinear: four), and the most coefficients.
constexpr int kMaxLawTerms = 4;

namespace detail {

// A law as its terms: I = 1 - sum_k c[k] phi_k, phi_k = z log z where
// log_term[k], else 1 - z^alpha[k]. power2's alpha is a coefficient too
// (with_alpha: the derivative in alpha[0] is asked for).
struct LawTerms {
  int count;
  double c[kMaxLawTerms];
  double alpha[kMaxLawTerms];
  bool log_term[kMaxLawTerms];
  bool with_alpha;
};

// The terms of `law` (not the polynomial one) for coefficients u; false
// where they do not make a law the op evaluates: NaN or +-inf in u, or
// power2's alpha <= 0.
JAXEXT_HD bool MakeLawTerms(Law law, const double* u, LawTerms* t) {
  t->with_alpha = false;
  for (int k = 0; k < kMaxLawTerms; ++k) t->log_term[k] = false;
  switch (law) {
    case Law::kPower2:
      t->count = 1;
      t->c[0] = u[0];
      t->alpha[0] = u[1];
      t->with_alpha = true;
      break;
    case Law::kNonlinear:
      t->count = 4;
      for (int k = 0; k < 4; ++k) {
        t->c[k] = u[k];
        t->alpha[k] = 0.5 * (k + 1);
      }
      break;
    case Law::kSquareRoot:
      t->count = 2;
      t->c[0] = u[0];
      t->alpha[0] = 1;
      t->c[1] = u[1];
      t->alpha[1] = 0.5;
      break;
    case Law::kLogarithmic:
      t->count = 2;
      t->c[0] = u[0];
      t->alpha[0] = 1;
      t->c[1] = u[1];
      t->alpha[1] = 1;  // unused: the term is z log z
      t->log_term[1] = true;
      break;
    default:
      return false;
  }
  bool ok = true;
  for (int k = 0; k < t->count; ++k) {
    ok = ok && IsFinite(t->c[k]) && IsFinite(t->alpha[k]) && t->alpha[k] > 0;
  }
  return ok;
}

// Psi_k at the limb (z = 0): the term's share of H(1) = F(0).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double PsiAtLimb(const LawTerms& t, int k) {
  return t.log_term[k] ? -1.0 / 9 : t.alpha[k] / (2 * (t.alpha[k] + 2));
}
// dPsi_0 / dalpha_0 at the limb.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double DpsiDalphaAtLimb(const LawTerms& t) {
  const double beta = t.alpha[0] + 2;
  return 1 / (beta * beta);
}

// The star's flux, 2 pi F(0) = pi - 2 pi sum_k c_k Psi_k(0).
JAXEXT_HD double LawNormalisation(const LawTerms& t) {
  double sum = 0;
  for (int k = 0; k < t.count; ++k) sum += t.c[k] * PsiAtLimb(t, k);
  return kPi - 2 * kPi * sum;
}

// What the edge rules need of the law at one node z in [0, 1].
struct LawAtNode {
  double psi[kMaxLawTerms];
  double dpsi_dalpha;  // of term 0, where with_alpha
  double intensity;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE LawAtNode EvaluateLaw(const LawTerms& t, double z) {
  LawAtNode v;
  const double log_z = Log(z);
  const double one_minus_z = 1 - z;
  // R = log(z) / (1 - z), and products with it that vanish at z = 0
  // (where log z = -inf).
  const double ratio = one_minus_z != 0 ? log_z / one_minus_z : -1.0;
  const double inv_one_plus_z = 1 / (1 + z);
  double intensity = 1;
  v.dpsi_dalpha = 0;
  for (int k = 0; k < t.count; ++k) {
    double phi;
    if (t.log_term[k]) {
      const double z3r = z > 0 ? z * z * z * ratio : 0.0;
      v.psi[k] = -((1 + z + z * z) / 9 + z3r / 3) * inv_one_plus_z;
      phi = z > 0 ? z * log_z : 0.0;
    } else {
      const double alpha = t.alpha[k], beta = alpha + 2;
      const double m = Expm1(alpha * log_z);  // z^alpha - 1
      // Q = (1 - z^beta) / (1 - z) = (1 + z) - z^2 (z^alpha - 1) / (1 - z):
      // both terms positive.
      const double q = one_minus_z != 0 ? (1 + z) - z * z * (m / one_minus_z) : beta;
      v.psi[k] = 0.5 - q * inv_one_plus_z / beta;
      phi = -m;
      if (k == 0 && t.with_alpha) {
        const double z_beta = (m + 1) * z * z;
        const double zr = z_beta > 0 ? z_beta * ratio : 0.0;
        v.dpsi_dalpha = (zr / beta + q / (beta * beta)) * inv_one_plus_z;
      }
    }
    intensity -= t.c[k] * phi;
  }
  v.intensity = intensity;
  return v;
}

}  // namespace detail

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LAWS_H_
