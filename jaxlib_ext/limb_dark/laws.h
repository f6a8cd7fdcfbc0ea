// The limb-darkening laws that are not polynomials in 1 - mu, written as
//   I(mu) = 1 - sum_k c_k phi_k(mu),
//   phi_k = 1 - mu^alpha_k,  mu log mu  or  1 / (1 - e^mu),
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
//   exponential  u = (u1, u2):         I = 1 - u1 (1 - mu) - u2 / (1 - e^mu)
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
// Q -> beta and R -> -1. The exponential term: t phi(t) = -t / (e^t - 1) =
// -sum_n B_n t^n / n! (Bernoulli numbers; converges for |t| < 2 pi), so that
//   phi = 1 / (1 - e^z): Psi = -(sum_i d_i z^i) / (1 + z),
// d_i = sum_{n >= i} B_n / (n + 1)! (ExponentialTermTails, nodes.h), and
// phi itself -1 / expm1(z), which is -1 / z at the limb: I is infinite
// there, its integrals finite (law_flux.h integrates it on its own where
// the contact rule splits the rest). At the limb (z = 0): Psi = a / (2 beta),
// -1/9, -d_0, and dPsi/da = 1 / beta^2.
#ifndef JAXLIB_EXT_LIMB_DARK_LAWS_H_
#define JAXLIB_EXT_LIMB_DARK_LAWS_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/law_table.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/math/nodes.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// The laws, numbered by law_table.h's rows.
enum class Law : std::int32_t {
#define JAXEXT_LAW_ENUMERATOR_(name, text, count) name,
  JAXEXT_LIMB_DARK_LAWS(JAXEXT_LAW_ENUMERATOR_)
#undef JAXEXT_LAW_ENUMERATOR_
};
#define JAXEXT_LAW_ONE_(name, text, count) +1
constexpr std::int32_t kLawCount = 0 JAXEXT_LIMB_DARK_LAWS(JAXEXT_LAW_ONE_);
#undef JAXEXT_LAW_ONE_

// How many coefficients u a law takes; -1: as many as its table or its
// order has (the polynomial and tabulated laws), or not a law.
JAXEXT_HD constexpr int LawCoefficients(std::int32_t law) {
#define JAXEXT_LAW_COUNT_(name, text, count) \
  if (law == static_cast<std::int32_t>(Law::name)) return count;
  JAXEXT_LIMB_DARK_LAWS(JAXEXT_LAW_COUNT_)
#undef JAXEXT_LAW_COUNT_
  return -1;
}

// The coefficients of `count` that have a derivative: all of them, or the
// tabulated law's M intensities (its grid of M points has none).
JAXEXT_HD constexpr int DerivativesInU(std::int32_t law, int count) {
  return law == static_cast<std::int32_t>(Law::kTabulated) ? count / 2 : count;
}

// The most terms of a law (nonlinear: four), and the most coefficients.
constexpr int kMaxLawTerms = 4;

// One point of the light curve of a law: F - 1 and its derivatives in b (of
// b's sign: F is even in b), r and the law's coefficients u (du[0..count),
// power2's alpha as its second). r < 0, NaN or +-inf in b or r, a refused
// law (norm NaN), or an occultor larger than kMaxCrossingRadius across the
// limb: NaN everywhere.
struct LawFlux {
  double value, d_db, d_dr;
  double du[kMaxLawTerms];
};

namespace detail {

// The exponential term's polynomial's coefficients (nodes.h,
// ExponentialTermTails): to z^25, past which they are below 1e-19.
constexpr int kExponentialTails = 26;

// A term's phi: 1 - z^alpha, z log z or 1 / (1 - e^z).
enum class Term { kPower, kMuLogMu, kExponential };

// A law as its terms: I = 1 - sum_k c[k] phi_k, phi_k of kind[k] (alpha[k]
// its exponent where a power). power2's alpha is a coefficient too
// (with_alpha: the derivative in alpha[0] is asked for).
struct LawTerms {
  int count;
  double c[kMaxLawTerms];
  double alpha[kMaxLawTerms];
  Term kind[kMaxLawTerms];
  bool with_alpha;
};

// The terms of `law` (not the polynomial one) for coefficients u; false
// where they do not make a law the op evaluates: NaN or +-inf in u, or
// power2's alpha <= 0.
JAXEXT_HD bool MakeLawTerms(Law law, const double* u, LawTerms* t) {
  t->with_alpha = false;
  for (int k = 0; k < kMaxLawTerms; ++k) t->kind[k] = Term::kPower;
  // The two-coefficient laws: the linear term u1 (1 - z), then u2's.
  auto linear_and = [&](Term kind, double alpha) {
    t->count = 2;
    t->c[0] = u[0];
    t->alpha[0] = 1;
    t->c[1] = u[1];
    t->alpha[1] = alpha;  // a power's; unused by the other kinds
    t->kind[1] = kind;
  };
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
      linear_and(Term::kPower, 0.5);
      break;
    case Law::kLogarithmic:
      linear_and(Term::kMuLogMu, 1);
      break;
    case Law::kExponential:
      linear_and(Term::kExponential, 1);
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
  constexpr Table<kExponentialTails> kTails = ExponentialTermTails();
  return t.kind[k] == Term::kMuLogMu       ? -1.0 / 9
         : t.kind[k] == Term::kExponential ? -kTails.v[0]
                                           : t.alpha[k] / (2 * (t.alpha[k] + 2));
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

// Whether the law has an exponential term, whose intensity is infinite on
// the limb.
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool HasLimbTerm(const LawTerms& t) {
  for (int k = 0; k < t.count; ++k) {
    if (t.kind[k] == Term::kExponential) return true;
  }
  return false;
}

// The intensity's part that is infinite on the limb: -c phi of the
// exponential terms, c / expm1(z) (z > 0).
JAXEXT_HD JAXEXT_ALWAYS_INLINE double LimbIntensity(const LawTerms& t, double z) {
  double sum = 0;
  for (int k = 0; k < t.count; ++k) {
    if (t.kind[k] == Term::kExponential) sum += t.c[k] / Expm1OfNode(z);
  }
  return sum;
}

// What the edge rules need of the law at N nodes z_j in [0, 1]: per term
// Psi_k(z_j), dPsi_0/dalpha (where with_alpha, else 0) and I(z_j) in two
// parts: `intensity` bounded, `limb_intensity` the exponential term's share
// (infinite at z = 0; 0 for the other laws).
template <int N>
struct LawAtNodes {
  double psi[kMaxLawTerms][N];
  double dpsi_dalpha[N];
  double intensity[N];
  double limb_intensity[N];
};

// Every node at once, each step a loop over the nodes that a CPU compiler
// vectorises (LogOfNode, Expm1OfNode: elementary.h); N = 1 on the device
// path, a node at a time (law_flux.h's AddRuleNodes). z below 1e-300 is
// taken as 1e-300 (every term then at its limit at z = 0, to rounding).
template <int N>
JAXEXT_HD JAXEXT_ALWAYS_INLINE void EvaluateLaw(const LawTerms& t, const double* z_in,
                                                LawAtNodes<N>* v) {
  double z[N], log_z[N], at_centre[N], inv_rho2[N],
      inv_one_minus_z[N], ratio[N], inv_one_plus_z[N];
  for (int j = 0; j < N; ++j) {
    z[j] = Max(z_in[j], 1e-300);
    const double one_minus_z = 1 - z[j];
    at_centre[j] = one_minus_z == 0 ? 1.0 : 0.0;  // z = 1: the limits below
    // 1 / rho^2 = 1 / ((1 - z)(1 + z)), the one division per node.
    inv_rho2[j] = 1 / (one_minus_z * (1 + z[j]) + at_centre[j]);
    v->intensity[j] = 1;
    v->limb_intensity[j] = 0;
    v->dpsi_dalpha[j] = 0;
  }
  bool powers_only = true;
  for (int k = 0; k < t.count; ++k) powers_only = powers_only && t.kind[k] == Term::kPower;
  if (!powers_only) {
    for (int j = 0; j < N; ++j) {
      inv_one_plus_z[j] = at_centre[j] != 0 ? 0.5 : (1 - z[j]) * inv_rho2[j];
      inv_one_minus_z[j] = (1 + z[j]) * inv_rho2[j];
    }
  }
  for (int j = 0; j < N; ++j) log_z[j] = LogOfNode(z[j]);
  if (!powers_only) {
    for (int j = 0; j < N; ++j) {
      // R = log(z) / (1 - z), -1 at z = 1.
      ratio[j] = at_centre[j] != 0 ? -1.0 : log_z[j] * inv_one_minus_z[j];
    }
  }
  for (int k = 0; k < t.count; ++k) {
    const double c = t.c[k];
    if (t.kind[k] == Term::kExponential) {
      constexpr Table<kExponentialTails> kTails = ExponentialTermTails();
      for (int j = 0; j < N; ++j) {
        double p = kTails.v[kExponentialTails - 1];
        for (int i = kExponentialTails - 2; i >= 0; --i) p = p * z[j] + kTails.v[i];
        v->psi[k][j] = -p * inv_one_plus_z[j];
        v->limb_intensity[j] += c / Expm1OfNode(z[j]);  // -c phi: LimbIntensity
      }
      continue;
    }
    if (t.kind[k] == Term::kMuLogMu) {
      for (int j = 0; j < N; ++j) {
        const double zj = z[j], z3 = zj * zj * zj;
        v->psi[k][j] = -((1 + zj + zj * zj) / 9 + z3 * ratio[j] / 3) * inv_one_plus_z[j];
        v->intensity[j] -= c * zj * log_z[j];
      }
      continue;
    }
    const double alpha = t.alpha[k], beta = alpha + 2, inv_beta = 1 / beta;
    const double at_limb = 0.5 * alpha * inv_beta;  // Psi(0)
    // z^alpha - 1 at every node first: a loop of its own vectorises where
    // the one below, with its stores through v, is left scalar.
    double m[N], g[N];
    for (int j = 0; j < N; ++j) m[j] = Expm1OfNode(alpha * log_z[j]);
    for (int j = 0; j < N; ++j) {
      // Psi = (1/2 - (1 - z^beta) / (beta rho^2)) = alpha / (2 beta) + g m /
      // beta with g = z^2 / rho^2 (1 - z^beta = rho^2 - z^2 m); 0 at z = 1.
      g[j] = z[j] * z[j] * inv_rho2[j];
      v->psi[k][j] = at_centre[j] != 0 ? 0.0 : at_limb + g[j] * m[j] * inv_beta;
      v->intensity[j] += c * m[j];  // phi = 1 - z^alpha = -m
    }
    if (k == 0 && t.with_alpha) {
      // dPsi/dalpha = 1 / beta^2 + g ((1 + m) log(z) / beta - m / beta^2).
      for (int j = 0; j < N; ++j) {
        const double d = inv_beta * inv_beta +
                         g[j] * ((1 + m[j]) * log_z[j] * inv_beta - m[j] * inv_beta * inv_beta);
        v->dpsi_dalpha[j] = at_centre[j] != 0 ? 0.0 : d;
      }
    }
  }
}

}  // namespace detail

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LAWS_H_
