// The exposures' means of a batch of times computed together, the nodes
// of their quadratures spread over the batch's threads: the GPU's passes
// of the exposed times of the quadratic law's rows, with the planet's
// light or without (transit_kernel.cu), and tests/device_path_loops.cc as
// the host runs them. The same values, to the bit, as TransitElement's
// with ExposureMean or LightExposureMean, a time at a time.
//
// A thread that integrates its own exposure keeps the quadrature's plan
// and sums live across each node's F with its derivatives, which alone
// takes about 128 registers: ptxas then takes 168 and more, or spills. Here one
// thread per time (its `owner`) and one per node take turns, each step's
// state in the batch (on the GPU the block's shared memory), the steps
// apart (Block::Step(f): f(k) for each of the batch's kBatch threads, then
// all of them wait for the others):
//   1. each owner makes its planet ready (CallTimes::Load), finds its
//      breakpoints (the transit's contacts, with the planet's light the
//      orbit's) and its exposure's plan (VisitExposureNodes), whose nodes
//      it counts, two more with the derivatives (the exposure's ends, for
//      the derivative in T);
//   2. the nodes are numbered across the batch (owner o's from first[o]);
//   3. in rounds of kBatch nodes: each owner copies its nodes of the round
//      into the round's slots (visiting its plan again); each thread
//      evaluates F (and its derivatives but at the ends) at a slot
//      (FluxAt, LightFluxAt); each owner adds its slots into its sums
//      (AddNode), in its visit's order;
//   4. each owner finishes its mean (FinishExposure) and stores it.
#ifndef JAXLIB_EXT_TRANSIT_EXPOSURE_BATCH_H_
#define JAXLIB_EXT_TRANSIT_EXPOSURE_BATCH_H_

#include <cstdint>
#include <type_traits>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// What a slot's F adds to: the partial transits' sums, the whole one's
// (NodeSum), the exposure's ends (F alone), or, with the planet's light,
// F at the orbit's start (tau[0] of OrbitBreaks, F alone: an exposure of
// more than kAveragedOrbits orbits, for dF/dP; LightExposureMean).
enum class SlotKind : unsigned char { kPart, kWhole, kEnd, kStart };

// A batch of up to kBatch times with an exposure, of planets whose law's
// row is Curve, with the planet's light (kLight: its breakpoints are the
// orbit's, OrbitBreaks, and F is LightFluxAt) or without (Contacts,
// FluxAt).
template <typename Curve, int kBatch, bool kLight = false>
struct ExposureBatch {
  static_assert(kBatch <= 256, "a slot's owner is an unsigned char");
  static constexpr bool kWithLight = kLight;
  static constexpr int kMaxDu = Curve::kMaxDerivatives;
  static constexpr int kLightSlots = kLight ? kBatch : 1;  // arrays only the light uses
  using Breaks = std::conditional_t<kLight, OrbitBreaks, Contacts>;
  // Per owner.
  PlanetOf<Curve> planet[kBatch];
  Breaks breaks[kBatch];
  ExposurePlan plan[kBatch];
  double dt[kBatch], span[kBatch];
  ExposureSums<kMaxDu> sums[kBatch];
  double ends[kBatch];  // F(t - T/2) + F(t + T/2), with the derivatives
  double start[kLightSlots];  // F at the orbit's start (SlotKind::kStart)
  int first[kBatch + 1];  // owner o's nodes: first[o] to first[o + 1] - 1
  int count;              // the owners
  int base;               // the round's first node
  // Per slot of a round: the node (a time relative to t0), its weight and
  // what it adds to, its owner, with the light its eccentric anomaly where
  // the quadrature knows it (`known`, VisitSmoothPart); F and its
  // derivatives there.
  double node[kBatch], weight[kBatch];
  unsigned char owner[kBatch];
  SlotKind kind[kBatch];
  bool known[kLightSlots];
  kepler_solve::Eccentric<double> eccentric[kLightSlots];
  double f[kBatch], f_d[kBatch][kParamCount], f_du[kBatch][kMaxDu];
  double f_glow[kLightSlots][kLightParamCount];
};

// A call's rows, times, exposures and outputs (transit_kernel.h's Params):
// Load makes element i's planet ready (MakeRowElement, its rows with the
// planet's light or without) and gives its dt = t - t0 and its exposure T;
// Store stores its F - 1 and derivatives (StoreElement); Mark marks it for
// a later pass (MarkLeft).
template <typename T>
struct CallTimes {
  const T* rows;
  const T* t;
  const T* exposure;
  int order;
  std::int64_t group_size;
  Geometry geometry;
  limb_dark::Law law;
  int epochs;
  const Outputs<T>* out;  // not a copy: its columns' table is large

  JAXEXT_HD bool Derivatives() const { return out->d[0] != nullptr; }

  template <typename Curve>
  JAXEXT_HD void Load(std::int64_t i, bool light, PlanetOf<Curve>* planet, double* dt,
                      double* span) const {
    const T time =
        MakeRowElement(rows, t, order, group_size, geometry, law, light, epochs, i, planet);
    *dt = static_cast<double>(time) - planet->orbit.t0;
    *span = static_cast<double>(exposure[i]);
  }

  JAXEXT_HD void Store(std::int64_t i, double value, const double* d, const double* du,
                       bool light, int n_du) const {
    StoreElement(*out, i, value, d, du, light, n_du);
  }

  JAXEXT_HD void Mark(std::int64_t i, int mark) const { MarkLeft(out->flux + i, mark); }
};

// Elements index[0..count) (count <= kBatch) of a call (`times`:
// CallTimes, or a type with its Load and Store), each with an exposure T !=
// 0 (T < 0 or NaN: NaN), their rows with the planet's light or without as
// kLight says: F - 1 averaged over each exposure and its derivatives
// (`derivatives`: whether the call asks for them), stored as
// TransitRowElement<Curve, LightCode::kOnly or kNone, SpanCode::kExposed,
// false> stores them, through the steps above. Every thread of the block
// calls it.
template <typename Curve, int kBatch, bool kLight, typename Block, typename Times>
JAXEXT_HD void ExposedBatch(Block& block, ExposureBatch<Curve, kBatch, kLight>& s,
                            const Times& times, const std::int64_t* index, int count,
                            bool derivatives) {
  block.Step([&](int o) {
    if (o == 0) {
      s.count = count;
      s.base = 0;
    }
    if (o >= count) return;
    times.Load(index[o], kLight, &s.planet[o], &s.dt[o], &s.span[o]);
    const PlanetOf<Curve>& planet = s.planet[o];
    if constexpr (kLight) {
      s.breaks[o] = FindOrbitBreaks(planet);
    } else {
      s.breaks[o] = FindContacts(planet);
    }
    auto count_only = [](double, double, NodeSum, const auto*...) {};
    s.plan[o] =
        VisitExposureNodes(s.breaks[o], planet.orbit.period, s.dt[o], s.span[o], count_only);
    ClearExposureSums(&s.sums[o], planet.curve.n_du);
    // -0 + F(t - T/2) is F(t - T/2) to the sign of a zero.
    s.ends[o] = -0.0;
  });
  // With the derivatives, two nodes more: the exposure's ends; and with the
  // light, for an averaged exposure, the orbit's start.
  const auto extra = [&](int o) {
    const ExposurePlan& plan = s.plan[o];
    return derivatives && plan.valid ? 2 + (kLight && plan.averaged ? 1 : 0) : 0;
  };
  block.Step([&](int o) {
    if (o != 0) return;
    s.first[0] = 0;
    for (int k = 0; k < s.count; ++k) {
      s.first[k + 1] = s.first[k] + s.plan[k].evaluations + extra(k);
    }
  });
  // The rounds' state is read from the batch at each step, so that none of
  // it is live across F's call.
  while (s.base < s.first[s.count]) {
    block.Step([&](int o) {
      const int base = s.base;
      if (o >= s.count || s.first[o + 1] <= base || s.first[o] >= base + kBatch) return;
      int slot = s.first[o] - base;
      const auto copy = [&](double node, double weight, SlotKind kind,
                            const kepler_solve::Eccentric<double>* known) {
        if (slot >= 0 && slot < kBatch) {
          s.node[slot] = node;
          s.weight[slot] = weight;
          s.kind[slot] = kind;
          s.owner[slot] = static_cast<unsigned char>(o);
          if constexpr (kLight) {
            s.known[slot] = known != nullptr;
            if (known) s.eccentric[slot] = *known;
          }
        }
        ++slot;
      };
      const auto copy_node = [&](double node, double weight, NodeSum into,
                                 const auto*... known) {
        const kepler_solve::Eccentric<double>* e = nullptr;
        if constexpr (sizeof...(known) > 0) e = (known, ...);
        copy(node, weight, into == NodeSum::kWhole ? SlotKind::kWhole : SlotKind::kPart, e);
      };
      const double dt = s.dt[o], span = s.span[o];
      const ExposurePlan plan =
          VisitExposureNodes(s.breaks[o], s.planet[o].orbit.period, dt, span, copy_node);
      if (derivatives && plan.valid) {
        copy(dt - span / 2, 0.0, SlotKind::kEnd, nullptr);
        copy(dt + span / 2, 0.0, SlotKind::kEnd, nullptr);
        if (kLight && plan.averaged) copy(s.breaks[o].tau[0], 0.0, SlotKind::kStart, nullptr);
      }
    });
    block.Step([&](int k) {
      if (s.base + k >= s.first[s.count]) return;
      const bool with_d =
          derivatives && s.kind[k] != SlotKind::kEnd && s.kind[k] != SlotKind::kStart;
      const PlanetOf<Curve>& planet = s.planet[s.owner[k]];
      if constexpr (kLight) {
        s.f[k] = LightFluxAt(planet, s.node[k], with_d ? s.f_d[k] : nullptr,
                             with_d ? s.f_glow[k] : nullptr, with_d ? s.f_du[k] : nullptr,
                             s.known[k] ? &s.eccentric[k] : nullptr);
      } else {
        s.f[k] = FluxAt(planet, s.node[k], with_d ? s.f_d[k] : nullptr,
                        with_d ? s.f_du[k] : nullptr);
      }
    });
    block.Step([&](int o) {
      const int base = s.base;
      if (o >= s.count) return;
      const int lo = s.first[o] > base ? s.first[o] - base : 0;
      const int hi = s.first[o + 1] < base + kBatch ? s.first[o + 1] - base : kBatch;
      for (int k = lo; k < hi; ++k) {
        if (s.kind[k] == SlotKind::kEnd) {
          s.ends[o] += s.f[k];
        } else if (kLight && s.kind[k] == SlotKind::kStart) {
          s.start[kLight ? o : 0] = s.f[k];
        } else {
          AddNode(s.weight[k], s.kind[k] == SlotKind::kWhole ? NodeSum::kWhole : NodeSum::kPart,
                  s.f[k], derivatives ? s.f_d[k] : nullptr, s.f_du[k], s.planet[o].curve.n_du,
                  &s.sums[o], kLight && derivatives ? s.f_glow[kLight ? k : 0] : nullptr);
        }
      }
    });
    block.Step([&](int o) {
      if (o == 0) s.base += kBatch;
    });
  }
  block.Step([&](int o) {
    if (o >= s.count) return;
    const int n_du = s.planet[o].curve.n_du;
    const ExposurePlan& plan = s.plan[o];
    double d[kFirstDerivatives], du[Curve::kMaxDerivatives];
    double* d_or_null = derivatives ? d : nullptr;
    double* du_or_null = derivatives ? du : nullptr;
    const double value =
        kLight ? FinishLightExposure(plan, s.sums[o], s.span[o], s.ends[o],
                                     s.start[kLight ? o : 0], n_du, d_or_null, du_or_null,
                                     &d[kParamCount], d + kParamCount + 1)
               : FinishExposure(plan, s.sums[o], s.span[o], s.ends[o], n_du, d_or_null,
                                du_or_null, &d[kParamCount]);
    times.Store(index[o], value, d, du, kLight, n_du);
  });
}

// The first pass over the times of rows with the planet's light
// (transit_kernel.cu's kLowOrderLight; tests/device_path_loops.cc as the
// host runs it): element i's F - 1 and derivatives where its exposure T is
// 0, as TransitElement<LightCode::kOnly, SpanCode::kInstant> computes
// them, or its mark (WindowMarkOf(SpanCode::kExposed)) for ExposedBatch.
template <typename Curve, typename Times>
JAXEXT_HD void LightInstantOrMark(const Times& times, std::int64_t i) {
  PlanetOf<Curve> planet;
  double dt, span;
  times.Load(i, true, &planet, &dt, &span);
  if (span != 0) {
    times.Mark(i, WindowMarkOf(SpanCode::kExposed));
    return;
  }
  const bool derivatives = times.Derivatives();
  double d[kFirstDerivatives], du[Curve::kMaxDerivatives];
  const double value =
      LightFluxAt(planet, dt, derivatives ? d : nullptr,
                  derivatives ? d + kParamCount + 1 : nullptr, derivatives ? du : nullptr);
  // The mean's derivative in T vanishes at T = 0.
  d[kParamCount] = value == value ? 0.0 : value;
  times.Store(i, value, d, du, true, planet.curve.n_du);
}

// The batch's steps one thread after another (the host's Block).
template <int kThreads>
struct SequentialBlock {
  template <typename Function>
  void Step(Function step) {
    for (int k = 0; k < kThreads; ++k) step(k);
  }
};

}  // namespace JAXEXT_MATH_NAMESPACE
}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_EXPOSURE_BATCH_H_
