// The tabulated law: an intensity profile given at K points of a grid of mu,
// as LDTk and ExoTiC-LD produce it, and its light curve, exact for the
// interpolant it defines:
//   I(mu) linear in mu between grid points, I(mu_0) below mu_0 and
//   I(mu_{K-1}) above mu_{K-1}
// (0 <= mu_0 < ... < mu_{K-1} <= 1). With z = mu, the grid points strictly
// inside (0, 1) are its knots m_i, where the slope changes by gamma_i; as a
// sum of ramps,
//   I(z) = alpha + beta z + sum_i gamma_i (m_i - z)_+,
// so that the flux blocked over the lens (occultor and disk overlapping) is
//   blocked = alpha A + beta J + sum_i gamma_i R_i,
// A the lens' area, J the integral of z over it (the uniform and linear
// laws' blocked flux, LightCurvePoint's closed form) and R_i that of the
// ramp (m_i - z)_+, zero inside the circle z = m_i, rho_i^2 = 1 - m_i^2.
// Its radial field (edge_rules.h) is H_i / rho^2 with
//   H_i(z) = integral from rho_i to rho of (m_i - z') rho' drho'
//          = (m_i - z)^2 (m_i + 2 z) / 6  outside that circle, 0 inside,
// so that R_i is, by where the circle lies against the occultor's edge
// (z from z_lo, its outermost point or the limb, to z_hi = sqrt(1 - (b -
// r)^2), its innermost):
// - m_i <= z_lo: 0 (the ramp is zero over the lens);
// - m_i >= z_hi: m_i A - J plus 2 pi (1 - m_i)^2 (2 + m_i) / 6 where the
//   occultor covers the circle (b < r): (m_i - z)_+ = (m_i - z) + (z -
//   m_i)_+, and the second ramp, zero on the edge, is blocked whole or not
//   at all;
// - in between, the edge crosses the circle: the limb's share 2 kappa1
//   H_i(0) (crossing) plus twice the integral over u = pi - psi in [u_lo,
//   u_i] (the outer part of the arc, z < m_i) of (H_i / rho^2) E, E = r^2 -
//   b r cos psi (OuterRampMoments).
// The derivatives of blocked in b and r are the intensity's integrals over
// the arc (law_flux.h), and in the intensities I_j those of a linear map
// (ContractTable): the flux is linear in the table.
#ifndef JAXLIB_EXT_LIMB_DARK_TABULATED_LAW_H_
#define JAXLIB_EXT_LIMB_DARK_TABULATED_LAW_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/edge_rules.h"
#include "jaxlib_ext/math/elementary.h"
#include "jaxlib_ext/limb_dark/geometry.h"
#include "jaxlib_ext/math/nodes.h"
#include "jaxlib_ext/limb_dark/polynomial_flux.h"
#include "jaxlib_ext/limb_dark/polynomial_law.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// The most grid points a table may have (model atmospheres give tens): its
// coefficients u are the grid and the intensities, 2 K of them.
constexpr int kMaxTableSize = 128;

namespace detail {

// Blocked-flux quantities and their derivatives in b and r.
struct Moments {
  double value, d_db, d_dr;
};

// The integrals over the arc's outer part, z < m, of the ramp (m - z)_+:
// twice those over its half u = pi - psi in [u_lo, u_m] (u_m where z = m) of
// the ramp's field H / rho^2 times E = r^2 - b r cos psi (value) and of its
// intensity m - z times r and r cos u (d_dr, d_db), by rules that mirror
// law_flux.h's:
// - crossing the limb with k^2 < kCrossingRuleMaxK2: CrossingEdgeFlux's
//   theta (z = c cos theta, analytic at the limb), Gauss-Legendre on
//   [theta_m, pi / 2];
// - elsewhere (inside the disk, and next to the inner contact), the contact
//   rule's variables (edge_rules.h: X = 2 sqrt(b r) sin(u / 2), z^2 = Z^2 +
//   X^2, Z^2 = 1 - (b + r)^2). The field, A(z^2) + z B(z^2) with A = (m^3 -
//   3 m z^2) / (6 (1 - z^2)), B = z^2 / (3 (1 - z^2)), is analytic in u but
//   for z, whose branch points come next to u = 0 as the occultor nears the
//   inner contact; as in ContactEdgeFlux, z = X + delta, delta = Z^2 / (z +
//   X): A + X B and the intensity m - X are analytic in u (Gauss-Legendre
//   on [u_lo, u_m]); delta B and -delta, of order Z^2 / X away from u_lo,
//   are integrated in the contact map's t (ContactMapAt), where the branch
//   points are at t ~ +-i pi / 2: Gauss-Legendre on [0, 2] and [2, t_m]
//   (one rule over a long [0, t_m] leaves 2e-14); left out below
//   kContactMinK, where they are below 1e-18.
struct OuterRampGeometry {
  double b, r, br, root_br, z2_min, r_rpb, u_lo;
  bool theta_rule, with_delta;
  double c, c2, k, k2, r_rmb;  // the theta rule's
  ContactMap map;
};

JAXEXT_HD OuterRampGeometry MakeOuterRampGeometry(const Geometry& geo) {
  OuterRampGeometry g;
  g.b = geo.b;
  g.r = geo.r;
  g.br = geo.b * geo.r;
  g.root_br = Sqrt(g.br);
  g.z2_min = geo.one_minus_bpr2;
  g.r_rpb = geo.r * (geo.r + geo.b);
  const bool crossing = !geo.inside;
  g.theta_rule = crossing && geo.k2 < kCrossingRuleMaxK2;
  g.c2 = geo.one_minus_bmr2;
  g.c = Sqrt(g.c2);
  g.k2 = geo.k2;
  g.k = Sqrt(Min(geo.k2, 1.0));
  g.r_rmb = geo.r * (geo.r - geo.b);
  const double kp = Sqrt(Abs(g.z2_min) / (4 * g.br));
  const double eps = crossing ? Asin(Min(1.0, kp)) : kp;
  g.u_lo = crossing ? 2 * eps : 0.0;
  g.with_delta = kp >= kContactMinK;
  g.map = MakeContactMap(geo, g.with_delta ? eps : 1.0);
  return g;
}

namespace ramp_rules {

constexpr int kNodes = 32;

// The ramp's field (m - z)^2 (m + 2 z) / (6 (1 - z^2)) at z.
JAXEXT_HD JAXEXT_ALWAYS_INLINE double RampField(double m, double z) {
  return (m - z) * (m - z) * (m + 2 * z) / (6 * (1 - z) * (1 + z));
}

// The sums over a rule's kNodes nodes of node_at(j)'s three moments (field,
// in_b, in_r: Moments' value, d_db, d_dr). On a CPU into arrays, summed by
// SumOfNodes, node_at inlined into the loop (JAXEXT_ALWAYS_INLINE on the
// rules' lambdas: a call there keeps the loop from vectorising, and the
// tabulated law took 2.4 times as long); on a GPU (JAXEXT_DEVICE_PATH) one
// node after another straight into the sums, the loop rolled (node_at
// reads its tables with TableAt): no arrays of kNodes values per thread in
// local memory.
template <typename NodeAt>
JAXEXT_HD JAXEXT_ALWAYS_INLINE Moments SumRampNodes(const NodeAt& node_at) {
#if JAXEXT_DEVICE_PATH
  Moments sum = {0, 0, 0};
  JAXEXT_NO_UNROLL
  for (int j = 0; j < kNodes; ++j) {
    const Moments node = node_at(j);
    sum.value += node.value;
    sum.d_db += node.d_db;
    sum.d_dr += node.d_dr;
  }
  return sum;
#else
  double field[kNodes], in_b[kNodes], in_r[kNodes];
  for (int j = 0; j < kNodes; ++j) {
    const Moments node = node_at(j);
    field[j] = node.value;
    in_b[j] = node.d_db;
    in_r[j] = node.d_dr;
  }
  return {SumOfNodes<kNodes>(field), SumOfNodes<kNodes>(in_b), SumOfNodes<kNodes>(in_r)};
#endif
}

JAXEXT_HD_CALLED Moments Crossing(const OuterRampGeometry& g, double m) {
  const double theta_m = Acos(Min(1.0, m / g.c));
  const double span = 0.5 * kPi - theta_m;
  return SumRampNodes([&](int j) JAXEXT_ALWAYS_INLINE -> Moments {
    const double theta = theta_m + span * TableAt<GaussUnitNode>(j);
    const double cos_t = Cos(theta), sin_t = Sin(theta), sin2 = sin_t * sin_t;
    const double z = g.c * cos_t;
    // dpsi = 2 k cos(theta) dtheta / sqrt(1 - k^2 sin^2(theta)), both halves.
    const double w =
        2 * span * TableAt<GaussUnitWeight>(j) * 2 * g.k * cos_t / Sqrt(1 - g.k2 * sin2);
    const double ramp = m - z;
    return {w * RampField(m, z) * (g.r_rmb + 0.5 * g.c2 * sin2),
            -w * ramp * g.r * (1 - 2 * g.k2 * sin2), w * ramp * g.r};
  });
}

// The split rule's analytic part, u in [u_lo, u_m].
JAXEXT_HD_CALLED Moments AnalyticPart(const OuterRampGeometry& g, double m, double u_m) {
  const double m3 = m * m * m;
  const double span = Max(0.0, u_m - g.u_lo);
  return SumRampNodes([&](int j) JAXEXT_ALWAYS_INLINE -> Moments {
    const double sin_half = SinCosOfNode(0.5 * (g.u_lo + span * TableAt<GaussUnitNode>(j))).sin;
    const double x = 2 * g.root_br * sin_half, x2 = x * x;
    const double z2 = Max(0.0, g.z2_min + x2), inv = 1 / (1 - z2);
    const double w = 2 * span * TableAt<GaussUnitWeight>(j);
    const double ramp = m - x;
    return {w * ((m3 - 3 * m * z2) * inv / 6 + x * z2 * inv / 3) * (g.r_rpb - 0.5 * x2),
            w * ramp * g.r * (1 - 2 * sin_half * sin_half), w * ramp * g.r};
  });
}

// The split rule's delta part, t in [t0, t1].
JAXEXT_HD_CALLED Moments DeltaPart(const OuterRampGeometry& g, double t0, double t1) {
  const double span = t1 - t0;
  return SumRampNodes([&](int j) JAXEXT_ALWAYS_INLINE -> Moments {
    const ContactPoint p = ContactMapAt(g.map, t0 + span * TableAt<GaussUnitNode>(j));
    const double sin2 = p.sin_half * p.sin_half;
    const double z2 = Max(p.z2, 0.0), z = Sqrt(z2);
    const double x = 2 * g.root_br * p.sin_half;
    const double delta = g.z2_min / (z + x);
    const double w = 2 * span * TableAt<GaussUnitWeight>(j) * p.du;
    return {w * delta * z2 / (3 * (1 - z2)) * (g.r_rpb - 2 * g.br * sin2),
            -w * delta * g.r * (1 - 2 * sin2), -w * delta * g.r};
  });
}

}  // namespace ramp_rules

JAXEXT_HD Moments OuterRampMoments(const OuterRampGeometry& g, double m) {
  if (g.theta_rule) return ramp_rules::Crossing(g, m);
  const double sin_half_m = Sqrt(Min(1.0, Max(0.0, (m * m - g.z2_min) / (4 * g.br))));
  const double u_m = 2 * Asin(sin_half_m);
  Moments out = ramp_rules::AnalyticPart(g, m, u_m);
  if (!g.with_delta) return out;
  // t where u = u_m: u / 2 = eps sinh t (inside) or eps cosh t (crossing).
  const double ratio = 0.5 * u_m / g.map.eps;
  const double t_m = g.map.crossing ? Acosh(Max(1.0, ratio)) : Asinh(ratio);
  constexpr double kFirstPanel = 2;
  const Moments first = ramp_rules::DeltaPart(g, 0, Min(t_m, kFirstPanel));
  out.value += first.value;
  out.d_db += first.d_db;
  out.d_dr += first.d_dr;
  if (t_m > kFirstPanel) {
    const Moments second = ramp_rules::DeltaPart(g, kFirstPanel, t_m);
    out.value += second.value;
    out.d_db += second.d_db;
    out.d_dr += second.d_dr;
  }
  return out;
}

// The uniform law's (I = 1) and the linear law's (I = z) Green's
// coefficients, edge polynomials and star's flux (pi, 2 pi / 3).
struct UniformAndLinear {
  double g0[1], q0[2], norm0;
  double g1[2], q1[3], norm1;
};

JAXEXT_HD UniformAndLinear MakeUniformAndLinear() {
  UniformAndLinear l;
  const double one = 1;  // I = 1 - (1 - z)
  l.norm0 = GreensRow(&one, 0, l.g0, l.q0);
  l.norm1 = GreensRow(&one, 1, l.g1, l.q1);
  return l;
}

}  // namespace detail

// A table made ready for its points: the grid, its knots' slope changes
// gamma (0 at grid points that are not knots: mu = 0 or 1), alpha and beta,
// and the star's flux norm = 2 pi (alpha / 2 + beta / 3 + sum_i gamma_i
// m_i^3 / 6) with its derivatives in the intensities (norm NaN where the
// table is refused: fewer than 2 or more than kMaxTableSize points, a grid
// not strictly increasing within [0, 1], NaN or +-inf, or a flux that is
// not positive).
struct TableRow {
  int size;
  double mu[kMaxTableSize], intensity[kMaxTableSize], gamma[kMaxTableSize];
  double alpha, beta, norm;
  double d_norm[kMaxTableSize];
  detail::UniformAndLinear basis;
};

namespace detail {

// Segment i's share of the derivatives in the intensities (ContractTable):
// (R_i - R_{i+1}, plus J - A for the last segment where the grid ends at
// mu = 1) over the segment's length.
JAXEXT_HD double SegmentWeight(double ramp, double next_ramp, bool last_at_one, double area,
                               double linear, double mu, double next_mu) {
  double w = ramp - next_ramp;
  if (last_at_one) w += linear - area;
  return w / (next_mu - mu);
}

// The table's ramp weights for lens quantities (A, J, R_i): blocked = alpha
// A + beta J + sum_i gamma_i R_i, and, the map being linear in the
// intensities, its derivative in each, d[j] (TableWeights' transpose:
// blocked = I_{K-1} A + beta (J - A) + sum_{i < K-1} s_i W_i, s_i the
// segments' slopes, W_i = R_i - R_{i+1} (+ J - A for the last segment where
// the grid ends at mu = 1)).
JAXEXT_HD double ContractTable(const TableRow& t, double area, double linear, const double* ramp,
                               double* d) {
  double sum = t.alpha * area + t.beta * linear;
  for (int i = 0; i < t.size; ++i) sum += t.gamma[i] * ramp[i];
  if (d) {
    const int k = t.size;
    for (int j = 0; j < k; ++j) d[j] = 0;
    d[k - 1] = area;
    for (int i = 0; i + 1 < k; ++i) {
      const double w_h = SegmentWeight(ramp[i], ramp[i + 1], i == k - 2 && t.mu[k - 1] == 1,
                                       area, linear, t.mu[i], t.mu[i + 1]);
      d[i + 1] += w_h;
      d[i] -= w_h;
    }
  }
  return sum;
}

// A table read from its row where it lies (`row`: the grid then the
// intensities, 2 K values of T), one grid point at a time, without arrays:
// size, alpha, beta and norm as TableRow's (MakeTableRow fills its arrays
// from it; a GPU thread reads it as it goes, TabulatedPointOfRow).
template <typename T>
struct TableOfRow {
  const T* row;
  int k, size;
  double alpha, beta, norm;

  // NaN for a row of the wrong count (row null: ReadTable).
  JAXEXT_HD double Mu(int i) const { return row ? static_cast<double>(row[i]) : NaN(); }
  JAXEXT_HD double Intensity(int i) const {
    return row ? static_cast<double>(row[k + i]) : NaN();
  }
  // Segment i's slope (i + 1 < size).
  JAXEXT_HD double Slope(int i) const {
    return (Intensity(i + 1) - Intensity(i)) / (Mu(i + 1) - Mu(i));
  }
  // gamma_i: the change of slope at a knot, 0 at mu = 0 or 1.
  JAXEXT_HD double Gamma(int i) const {
    const double mu = Mu(i);
    if (!(mu > 0 && mu < 1)) return 0.0;
    return (i + 1 < size ? Slope(i) : 0.0) - (i > 0 ? Slope(i - 1) : 0.0);
  }
  // The whole star's ramp integral pi m^3 / 3 at grid point i (0 off the knots).
  JAXEXT_HD double StarRamp(int i) const {
    const double m = Mu(i);
    return m > 0 && m < 1 ? kPi * m * m * m / 3 : 0.0;
  }
};

template <typename T>
JAXEXT_HD TableOfRow<T> ReadTable(const T* row, int count) {
  TableOfRow<T> t;
  t.k = count / 2;
  bool ok = count % 2 == 0 && t.k >= 2 && t.k <= kMaxTableSize;
  t.row = ok ? row : nullptr;
  t.size = ok ? t.k : 2;
  const int n = t.size;
  for (int i = 0; i < n; ++i) {
    ok = ok && IsFinite(t.Mu(i)) && IsFinite(t.Intensity(i));
    ok = ok && (i == 0 ? t.Mu(i) >= 0 : t.Mu(i) > t.Mu(i - 1));
  }
  ok = ok && t.Mu(n - 1) <= 1;
  t.beta = t.Mu(n - 1) == 1 ? t.Slope(n - 2) : 0.0;
  t.alpha = t.Intensity(n - 1) - t.beta;
  double norm = t.alpha * kPi + t.beta * (2 * kPi / 3);
  for (int i = 0; i < n; ++i) norm += t.Gamma(i) * t.StarRamp(i);
  t.norm = ok && norm > 0 ? norm : NaN();
  return t;
}

}  // namespace detail

// u: the grid mu[0..K) then the intensities I[0..K), count = 2 K: ReadTable's
// quantities in arrays, with the norm's derivatives in the intensities.
JAXEXT_HD TableRow MakeTableRow(const double* u, int count) {
  using namespace detail;
  const TableOfRow<double> read = ReadTable(u, count);
  TableRow t;
  t.size = read.size;
  double ramp[kMaxTableSize];  // the whole star's, R_i = pi m_i^3 / 3
  for (int i = 0; i < t.size; ++i) {
    t.mu[i] = read.Mu(i);
    t.intensity[i] = read.Intensity(i);
    t.gamma[i] = read.Gamma(i);
    ramp[i] = read.StarRamp(i);
  }
  t.alpha = read.alpha;
  t.beta = read.beta;
  t.norm = read.norm;
  t.basis = MakeUniformAndLinear();
  // The whole star: A = pi, J = 2 pi / 3.
  ContractTable(t, kPi, 2 * kPi / 3, ramp, t.d_norm);
  return t;
}

namespace detail {

// A point's lens (b >= 0, partly over the disk): its area and the integral
// of z over it with their derivatives (the uniform and linear laws' closed
// form), and what the ramps' rules take.
struct Lens {
  double b, r;
  Moments area, linear;
  Geometry geo;
  double z2_lo, z2_hi;
  OuterRampGeometry g;
};

JAXEXT_HD Lens MakeLens(const UniformAndLinear& l, double b, double r) {
  Lens lens;
  lens.b = b;
  lens.r = r;
  double ds[2];
  const Flux f0 = LightCurvePoint<1>(b, r, l.g0, l.q0, 0, l.norm0, ds);
  const Flux f1 = LightCurvePoint<1>(b, r, l.g1, l.q1, 1, l.norm1, ds);
  lens.area = {-f0.value * l.norm0, -f0.d_db * l.norm0, -f0.d_dr * l.norm0};
  lens.linear = {-f1.value * l.norm1, -f1.d_db * l.norm1, -f1.d_dr * l.norm1};
  lens.geo = MakeGeometry(b, r);
  lens.z2_lo = lens.geo.inside ? lens.geo.one_minus_bpr2 : 0.0;
  lens.z2_hi = lens.geo.one_minus_bmr2;
  lens.g = MakeOuterRampGeometry(lens.geo);
  return lens;
}

// The integral R of the ramp (m - z)_+ over the lens and its derivatives,
// by where the circle z = m lies.
JAXEXT_HD_CALLED Moments RampMomentsOf(const Lens& lens, double m) {
  const double m2 = m * m;
  Moments rm = {0, 0, 0};
  if (!(m > 0 && m < 1) || m2 <= lens.z2_lo) {
    // Not a knot, or a ramp that is zero over the lens.
  } else if (m2 >= lens.z2_hi) {
    const Moments& area = lens.area;
    const Moments& linear = lens.linear;
    const double covered = lens.b < lens.r ? 2 * kPi * (1 - m) * (1 - m) * (2 + m) / 6 : 0.0;
    rm = {m * area.value - linear.value + covered, m * area.d_db - linear.d_db,
          m * area.d_dr - linear.d_dr};
  } else {
    rm = OuterRampMoments(lens.g, m);
    rm.value += 2 * lens.geo.kappa1 * m2 * m / 6;  // the limb's share (0 inside)
  }
  return rm;
}

}  // namespace detail

// One point of the tabulated law's light curve: F - 1, its derivatives in b
// (of b's sign) and r, and du[j] = dF/dI_j for j < size (the grid is not
// differentiated). As LawLightCurvePoint: r < 0, NaN or +-inf in b or r, a
// refused table, or an occultor larger than kMaxCrossingRadius across the
// limb give NaN everywhere.
struct TableFlux {
  double value, d_db, d_dr;
};

JAXEXT_HD TableFlux TabulatedLightCurvePoint(const TableRow& t, double b, double r,
                                             double* du) {
  using namespace detail;
  const int n = t.size;
  const PointSetUp point = SetUpPoint(b, r);
  b = point.b;
  if (!(t.norm > 0) || point.overlap == Overlap::kInvalid) {
    if (du) {
      for (int j = 0; j < n; ++j) du[j] = NaN();
    }
    return {NaN(), NaN(), NaN()};
  }
  if (point.overlap != Overlap::kPartial) {
    if (du) {
      for (int j = 0; j < n; ++j) du[j] = 0;
    }
    return {point.overlap == Overlap::kHidden ? -1.0 : 0.0, 0.0, 0.0};
  }
  const Lens lens = MakeLens(t.basis, b, r);
  double ramp[kMaxTableSize], ramp_db[kMaxTableSize], ramp_dr[kMaxTableSize];
  for (int i = 0; i < n; ++i) {
    const Moments rm = RampMomentsOf(lens, t.mu[i]);
    ramp[i] = rm.value;
    ramp_db[i] = rm.d_db;
    ramp_dr[i] = rm.d_dr;
  }
  const Moments& area = lens.area;
  const Moments& linear = lens.linear;
  const double inv_norm = 1 / t.norm;
  const double value = -ContractTable(t, area.value, linear.value, ramp, du) * inv_norm;
  if (du) {
    for (int j = 0; j < n; ++j) du[j] = -(du[j] + value * t.d_norm[j]) * inv_norm;
  }
  const double d_db = ContractTable(t, area.d_db, linear.d_db, ramp_db, nullptr);
  const double d_dr = ContractTable(t, area.d_dr, linear.d_dr, ramp_dr, nullptr);
  return {value, -point.sign_b * d_db * inv_norm, -d_dr * inv_norm};
}

// TabulatedLightCurvePoint for a GPU thread: the table read from its row
// (ReadTable's `t`) and the ramps summed a knot at a time, so that no array
// of the table's size lives in the thread's local memory (MakeTableRow and
// TabulatedLightCurvePoint keep five). The same operations in the same
// order, but for the ramp rules' sums (SumRampNodes); du_at(j, dF/dI_j)
// for j < the table's size where `with_du`, whose weights need the value
// first: the ramps are computed a second time for them.
template <typename T, typename DuAt>
JAXEXT_HD TableFlux TabulatedPointOfTable(const detail::TableOfRow<T>& t, double b, double r,
                                          bool with_du, const DuAt& du_at) {
  using namespace detail;
  const int n = t.size;
  const PointSetUp point = SetUpPoint(b, r);
  b = point.b;
  if (!(t.norm > 0) || point.overlap == Overlap::kInvalid) {
    if (with_du) {
      for (int j = 0; j < n; ++j) du_at(j, NaN());
    }
    return {NaN(), NaN(), NaN()};
  }
  if (point.overlap != Overlap::kPartial) {
    if (with_du) {
      for (int j = 0; j < n; ++j) du_at(j, 0.0);
    }
    return {point.overlap == Overlap::kHidden ? -1.0 : 0.0, 0.0, 0.0};
  }
  const Lens lens = MakeLens(MakeUniformAndLinear(), b, r);
  const Moments& area = lens.area;
  const Moments& linear = lens.linear;
  Moments sum = {t.alpha * area.value + t.beta * linear.value,
                 t.alpha * area.d_db + t.beta * linear.d_db,
                 t.alpha * area.d_dr + t.beta * linear.d_dr};
  for (int i = 0; i < n; ++i) {
    const double gamma = t.Gamma(i);
    const Moments rm = RampMomentsOf(lens, t.Mu(i));
    sum.value += gamma * rm.value;
    sum.d_db += gamma * rm.d_db;
    sum.d_dr += gamma * rm.d_dr;
  }
  const double inv_norm = 1 / t.norm;
  const double value = -sum.value * inv_norm;
  if (with_du) {
    // d[j] = (A at j = K - 1) + w_{j-1} - w_j, w_i = SegmentWeight of the
    // point's ramps; the norm's derivative the same of the whole star's.
    const bool at_one = t.Mu(n - 1) == 1;
    double ramp = RampMomentsOf(lens, t.Mu(0)).value, star = t.StarRamp(0);
    double w_before = 0, star_before = 0;
    for (int j = 0; j < n; ++j) {
      double w = 0, star_w = 0;
      if (j + 1 < n) {
        const double next = RampMomentsOf(lens, t.Mu(j + 1)).value, next_star = t.StarRamp(j + 1);
        const bool last = j == n - 2 && at_one;
        w = SegmentWeight(ramp, next, last, area.value, linear.value, t.Mu(j), t.Mu(j + 1));
        star_w = SegmentWeight(star, next_star, last, kPi, 2 * kPi / 3, t.Mu(j), t.Mu(j + 1));
        ramp = next;
        star = next_star;
      }
      const double d = ((j == n - 1 ? area.value : 0.0) + w_before) - w;
      const double d_norm = ((j == n - 1 ? kPi : 0.0) + star_before) - star_w;
      du_at(j, -(d + value * d_norm) * inv_norm);
      w_before = w;
      star_before = star_w;
    }
  }
  return {value, -point.sign_b * sum.d_db * inv_norm, -sum.d_dr * inv_norm};
}

// TabulatedPointOfTable of the table read from `row` (`count` values).
template <typename T, typename DuAt>
JAXEXT_HD TableFlux TabulatedPointOfRow(const T* row, int count, double b, double r,
                                        bool with_du, const DuAt& du_at) {
  return TabulatedPointOfTable(detail::ReadTable(row, count), b, r, with_du, du_at);
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_TABULATED_LAW_H_
