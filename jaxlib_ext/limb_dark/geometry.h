// The geometry of an occultor of radius r at separation b from the centre
// of the unit disk: the overlap's angles and areas, and the tests for no
// overlap and a hidden disk.
#ifndef JAXLIB_EXT_LIMB_DARK_GEOMETRY_H_
#define JAXLIB_EXT_LIMB_DARK_GEOMETRY_H_

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/math/elementary.h"

namespace jaxext::limb_dark {
inline namespace JAXEXT_MATH_NAMESPACE {
using namespace ::jaxext::math;

// An occultor larger than this whose limb crosses the disk gives NaN: the
// solution vector's terms (and the edge rules' r (r - b) against
// the limb's share) cancel to about r * 1e-17 (1e-12 at r = 1e5, 0.2
// at r = 1e15 with six coefficients).
constexpr double kMaxCrossingRadius = 1e6;

namespace detail {

// Per-element geometry of the overlap (sec. 2), in double or (the float32
// low-order path, polynomial_flux.h) float.
template <typename F>
struct GeometryOf {
  F b, r;
  F k2;             // (1 - (b - r)^2) / (4 b r); huge at b = 0
  F kc;             // sqrt(1 - m_k), computed from b and r (sec. 2.3)
  bool inside;      // b + r <= 1: the occultor is inside the disk (k^2 >= 1)
  F kite;           // A_kite, twice the area of the triangle (1, r, b)
  F kappa0, kappa1;
  F one_minus_bmr2;  // 1 - (b - r)^2
  F one_minus_bpr2;  // 1 - (b + r)^2
};
using Geometry = GeometryOf<double>;

// Without branches (selects only), as everything on the way from (b, r) to
// s_0..s_2 for a generic point: the CPU loop over points vectorises.
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE GeometryOf<F> MakeGeometry(F b, F r) {
  GeometryOf<F> geo;
  geo.b = b;
  geo.r = r;
  // 1 - (b - r)^2 = (1 + b - r)(1 - b + r), each factor rounded once where
  // it is small: 1 - r is exact for r in [0.5, 2], b - r for b in [r/2, 2r]
  // (r = 1, b = 1e-17: 1 + (b - r) would round to 0).
  const F one_plus_bmr = r <= 2 ? (1 - r) + b : 1 + (b - r);
  const F one_minus_bmr = b <= 2 ? (1 - b) + r : 1 - (b - r);
  geo.one_minus_bmr2 = one_plus_bmr * one_minus_bmr;
  // Kahan's product for Heron's formula, sides sorted x >= y >= z (sec. 2.4):
  // q = (1 + b + r)(b + r - 1)(1 + b - r)(1 - b + r)
  //   = (1 - (b - r)^2) ((b + r)^2 - 1),
  // accurate even where b + r is within rounding of 1, where forming
  // 1 - (b + r)^2 from the rounded sum would lose most digits. Positive
  // where the limbs cross, negative where the occultor is inside.
  const F hi = Max(b, r), lo = Min(b, r);
  const F x = Max(hi, F(1)), z = Min(lo, F(1)), y = Max(lo, Min(hi, F(1)));
  const F q = (x + (y + z)) * (z - (x - y)) * (z + (x - y)) * (x + (y - z));
  geo.one_minus_bpr2 = -q / geo.one_minus_bmr2;
  geo.inside = q <= 0;
  // At b = 0 a stand-in for +inf (1e300, 1e30 in float).
  geo.k2 = b > 0 ? geo.one_minus_bmr2 / (4 * b * r) : F(sizeof(F) == 4 ? 1e30 : 1e300);
  geo.kite = F(0.5) * Sqrt(Max(F(0), q));
  // Inside: kc = sqrt((1 - (b + r)^2) / (1 - (b - r)^2)); crossing: kc =
  // sqrt(((b + r)^2 - 1) / (4 b r)).
  geo.kc = Sqrt(Abs(q) / (geo.one_minus_bmr2 *
                        (geo.inside ? geo.one_minus_bmr2 : 4 * b * r)));
  const F kappa0 = Atan2NonNegative(2 * geo.kite, (r - 1) * (r + 1) + b * b);
  const F kappa1 = Atan2NonNegative(2 * geo.kite, (1 - r) * (1 + r) + b * b);
  geo.kappa0 = geo.inside ? F(kPi) : kappa0;
  geo.kappa1 = geo.inside ? F(0) : kappa1;  // not used inside
  return geo;
}

// Below this, b is taken as 0: F is even in b and smooth there (at r = 1,
// F(b) - F(0) ~ b^1.5), far below F's rounding, while Heron's product, of
// order b^2 r^2, would underflow (r = 1, b = 1e-170: NaN).
constexpr double kTinyB = 1e-50;

// b >= 1 + r (the occultor misses the disk) and b <= r - 1 (it hides the
// whole disk), decided without rounding 1 + r or r - 1 (which are r itself
// from r = 2^53 on): b - r and r - b are exact where they decide.
template <typename F>
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool NoOverlap(F b, F r) {
  return r >= 1 ? b - r >= 1 : b >= 1 + r;
}
JAXEXT_HD JAXEXT_ALWAYS_INLINE bool DiskHidden(double b, double r) {
  return r <= 2 ? b <= r - 1 : r - b >= 1;
}

// A point (b, r) of a light curve before any rule: |b| (0 below kTinyB),
// the sign of b (dF/db's) and what there is to compute: NaN everywhere (r <
// 0, NaN or +-inf in b or r, an occultor larger than kMaxCrossingRadius
// across the limb), nothing (no overlap, or r = 0: F - 1 = 0), the whole
// disk hidden (F - 1 = -1), or a partial overlap.
enum class Overlap { kInvalid, kNone, kHidden, kPartial };

struct PointSetUp {
  double b, sign_b;
  Overlap overlap;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE PointSetUp SetUpPoint(double b, double r) {
  PointSetUp p;
  p.sign_b = b < 0 ? -1.0 : 1.0;
  p.b = Abs(b) < kTinyB ? 0.0 : Abs(b);
  const bool hidden = DiskHidden(p.b, r), no_overlap = NoOverlap(p.b, r);
  const bool unsupported = r > kMaxCrossingRadius && !no_overlap && !hidden;
  p.overlap = !(r >= 0) || !IsFinite(p.b) || !IsFinite(r) || unsupported ? Overlap::kInvalid
              : no_overlap || r == 0                                     ? Overlap::kNone
              : hidden                                                   ? Overlap::kHidden
                                                                         : Overlap::kPartial;
  return p;
}

// kappa - sin(kappa) cos(kappa), the area a chord at half-angle kappa
// (in [0, pi]) cuts off the unit disk, given sin and cos of kappa. Below
// kappa = 1 by its series sum_j (-1)^(j+1) (2 kappa)^(2j+1) / (2 (2j+1)!),
// j >= 1, whose first term dominates: the difference rounds away ~1 /
// kappa^2 of the digits (13 times at kappa = 0.35, which r = b = 2.9 has).
// Twelve terms (the twelfth under 2e-18 of the first at kappa = 1), both
// forms computed and one selected: no branch, for the loops over times
// that vectorise it (OverlapOfDisksInLanes).
constexpr int kSegmentTerms = 12;
JAXEXT_HD JAXEXT_ALWAYS_INLINE double SegmentArea(double kappa, double sin_k, double cos_k) {
  const double x2 = 4 * kappa * kappa;
  double term = 2 * kappa * x2 / 12;
  double sum = term;
  JAXEXT_UNROLL
  for (int j = 2; j <= kSegmentTerms; ++j) {
    term *= x2 * (-1.0 / ((2 * j) * (2 * j + 1)));
    sum += term;
  }
  return kappa >= 1 ? kappa - sin_k * cos_k : sum;
}

// The area the unit disk covers of a disk of radius r at separation b
// where their limbs cross (geo: MakeGeometry(b, r)), and its derivatives
// (OverlapOfDisks).
struct DiskOverlap {
  double area, d_db, d_dr;
};

JAXEXT_HD JAXEXT_ALWAYS_INLINE DiskOverlap CrossingOverlap(const Geometry& geo) {
  const double b = geo.b, r = geo.r;
  const double sin0 = geo.kite / (b * r), cos0 = ((r - 1) * (r + 1) + b * b) / (2 * b * r);
  const double sin1 = geo.kite / b, cos1 = ((1 - r) * (1 + r) + b * b) / (2 * b);
  const double area =
      r * r * SegmentArea(geo.kappa0, sin0, cos0) + SegmentArea(geo.kappa1, sin1, cos1);
  return {area, -2 * geo.kite / b, 2 * r * geo.kappa0};
}

}  // namespace detail

// The area the unit disk covers of a disk of radius r at separation b (what
// a star hides of a planet behind it), and its derivatives: d/db is minus
// the chord where the limbs cross, 2 kite / b, and d/dr the length of the
// disk's arc inside the unit disk, 2 r kappa0. In two segments, r^2 (kappa0
// - sin cos kappa0) and kappa1 - sin cos kappa1 (SegmentArea), without the
// cancellation of their sum's usual form near the contacts. NaN for r < 0
// or b or r NaN or infinite.
using detail::DiskOverlap;

JAXEXT_HD_CALLED DiskOverlap OverlapOfDisks(double b, double r) {
  using namespace detail;
  b = Abs(b);
  if (!(r >= 0) || !IsFinite(b) || !IsFinite(r)) return {NaN(), NaN(), NaN()};
  if (r == 0 || NoOverlap(b, r)) return {0.0, 0.0, 0.0};
  if (DiskHidden(b, r)) return {kPi, 0.0, 0.0};  // the unit disk inside the other
  if (b + r <= 1) return {kPi * r * r, 0.0, 2 * kPi * r};  // the disk inside the unit disk
  return CrossingOverlap(MakeGeometry(b, r));
}

// OverlapOfDisks for b >= 0 and r > 0 finite, without branches (selects
// only): the CPU loop over a block's eclipses vectorises it. The same
// values.
JAXEXT_HD JAXEXT_ALWAYS_INLINE DiskOverlap OverlapOfDisksInLanes(double b, double r) {
  using namespace detail;
  const bool none = NoOverlap(b, r), hidden = DiskHidden(b, r), within = b + r <= 1;
  const bool crossing = !(none || hidden || within);
  // Points that do not cross run the same code on a stand-in that does.
  const DiskOverlap c = CrossingOverlap(MakeGeometry(crossing ? b : 1.0, crossing ? r : 0.5));
  const double zero = 0;
  return {none ? zero : hidden ? kPi : within ? kPi * r * r : c.area,
          crossing ? c.d_db : zero,
          none || hidden ? zero : within ? 2 * kPi * r : c.d_dr};
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_GEOMETRY_H_
