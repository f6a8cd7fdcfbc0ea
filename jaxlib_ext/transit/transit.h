// The transit model: a planet on a Keplerian orbit in front of a
// limb-darkened star, F - 1 at times t, averaged over exposures of length T,
// with the first derivatives in every parameter from the same pass.
//
// The math, read top-down: exposure.h (the exposure's mean), contacts.h
// (the transit's contact times, where the mean's integrals are split),
// planet_flux.h (F - 1 at one time and its derivatives), orbit.h (the sky
// separation from Kepler's equation, jaxlib_ext/kepler_solve/), and the
// light curve of jaxlib_ext/limb_dark/. Header-only, host and device
// (jaxlib_ext/host_device.h); computes in double for float32 and float64.
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_H_

#include <cstdint>
#include <type_traits>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/limb_dark/law_call.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/contacts.h"
#include "jaxlib_ext/transit/exposure.h"
#include "jaxlib_ext/transit/orbit.h"
#include "jaxlib_ext/transit/planet_flux.h"
#include "jaxlib_ext/transit/transit_window.h"

namespace jaxext::transit {

// The result buffers of a call (transit_ffi.h), those of every op taking a
// law (limb_dark/law_call.h): F - 1; dF/d parameter j for j < kParamCount,
// dF/dT at kParamCount and, with the planet's light, dF/d LightParam j at
// kParamCount + 1 + j (d[0] null: the value alone); dF/du_j (du[0] null:
// not asked for).
constexpr int kFirstDerivatives = kParamCount + 1 + kLightParamCount;
template <typename T>
using Outputs = limb_dark::LawOutputs<T, kFirstDerivatives>;

inline namespace JAXEXT_MATH_NAMESPACE {

// The op's row: the orbital parameters (Param order), with the planet's
// light its LightParams, then the law's coefficients.
JAXEXT_HD constexpr int RowOffsetOfU(bool light) {
  return kParamCount + (light ? kLightParamCount : 0);
}

// A row of the op's parameters made ready: `row` holds RowOffsetOfU(light)
// parameters, `epochs` timing variations (ShiftedTime), then `order`
// coefficients of `law`.
template <typename T, typename Curve>
JAXEXT_HD void MakePlanetFromRow(const T* row, int order, Geometry geometry, limb_dark::Law law,
                                 bool light, int epochs, PlanetOf<Curve>* planet) {
  double p[kParamCount + kLightParamCount];
  const int offset = RowOffsetOfU(light);
  for (int j = 0; j < offset; ++j) p[j] = static_cast<double>(row[j]);
  const T* coefficients = row + offset + epochs;
  if constexpr (limb_dark::kReadsRowOf<Curve>) {
    MakePlanet(p, geometry, law, coefficients, order, light, planet);
  } else {
    double u[Curve::kMaxCoefficients];
    for (int j = 0; j < order && j < Curve::kMaxCoefficients; ++j) {
      u[j] = static_cast<double>(coefficients[j]);
    }
    MakePlanet(p, geometry, law, u, order, light, planet);
  }
}

// The transit times of kepler.transit's `transit_times`: a row of `epochs`
// > 0 holds, after its RowOffsetOfU(light) parameters, the variations v_k =
// T_k - t0 - k P of epochs k = 0 .. epochs - 1 (`variations`), then the
// law's coefficients. A time t is evaluated at t - v_k, k = round((t - t0) /
// P) (halves to even) clipped to [0, epochs - 1], in T's own arithmetic, as
// kepler/transit.py computes it without the op: the same times to the bit.
// The rounding adds and takes away 1.5 2^(p - 1) (p: T's digits), exact
// below 2^(p - 2) in magnitude: x is clamped to [-1, epochs] first, which
// leaves the clipped epoch as it was (NaN goes to -1: epoch 0).
// t0 and period: the row's (row[kT0], row[kPeriod]). EpochOf gives k.
// For a period > 0 every step is monotone, so k never decreases as t
// grows (the CPU loop reads ascending times a run of one epoch at a time:
// transit_cpu_loops.cc's InRuns).
template <typename T>
JAXEXT_HD int EpochOf(T t0, T period, int epochs, T t) {
  constexpr T kRound = sizeof(T) == 8 ? T(6755399441055744.0) : T(12582912.0f);
  T x = (t - t0) / period;
  x = x > T(-1) ? (x < T(epochs) ? x : T(epochs)) : T(-1);
  T k = (x + kRound) - kRound;
  k = k < T(0) ? T(0) : k > T(epochs - 1) ? T(epochs - 1) : k;
  return static_cast<int>(k);
}

template <typename T>
JAXEXT_HD T ShiftedTime(T t0, T period, const T* variations, int epochs, T t) {
  return t - variations[EpochOf(t0, period, epochs, t)];
}

// The code an element carries for the planet's light: the row's choice
// at run time (kEither), or a kernel's for rows without it (kNone) or with it
// (kOnly), which leaves the other's calls out.
enum class LightCode { kEither, kNone, kOnly };

// The same for the exposure: T chosen at run time (kEither), or a kernel's
// for times with T = 0 alone (kInstant) or T != 0 alone (kExposed).
enum class SpanCode { kEither, kInstant, kExposed };

// Stores element i into `out`: F - 1 (`value`) and, where the call asks
// for them, dF/d parameter j from d[j] (with the planet's light, `light`,
// also its LightParams') and dF/du_j from du[j] for j < n_du; d and du null:
// every derivative 0.
template <typename T>
JAXEXT_HD void StoreElement(const Outputs<T>& out, std::int64_t i, double value, const double* d,
                            const double* du, bool light, int n_du) {
  out.flux[i] = static_cast<T>(value);
  if (!out.d[0]) return;
  const int columns = light ? kFirstDerivatives : kParamCount + 1;
  for (int j = 0; j < columns; ++j) out.d[j][i] = d ? static_cast<T>(d[j]) : T(0);
  for (int j = 0; out.du[0] && j < n_du; ++j) out.du[j][i] = du ? static_cast<T>(du[j]) : T(0);
}

// Element i: F - 1 at `time` (t[i], or ShiftedTime's) averaged over the
// exposure T[i] (T = 0: at the time itself; T < 0 or NaN: NaN), stored with
// its derivatives into `out`.
// `contacts` (the planet's, FindContacts) and `breaks` (with the planet's
// light, FindOrbitBreaks): or null to find them here where an exposure
// needs them. kCode and kSpan other than kEither: the planet's light and
// the exposure are as they say. Returns the number of evaluations of F.
template <LightCode kCode = LightCode::kEither, SpanCode kSpan = SpanCode::kEither, typename T,
          typename Curve>
JAXEXT_HD int TransitElement(const PlanetOf<Curve>& planet, const Contacts* contacts,
                             const OrbitBreaks* breaks, T time, const T* exposure,
                             std::int64_t i, const Outputs<T>& out) {
  const bool light = kCode == LightCode::kEither ? planet.light : kCode == LightCode::kOnly;
  const int n_du = planet.curve.n_du;
  const bool derivatives = out.d[0] != nullptr;
  // Without the planet's light, no columns of its parameters.
  constexpr int kColumns = kCode == LightCode::kNone ? kParamCount + 1 : kFirstDerivatives;
  double d[kColumns], du[Curve::kMaxDerivatives];
  double* d_glow = derivatives && kColumns > kParamCount + 1 ? d + kParamCount + 1 : nullptr;
  const double dt = static_cast<double>(time) - planet.orbit.t0;
  const double span = static_cast<double>(exposure[i]);
  double value;
  int evaluations = 1;
  if (kSpan == SpanCode::kEither ? span == 0 : kSpan == SpanCode::kInstant) {
    value = light ? LightFluxAt(planet, dt, derivatives ? d : nullptr, d_glow,
                                derivatives ? du : nullptr)
                  : FluxAt(planet, dt, derivatives ? d : nullptr, derivatives ? du : nullptr);
    // The mean's derivative in T vanishes at T = 0.
    d[kParamCount] = value == value ? 0.0 : value;
  } else if (light) {
    OrbitBreaks found;
    if (!breaks) {
      found = FindOrbitBreaks(planet);
      breaks = &found;
    }
    value = LightExposureMean(planet, *breaks, dt, span, derivatives ? d : nullptr, d_glow,
                              derivatives ? du : nullptr, &d[kParamCount], &evaluations);
  } else {
    Contacts found;
    if (!contacts) {
      found = FindContacts(planet);
      contacts = &found;
    }
    value = ExposureMean(planet, *contacts, dt, span, derivatives ? d : nullptr,
                         derivatives ? du : nullptr, &d[kParamCount], &evaluations);
  }
  StoreElement(out, i, value, d, du, light, n_du);
  return evaluations;
}

// Whether the planet cannot reach the star during the exposure [dt - T/2,
// dt + T/2] (T = 0: at dt): it lies between two of the transit's windows
// (MakeTransitWindow), where F - 1, its mean and every derivative are 0. No
// planet's light, a valid planet, finite dt and T >= 0 with T shorter than
// the gap, and dt within kMaxOrbitIndex orbits of t0 (beyond it the
// exposure's mean is NaN: VisitExposureNodes); false otherwise.
template <typename Curve>
JAXEXT_HD bool OutsideWindows(const PlanetOf<Curve>& planet, double dt, double T) {
  if (!planet.valid || planet.light || !math::IsFinite(dt) || !(T >= 0) ||
      !(math::Abs(dt) / planet.orbit.period <= kMaxOrbitIndex)) {
    return false;
  }
  return ExposureMissesWindows(MakeTransitWindow(planet.orbit, planet.r), dt, T);
}

// The mark the window pass leaves on a time for the pass of kSpan.
JAXEXT_HD constexpr int WindowMarkOf(SpanCode kSpan) { return kSpan == SpanCode::kExposed; }

// Whether the window pass marked a time (its F - 1 in `value`), for
// either later pass.
template <typename T>
JAXEXT_HD bool IsWindowMarked(T value) {
  return IsMarkedLeft(value, WindowMarkOf(SpanCode::kInstant)) ||
         IsMarkedLeft(value, WindowMarkOf(SpanCode::kExposed));
}

// The passes over a call's times (transit_kernel.cu's Launch, and tests/
// device_path_loops.cc as the host runs them), by the family of the law,
// each with that family's row (limb_dark.h): the polynomial laws of at
// most two coefficients (the quadratic law's) hold their law in arrays
// sized for two (PlanetOf<LowOrderCurve>), the laws of laws.h their terms
// (PlanetOf<LawCurve>). Those two families run in passes: rows with the
// planet's light in two (kLowOrderLight, kLawsLight: the times without an
// exposure, marking the others, then the exposed times' batches,
// exposure_batch.h), rows without it in three (kLowOrderPasses,
// kLawsPasses: the window pass, then the instants', then the exposed
// times'). The other polynomial laws and the tabulated law, whose rows
// hold arrays of 33 to 640 values, too many for a batch's shared memory,
// run in two (kPolynomial, kTabulated): the window pass, whose rows hold
// the law's verdict alone (WindowCurve) and which marks every time of a
// row with the planet's light, then the times it marked, instants and
// exposed alike, a time at a time with the family's row
// (TransitRowElement<PolynomialCurve or TableCurve, kEither, kEither,
// false>). The CPU loop (transit_cpu_loops.cc) takes its low-order law
// from here too.
enum class TransitPlan {
  kLowOrderLight,
  kLowOrderPasses,
  kLawsLight,
  kLawsPasses,
  kPolynomial,
  kTabulated
};
using LowOrderCurve = limb_dark::PolynomialCurveRow<2>;
using PolynomialCurve = limb_dark::PolynomialCurveRow<limb_dark::kMaxOrder>;
using LawCurve = limb_dark::LawCurveRow;
using TableCurve = limb_dark::TableCurveRow;

// The row a pass of a family's passes holds: the laws of laws.h, where
// the pass computes its times one at a time (kOneAtATime: the instants',
// the light's first pass), with their point's rule's code alone
// (LawCurveRowByRule: on a GPU one rule's stack, not every rule's side by
// side); elsewhere (the window pass, the exposures' batches) with every
// rule's code inlined in the flux (the batches' flux spills less so;
// nvcc 13.5, docs/gpu.md). The same values either way.
template <typename Curve, bool kOneAtATime>
using PassCurve = std::conditional_t<std::is_same_v<Curve, LawCurve> && kOneAtATime,
                                     limb_dark::LawCurveRowByRule, Curve>;

// The row the window pass of a family's passes holds: for the polynomial
// laws of three or more coefficients and the tabulated law their verdict
// alone (limb_dark's PolynomialVerdictRow, TableVerdictRow: the law read
// where it lies, none of the family's arrays); the family's own row
// otherwise.
template <typename Curve>
using WindowCurve = std::conditional_t<
    std::is_same_v<Curve, PolynomialCurve>, limb_dark::PolynomialVerdictRow<limb_dark::kMaxOrder>,
    std::conditional_t<std::is_same_v<Curve, TableCurve>, limb_dark::TableVerdictRow, Curve>>;

JAXEXT_HD constexpr TransitPlan PlanOf(limb_dark::Law law, int order, bool light) {
  return law == limb_dark::Law::kTabulated    ? TransitPlan::kTabulated
         : law != limb_dark::Law::kPolynomial ? (light ? TransitPlan::kLawsLight
                                                       : TransitPlan::kLawsPasses)
         : order > 2                          ? TransitPlan::kPolynomial
         : light                              ? TransitPlan::kLowOrderLight
                                              : TransitPlan::kLowOrderPasses;
}

JAXEXT_HD constexpr bool IsLowOrder(TransitPlan plan) {
  return plan == TransitPlan::kLowOrderLight || plan == TransitPlan::kLowOrderPasses;
}

// Whether a plan's rows have the planet's light, in the two passes of such
// rows (the first computes the times without an exposure and marks the
// others).
JAXEXT_HD constexpr bool IsLightPasses(TransitPlan plan) {
  return plan == TransitPlan::kLowOrderLight || plan == TransitPlan::kLawsLight;
}

// Element i's planet, row i / group_size of `rows` (RowOffsetOfU(light)
// parameters, `epochs` timing variations, `order` coefficients of `law`)
// made ready as PlanetOf<Curve>, and its time: t[i], shifted by its epoch's
// variation (ShiftedTime).
template <typename Curve, typename T>
JAXEXT_HD T MakeRowElement(const T* rows, const T* t, int order, std::int64_t group_size,
                           Geometry geometry, limb_dark::Law law, bool light, int epochs,
                           std::int64_t i, PlanetOf<Curve>* planet) {
  const int offset = RowOffsetOfU(light);
  const T* row = rows + (i / group_size) * (offset + epochs + order);
  MakePlanetFromRow(row, order, geometry, law, light, epochs, planet);
  return epochs > 0 ? ShiftedTime(row[kT0], row[kPeriod], row + offset, epochs, t[i]) : t[i];
}

// The transit kernels' element i (transit_kernel.cu, and tests/
// device_path_loops.cc as the host runs it): its planet and time
// (MakeRowElement), exposure[i]. kWindowPass false:
// TransitElement<kCode, kSpan>. kWindowPass true, the first of three
// passes: where the planet is OutsideWindows, F - 1 and every derivative
// 0; every other element marked (MarkLeft) with WindowMarkOf the pass that
// computes it, TransitElement<kCode, kInstant> for T = 0, kExposed for the
// others.
template <typename Curve, LightCode kCode, SpanCode kSpan, bool kWindowPass, typename T>
JAXEXT_HD void TransitRowElement(const T* rows, const T* t, const T* exposure, int order,
                                 std::int64_t group_size, Geometry geometry, limb_dark::Law law,
                                 bool light, int epochs, std::int64_t i, const Outputs<T>& out) {
  PlanetOf<Curve> planet;
  const T time =
      MakeRowElement(rows, t, order, group_size, geometry, law, light, epochs, i, &planet);
  if constexpr (kWindowPass) {
    const double dt = static_cast<double>(time) - planet.orbit.t0;
    const double span = static_cast<double>(exposure[i]);
    if (!OutsideWindows(planet, dt, span)) {
      MarkLeft(out.flux + i,
               WindowMarkOf(span == 0 ? SpanCode::kInstant : SpanCode::kExposed));
      return;
    }
    StoreElement(out, i, 0.0, nullptr, nullptr, false, planet.curve.n_du);
  } else {
    TransitElement<kCode, kSpan>(planet, nullptr, nullptr, time, exposure, i, out);
  }
}

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_H_
