// The loops over the device path of each op: the solver's, the light
// curve's and the transit model's; see device_path_loops.h.
//
// Compiled with JAXEXT_DEVICE_PATH=1, so kepler_solve.h takes the branches
// the CUDA kernel takes (::fma, ::rint, ::sqrt, ::cbrt, plain selects)
// instead of the host's bit-level ones and limb_dark.h calls the global C
// math functions (as the device does) instead of std::'s, and with
// KEPLER_DEVICE_PATH_VARIANT naming the namespace of this compilation's entry
// points (strict or fused); the BUILD file also gives each compilation its
// own JAXEXT_MATH_NAMESPACE, so that the two, compiled with different
// floating-point flags, keep separate copies of the ops' inline functions.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "jaxlib_ext/kepler_solve/kepler_solve.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/transit/exposure_batch.h"
#include "jaxlib_ext/transit/transit.h"
#include "tests/device_path_loops.h"

static_assert(kepler_device_path::kLightCurveMaxOrder == jaxext::limb_dark::kMaxOrder,
              "device_path_loops.h's kLightCurveMaxOrder must be solution_vector.h's kMaxOrder");
static_assert(kepler_device_path::kLightCurveMaxTableSize == jaxext::limb_dark::kMaxTableSize,
              "tests/device_path_loops.h's kLightCurveMaxTableSize is kMaxTableSize");

static_assert(kepler_device_path::kTransitParams == jaxext::transit::kParamCount &&
                  kepler_device_path::kTransitDerivatives == jaxext::transit::kParamCount + 1 &&
                  kepler_device_path::kTransitLightParams == jaxext::transit::kLightParamCount,
              "tests/device_path_loops.h's kTransitParams is transit/orbit.h's kParamCount");

#if !defined(JAXEXT_DEVICE_PATH) || !JAXEXT_DEVICE_PATH
#error "compile with JAXEXT_DEVICE_PATH=1 (see tests/BUILD.bazel)"
#endif
#ifndef KEPLER_DEVICE_PATH_VARIANT
#error "KEPLER_DEVICE_PATH_VARIANT must name the variant (see tests/BUILD.bazel)"
#endif

namespace kepler_device_path::KEPLER_DEVICE_PATH_VARIANT {
namespace {

// A type as a value (C++20's std::type_identity).
template <typename T>
struct TypeTag {
  using type = T;
};

// The same per-element calls as the kernel (jaxlib_ext/kepler_solve/kepler_solve_kernel.cu).
template <typename T>
void SolveLoop(const T* mean_anomaly, const T* ecc, T* out_sin, T* out_cos,
               std::size_t n, bool true_anomaly) {
  for (std::size_t i = 0; i < n; ++i) {
    const T m = mean_anomaly[i];
    const T e = ecc[i];
    T s, c;
    if (true_anomaly) {
      jaxext::kepler_solve::SolveTrue(m, e, &s, &c);
    } else {
      jaxext::kepler_solve::SolveEccentric(m, e, &s, &c);
    }
    out_sin[i] = s;
    out_cos[i] = c;
  }
}

// The light-curve kernel's loop (jaxlib_ext/limb_dark/limb_dark_kernel.cu),
// one element at a time: the same function per element, and for the
// polynomial laws of at most two coefficients the kernel's two passes, for
// the other polynomial laws and the laws of laws.h its passes by edge rule,
// each over every element (kFloat32Math: the float32-in-float32 path of the
// low-order laws instead, both passes per element).
template <int... kRules, typename T>
void LawPassesLoop(jaxext::limb_dark::Law law, const T* u, int order, std::int64_t size,
                   const T* b, const T* r, T* flux, T* d_db, T* d_dr, T* const* du,
                   std::int64_t count, std::integer_sequence<int, kRules...>) {
  using jaxext::limb_dark::LawCode;
  using jaxext::limb_dark::LawRule;
  for (std::int64_t k = 0; k < count; ++k) {
    jaxext::limb_dark::LawRuleElement(law, u, b, r, order, size, k, flux, d_db, d_dr, du);
  }
  (
      [&] {
        constexpr auto kRule = static_cast<LawRule>(kRules + 1);
        const bool powers = jaxext::limb_dark::PassCode(law, kRule) == LawCode::kPowers;
        for (std::int64_t k = 0; k < count; ++k) {
          if (powers) {
            jaxext::limb_dark::LeftLawElement<kRule, LawCode::kPowers>(
                law, u, b, r, order, size, k, flux, d_db, d_dr, du);
          } else {
            jaxext::limb_dark::LeftLawElement<kRule, LawCode::kOthers>(
                law, u, b, r, order, size, k, flux, d_db, d_dr, du);
          }
        }
      }(),
      ...);
}

template <int... kRules, typename T>
void PolynomialPassesLoop(const T* u, int order, std::int64_t size, const T* b, const T* r,
                          T* flux, T* d_db, T* d_dr, T* const* du, std::int64_t count,
                          std::integer_sequence<int, kRules...>) {
  for (std::int64_t k = 0; k < count; ++k) {
    jaxext::limb_dark::PolynomialRuleElement(u, b, r, order, size, k, flux, d_db, d_dr, du);
  }
  (
      [&] {
        for (std::int64_t k = 0; k < count; ++k) {
          jaxext::limb_dark::LeftPolynomialElement<kRules>(u, b, r, order, size, k, flux, d_db,
                                                           d_dr, du);
        }
      }(),
      ...);
}

template <bool kFloat32Math, typename T>
void LightCurveLoop(int law, const T* u, int order, std::size_t group_size, const T* b,
                    const T* r, T* flux, T* d_db, T* d_dr, T* const* d_du, std::size_t n) {
  T* du[jaxext::limb_dark::kMaxDerivativesInU] = {};  // the kernel's Params::d_du
  const int n_du = jaxext::limb_dark::DerivativesInU(law, order);
  for (int j = 0; d_du && j < n_du; ++j) du[j] = d_du[j];
  const auto size = static_cast<std::int64_t>(group_size);
  const auto count = static_cast<std::int64_t>(n);
  if (!kFloat32Math && law == static_cast<int>(jaxext::limb_dark::Law::kPolynomial) && order <= 2) {
    for (std::int64_t k = 0; k < count; ++k) {
      jaxext::limb_dark::LowOrderFastElement(u, b, r, order, size, k, flux, d_db, d_dr, du);
    }
    for (std::int64_t k = 0; k < count; ++k) {
      jaxext::limb_dark::LeftLightCurveElement(u, b, r, order, size, k, flux, d_db, d_dr, du);
    }
    return;
  }
  const auto as_law = static_cast<jaxext::limb_dark::Law>(law);
  if (!kFloat32Math && as_law == jaxext::limb_dark::Law::kPolynomial) {
    PolynomialPassesLoop(u, order, size, b, r, flux, d_db, d_dr, du, count,
                         std::make_integer_sequence<int,
                                                    jaxext::limb_dark::detail::kEdgeRuleCount>());
    return;
  }
  if (!kFloat32Math && as_law != jaxext::limb_dark::Law::kPolynomial &&
      as_law != jaxext::limb_dark::Law::kTabulated) {
    LawPassesLoop(as_law, u, order, size, b, r, flux, d_db, d_dr, du, count,
                  std::make_integer_sequence<
                      int, static_cast<int>(jaxext::limb_dark::LawRule::kContact)>());
    return;
  }
  for (std::int64_t k = 0; k < count; ++k) {
    if constexpr (kFloat32Math) {
      jaxext::limb_dark::LowOrderCurveElementIn<float>(u, b, r, order, size, k, flux, d_db,
                                                       d_dr, du);
    } else {
      jaxext::limb_dark::CurveElement(static_cast<jaxext::limb_dark::Law>(law), u, b, r,
                                      order, size, k, flux, d_db, d_dr, du);
    }
  }
}

}  // namespace

void Solve(const float* mean_anomaly, const float* ecc, float* out_sin,
           float* out_cos, std::size_t n, bool true_anomaly) {
  SolveLoop(mean_anomaly, ecc, out_sin, out_cos, n, true_anomaly);
}

void Solve(const double* mean_anomaly, const double* ecc, double* out_sin,
           double* out_cos, std::size_t n, bool true_anomaly) {
  SolveLoop(mean_anomaly, ecc, out_sin, out_cos, n, true_anomaly);
}

void LightCurve(int law, const float* u, int order, std::size_t group_size, const float* b,
                const float* r, float* flux, float* d_db, float* d_dr, float* const* d_du,
                std::size_t n) {
  LightCurveLoop<false>(law, u, order, group_size, b, r, flux, d_db, d_dr, d_du, n);
}

void LightCurve(int law, const double* u, int order, std::size_t group_size,
                const double* b, const double* r, double* flux, double* d_db, double* d_dr,
                double* const* d_du, std::size_t n) {
  LightCurveLoop<false>(law, u, order, group_size, b, r, flux, d_db, d_dr, d_du, n);
}

void LightCurveFloat32Math(const float* u, int order, std::size_t group_size, const float* b,
                           const float* r, float* flux, float* d_db, float* d_dr,
                           float* const* d_du, std::size_t n) {
  LightCurveLoop<true>(0, u, order, group_size, b, r, flux, d_db, d_dr, d_du, n);
}

int LawCoefficientCount(int law) { return jaxext::limb_dark::LawCoefficients(law); }

int LawDerivativesInU(int law, int order) { return jaxext::limb_dark::DerivativesInU(law, order); }

// The transit kernels (jaxlib_ext/transit/transit_kernel.cu), one element
// (or batch) at a time: the polynomial laws of at most two coefficients
// and the laws of laws.h with their own rows in passes (rows with the
// planet's light in two: the instants and the marks over every time, then
// the exposed times' batches; rows without it in three: the window pass
// over every time, then the instants it marked, then the exposed times'
// batches), the other polynomial laws and the tabulated law in two (the
// window pass, which marks every time of a row with the planet's light,
// then the times it marked, with their family's row).
void Transit(const double* row, int order, int law, int geometry, bool light, int epochs,
             const double* t, const double* exposure, double* const* out, std::size_t n) {
  using jaxext::transit::LightCode;
  using jaxext::transit::SpanCode;
  using jaxext::transit::TransitRowElement;
  jaxext::transit::Outputs<double> o{};
  o.flux = out[0];
  const bool derivatives = out[1] != nullptr;
  const int n_du = jaxext::limb_dark::DerivativesInU(law, order);
  const int first = jaxext::transit::RowOffsetOfU(light) + 1;
  for (int j = 0; derivatives && j < first; ++j) o.d[j] = out[1 + j];
  for (int j = 0; derivatives && j < n_du; ++j) o.du[j] = out[1 + first + j];
  const auto as_law = static_cast<jaxext::limb_dark::Law>(law);
  const auto as_geometry = static_cast<jaxext::transit::Geometry>(geometry);
  const auto count = static_cast<std::int64_t>(n);
  const std::int64_t group_size = count > 0 ? count : 1;  // one row for every time
  // Element i of the pass of TransitRowElement<Curve, kCode, kSpan, kWindowPass>.
  const auto pass = [&](auto curve, auto code, auto span, auto window, std::int64_t i) {
    TransitRowElement<typename decltype(curve)::type, decltype(code)::value,
                      decltype(span)::value, decltype(window)::value>(
        row, t, exposure, order, group_size, as_geometry, as_law, light, epochs, i, o);
  };
  using Either = std::integral_constant<LightCode, LightCode::kEither>;
  using None = std::integral_constant<LightCode, LightCode::kNone>;
  using AnySpan = std::integral_constant<SpanCode, SpanCode::kEither>;
  using jaxext::transit::TransitPlan;
  const TransitPlan plan = jaxext::transit::PlanOf(as_law, order, light);
  const jaxext::transit::CallTimes<double> times = {
      row, t, exposure, order, group_size, as_geometry, as_law, epochs, &o};
  // The passes of a family that runs in passes (their rows: transit.h's
  // PassCurve, the window's and the batches', and the one-at-a-time
  // passes').
  const auto passes = [&](auto family) {
    using Family = typename decltype(family)::type;
    using Curve = jaxext::transit::PassCurve<Family, false>;
    using OneAtATime = jaxext::transit::PassCurve<Family, true>;
    // The exposed times marked for a batch pass, in batches, their nodes
    // shared (exposure_batch.h), as transit_kernel.cu's LeftBatchKernel
    // runs them; batches of 5 here, so that a batch's nodes take several
    // rounds.
    const auto batches = [&](auto with_light) {
      constexpr int kBatch = 5;
      using Batch =
          jaxext::transit::ExposureBatch<Curve, kBatch, decltype(with_light)::value>;
      const std::unique_ptr<Batch> batch(new Batch);
      jaxext::transit::SequentialBlock<kBatch> block;
      std::int64_t index[kBatch];
      int gathered = 0;
      for (std::int64_t i = 0; i <= count; ++i) {
        if (i < count &&
            jaxext::IsMarkedLeft(o.flux[i], jaxext::transit::WindowMarkOf(SpanCode::kExposed))) {
          index[gathered++] = i;
        }
        if (gathered == kBatch || (i == count && gathered > 0)) {
          jaxext::transit::ExposedBatch(block, *batch, times, index, gathered, derivatives);
          gathered = 0;
        }
      }
    };
    if (jaxext::transit::IsLightPasses(plan)) {
      for (std::int64_t i = 0; i < count; ++i) {
        jaxext::transit::LightInstantOrMark<OneAtATime>(times, i);
      }
      batches(std::true_type{});
      return;
    }
    for (std::int64_t i = 0; i < count; ++i) {
      pass(TypeTag<Curve>{}, None{}, AnySpan{}, std::true_type{}, i);
    }
    for (std::int64_t i = 0; i < count; ++i) {
      if (jaxext::IsMarkedLeft(o.flux[i], jaxext::transit::WindowMarkOf(SpanCode::kInstant))) {
        pass(TypeTag<OneAtATime>{}, None{}, std::integral_constant<SpanCode, SpanCode::kInstant>{},
             std::false_type{}, i);
      }
    }
    batches(std::false_type{});
  };
  // The window pass (its row: transit.h's WindowCurve; every time of a row
  // with the planet's light marked), then every time it marked, instants
  // and exposed alike, a time at a time with the family's row.
  const auto window_and_marked = [&](auto family) {
    using Family = typename decltype(family)::type;
    for (std::int64_t i = 0; i < count; ++i) {
      pass(TypeTag<jaxext::transit::WindowCurve<Family>>{}, None{}, AnySpan{}, std::true_type{},
           i);
    }
    for (std::int64_t i = 0; i < count; ++i) {
      if (jaxext::transit::IsWindowMarked(o.flux[i])) {
        pass(TypeTag<Family>{}, Either{}, AnySpan{}, std::false_type{}, i);
      }
    }
  };
  switch (plan) {
    case TransitPlan::kPolynomial:
      window_and_marked(TypeTag<jaxext::transit::PolynomialCurve>{});
      return;
    case TransitPlan::kTabulated:
      window_and_marked(TypeTag<jaxext::transit::TableCurve>{});
      return;
    case TransitPlan::kLawsLight:
    case TransitPlan::kLawsPasses:
      passes(TypeTag<jaxext::transit::LawCurve>{});
      return;
    case TransitPlan::kLowOrderLight:
    case TransitPlan::kLowOrderPasses:
      passes(TypeTag<jaxext::transit::LowOrderCurve>{});
      return;
  }
}

}  // namespace kepler_device_path::KEPLER_DEVICE_PATH_VARIANT
