// The transit model's loop, written once; compiled once per instruction-set
// variant like the other ops' loops (per_isa_cc_library), with
// JAXEXT_ISA_NAMESPACE naming its entry point's namespace and
// JAXEXT_MATH_NAMESPACE giving its copy of the math symbols of its own.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_cpu_loops.h"
#include "jaxlib_ext/transit/transit_window.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext::transit::JAXEXT_ISA_NAMESPACE {
namespace {

// F - 1 of a planet whose law is polynomial of at most two coefficients at
// up to kSize times (relative to t0): the times its transit window keeps
// (transit_window.h; F - 1 is 0 elsewhere) gathered, their separations in
// one loop; then, for the times in transit only (gathered), the
// separations' derivatives and the light curve's low-order points
// (LowOrderLightCurvePoint) in others, loops that clang vectorises in the
// avx2 and avx512 variants (one time per lane); InTransit then gives a time
// in transit with the points that path leaves (LightCurvePoint) and the
// chain rule. The same values as FluxAt's to rounding. kDerivatives false:
// the value alone. The gathered loops run over whole vectors (kLanes, the
// widest: AVX-512's doubles), padded with a copy of a real entry: a few
// times in a block would otherwise take the loops' scalar remainders, with
// Kepler's equation solved at a scalar's latency.
constexpr size_t kLanes = 8;

constexpr size_t Padded(size_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

template <bool kDerivatives, size_t kSize>
struct LowOrderBlock {
  static constexpr size_t kRoom = Padded(kSize);
  const Planet* planet;
  double fill[kSize];      // F - 1 out of transit: 0, or NaN where the time is NaN or inf
  size_t count;            // the times in transit
  size_t index[kSize];     // their positions among the times, ascending
  // Of the times in transit, by their place in index (then the padding):
  double b[kRoom], b2_by[kParamCount][kRoom];
  double value[kRoom], f_db[kRoom], f_dr[kRoom], ds[3][kRoom];
  bool ok[kRoom];

  // The times dt[0..m). The orbit and the law are copied: the loops' stores
  // into the block then cannot alias them, which vectorising needs.
  void Evaluate(const Planet& p, const TransitWindow& window, const double* __restrict dt,
                size_t m) {
    planet = &p;
    const Orbit orbit = p.orbit;
    const limb_dark::CurveRow& curve = p.curve;
    const double g3[3] = {curve.g[0], curve.order >= 1 ? curve.g[1] : 0.0,
                          curve.order >= 2 ? curve.g[2] : 0.0};
    const double r = p.r, norm = curve.norm;
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
    double b_near[kRoom], sin_e[kRoom], cos_e[kRoom], den[kRoom];
    for (size_t c = 0; c < Padded(kept); ++c) {
      const Sky s = SkyAtFixed<false>(orbit, dt_near[c]);
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
    for (size_t k = 0; k < Padded(count); ++k) {
      const limb_dark::LowOrderPoint point = limb_dark::LowOrderLightCurvePoint(b[k], r, g3, norm);
      value[k] = point.flux.value;
      f_db[k] = point.flux.d_db;
      f_dr[k] = point.flux.d_dr;
      for (int j = 0; j < 3; ++j) ds[j][k] = point.ds[j];
      ok[k] = point.ok;
    }
  }

  // The k-th time in transit: F - 1, and with kDerivatives d[Param] and,
  // with du non-null, du[0..order).
  double InTransit(size_t k, double* d, double* du) const {
    const limb_dark::CurveRow& curve = planet->curve;
    limb_dark::Flux f = {value[k], f_db[k], f_dr[k]};
    double point_ds[limb_dark::kMaxOrder + 1];
    for (int j = 0; j < 3; ++j) point_ds[j] = ds[j][k];
    if (!ok[k]) {
      f = limb_dark::LightCurvePoint(b[k], planet->r, curve.g, curve.q, curve.order, curve.norm,
                                     point_ds);
    }
    if (kDerivatives) {
      const double chain = b[k] > 0 ? f.d_db / (2 * b[k]) : 0.0;
      for (int j = 0; j < kParamCount; ++j) d[j] = chain * b2_by[j][k];
      d[kRadius] = f.d_dr;
      if (du) limb_dark::FluxGradientInU(point_ds, f.value, curve.norm, curve.order, du);
    }
    return f.value;
  }
};

// Times without an exposure (LowOrderBlock's law), a block at a time: every
// time stored as out of transit, then the times in transit.
template <bool kDerivatives, typename T>
void LowOrderTimes(const Planet& planet, const TransitWindow& window, const T* t,
                   const Outputs<T>& out, size_t begin, size_t end) {
  constexpr size_t kBlock = 128;
  const int order = planet.curve.order;
  LowOrderBlock<kDerivatives, kBlock> block;
  double dt[kBlock];
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) dt[i] = static_cast<double>(t[start + i]) - planet.orbit.t0;
    block.Evaluate(planet, window, dt, m);
    const auto fill = [&](T* column) {
      for (size_t i = 0; i < m; ++i) column[start + i] = static_cast<T>(block.fill[i]);
    };
    fill(out.flux);
    if (kDerivatives) {
      for (int j = 0; j <= kParamCount; ++j) fill(out.d[j]);
      if (out.du[0]) {
        for (int j = 0; j < order; ++j) fill(out.du[j]);
      }
    }
    for (size_t k = 0; k < block.count; ++k) {
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

// Times with an exposure (LowOrderBlock's law): the nodes of their
// quadratures (VisitExposureNodes) gathered across exposures into blocks of
// LowOrderBlock's times, with the exposures' ends where the derivative in T
// needs them, then summed per exposure (FinishExposure). The same values as
// ExposureMean's to rounding. Returns the evaluations of F for the means.
template <bool kDerivatives, typename T>
size_t LowOrderExposures(const Planet& planet, const TransitWindow& window,
                         const Contacts& contacts, const T* t, const T* exposure,
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
    LowOrderBlock<kDerivatives, kNodes> block;
    double node[kNodes], weight[kNodes];
    Role role[kNodes];
    Pending pending[kExposures];
  };
  const std::unique_ptr<Scratch> scratch(new Scratch);
  LowOrderBlock<kDerivatives, kNodes>& block = scratch->block;
  double* node = scratch->node;
  double* weight = scratch->weight;
  Role* role = scratch->role;
  Pending* pending = scratch->pending;
  const int n_du = kDerivatives && out.du[0] ? planet.curve.order : 0;
  const double t0 = planet.orbit.t0;
  size_t n_nodes = 0, n_pending = 0, evaluations = 0;

  const auto flush = [&]() {
    block.Evaluate(planet, window, node, n_nodes);
    size_t i = 0, k = 0;
    for (size_t p = 0; p < n_pending; ++p) {
      ExposureSums sums;
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

// Times without an exposure with the planet's light (any law), a block at a
// time: every time's position in the orbit (SkyAtFixed) and, from it, F - 1
// of the planet's phase curve and the star's modulation alone (LightFluxAt
// where the disks do not overlap: no transit deficit, the planet wholly
// visible), with its derivatives, in loops over the times that clang
// vectorises; then the times where the disks overlap (b < 1 + r, in transit
// or in eclipse) or that are NaN or infinite go one at a time
// (TransitElement). The same values as LightFluxAt's to rounding.
template <bool kDerivatives, typename T>
void LightTimes(const Planet& planet, const T* t, const T* exposure, const Outputs<T>& out,
                size_t begin, size_t end) {
  constexpr size_t kBlock = 128;
  constexpr int kGrads = kParamCount + kLightParamCount;
  // Copied: the loops' stores cannot then alias them, which vectorising
  // needs.
  const Orbit orbit = planet.orbit;
  const double reach = 1 + planet.r;
  const double night = planet.glow[kNightFlux], beaming = planet.glow[kBeaming];
  const double day_minus_night = planet.glow[kPlanetFlux] - night;
  const double ellipsoidal = planet.glow[kEllipsoidal];
  const double cos_offset = planet.cos_offset, sin_offset = planet.sin_offset;
  const int n_du = kDerivatives && out.du[0] ? planet.curve.n_du : 0;
  // Tens of kB: on the heap, not the pool thread's stack.
  struct Scratch {
    double dt[kBlock], value[kBlock], grad[kGrads][kBlock];
    double sin_e[kBlock], cos_e[kBlock], den[kBlock], xw[kBlock], yw[kBlock];
    bool overlap[kBlock];
  };
  const std::unique_ptr<Scratch> scratch(new Scratch);
  Scratch& k = *scratch;
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) k.dt[i] = static_cast<double>(t[start + i]) - orbit.t0;
    for (size_t i = 0; i < m; ++i) {
      const Sky s = SkyAtFixed<false>(orbit, k.dt[i]);
      k.overlap[i] = !(std::sqrt(s.b2) >= reach) || !(k.dt[i] - k.dt[i] == 0);
      const double inv = 1 / (orbit.a * s.den);
      const double cos_wf = s.xw * inv, sin_wf = s.yw * inv;
      const double cos_po = sin_wf * cos_offset + cos_wf * sin_offset;
      const double phase = night + day_minus_night * ((1 - cos_po) / 2);
      const double velocity = cos_wf + orbit.e * orbit.cos_w;
      const double cos_2phi = (sin_wf - cos_wf) * (sin_wf + cos_wf);
      k.value[i] = (-beaming * velocity - ellipsoidal * cos_2phi) + phase;
      k.sin_e[i] = s.sin_e;
      k.cos_e[i] = s.cos_e;
      k.den[i] = s.den;
      k.xw[i] = s.xw;
      k.yw[i] = s.yw;
    }
    if (kDerivatives) {
      for (size_t i = 0; i < m; ++i) {
        double d_b2[kParamCount], d_xw[kParamCount], d_yw[kParamCount];
        SkyGradient(orbit, k.dt[i], k.sin_e[i], k.cos_e[i], k.den[i], d_b2, d_xw, d_yw);
        const double inv = 1 / (orbit.a * k.den[i]);
        const double cos_wf = k.xw[i] * inv, sin_wf = k.yw[i] * inv;
        const double cos_po = sin_wf * cos_offset + cos_wf * sin_offset;
        const double sin_po = -cos_wf * cos_offset + sin_wf * sin_offset;
        const double velocity = cos_wf + orbit.e * orbit.cos_w;
        JAXEXT_UNROLL
        for (int j = 0; j < kParamCount; ++j) {
          const double d_angle = (k.xw[i] * d_yw[j] - k.yw[i] * d_xw[j]) * inv * inv;
          const double d_cos_wf = -sin_wf * d_angle, d_sin_wf = cos_wf * d_angle;
          const double d_velocity = d_cos_wf + (j == kEccentricity ? orbit.cos_w : 0.0) -
                                    (j == kOmega ? orbit.e * orbit.sin_w : 0.0);
          const double d_cos_2phi = 2 * (sin_wf * d_sin_wf - cos_wf * d_cos_wf);
          const double d_star = -beaming * d_velocity - ellipsoidal * d_cos_2phi;
          k.grad[j][i] = d_star + day_minus_night * sin_po / 2 * d_angle;
        }
        k.grad[kRadius][i] = 0;
        const double shape = (1 - cos_po) / 2;
        k.grad[kParamCount + kPlanetFlux][i] = shape;
        k.grad[kParamCount + kNightFlux][i] = 1 - shape;
        k.grad[kParamCount + kPhaseOffset][i] = day_minus_night * sin_po / 2;
        k.grad[kParamCount + kBeaming][i] = -velocity;
        k.grad[kParamCount + kEllipsoidal][i] = -((sin_wf - cos_wf) * (sin_wf + cos_wf));
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
        for (size_t i = 0; i < m; ++i) column[start + i] = static_cast<T>(k.grad[kParamCount + j][i]);
      }
      for (int j = 0; j < n_du; ++j) {
        for (size_t i = 0; i < m; ++i) out.du[j][start + i] = 0;
      }
    }
    for (size_t i = 0; i < m; ++i) {
      if (k.overlap[i]) {
        TransitElement(planet, nullptr, nullptr, t, exposure, static_cast<std::int64_t>(start + i),
                       out);
      }
    }
  }
}

// The row is made ready once; its contacts once, at the first element with
// an exposure. A polynomial law of at most two coefficients without the
// planet's light takes LowOrderTimes for runs of times without an exposure
// and LowOrderExposures for runs with one; with the planet's light, runs of
// times without an exposure take LightTimes; the others go a time at a time
// (TransitElement).
template <typename T>
size_t TransitRowLoop(const T* row, int order, Geometry geometry, limb_dark::Law law,
                      bool light, const T* t, const T* exposure, const Outputs<T>& out,
                      size_t n) {
  // A table's row is several kB: on the heap, not the pool thread's stack.
  const std::unique_ptr<Planet> planet(new Planet);
  MakePlanetFromRow(row, order, geometry, law, light, planet.get());
  const bool low_order =
      law == limb_dark::Law::kPolynomial && order <= 2 && planet->valid && !light;
  // The window serves the low-order blocks alone.
  const TransitWindow window =
      low_order ? MakeTransitWindow(planet->orbit, planet->r) : TransitWindow{true, 0, 0, 0};
  Contacts contacts;
  OrbitBreaks breaks;
  bool found = false;
  size_t evaluations = 0;
  for (size_t i = 0; i < n;) {
    if (!found && exposure[i] != 0) {
      if (light) {
        breaks = FindOrbitBreaks(*planet);
      } else {
        contacts = FindContacts(*planet);
      }
      found = true;
    }
    if (light && planet->valid && exposure[i] == 0) {
      size_t stop = i;
      while (stop < n && exposure[stop] == 0) ++stop;
      if (out.d[0]) {
        LightTimes<true>(*planet, t, exposure, out, i, stop);
      } else {
        LightTimes<false>(*planet, t, exposure, out, i, stop);
      }
      evaluations += stop - i;
      i = stop;
      continue;
    }
    if (low_order) {
      // The run of times with (or without) an exposure from i.
      const bool exposed = exposure[i] != 0;
      size_t stop = i;
      while (stop < n && (exposure[stop] != 0) == exposed) ++stop;
      if (exposed) {
        evaluations +=
            out.d[0]
                ? LowOrderExposures<true>(*planet, window, contacts, t, exposure, out, i, stop)
                : LowOrderExposures<false>(*planet, window, contacts, t, exposure, out, i, stop);
      } else {
        if (out.d[0]) {
          LowOrderTimes<true>(*planet, window, t, out, i, stop);
        } else {
          LowOrderTimes<false>(*planet, window, t, out, i, stop);
        }
        evaluations += stop - i;
      }
      i = stop;
      continue;
    }
    evaluations += TransitElement(*planet, found && !light ? &contacts : nullptr,
                                  found && light ? &breaks : nullptr, t, exposure,
                                  static_cast<std::int64_t>(i), out);
    ++i;
  }
  return evaluations;
}

}  // namespace

JAXEXT_ISA_LOOPS(TransitLoops, Loops, TransitRowLoop)

}  // namespace jaxext::transit::JAXEXT_ISA_NAMESPACE
