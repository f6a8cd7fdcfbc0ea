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

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext {
namespace transit {
namespace JAXEXT_ISA_NAMESPACE {
namespace {

// Times without an exposure of a polynomial law of at most two
// coefficients, in blocks: the orbit's separations in one loop, then, for
// the times in transit only (gathered), the light curve's low-order points
// (LowOrderLightCurvePoint) in another, loops that clang vectorises in the
// avx2 and avx512 variants (one time per lane); the points that path leaves
// (LightCurvePoint) and the chain rule in a scalar loop that stores the
// outputs. The same values as TransitElement's
// (FluxAt's) to rounding. kDerivatives false: the value alone.
template <bool kDerivatives, typename T>
void LowOrderTimes(const Planet& planet, const T* t, const Outputs<T>& out, size_t begin,
                   size_t end) {
  constexpr size_t kBlock = 128;
  const limb_dark::CurveRow& curve = planet.curve;
  const double g3[3] = {curve.g[0], curve.order >= 1 ? curve.g[1] : 0.0,
                        curve.order >= 2 ? curve.g[2] : 0.0};
  const Orbit& orbit = planet.orbit;
  const double r = planet.r;
  double b[kBlock], b2_by[kParamCount][kBlock], value[kBlock], f_db[kBlock], f_dr[kBlock];
  double ds[3][kBlock], fill[kBlock], b_in[kBlock];
  size_t index[kBlock];
  bool shown[kBlock], ok[kBlock];
  for (size_t start = begin; start < end; start += kBlock) {
    const size_t m = end - start < kBlock ? end - start : kBlock;
    for (size_t i = 0; i < m; ++i) {
      const double dt = static_cast<double>(t[start + i]) - orbit.t0;
      const Sky s = SkyAtFixed<kDerivatives>(orbit, dt);
      b[i] = std::sqrt(s.b2);
      // NaN or inf times: NaN everywhere (FluxAt's rule); behind the star: 0.
      fill[i] = dt - dt == 0 ? 0.0 : dt - dt;
      shown[i] = s.front && dt - dt == 0;
      if (kDerivatives) {
        for (int j = 0; j < kParamCount; ++j) b2_by[j][i] = s.d_b2[j];
      }
    }
    // The times in transit, gathered: the light curve only for those.
    size_t count = 0;
    for (size_t i = 0; i < m; ++i) {
      if (shown[i] && b[i] < 1 + r) {
        index[count] = i;
        b_in[count++] = b[i];
      }
    }
    for (size_t k = 0; k < count; ++k) {
      const limb_dark::LowOrderPoint p =
          limb_dark::LowOrderLightCurvePoint(b_in[k], r, g3, curve.norm);
      value[k] = p.flux.value;
      f_db[k] = p.flux.d_db;
      f_dr[k] = p.flux.d_dr;
      for (int j = 0; j < 3; ++j) ds[j][k] = p.ds[j];
      ok[k] = p.ok;
    }
    // Every time as out of transit (0, or NaN where the time is NaN or
    // inf), then the times in transit.
    for (size_t i = 0; i < m; ++i) {
      out.flux[start + i] = static_cast<T>(fill[i]);
      if (!kDerivatives) continue;
      for (int j = 0; j <= kParamCount; ++j) out.d[j][start + i] = static_cast<T>(fill[i]);
      if (out.du[0]) {
        for (int j = 0; j < curve.order; ++j) out.du[j][start + i] = static_cast<T>(fill[i]);
      }
    }
    for (size_t k = 0; k < count; ++k) {
      const size_t i = index[k], e = start + i;
      limb_dark::Flux f = {value[k], f_db[k], f_dr[k]};
      double point_ds[limb_dark::kMaxOrder + 1];
      for (int j = 0; j < 3; ++j) point_ds[j] = ds[j][k];
      if (!ok[k]) {
        f = limb_dark::LightCurvePoint(b[i], r, curve.g, curve.q, curve.order, curve.norm,
                                       point_ds);
      }
      out.flux[e] = static_cast<T>(f.value);
      if (!kDerivatives) continue;
      const double chain = b[i] > 0 ? f.d_db / (2 * b[i]) : 0.0;
      for (int j = 0; j < kParamCount; ++j) out.d[j][e] = static_cast<T>(chain * b2_by[j][i]);
      out.d[kRadius][e] = static_cast<T>(f.d_dr);
      if (out.du[0]) {
        double du[limb_dark::kMaxOrder];
        limb_dark::FluxGradientInU(point_ds, f.value, curve.norm, curve.order, du);
        for (int j = 0; j < curve.order; ++j) out.du[j][e] = static_cast<T>(du[j]);
      }
    }
  }
}

// The row is made ready once; its contacts once, at the first element with
// an exposure. Runs of times without an exposure of a polynomial law of at
// most two coefficients take LowOrderTimes.
template <typename T>
size_t TransitRowLoop(const T* row, int order, Geometry geometry, limb_dark::Law law,
                      const T* t, const T* exposure, const Outputs<T>& out, size_t n) {
  // A table's row is several kB: on the heap, not the pool thread's stack.
  const std::unique_ptr<Planet> planet(new Planet);
  MakePlanetFromRow(row, order, geometry, law, planet.get());
  const bool low_order = law == limb_dark::Law::kPolynomial && order <= 2 && planet->valid;
  Contacts contacts;
  bool found = false;
  size_t evaluations = 0;
  for (size_t i = 0; i < n;) {
    if (low_order && exposure[i] == 0) {
      size_t stop = i;
      while (stop < n && exposure[stop] == 0) ++stop;
      if (out.d[0]) {
        LowOrderTimes<true>(*planet, t, out, i, stop);
      } else {
        LowOrderTimes<false>(*planet, t, out, i, stop);
      }
      evaluations += stop - i;
      i = stop;
      continue;
    }
    if (!found && exposure[i] != 0) {
      contacts = FindContacts(*planet);
      found = true;
    }
    evaluations += TransitElement(*planet, found ? &contacts : nullptr, t, exposure,
                                  static_cast<std::int64_t>(i), out);
    ++i;
  }
  return evaluations;
}

}  // namespace

const TransitLoops& Loops() {
  static constexpr TransitLoops kLoops = {&TransitRowLoop<float>, &TransitRowLoop<double>};
  return kLoops;
}

}  // namespace JAXEXT_ISA_NAMESPACE
}  // namespace transit
}  // namespace jaxext
