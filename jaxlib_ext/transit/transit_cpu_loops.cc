// The transit model's loop, written once; compiled once per instruction-set
// variant like the other ops' loops (per_isa_cc_library), with
// JAXEXT_ISA_NAMESPACE naming its entry point's namespace and
// JAXEXT_MATH_NAMESPACE giving its copy of the math symbols of its own.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "jaxlib_ext/limb_dark/law_blocks.h"
#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_cpu_loops.h"
#include "jaxlib_ext/transit/transit_window.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext::transit::JAXEXT_ISA_NAMESPACE {
namespace {

// The times a loop reads: t[i] - shift, in T's arithmetic (a run of times
// of one epoch shifted by its transit time's variation: ShiftedTime's
// values; shift 0: t[i] itself, to the bit).
template <typename T>
struct Times {
  const T* t;
  T shift;
  T operator[](size_t i) const { return t[i] - shift; }
};

// The least x with sqrt(x) >= y, for a finite y > 0: sqrt is correctly
// rounded and monotone, so sqrt(x) >= y exactly where x >= it (without a
// square root per element).
inline double SquareThreshold(double y) {
  double x = y * y;
  while (std::sqrt(x) >= y) x = std::nextafter(x, 0.0);
  while (!(std::sqrt(x) >= y)) x = std::nextafter(x, HUGE_VAL);
  return x;
}

// The end (at most m) of the run of elements from i whose exposures are all
// non-zero (`exposed`; NaN counts as non-zero) or all zero, checked 64 at a
// time in a loop that vectorises.
template <typename T>
size_t RunEnd(const T* exposure, size_t i, size_t m, bool exposed) {
  constexpr size_t kStride = 64;
  for (; i + kStride <= m; i += kStride) {
    bool other = false;
    for (size_t j = 0; j < kStride; ++j) other |= (exposure[i + j] != 0) != exposed;
    if (other) break;
  }
  while (i < m && (exposure[i] != 0) == exposed) ++i;
  return i;
}

// The eccentric anomaly at dt[0..m) (EccentricAt; kCircular for an orbit of
// e = 0), with Kepler's equation solved four vectors at a time.
template <bool kCircular>
void SolveTimesOf(const Orbit& orbit, const double* __restrict dt, double* __restrict sin_e,
                  double* __restrict cos_e, double* __restrict omc, size_t m) {
  const Orbit o = orbit;  // copied: the stores cannot alias it
  JAXEXT_SOLVES_IN_FLIGHT
  for (size_t i = 0; i < m; ++i) {
    const kepler_solve::Eccentric<double> x = EccentricAt<kCircular>(o, dt[i]);
    sin_e[i] = x.s;
    cos_e[i] = x.c;
    omc[i] = x.omc;
  }
}

// SolveTimesOf for the orbit: circular (e = 0, E = M) or not.
void SolveTimes(const Orbit& orbit, const double* __restrict dt, double* __restrict sin_e,
                double* __restrict cos_e, double* __restrict omc, size_t m) {
  if (orbit.e == 0) {
    SolveTimesOf<true>(orbit, dt, sin_e, cos_e, omc, m);
  } else {
    SolveTimesOf<false>(orbit, dt, sin_e, cos_e, omc, m);
  }
}

// The times of a block that may see the planet in transit, located: F - 1
// out of transit for every time (`fill`: 0, or NaN where the time is NaN or
// inf); the times its transit window keeps (transit_window.h; F - 1 is 0
// elsewhere) gathered, Kepler's equation solved for them in one loop
// (SolveTimes), their separations in another; the times in transit
// (front, b < 1 + r) gathered again, with kDerivatives their separations'
// derivatives. The gathered loops run over whole vectors (kLanes, the
// widest: AVX-512's doubles), padded with a copy of a real entry: a few
// times in a block would otherwise take the loops' scalar remainders, with
// Kepler's equation solved at a scalar's latency.
constexpr size_t kLanes = 8;

constexpr size_t Padded(size_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

template <bool kDerivatives, size_t kSize>
struct TransitTimesBlock {
  static constexpr size_t kRoom = Padded(kSize);
  double fill[kSize];      // F - 1 out of transit: 0, or NaN where the time is NaN or inf
  size_t count;            // the times in transit
  size_t index[kSize];     // their positions among the times, ascending
  // Of the times in transit, by their place in index (then the padding):
  double b[kRoom], b2_by[kParamCount][kRoom];

  // The times dt[0..m) of the planet's orbit. The orbit is copied: the
  // loops' stores into the block then cannot alias it, which vectorising
  // needs.
  void Locate(const Orbit& planet_orbit, double r, const TransitWindow& window,
              const double* __restrict dt, size_t m) {
    const Orbit orbit = planet_orbit;
    // NaN or inf times: NaN everywhere (FluxAt's rule); the others 0 out of
    // transit.
    for (size_t i = 0; i < m; ++i) fill[i] = dt[i] - dt[i] == 0 ? 0.0 : dt[i] - dt[i];
    bool may[kSize];
    for (size_t i = 0; i < m; ++i) may[i] = MayTransit(window, dt[i]);
    size_t near[kSize], kept = 0;
    double dt_near[kRoom];
    for (size_t i = 0; i < m; ++i) {
      if (may[i]) {
        near[kept] = i;
        dt_near[kept++] = dt[i];
      }
    }
    for (size_t c = kept; c < Padded(kept); ++c) dt_near[c] = dt_near[0];
    bool shown[kRoom];
    double b_near[kRoom], sin_e[kRoom], cos_e[kRoom], omc[kRoom], den[kRoom];
    SolveTimes(orbit, dt_near, sin_e, cos_e, omc, Padded(kept));
    for (size_t c = 0; c < Padded(kept); ++c) {
      const Sky s =
          SkyOfEccentric<false>(orbit, dt_near[c], {sin_e[c], cos_e[c], omc[c], orbit.e, false});
      b_near[c] = std::sqrt(s.b2);
      shown[c] = s.front && dt_near[c] - dt_near[c] == 0;
      if (kDerivatives) {
        sin_e[c] = s.sin_e;
        cos_e[c] = s.cos_e;
        den[c] = s.den;
      }
    }
    double dt_in[kRoom], sin_in[kRoom], cos_in[kRoom], den_in[kRoom];
    count = 0;
    for (size_t c = 0; c < kept; ++c) {
      if (shown[c] && b_near[c] < 1 + r) {
        index[count] = near[c];
        if (kDerivatives) {
          dt_in[count] = dt_near[c];
          sin_in[count] = sin_e[c];
          cos_in[count] = cos_e[c];
          den_in[count] = den[c];
        }
        b[count++] = b_near[c];
      }
    }
    for (size_t k = count; k < Padded(count); ++k) {
      b[k] = b[0];
      if (kDerivatives) {
        dt_in[k] = dt_in[0];
        sin_in[k] = sin_in[0];
        cos_in[k] = cos_in[0];
        den_in[k] = den_in[0];
      }
    }
    if (kDerivatives) {
      for (size_t k = 0; k < Padded(count); ++k) {
        double d_b2[kParamCount];
        SkyGradient(orbit, dt_in[k], sin_in[k], cos_in[k], den_in[k], d_b2);
        for (int j = 0; j < kParamCount; ++j) b2_by[j][k] = d_b2[j];
      }
    }
  }

  // Every time of the m located, elements [start, start + m) of `out`, as
  // out of transit (`fill`): F - 1 and, with kDerivatives, every derivative
  // (n_du in u).
  template <typename T>
  void StoreFill(const Outputs<T>& out, size_t start, size_t m, int n_du) const {
    const auto store = [&](T* column) {
      for (size_t i = 0; i < m; ++i) column[start + i] = static_cast<T>(fill[i]);
    };
    store(out.flux);
    if (!kDerivatives) return;
    for (int j = 0; j <= kParamCount; ++j) store(out.d[j]);
    for (int j = 0; j < n_du; ++j) store(out.du[j]);
  }

  // The k-th time in transit, its light curve f: F - 1, and with
  // kDerivatives d[Param] by the chain rule through b^2.
  double Chained(size_t k, const limb_dark::Flux& f, double* d) const {
    if (kDerivatives) {
      const double chain = PerSquareOfB(b[k], f.d_db);
      for (int j = 0; j < kParamCount; ++j) d[j] = chain * b2_by[j][k];
      d[kRadius] = f.d_dr;
    }
    return f.value;
  }
};

// F - 1 of a planet whose law is polynomial of at most two coefficients at
// up to kSize times (relative to t0): the times in transit located
// (TransitTimesBlock), then the light curve's low-order points
// (LowOrderLightCurvePoint) in a loop that clang vectorises in the avx2 and
// avx512 variants (one time per lane); InTransit then gives a time in
// transit with the points that path leaves (LightCurvePoint) and the chain
// rule. The same values as FluxAt's to rounding. kDerivatives false: the
// value alone.
template <bool kDerivatives, size_t kSize>
struct LowOrderBlock : TransitTimesBlock<kDerivatives, kSize> {
  using Base = TransitTimesBlock<kDerivatives, kSize>;
  using Base::b;
  using Base::count;
  static constexpr size_t kRoom = Base::kRoom;
  const Planet* planet;
  double value[kRoom], f_db[kRoom], f_dr[kRoom], ds[3][kRoom];
  double du_by[2][kRoom];  // with kDerivatives, dF/du where `ok` (GradientsInU)
  bool ok[kRoom];

  void Prepare(const Planet& p) { planet = &p; }

  // The times dt[0..m). The law is copied: the loop's stores into the
  // block then cannot alias it.
  void Evaluate(const Planet& p, const TransitWindow& window, const double* __restrict dt,
                size_t m) {
    planet = &p;
    this->Locate(p.orbit, p.r, window, dt, m);
    const limb_dark::CurveRow& curve = p.curve;
    const double g3[3] = {curve.g[0], curve.order >= 1 ? curve.g[1] : 0.0,
                          curve.order >= 2 ? curve.g[2] : 0.0};
    const double r = p.r, norm = curve.norm;
    for (size_t k = 0; k < Padded(count); ++k) {
      const limb_dark::LowOrderPoint point = limb_dark::LowOrderLightCurvePoint(b[k], r, g3, norm);
      value[k] = point.flux.value;
      f_db[k] = point.flux.d_db;
      f_dr[k] = point.flux.d_dr;
      for (int j = 0; j < 3; ++j) ds[j][k] = point.ds[j];
      ok[k] = point.ok;
    }
    if (kDerivatives && curve.order == 1) GradientsInU<1>(norm, Padded(count));
    if (kDerivatives && curve.order == 2) GradientsInU<2>(norm, Padded(count));
  }

  // dF/du of the first `rows` times in transit, for a law of kOrder
  // coefficients (FluxGradientInU, with kOrder known: a loop that
  // vectorises).
  template <int kOrder>
  void GradientsInU(double norm, size_t rows) {
    for (size_t k = 0; k < rows; ++k) {
      const double point_ds[3] = {ds[0][k], ds[1][k], ds[2][k]};
      double point_du[kOrder];
      limb_dark::FluxGradientInU<2>(point_ds, value[k], norm, kOrder, point_du);
      for (int j = 0; j < kOrder; ++j) du_by[j][k] = point_du[j];
    }
  }

  // The k-th time in transit: the light curve's F - 1 and its derivatives
  // in b and r, and with du non-null dF/du[0..order).
  limb_dark::Flux FluxOf(size_t k, double* du) const {
    if (!ok[k] || (du && !kDerivatives)) return FullFluxOf(k, du);
    for (int j = 0; du && j < planet->curve.order; ++j) du[j] = du_by[j][k];
    return {value[k], f_db[k], f_dr[k]};
  }

  // FluxOf where the low-order path left the time (LightCurvePoint's), or
  // without GradientsInU's values: a call of its own, so that FluxOf's
  // usual path carries none of LightCurvePoint's stack.
  [[gnu::noinline]] limb_dark::Flux FullFluxOf(size_t k, double* du) const {
    const limb_dark::CurveRow& curve = planet->curve;
    limb_dark::Flux f = {value[k], f_db[k], f_dr[k]};
    double point_ds[limb_dark::kMaxOrder + 1];
    for (int j = 0; j < 3; ++j) point_ds[j] = ds[j][k];
    if (!ok[k]) {
      f = limb_dark::LightCurvePoint(b[k], planet->r, curve.g, curve.q, curve.order, curve.norm,
                                     point_ds);
    }
    if (du) limb_dark::FluxGradientInU(point_ds, f.value, curve.norm, curve.order, du);
    return f;
  }

  // The k-th time in transit: F - 1, and with kDerivatives d[Param] and,
  // with du non-null, du[0..order).
  double InTransit(size_t k, double* d, double* du) const {
    return this->Chained(k, FluxOf(k, kDerivatives ? du : nullptr), d);
  }
};

// Times without an exposure (LowOrderBlock's law), a block at a time: every
// time stored as out of transit, then the times in transit.
template <bool kDerivatives, typename T>
void LowOrderTimes(const Planet& planet, const TransitWindow& window, const Times<T>& t,
                   const Outputs<T>& out, size_t begin, size_t end) {
  constexpr size_t kBlock = 128;
  const int order = planet.curve.order;
  LowOrderBlock<kDerivatives, kBlock> block;
  double dt[kBlock], chain[kBlock], by[kBlock];
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) dt[i] = static_cast<double>(t[start + i]) - planet.orbit.t0;
    block.Evaluate(planet, window, dt, m);
    block.StoreFill(out, start, m, out.du[0] ? order : 0);
    if (kDerivatives) {
      // Every time in transit from the block's arrays, a column at a time
      // (InTransit's chain rule in a loop that vectorises); then the times
      // the low-order path left, a time at a time.
      const size_t count = block.count;
      const size_t* index = block.index;
      for (size_t k = 0; k < count; ++k) {
        chain[k] = PerSquareOfB(block.b[k], block.f_db[k]);
      }
      const auto put = [&](T* column, const double* values) {
        for (size_t k = 0; k < count; ++k) column[start + index[k]] = static_cast<T>(values[k]);
      };
      put(out.flux, block.value);
      for (int j = 0; j < kParamCount; ++j) {
        if (j == kRadius) {
          put(out.d[j], block.f_dr);
          continue;
        }
        for (size_t k = 0; k < count; ++k) by[k] = chain[k] * block.b2_by[j][k];
        put(out.d[j], by);
      }
      for (int j = 0; out.du[0] && j < order; ++j) put(out.du[j], block.du_by[j]);
    }
    for (size_t k = 0; k < block.count; ++k) {
      if (kDerivatives && block.ok[k]) continue;
      const size_t e = start + block.index[k];
      double d[kParamCount], du[limb_dark::kMaxOrder];
      out.flux[e] = static_cast<T>(block.InTransit(k, d, out.du[0] ? du : nullptr));
      if (!kDerivatives) continue;
      for (int j = 0; j < kParamCount; ++j) out.d[j][e] = static_cast<T>(d[j]);
      if (out.du[0]) {
        for (int j = 0; j < order; ++j) out.du[j][e] = static_cast<T>(du[j]);
      }
    }
  }
}

// F - 1 of a planet of any other law at up to kSize times (relative to
// t0): the times in transit located (TransitTimesBlock), then a power
// law's light curve (power2, nonlinear, square root) at all of them through
// the light curve's blocks (PowerLawBlocks, law_blocks.h: a point a lane,
// the same rules but for the inside rule's node count), or another law's
// a point at a time (CurveAt) as InTransit asks; InTransit adds the chain
// rule. The same values as FluxAt's to rounding. kDerivatives false: the
// value alone. Prepare first, once for the planet.
template <bool kDerivatives, size_t kSize>
struct CurveBlock : TransitTimesBlock<kDerivatives, kSize> {
  using Base = TransitTimesBlock<kDerivatives, kSize>;
  using Base::b;
  using Base::count;
  static constexpr size_t kRoom = Base::kRoom;
  const Planet* planet;
  bool power;
  // A power law's points: r (the planet's) per lane, F - 1 and its
  // derivatives in b, r (kDerivatives) and u.
  double r[kRoom], value[kRoom], f_db[kRoom], f_dr[kRoom];
  double du_by[limb_dark::kMaxLawTerms][kRoom];
  std::unique_ptr<limb_dark::detail::PowerBlockScratch> scratch;  // a power law's

  void Prepare(const Planet& p) {
    planet = &p;
    const limb_dark::CurveRow& curve = p.curve;
    power = curve.law != limb_dark::Law::kPolynomial && curve.law != limb_dark::Law::kTabulated &&
            limb_dark::detail::TakesPowerBlocks(curve.law_row);
    if (!power) return;
    if (!scratch) scratch.reset(new limb_dark::detail::PowerBlockScratch);
    for (size_t k = 0; k < kRoom; ++k) r[k] = p.r;
  }

  // The times dt[0..m).
  void Evaluate(const Planet& p, const TransitWindow& window, const double* __restrict dt,
                size_t m) {
    this->Locate(p.orbit, p.r, window, dt, m);
    if (!power || count == 0) return;
    double* du[limb_dark::kMaxLawTerms];
    for (int j = 0; j < limb_dark::kMaxLawTerms; ++j) du[j] = du_by[j];
    limb_dark::detail::PowerLawBlocks<kDerivatives>(
        p.curve.law_row, p.curve.order, b, r, value, kDerivatives ? f_db : nullptr,
        kDerivatives ? f_dr : nullptr, kDerivatives ? du : nullptr, count, scratch.get());
  }

  // The k-th time in transit: the light curve's F - 1 and its derivatives
  // in b and r, and with du non-null dF/du[0..n_du) (kDerivatives).
  limb_dark::Flux FluxOf(size_t k, double* du) const {
    if (!power) {
      return limb_dark::CurveAt(planet->curve, b[k], planet->r, kDerivatives ? du : nullptr);
    }
    for (int j = 0; kDerivatives && du && j < planet->curve.n_du; ++j) du[j] = du_by[j][k];
    return {value[k], kDerivatives ? f_db[k] : 0.0, kDerivatives ? f_dr[k] : 0.0};
  }

  // The k-th time in transit: F - 1, and with kDerivatives d[Param] and,
  // with du non-null, du[0..n_du).
  double InTransit(size_t k, double* d, double* du) const {
    return this->Chained(k, FluxOf(k, du), d);
  }
};

// Times without an exposure of a planet of any other law (CurveBlock's:
// without the planet's light), a block at a time: every time stored as out
// of transit, then the times in transit.
template <bool kDerivatives, typename T>
void CurveTimes(const Planet& planet, const TransitWindow& window, const Times<T>& t,
                const Outputs<T>& out, size_t begin, size_t end) {
  constexpr size_t kBlock = 128;
  const int n_du = kDerivatives && out.du[0] ? planet.curve.n_du : 0;
  CurveBlock<kDerivatives, kBlock> block;
  block.Prepare(planet);
  double dt[kBlock];
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) dt[i] = static_cast<double>(t[start + i]) - planet.orbit.t0;
    block.Evaluate(planet, window, dt, m);
    block.StoreFill(out, start, m, n_du);
    for (size_t k = 0; k < block.count; ++k) {
      const size_t e = start + block.index[k];
      double d[kParamCount], du[limb_dark::CurveRow::kMaxDerivatives];
      const double value = block.InTransit(k, d, n_du ? du : nullptr);
      out.flux[e] = static_cast<T>(value);
      if (!kDerivatives) continue;
      for (int j = 0; j < kParamCount; ++j) out.d[j][e] = static_cast<T>(d[j]);
      // The mean's derivative in T vanishes at T = 0 (TransitElement's).
      out.d[kParamCount][e] = static_cast<T>(value == value ? 0.0 : value);
      for (int j = 0; j < n_du; ++j) out.du[j][e] = static_cast<T>(du[j]);
    }
  }
}

// Times with an exposure of a planet whose law takes Block (LowOrderBlock
// or CurveBlock: at most kMaxOrder derivatives in u, not the tabulated
// law's): the nodes of their quadratures (VisitExposureNodes) gathered
// across exposures into blocks of Block's times, with the exposures' ends
// where the derivative in T needs them, then summed per exposure
// (FinishExposure). The same values as ExposureMean's to rounding. Returns
// the evaluations of F for the means.
template <template <bool, size_t> class Block, bool kDerivatives, typename T>
size_t BlockExposures(const Planet& planet, const TransitWindow& window,
                      const Contacts& contacts, const Times<T>& t, const T* exposure,
                      const Outputs<T>& out, size_t begin, size_t end) {
  // Room for the nodes of one exposure and its two ends, twice over; for
  // the exposures of a block (out of transit a value has no nodes).
  constexpr size_t kNodes = 2 * (kMaxExposureNodes + 2), kExposures = 256;
  enum class Role : unsigned char { kPart, kWhole, kEnd };
  struct Pending {
    size_t element, nodes;
    double span;
    ExposurePlan plan;
  };
  // Tens of kB: on the heap, not the pool thread's stack.
  struct Scratch {
    Block<kDerivatives, kNodes> block;
    double node[kNodes], weight[kNodes];
    Role role[kNodes];
    Pending pending[kExposures];
  };
  const std::unique_ptr<Scratch> scratch(new Scratch);
  Block<kDerivatives, kNodes>& block = scratch->block;
  block.Prepare(planet);
  double* node = scratch->node;
  double* weight = scratch->weight;
  Role* role = scratch->role;
  Pending* pending = scratch->pending;
  static_assert(limb_dark::kMaxLawTerms <= limb_dark::kMaxOrder, "the sums' room in u");
  const int n_du = kDerivatives && out.du[0] ? planet.curve.n_du : 0;
  const double t0 = planet.orbit.t0;
  size_t n_nodes = 0, n_pending = 0, evaluations = 0;

  const auto flush = [&]() {
    block.Evaluate(planet, window, node, n_nodes);
    size_t i = 0, k = 0;
    for (size_t p = 0; p < n_pending; ++p) {
      ExposureSums<limb_dark::kMaxOrder> sums;
      ClearExposureSums(&sums, n_du);
      double ends = 0;
      for (const size_t stop = i + pending[p].nodes; i < stop; ++i) {
        double f, d[kParamCount], du[limb_dark::kMaxOrder];
        if (k < block.count && block.index[k] == i) {
          f = block.InTransit(k++, d, n_du ? du : nullptr);
        } else {
          f = block.fill[i];
          for (double& x : d) x = f;
          for (double& x : du) x = f;
        }
        if (role[i] == Role::kEnd) {
          ends += f;
        } else {
          AddNode(weight[i], role[i] == Role::kWhole ? NodeSum::kWhole : NodeSum::kPart, f,
                  kDerivatives ? d : nullptr, du, n_du, &sums);
        }
      }
      double d[kParamCount + 1], du[limb_dark::kMaxOrder];
      const size_t e = pending[p].element;
      const double mean = FinishExposure(pending[p].plan, sums, pending[p].span, ends, n_du,
                                         kDerivatives ? d : nullptr, du, &d[kParamCount]);
      out.flux[e] = static_cast<T>(mean);
      if (!kDerivatives) continue;
      for (int j = 0; j <= kParamCount; ++j) out.d[j][e] = static_cast<T>(d[j]);
      for (int j = 0; j < n_du; ++j) out.du[j][e] = static_cast<T>(du[j]);
    }
    n_nodes = n_pending = 0;
  };

  const auto add = [&](double at, double w, Role r) {
    node[n_nodes] = at;
    weight[n_nodes] = w;
    role[n_nodes++] = r;
  };
  const auto visit = [&](double at, double w, NodeSum into) {
    add(at, w, into == NodeSum::kWhole ? Role::kWhole : Role::kPart);
  };
  for (size_t e = begin; e < end; ++e) {
    if (n_nodes + kMaxExposureNodes + 2 > kNodes || n_pending == kExposures) flush();
    const double dt = static_cast<double>(t[e]) - t0, span = static_cast<double>(exposure[e]);
    const size_t first = n_nodes;
    const ExposurePlan plan = VisitExposureNodes(contacts, planet.orbit.period, dt, span, visit);
    if (kDerivatives && plan.valid) {
      add(dt - span / 2, 1.0, Role::kEnd);
      add(dt + span / 2, 1.0, Role::kEnd);
    }
    pending[n_pending++] = {e, n_nodes - first, span, plan};
    evaluations += static_cast<size_t>(plan.evaluations);
  }
  if (n_pending > 0) flush();
  return evaluations;
}

// Whether Block is the low-order law's (LowOrderTimes) or not (CurveTimes).
template <template <bool, size_t> class Block>
constexpr bool kLowOrderBlock = false;
template <>
constexpr bool kLowOrderBlock<LowOrderBlock> = true;

// A run of times [begin, end) of a planet without the planet's light, all
// with an exposure (`exposed`) or all without, through Block's blocks.
// Returns the evaluations of F.
template <template <bool, size_t> class Block, bool kDerivatives, typename T>
size_t BlockRun(const Planet& planet, const TransitWindow& window, const Contacts& contacts,
                bool exposed, const Times<T>& t, const T* exposure, const Outputs<T>& out,
                size_t begin, size_t end) {
  if (exposed) {
    return BlockExposures<Block, kDerivatives>(planet, window, contacts, t, exposure, out, begin,
                                               end);
  }
  if constexpr (kLowOrderBlock<Block>) {
    LowOrderTimes<kDerivatives>(planet, window, t, out, begin, end);
  } else {
    CurveTimes<kDerivatives>(planet, window, t, out, begin, end);
  }
  return end - begin;
}

// Times without an exposure with the planet's light (any law), a block at a
// time: every time's eccentric anomaly (SolveTimes; a circular orbit's
// without a solve), its position in the orbit (SkyOfEccentric) and, where the
// disks do not overlap, F - 1 of the phase curve and the star's modulation
// (CombineLight of LightTermsAt with no overlap) with its derivatives, in
// loops over the times that clang vectorises (kCircular: an orbit of e = 0,
// where 1 - e cos E is 1); then, in a block where the disks overlap (b < 1 +
// r) at some time, those times: a transit's from the gathered points of
// Block (LowOrderBlock for a low-order law, else CurveBlock), an eclipse's
// from a loop over the block's eclipses that vectorises
// (OverlapOfDisksInLanes), the others' (a planet of radius 0 behind the
// star) from OverlapAt, each combined a time at a time; NaN and infinite
// times by TransitElement. The same values as LightFluxAt's to rounding.
template <template <bool, size_t> class Block, bool kDerivatives, bool kCircular, typename T>
void LightTimesOf(const Planet& planet, const Times<T>& t, const T* exposure,
                  const Outputs<T>& out, size_t begin, size_t end) {
  constexpr size_t kBlock = 128;
  constexpr int kGrads = kParamCount + kLightParamCount;
  // Copied: the loops' stores cannot then alias them, which vectorising
  // needs.
  const Orbit orbit = planet.orbit;
  const Glow glow = planet.glow;
  // The disks overlap where b < 1 + r: where b^2 < reach2.
  const double reach2 = SquareThreshold(1 + planet.r);
  // Where they do not, b enters no result (CombineLight's b-derivatives
  // vanish with the overlap's): any b > 0 gives the same.
  constexpr double kNoB = 1.0;
  const int n_du = kDerivatives && out.du[0] ? planet.curve.n_du : 0;
  const TransitWindow every = {true, 0.0, 0.0, orbit.period};
  const Overlap none = {{0.0, 0.0, 0.0}, 1.0, 0.0, 0.0};
  // Tens of kB: on the heap, not the pool thread's stack.
  struct Scratch {
    double dt[kBlock], value[kBlock], grad[kGrads][kBlock];
    double sin_e[kBlock], cos_e[kBlock], omc[kBlock];
    double b2[kBlock];
    bool overlap[kBlock], front[kBlock];
    size_t at[kBlock];  // the times where the disks overlap
    double dt_in[kBlock];
    size_t in[kBlock];
    Block<kDerivatives, kBlock> transits;
    size_t behind[kBlock];  // the eclipses' times, and their overlaps
    double b2_behind[kBlock], hidden_area[kBlock], hidden_db[kBlock], hidden_dr[kBlock];
  };
  const std::unique_ptr<Scratch> scratch(new Scratch);
  Scratch& k = *scratch;
  k.transits.Prepare(planet);
  // The position of time i of the block (1 - e cos E of a circular orbit: 1).
  const auto sky_at = [&](size_t i) {
    Sky s =
        SkyOfEccentric<false>(orbit, k.dt[i], {k.sin_e[i], k.cos_e[i], k.omc[i], orbit.e, false});
    if (kCircular) s.den = 1.0;
    return s;
  };
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) k.dt[i] = static_cast<double>(t[start + i]) - orbit.t0;
    SolveTimesOf<kCircular>(orbit, k.dt, k.sin_e, k.cos_e, k.omc, m);
    size_t overlaps = 0;
    for (size_t i = 0; i < m; ++i) {
      const Sky s = sky_at(i);
      const bool overlap = !(s.b2 >= reach2) || !(k.dt[i] - k.dt[i] == 0);
      k.overlap[i] = overlap;
      k.front[i] = s.front;
      k.b2[i] = s.b2;
      overlaps += overlap;
      const LightTerms terms = LightTermsAt(orbit, glow, s.xw, s.yw, s.den, nullptr, nullptr);
      k.value[i] = CombineLight(terms, none, kNoB, nullptr, 0, nullptr, nullptr, nullptr);
    }
    if (kDerivatives) {
      for (size_t i = 0; i < m; ++i) {
        double d_b2[kParamCount], d_xw[kParamCount], d_yw[kParamCount], d[kParamCount];
        double d_glow[kLightParamCount];
        const Sky s = sky_at(i);
        SkyGradient(orbit, k.dt[i], s.sin_e, s.cos_e, s.den, d_b2, d_xw, d_yw);
        const LightTerms terms = LightTermsAt(orbit, glow, s.xw, s.yw, s.den, d_xw, d_yw);
        CombineLight(terms, none, kNoB, d_b2, 0, d, d_glow, nullptr);
        for (int j = 0; j < kParamCount; ++j) k.grad[j][i] = d[j];
        for (int j = 0; j < kLightParamCount; ++j) k.grad[kParamCount + j][i] = d_glow[j];
      }
    }
    for (size_t i = 0; i < m; ++i) out.flux[start + i] = static_cast<T>(k.value[i]);
    if (kDerivatives) {
      for (int j = 0; j < kParamCount; ++j) {
        for (size_t i = 0; i < m; ++i) out.d[j][start + i] = static_cast<T>(k.grad[j][i]);
      }
      for (size_t i = 0; i < m; ++i) out.d[kParamCount][start + i] = 0;
      for (int j = 0; j < kLightParamCount; ++j) {
        T* column = out.d[kParamCount + 1 + j];
        for (size_t i = 0; i < m; ++i) {
          column[start + i] = static_cast<T>(k.grad[kParamCount + j][i]);
        }
      }
      for (int j = 0; j < n_du; ++j) {
        for (size_t i = 0; i < m; ++i) out.du[j][start + i] = 0;
      }
    }
    if (overlaps == 0) continue;
    size_t n_at = 0;
    for (size_t i = 0; i < m; ++i) {
      if (k.overlap[i]) k.at[n_at++] = i;
    }
    // The transits, gathered into Block; the eclipses of a planet of
    // radius r > 0, in lanes.
    const double r = planet.r;
    size_t n_in = 0, n_behind = 0;
    for (size_t a = 0; a < n_at; ++a) {
      const size_t i = k.at[a];
      if (!(k.dt[i] - k.dt[i] == 0)) continue;
      if (k.front[i]) {
        k.in[n_in] = i;
        k.dt_in[n_in++] = k.dt[i];
      } else if (!k.front[i] && r > 0) {
        k.behind[n_behind] = i;
        k.b2_behind[n_behind++] = k.b2[i];
      }
    }
    if (n_in > 0) k.transits.Evaluate(planet, every, k.dt_in, n_in);
    for (size_t c = 0; c < n_behind; ++c) {
      const limb_dark::DiskOverlap hidden =
          limb_dark::OverlapOfDisksInLanes(std::sqrt(k.b2_behind[c]), r);
      k.hidden_area[c] = hidden.area;
      k.hidden_db[c] = hidden.d_db;
      k.hidden_dr[c] = hidden.d_dr;
    }
    size_t next_in = 0, next_transit = 0, next_behind = 0;
    for (size_t a = 0; a < n_at; ++a) {
      const size_t i = k.at[a];
      const size_t e = start + i;
      if (!(k.dt[i] - k.dt[i] == 0)) {
        TransitElement(planet, nullptr, nullptr, t[e], exposure, static_cast<std::int64_t>(e), out);
        continue;
      }
      const Sky s = sky_at(i);
      double d_b2[kParamCount], d_xw[kParamCount], d_yw[kParamCount];
      double d[kParamCount], d_glow[kLightParamCount], du[kMaxDerivativesInU];
      if (kDerivatives) SkyGradient(orbit, k.dt[i], s.sin_e, s.cos_e, s.den, d_b2, d_xw, d_yw);
      const LightTerms terms =
          LightTermsAt(orbit, glow, s.xw, s.yw, s.den, kDerivatives ? d_xw : nullptr,
                       kDerivatives ? d_yw : nullptr);
      double* du_or_null = n_du ? du : nullptr;
      const double b = std::sqrt(s.b2);
      Overlap overlap;
      const bool gathered = next_in < n_in && k.in[next_in] == i;
      if (gathered) ++next_in;
      if (gathered && next_transit < k.transits.count &&
          k.transits.index[next_transit] == next_in - 1) {
        overlap = none;
        overlap.transit = k.transits.FluxOf(next_transit++, du_or_null);
      } else if (next_behind < n_behind && k.behind[next_behind] == i) {
        overlap = BehindTheStar({k.hidden_area[next_behind], k.hidden_db[next_behind],
                                 k.hidden_dr[next_behind]},
                                planet.r);
        ++next_behind;
        for (int j = 0; j < n_du; ++j) du[j] = 0;
      } else {
        overlap = OverlapAt(planet, s.front, b, du_or_null);
      }
      const double value = CombineLight(terms, overlap, b, d_b2, n_du,
                                        kDerivatives ? d : nullptr, d_glow, du_or_null);
      out.flux[e] = static_cast<T>(value);
      if (!kDerivatives) continue;
      for (int j = 0; j < kParamCount; ++j) out.d[j][e] = static_cast<T>(d[j]);
      for (int j = 0; j < kLightParamCount; ++j) {
        out.d[kParamCount + 1 + j][e] = static_cast<T>(d_glow[j]);
      }
      for (int j = 0; j < n_du; ++j) out.du[j][e] = static_cast<T>(du[j]);
    }
  }
}

// LightTimesOf for the orbit: circular (e = 0) or not.
template <bool kDerivatives, typename T>
void LightTimes(const Planet& planet, bool low_order, const Times<T>& t, const T* exposure,
                const Outputs<T>& out, size_t begin, size_t end) {
  if (low_order && planet.orbit.e == 0) {
    LightTimesOf<LowOrderBlock, kDerivatives, true>(planet, t, exposure, out, begin, end);
  } else if (low_order) {
    LightTimesOf<LowOrderBlock, kDerivatives, false>(planet, t, exposure, out, begin, end);
  } else if (planet.orbit.e == 0) {
    LightTimesOf<CurveBlock, kDerivatives, true>(planet, t, exposure, out, begin, end);
  } else {
    LightTimesOf<CurveBlock, kDerivatives, false>(planet, t, exposure, out, begin, end);
  }
}

// With transit times: times in ascending order (no NaN; a period > 0)
// whose epochs' runs hold kMinRun times on average are read in place a run
// of one epoch at a time, each run shifted as it is read (Times:
// ShiftedTime's values, without its division and gather per time):
// EpochOf never decreases as t grows, so a run's end is found by bisection
// (RunOfEpochEnd). Other times go a chunk of kShiftChunk at a time, each
// chunk in runs where it can, else shifted a time at a time (ShiftedTime)
// into a buffer the chunks reuse: it stays in the cache, and the memory is
// the same for any n.
constexpr size_t kShiftChunk = 2048;
constexpr size_t kMinRun = 256;

template <typename T>
bool InRuns(T t0, T period, int epochs, const T* t, size_t n) {
  bool ascending = period > 0 && n > 0 && t[0] == t[0];
  for (size_t i = 1; i < n; ++i) ascending &= t[i - 1] <= t[i];
  if (!ascending) return false;
  const int runs =
      1 + EpochOf(t0, period, epochs, t[n - 1]) - EpochOf(t0, period, epochs, t[0]);
  return static_cast<size_t>(runs) * kMinRun <= n;
}

// In ascending times t[0..n) (InRuns), the end of the run of epoch k from
// `begin`: the first time of a later epoch, or n.
template <typename T>
size_t RunOfEpochEnd(T t0, T period, int epochs, int k, const T* t, size_t begin, size_t n) {
  if (EpochOf(t0, period, epochs, t[n - 1]) == k) return n;
  size_t lo = begin, hi = n - 1;  // epoch k at lo, a later one at hi
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (EpochOf(t0, period, epochs, t[mid]) == k) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

// The row is made ready once; its contacts once, at the first element with
// an exposure. Without the planet's light, runs of times without an
// exposure and runs of times with one go in blocks (BlockRun): a polynomial
// law of at most two coefficients LowOrderBlock's, any other law
// CurveBlock's (but the tabulated law's exposures); with the planet's
// light, runs of times without an exposure take LightTimes; the others go
// a time at a time (TransitElement).
//
// With transit times (epochs > 0), the times shifted by their epochs'
// variations as they are read (Times), a chunk at a time (kShiftChunk).
template <typename T>
size_t TransitRowLoop(const T* row, int order, Geometry geometry, limb_dark::Law law,
                      bool light, int epochs, const T* t, const T* exposure,
                      const Outputs<T>& out, size_t n) {
  // A table's row is several kB: on the heap, not the pool thread's stack.
  const std::unique_ptr<Planet> planet(new Planet);
  MakePlanetFromRow(row, order, geometry, law, light, epochs, planet.get());
  // A polynomial law of at most two coefficients: LowOrderBlock's.
  const bool low_order_law = IsLowOrder(PlanOf(law, order, light));
  const bool low_order = low_order_law && planet->valid && !light;
  // Any other law: CurveBlock's, the times with an exposure but for the
  // tabulated law's (its derivatives in u pass the exposure sums' room).
  const bool curve = !low_order_law && planet->valid && !light;
  const bool curve_exposures = law != limb_dark::Law::kTabulated;
  // The window serves the blocks of both.
  const TransitWindow window = low_order || curve ? MakeTransitWindow(planet->orbit, planet->r)
                                                  : TransitWindow{true, 0, 0, 0};
  Contacts contacts;
  OrbitBreaks breaks;
  bool found = false;
  // The times t[0..m) (exposures and outputs from the same element).
  const auto run = [&](const Times<T>& t, const T* exposure, const Outputs<T>& out, size_t m) {
    size_t evaluations = 0;
    for (size_t i = 0; i < m;) {
      if (!found && exposure[i] != 0) {
        if (light) {
          breaks = FindOrbitBreaks(*planet);
        } else {
          contacts = FindContacts(*planet);
        }
        found = true;
      }
      if (light && planet->valid && exposure[i] == 0) {
        const size_t stop = RunEnd(exposure, i, m, false);
        if (out.d[0]) {
          LightTimes<true>(*planet, low_order_law, t, exposure, out, i, stop);
        } else {
          LightTimes<false>(*planet, low_order_law, t, exposure, out, i, stop);
        }
        evaluations += stop - i;
        i = stop;
        continue;
      }
      const bool exposed = exposure[i] != 0;
      if (low_order || (curve && (!exposed || curve_exposures))) {
        // The run of times with (or without) an exposure from i.
        const size_t stop = RunEnd(exposure, i, m, exposed);
        const bool d = out.d[0] != nullptr;
        const auto& c = contacts;
        evaluations +=
            low_order
                ? (d ? BlockRun<LowOrderBlock, true>(*planet, window, c, exposed, t, exposure, out,
                                                     i, stop)
                     : BlockRun<LowOrderBlock, false>(*planet, window, c, exposed, t, exposure,
                                                      out, i, stop))
                : (d ? BlockRun<CurveBlock, true>(*planet, window, c, exposed, t, exposure, out, i,
                                                  stop)
                     : BlockRun<CurveBlock, false>(*planet, window, c, exposed, t, exposure, out,
                                                   i, stop));
        i = stop;
        continue;
      }
      evaluations += TransitElement(*planet, found && !light ? &contacts : nullptr,
                                    found && light ? &breaks : nullptr, t[i], exposure,
                                    static_cast<std::int64_t>(i), out);
      ++i;
    }
    return evaluations;
  };
  if (epochs == 0) return run(Times<T>{t, T(0)}, exposure, out, n);
  const T t0 = row[kT0], period = row[kPeriod];
  const T* variations = row + RowOffsetOfU(light);
  // The times [first, first + m) in runs of one epoch.
  const auto runs = [&](size_t first, size_t m) {
    const T* chunk = t + first;
    size_t evaluations = 0;
    for (size_t begin = 0; begin < m;) {
      const int k = EpochOf(t0, period, epochs, chunk[begin]);
      const size_t end = RunOfEpochEnd(t0, period, epochs, k, chunk, begin, m);
      evaluations += run(Times<T>{chunk + begin, variations[k]}, exposure + first + begin,
                         out.From(first + begin), end - begin);
      begin = end;
    }
    return evaluations;
  };
  if (InRuns(t0, period, epochs, t, n)) return runs(0, n);
  std::unique_ptr<T[]> shifted;  // made at the first chunk that needs it
  size_t evaluations = 0;
  for (size_t first = 0; first < n; first += kShiftChunk) {
    const size_t m = n - first < kShiftChunk ? n - first : kShiftChunk;
    const T* chunk = t + first;
    if (InRuns(t0, period, epochs, chunk, m)) {
      evaluations += runs(first, m);
      continue;
    }
    if (!shifted) shifted.reset(new T[n < kShiftChunk ? n : kShiftChunk]);
    for (size_t i = 0; i < m; ++i) {
      shifted[i] = ShiftedTime(t0, period, variations, epochs, chunk[i]);
    }
    evaluations += run(Times<T>{shifted.get(), T(0)}, exposure + first, out.From(first), m);
  }
  return evaluations;
}

}  // namespace

JAXEXT_ISA_LOOPS(TransitLoops, Loops, TransitRowLoop)

}  // namespace jaxext::transit::JAXEXT_ISA_NAMESPACE
