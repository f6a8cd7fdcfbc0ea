// The exposures' means of a batch of times computed together, the nodes
// of their quadratures spread over the batch's threads: the GPU's pass of
// the exposed times of the quadratic law's rows (transit_kernel.cu), and
// tests/device_path_loops.cc as the host runs it. The same values, to the
// bit, as TransitElement's with ExposureMean, a time at a time.
//
// A thread that integrates its own exposure keeps the quadrature's plan
// and sums live across each node's F with its derivatives, which alone
// takes about 128 registers: ptxas then takes 168, or spills. Here one
// thread per time (its `owner`) and one per node take turns, each step's
// state in the batch (on the GPU the block's shared memory), the steps
// apart (Block::Step(f): f(k) for each of the batch's kBatch threads, then
// all of them wait for the others):
//   1. each owner makes its planet ready (BatchTimes::SetUp), finds its
//      contacts and its exposure's plan (VisitExposureNodes), whose nodes
//      it counts, two more with the derivatives (the exposure's ends, for
//      the derivative in T);
//   2. the nodes are numbered across the batch (owner o's from first[o]);
//   3. in rounds of kBatch nodes: each owner copies its nodes of the round
//      into the round's slots (visiting its plan again); each thread
//      evaluates F (and its derivatives but at the ends) at a slot
//      (FluxAt); each owner adds its slots into its sums (AddNode), in its
//      visit's order;
//   4. each owner finishes its mean (FinishExposure) and stores it.
#ifndef JAXLIB_EXT_TRANSIT_EXPOSURE_BATCH_H_
#define JAXLIB_EXT_TRANSIT_EXPOSURE_BATCH_H_

#include <cstdint>

#include "jaxlib_ext/host_device.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit {
inline namespace JAXEXT_MATH_NAMESPACE {

// What a slot's F adds to: the partial transits' sums, the whole one's
// (NodeSum), or the exposure's ends (F alone).
enum class SlotKind : unsigned char { kPart, kWhole, kEnd };

// A batch of up to kBatch times with an exposure, of planets whose law's
// row is Curve, without the planet's light.
template <typename Curve, int kBatch>
struct ExposureBatch {
  static_assert(kBatch <= 256, "a slot's owner is an unsigned char");
  static constexpr int kMaxDu = Curve::kMaxDerivatives;
  // Per owner.
  PlanetOf<Curve> planet[kBatch];
  Contacts contacts[kBatch];
  ExposurePlan plan[kBatch];
  double dt[kBatch], span[kBatch];
  ExposureSums<kMaxDu> sums[kBatch];
  double ends[kBatch];  // F(t - T/2) + F(t + T/2), with the derivatives
  int first[kBatch + 1];  // owner o's nodes: first[o] to first[o + 1] - 1
  int count;              // the owners
  int base;               // the round's first node
  // Per slot of a round: the node (a time relative to t0), its weight and
  // what it adds to, its owner; F and its derivatives there.
  double node[kBatch], weight[kBatch];
  unsigned char owner[kBatch];
  SlotKind kind[kBatch];
  double f[kBatch], f_d[kBatch][kParamCount], f_du[kBatch][kMaxDu];
};

// A batch's times of one call, its `count` (<= kBatch) elements
// index[0..count) with an exposure T != 0 (T < 0 or NaN: NaN), their rows
// without the planet's light: SetUp(s, o) makes owner o's planet ready and
// its dt and T; Store stores F - 1 averaged over the exposure and its
// derivatives into `out`, as TransitRowElement<Curve, LightCode::kNone,
// SpanCode::kExposed, false> does.
template <typename T>
struct BatchTimes {
  const T* rows;
  const T* t;
  const T* exposure;
  int order;
  std::int64_t group_size;
  Geometry geometry;
  limb_dark::Law law;
  int epochs;
  const std::int64_t* index;
  const Outputs<T>* out;  // not a copy: its columns' table is large

  template <typename Curve, int kBatch>
  JAXEXT_HD void SetUp(ExposureBatch<Curve, kBatch>& s, int o) const {
    const T time = MakeRowElement(rows, t, order, group_size, geometry, law, false, epochs,
                                  index[o], &s.planet[o]);
    s.dt[o] = static_cast<double>(time) - s.planet[o].orbit.t0;
    s.span[o] = static_cast<double>(exposure[index[o]]);
  }

  JAXEXT_HD void Store(int o, double value, const double* d, const double* du, int n_du) const {
    StoreElement(*out, index[o], value, d, du, false, n_du);
  }
};

// The batch's times (`times`: BatchTimes, or any type with its SetUp and
// Store) through the steps above; `derivatives`: whether the call asks for
// them. Every thread of the block calls it.
template <typename Curve, int kBatch, typename Block, typename Times>
JAXEXT_HD void ExposedBatch(Block& block, ExposureBatch<Curve, kBatch>& s, const Times& times,
                            int count, bool derivatives) {
  block.Step([&](int o) {
    if (o == 0) {
      s.count = count;
      s.base = 0;
    }
    if (o >= count) return;
    times.SetUp(s, o);
    const PlanetOf<Curve>& planet = s.planet[o];
    s.contacts[o] = FindContacts(planet);
    auto count_only = [](double, double, NodeSum) {};
    s.plan[o] =
        VisitExposureNodes(s.contacts[o], planet.orbit.period, s.dt[o], s.span[o], count_only);
    ClearExposureSums(&s.sums[o], planet.curve.n_du);
    s.ends[o] = 0;
  });
  // With the derivatives, two nodes more: the exposure's ends.
  block.Step([&](int o) {
    if (o != 0) return;
    s.first[0] = 0;
    for (int k = 0; k < s.count; ++k) {
      s.first[k + 1] =
          s.first[k] + s.plan[k].evaluations + (derivatives && s.plan[k].valid ? 2 : 0);
    }
  });
  // The rounds' state is read from the batch at each step, so that none of
  // it is live across F's call.
  while (s.base < s.first[s.count]) {
    block.Step([&](int o) {
      const int base = s.base;
      if (o >= s.count || s.first[o + 1] <= base || s.first[o] >= base + kBatch) return;
      int slot = s.first[o] - base;
      auto copy = [&](double node, double weight, SlotKind kind) {
        if (slot >= 0 && slot < kBatch) {
          s.node[slot] = node;
          s.weight[slot] = weight;
          s.kind[slot] = kind;
          s.owner[slot] = static_cast<unsigned char>(o);
        }
        ++slot;
      };
      auto copy_node = [&](double node, double weight, NodeSum into) {
        copy(node, weight, into == NodeSum::kWhole ? SlotKind::kWhole : SlotKind::kPart);
      };
      const double dt = s.dt[o], span = s.span[o];
      VisitExposureNodes(s.contacts[o], s.planet[o].orbit.period, dt, span, copy_node);
      if (derivatives && s.plan[o].valid) {
        copy(dt - span / 2, 0.0, SlotKind::kEnd);
        copy(dt + span / 2, 0.0, SlotKind::kEnd);
      }
    });
    block.Step([&](int k) {
      if (s.base + k >= s.first[s.count]) return;
      const bool with_d = derivatives && s.kind[k] != SlotKind::kEnd;
      s.f[k] = FluxAt(s.planet[s.owner[k]], s.node[k], with_d ? s.f_d[k] : nullptr,
                      with_d ? s.f_du[k] : nullptr);
    });
    block.Step([&](int o) {
      const int base = s.base;
      if (o >= s.count) return;
      const int lo = s.first[o] > base ? s.first[o] - base : 0;
      const int hi = s.first[o + 1] < base + kBatch ? s.first[o + 1] - base : kBatch;
      for (int k = lo; k < hi; ++k) {
        if (s.kind[k] == SlotKind::kEnd) {
          s.ends[o] += s.f[k];
        } else {
          AddNode(s.weight[k], s.kind[k] == SlotKind::kWhole ? NodeSum::kWhole : NodeSum::kPart,
                  s.f[k], derivatives ? s.f_d[k] : nullptr, s.f_du[k], s.planet[o].curve.n_du,
                  &s.sums[o]);
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
    double d[kFirstDerivatives], du[Curve::kMaxDerivatives];
    const double value =
        FinishExposure(s.plan[o], s.sums[o], s.span[o], s.ends[o], n_du,
                       derivatives ? d : nullptr, derivatives ? du : nullptr, &d[kParamCount]);
    times.Store(o, value, d, du, n_du);
  });
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
