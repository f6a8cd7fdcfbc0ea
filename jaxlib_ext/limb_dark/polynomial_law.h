// The polynomial law I(mu) = 1 - sum_{n=1}^N u_n (1 - mu)^n: its Green's-basis
// coefficients, its edge polynomial (for the edge rules), the star's flux out
// of transit, and the gradient in u of a function of the Green's coefficients.
#ifndef JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_LAW_H_
#define JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_LAW_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// The polynomial-basis coefficients p_0..p_N of the law with coefficients
// u_1..u_N (u[0..N-1], any float type), sec. 1: p = A1 u with u_0 = -1,
// p_i = (-1)^(i+1) sum_j C(j, i) u_j.
template <typename T>
JAXEXT_HD void PolynomialBasis(const T* u, int order, double* p) {
  for (int i = 0; i <= order; ++i) {
    double sum = 0;
    double binom = 1;  // C(j, i), starting at j = i
    for (int j = i; j <= order; ++j) {
      const double uj = j == 0 ? -1.0 : static_cast<double>(u[j - 1]);
      sum += binom * uj;
      binom = binom * (j + 1) / (j + 1 - i);
    }
    p[i] = (i % 2 == 1) ? sum : -sum;
  }
}

// The Green's-basis coefficients from p by downward recursion (g_{N+1} =
// g_{N+2} = 0): visit(n, g_n) for n = N down to 0.
template <typename Visit>
JAXEXT_HD void GreensRecursion(const double* p, int order, const Visit& visit) {
  double g_next2 = 0, g_next1 = 0;  // g_{n+2}, g_{n+1}
  for (int n = order; n >= 0; --n) {
    const double gn = n >= 2 ? p[n] / (n + 2) + g_next2 : p[n] + (n + 2) * g_next2;
    visit(n, gn);
    g_next2 = g_next1;
    g_next1 = gn;
  }
}

// The Green's-basis coefficients g_0..g_N of the law with coefficients
// u_1..u_N (u[0..N-1], any float type). g must hold N + 1 values: p first,
// then g over it (the recursion reads p_n before it writes g_n).
template <typename T>
JAXEXT_HD void GreensCoefficients(const T* u, int order, double* g) {
  PolynomialBasis(u, order, g);
  GreensRecursion(g, order, [&](int n, double gn) { g[n] = gn; });
}

// Whether every g_k of GreensCoefficients is finite (the same p and the
// same recursion, without the array of g), u read where it lies.
template <int kMax = kMaxOrder, typename T>
JAXEXT_HD bool GreensFinite(const T* u, int order) {
  double p[kMax + 1];
  PolynomialBasis(u, order, p);
  bool finite = true;
  GreensRecursion(p, order, [&](int, double gn) { finite = finite && IsFinite(gn); });
  return finite;
}

// The edge polynomial of the law with coefficients u_1..u_N (u[0..N-1],
// any float type):
// q[0..N+1] with P(w) = sum_m q_m w^m = H(rho) / rho^2 (1 + z), w = 1 - z,
// H the integral of I rho' drho' from 0 to rho (EdgeHornerNodes). With a_0 = 1,
// a_n = -u_n (I = sum_n a_n w^n) and z dz = -(1 - w) dw, H = sum_n a_n
// (w^(n+1) / (n + 1) - w^(n+2) / (n + 2)) and rho^2 = w (2 - w), so
// q_m = (a_m - a_{m-1}) / (m + 1).
template <typename T>
JAXEXT_HD void EdgePolynomial(const T* u, int order, double* q) {
  double previous = 0;  // a_{m-1}
  for (int m = 0; m <= order + 1; ++m) {
    const double a = m == 0 ? 1.0 : m <= order ? -static_cast<double>(u[m - 1]) : 0.0;
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
template <typename T>
JAXEXT_HD double Normalisation(const T* u, int order) {
  using namespace detail;
  double hi = 1, lo = 0;
  for (int n = 1; n <= order; ++n) {
    const double d = 0.5 * (n + 1) * (n + 2);  // exact
    const double un = static_cast<double>(u[n - 1]);
    const double t = -un / d;
    const double t_lo = -Fma(t, d, un) / d;  // -u / d - t, to rounding
    const double sum = hi + t;  // two-sum of hi and t
    const double back = sum - hi;
    lo += ((hi - (sum - back)) + (t - back)) + t_lo;
    hi = sum;
  }
  const double p = hi * kPi;
  return p + (Fma(hi, kPi, -p) + (hi * kPiLo + lo * kPi));
}

// g[0..order] and q[0..order + 1] (EdgePolynomial) of the law with
// coefficients u[0..order-1] (any float type, read where it lies), and the
// flux normalisation (Normalisation). kMax (below): the largest order the
// caller passes, which sizes the work arrays (a GPU kernel for laws of at
// most two coefficients keeps arrays of three values, not of kMaxOrder +
// 1).
template <typename T>
JAXEXT_HD double GreensRow(const T* u, int order, double* g, double* q) {
  GreensCoefficients(u, order, g);
  EdgePolynomial(u, order, q);
  return Normalisation(u, order);
}

// The gradient in u of a function of g: dF/du_j = sum_k dg_k dg_k/du_j for
// j = 1..N, handed to store(j - 1, dF/du_j), from dg_k = dg_at(k), k =
// 0..N, its gradient in g (dg_at called once for each k, in order, before
// y[k] is written: y[0..N], the work array, may be what dg_at reads).
// GreensCoefficients' map u -> p -> g is linear, and this is its
// transpose: first y = dF/dp (g_n = c_n p_n + d_n g_{n+2}, so y_m = c_m a_m
// with a_m = dg_m + d_{m-2} a_{m-2}), then dF/du_j = sum_{i<=j} (-1)^(i+1)
// C(j, i) y_i. F: double, or float (the float32 low-order path,
// limb_dark.h).
template <typename F, typename DgAt, typename Store>
JAXEXT_HD void GreensTransposeBy(const DgAt& dg_at, int order, F* y, const Store& store) {
  F a_back2 = 0, a_back1 = 0;  // a_{m-2}, a_{m-1}
  for (int m = 0; m <= order; ++m) {
    const F d = m >= 4 ? 1 : m;  // d_{m-2}: 1 from n = 2 on, else n + 2
    const F a = dg_at(m) + d * a_back2;
    y[m] = m >= 2 ? a / (m + 2) : a;
    a_back2 = a_back1;
    a_back1 = a;
  }
  for (int j = 1; j <= order; ++j) {
    F sum = 0;
    F binom = 1;  // C(j, i), from i = 0
    for (int i = 0; i <= j; ++i) {
      sum += (i % 2 == 1 ? binom : -binom) * y[i];
      binom = binom * (j - i) / (i + 1);
    }
    store(j - 1, sum);
  }
}

// GreensTransposeBy from dg[0..N] into du[0..N-1].
template <int kMax = kMaxOrder, typename F>
JAXEXT_HD void GreensTranspose(const F* dg, int order, F* du) {
  F y[kMax + 1];
  GreensTransposeBy([&](int m) { return dg[m]; }, order, y, [&](int j, F v) { du[j] = v; });
}

// dF/du_1..dF/du_N of one point, handed to store(j, dF/du_{j+1}), from ds_k
// = s_k - s0_k (its solution vector less the unocculted star's, s0 = (pi,
// 2 pi / 3, 0, ...), as LightCurvePoint returns it), its F - 1 (`value`)
// and the law's norm: dF/dg_k = (s_k - F s0_k) / norm = (ds_k - (F - 1)
// s0_k) / norm, through GreensTransposeBy, with y[0..N] its work array
// (ds itself where the caller no longer needs ds). Formed from ds, not
// from s_k and F, whose difference for k = 0, 1 would round to ulps of pi
// (1e-12 relative at r = 0.1 next to contact, 1e-8 at r = 0.01).
template <typename F, typename Store>
JAXEXT_HD void FluxGradientInUBy(const F* ds, F value, F norm, int order, F* y,
                                 const Store& store) {
  const auto dg_at = [&](int k) {
    const F s0 = F(k == 0 ? kPi : k == 1 ? 2 * kPi / 3 : 0.0);
    return (ds[k] - value * s0) / norm;
  };
  GreensTransposeBy(dg_at, order, y, store);
}

// FluxGradientInUBy into du[0..N-1].
template <int kMax = kMaxOrder, typename F>
JAXEXT_HD void FluxGradientInU(const F* ds, F value, F norm, int order, F* du) {
  F y[kMax + 1];
  FluxGradientInUBy(ds, value, norm, order, y, [&](int j, F v) { du[j] = v; });
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_POLYNOMIAL_LAW_H_
