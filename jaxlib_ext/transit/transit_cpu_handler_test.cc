// TransitCpu, the handler XLA calls, driven through a call frame as XLA
// builds one (jaxlib_ext/cpu/ffi_test_runtime.h), on every thread-pool mode:
//   - valid calls (float32 and float64; 0-d, empty, multi-dimensional shapes
//     and one large enough to be split across the pool; rows of params each
//     serving its own times; with and without exposures): a circular orbit
//     with a uniform disk equals the lens area of two circles at the
//     separation computed here in long double; every derivative equals
//     central differences of F; several rows equal one call per row; the
//     value alone equals the value with derivatives; nothing depends on
//     the pool (bitwise); with the planet's light, the loop's blocks equal
//     LightFluxAt a time at a time, to rounding;
//   - adversarial values (NaN and inf in t, T < 0, e >= 1, a <= 0, an
//     impact parameter beyond the orbit, r < 0): NaN exactly there;
//   - malformed calls (shapes, dtypes, the row's width, the law's
//     coefficients, counts of results, unknown law or geometry): an error
//     naming the problem, and no output written.
// Run under --config=sanitize by CI.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "jaxlib_ext/cpu/ffi_test_runtime.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_ffi.h"

namespace jaxext::transit {
namespace {

// The stand-in runtime and its helpers (Call, HostBuffer, Checks, ...).
using namespace ::jaxext::testing;  // NOLINT(build/namespaces)

Checks g_checks;

// The results of one call: F - 1, then (with derivatives) dF/d parameter
// for the kParamCount parameters and dF/dT, then dF/du (with_du).
struct Outputs {
  std::vector<HostBuffer> all;
};

template <typename T>
Outputs Run(HostBuffer& params, HostBuffer& t, HostBuffer& exposure, int law, int n_du,
            bool derivatives, bool with_du, PoolMode mode, Outcome* outcome, int epochs = 0) {
  Outputs out;
  const size_t count = 1 + (derivatives ? kParamCount + 1 + (with_du ? n_du : 0) : 0);
  for (size_t k = 0; k < count; ++k) out.all.push_back(MakeBuffer<T>(t.dims(), T(7)));
  Call call;
  call.Arg(params).Arg(t).Arg(exposure);
  for (HostBuffer& x : out.all) call.Ret(x);
  call.I32Attr("epochs", epochs).I32Attr("geometry", 0).I32Attr("law", law).I32Attr("light", 0);
  *outcome = call.Run(TransitCpu, mode);
  return out;
}

bool Same(Outputs& a, Outputs& b, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    if (!SameBytes(a.all[k], b.all[k])) return false;
  }
  return true;
}

// The uniform disk's F - 1 at separation b for radius r, in long double.
double UniformDisk(long double b, long double r) {
  using LD = long double;
  const LD pi = 3.141592653589793238462643383279502884L;
  if (b >= 1 + r) return 0;
  if (b <= r - 1) return -1;
  if (b <= 1 - r) return static_cast<double>(-r * r);
  const LD k0 = std::acos((r * r + b * b - 1) / (2 * b * r));
  const LD k1 = std::acos((1 - r * r + b * b) / (2 * b));
  const LD area = std::sqrt(std::max(LD(0), 4 * b * b - (1 + b * b - r * r) * (1 + b * b - r * r)));
  return static_cast<double>(-(r * r * k0 + k1 - area / 2) / pi);
}

// A circular orbit's separation at t: b^2 = a^2 (cos^2 phi + cos^2 i sin^2
// phi) with phi = pi/2 + 2 pi (t - t0) / P; in front where sin(phi) > 0.
long double CircularSeparation(const double* p, double t, bool* front) {
  using LD = long double;
  const LD pi = 3.141592653589793238462643383279502884L;
  const LD phi = pi / 2 + 2 * pi * (LD(t) - p[kT0]) / p[kPeriod];
  const LD cos_i = LD(p[kInclination]) / p[kSemiMajor];
  *front = std::sin(phi) > 0;
  return p[kSemiMajor] * std::sqrt(std::cos(phi) * std::cos(phi) +
                                   cos_i * cos_i * std::sin(phi) * std::sin(phi));
}

// Times around a transit (and a period or two away), a quarter with an
// exposure of up to twice the transit's duration.
template <typename T>
void FillTimes(const std::vector<double>& p, HostBuffer& t, HostBuffer& exposure,
               bool exposures, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double duration = p[kPeriod] / (3.14159 * p[kSemiMajor]) * 2.4;
  for (size_t i = 0; i < t.count(); ++i) {
    const double k = std::floor(5 * unit(rng)) - 2;
    t.data<T>()[i] = static_cast<T>(p[kT0] + k * p[kPeriod] + (unit(rng) - 0.5) * duration);
    exposure.data<T>()[i] =
        static_cast<T>(exposures && i % 4 == 1 ? 2 * duration * unit(rng) : 0.0);
  }
}

template <typename T>
void ValidCalls(const std::vector<int64_t>& dims, bool exposures, std::mt19937_64& rng) {
  // P, t0, a, b0, r, e, omega; a quadratic law.
  const std::vector<double> p = {3.0, 0.25, 8.0, 0.3, 0.1, 0.0, 0.0, 0.4, 0.26};
  HostBuffer params = RowsBuffer<T>({p}, {});
  HostBuffer t = MakeBuffer<T>(dims), exposure = MakeBuffer<T>(dims);
  FillTimes<T>(p, t, exposure, exposures, rng);
  const std::string what = std::string(TypeName<T>()) + " " + ShapeName(dims) +
                           (exposures ? " with exposures" : "");
  const size_t all = 1 + kParamCount + 1 + 2;
  Outcome outcome;
  Outputs full = Run<T>(params, t, exposure, 0, 2, true, true, PoolMode::kNone, &outcome);
  g_checks.Expect(outcome.ok, what + ": valid call accepted", outcome.message);
  if (!outcome.ok) return;
  for (PoolMode mode : testing::kAllPoolModes) {
    Outputs again = Run<T>(params, t, exposure, 0, 2, true, true, mode, &outcome);
    g_checks.Expect(outcome.ok && Same(again, full, all),
                    what + ": " + testing::PoolModeName(mode) + " equals serial (bitwise)",
                    outcome.message);
    Outputs value = Run<T>(params, t, exposure, 0, 2, false, false, mode, &outcome);
    g_checks.Expect(outcome.ok && Same(value, full, 1),
                    what + ": the value alone equals the value with derivatives (bitwise)",
                    outcome.message);
    Outputs no_du = Run<T>(params, t, exposure, 0, 2, true, false, mode, &outcome);
    g_checks.Expect(outcome.ok && Same(no_du, full, 1 + kParamCount + 1),
                    what + ": asking for dF/du changes no other output", outcome.message);
  }
  if (!std::is_same<T, double>::value) return;
  // Every derivative against central differences of the value (float64;
  // steps h of 1e-6 relative, 1e-7 for the period, whose derivative grows
  // with the number of periods from t0), extrapolated from h and h/2
  // (Richardson: (4 D(h/2) - D(h)) / 3, whose error is O(h^4) where F is
  // smooth). Without an exposure, each error is held to 1e-7 of the
  // column's largest derivative (at least 1e-4), plus 1e-8 (the differences'
  // rounding: times up to several periods from t0), plus 4 |D(h) - D(h/2)|,
  // the differences' own spread, large only next to a contact, where F - 1
  // goes as a power 3/2 of the time: so a derivative off by 1e-5 of itself
  // fails. With one, to 2e-5 of the derivative (at least 1): the mean's
  // derivatives are its quadrature of the flux's derivatives, which next to
  // a contact go as a power 1/2 (docs/transit_model.md).
  int wrong = 0;
  std::string first;
  double worst = 0;
  // D(h) of parameter j (j = p.size(): the exposure T, where T > 0).
  const auto difference = [&](size_t j, double h) {
    std::vector<double> plus = p, minus = p;
    HostBuffer x_plus = MakeBuffer<T>(dims), x_minus = MakeBuffer<T>(dims);
    for (size_t i = 0; i < t.count(); ++i) {
      const T x = exposure.data<T>()[i];
      x_plus.data<T>()[i] = j == p.size() && x > 0 ? x + h : x;
      x_minus.data<T>()[i] = j == p.size() && x > 0 ? x - h : x;
    }
    if (j < p.size()) {
      plus[j] += h;
      minus[j] -= h;
    }
    HostBuffer rp = RowsBuffer<T>({plus}, {}), rm = RowsBuffer<T>({minus}, {});
    Outputs up = Run<T>(rp, t, x_plus, 0, 2, false, false, PoolMode::kNone, &outcome);
    Outputs down = Run<T>(rm, t, x_minus, 0, 2, false, false, PoolMode::kNone, &outcome);
    std::vector<double> d(t.count());
    for (size_t i = 0; i < t.count(); ++i) {
      d[i] = (up.all[0].data<T>()[i] - down.all[0].data<T>()[i]) / (2 * h);
    }
    return d;
  };
  for (size_t j = 0; j < p.size() + 1; ++j) {
    const double relative = j == kPeriod ? 1e-7 : 1e-6;
    const double step = j == p.size() ? 1e-6 : relative * std::max(1.0, std::fabs(p[j]));
    const std::vector<double> d_h = difference(j, step), d_half = difference(j, step / 2);
    // Output index: the parameters' in order, dF/dT after them, then dF/du.
    const size_t column = j < kParamCount ? 1 + j : j < p.size() ? 2 + j : 1 + kParamCount;
    double scale = 1e-4;
    for (size_t i = 0; i < t.count(); ++i) {
      scale = std::max(scale, std::fabs(static_cast<double>(full.all[column].data<T>()[i])));
    }
    for (size_t i = 0; i < t.count(); ++i) {
      if (j == p.size() && exposure.data<T>()[i] == 0) continue;
      const double fd = (4 * d_half[i] - d_h[i]) / 3;
      const double an = full.all[column].data<T>()[i];
      const double bound =
          exposure.data<T>()[i] == 0
              ? 1e-7 * scale + 1e-8 + 4 * std::fabs(d_h[i] - d_half[i])
              : 2e-5 * std::max(1.0, std::fabs(an));
      const double err = std::fabs(fd - an) / bound;
      worst = std::max(worst, err);
      if (err > 1 && wrong++ == 0) {
        first = "parameter " + std::to_string(j) + " at t=" + Num(t.data<T>()[i]) +
                " T=" + Num(exposure.data<T>()[i]) + ": " + Num(an) + " vs " + Num(fd);
      }
    }
  }
  g_checks.Expect(wrong == 0, what + ": derivatives equal central differences",
                  std::to_string(wrong) + " wrong, worst " + Num(worst) + " of the bound, first " +
                      first);
}

// A uniform disk on a circular orbit against the long-double separation
// and lens area.
void UniformDiskCalls(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double worst = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const double r = 0.01 + 0.3 * unit(rng), a = 3 + 20 * unit(rng);
    const std::vector<double> p = {1 + 10 * unit(rng), unit(rng), a, (1 + r) * unit(rng),
                                   r, 0.0, 6 * unit(rng) - 3};
    HostBuffer params = RowsBuffer<double>({p}, {});
    HostBuffer t = MakeBuffer<double>({200}), exposure = MakeBuffer<double>({200});
    FillTimes<double>(p, t, exposure, false, rng);
    Outcome outcome;
    Outputs out = Run<double>(params, t, exposure, 0, 0, false, false, PoolMode::kNone, &outcome);
    for (size_t i = 0; i < t.count(); ++i) {
      bool front;
      const long double b = CircularSeparation(p.data(), t.data<double>()[i], &front);
      const double ref = front ? UniformDisk(b, r) : 0.0;
      worst = std::max(worst, std::fabs(out.all[0].data<double>()[i] - ref));
    }
  }
  g_checks.Expect(worst < 1e-14, "uniform disk, circular orbits: the lens area",
                  "worst " + Num(worst));
}

// Transit times: a row with the variations of `epochs` epochs gives, to the
// bit, what the row without them gives at the times shifted by their
// epoch's variation (the epoch k = round((t - t0) / P), halves to even,
// clipped to [0, epochs - 1]: nearbyint here), every result, with and
// without exposures, at times around five conjunctions (epochs -2 to 2,
// clipped at both ends) and at the half-periods between them; more times
// than two of the loop's chunks of shifted times hold (kShiftChunk, 2048).
// The loop reads ascending times in runs of one epoch (InRuns), the whole
// call's or a chunk's, and others shifted a time at a time: here in random
// order (a time at a time); ascending with -inf first and +inf last (the
// call in runs); and ascending with the first 40 times spread over 40
// epochs, the rest within two (the first chunk a time at a time, the
// others in runs).
enum class TimesOrder { kRandom, kAscending, kSparseThenDense };

template <typename T>
void TimingVariations(std::mt19937_64& rng, TimesOrder order) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::vector<double> p = {3.0, 0.25, 8.0, 0.3, 0.1, 0.2, 1.0, 0.4, 0.26};
  const int epochs = order == TimesOrder::kSparseThenDense ? 40 : 3;
  std::vector<double> v(epochs), with = p;
  for (double& x : v) x = 0.04 * unit(rng) - 0.02;
  with.insert(with.begin() + kParamCount, v.begin(), v.end());
  HostBuffer t = MakeBuffer<T>({5000}), exposure = MakeBuffer<T>({5000});
  FillTimes<T>(p, t, exposure, true, rng);
  for (int i = 0; i < 8; ++i) {  // half-periods, where the epoch rounds to even
    t.data<T>()[i] = static_cast<T>(p[kT0] + (i - 4 + 0.5) * p[kPeriod]);
  }
  T* first = t.data<T>();
  if (order == TimesOrder::kAscending) {
    std::sort(first, first + t.count());
    first[0] = -std::numeric_limits<T>::infinity();
    first[t.count() - 1] = std::numeric_limits<T>::infinity();
  }
  if (order == TimesOrder::kSparseThenDense) {
    for (size_t i = 0; i < t.count(); ++i) {
      first[i] = static_cast<T>(i < 40 ? p[kT0] + (i - 0.4 + 0.8 * unit(rng)) * p[kPeriod]
                                       : p[kT0] + (37 + 1.2 * unit(rng)) * p[kPeriod]);
    }
    std::sort(first, first + t.count());
  }
  HostBuffer shifted = MakeBuffer<T>({5000});
  for (size_t i = 0; i < t.count(); ++i) {
    const T ti = t.data<T>()[i];
    const T x = (ti - static_cast<T>(p[kT0])) / static_cast<T>(p[kPeriod]);
    const double k = std::min(std::max(double(std::nearbyint(x)), 0.0), double(epochs - 1));
    shifted.data<T>()[i] = ti - static_cast<T>(v[static_cast<int>(k)]);
  }
  HostBuffer rows = RowsBuffer<T>({with}, {}), plain = RowsBuffer<T>({p}, {});
  Outcome a, b;
  Outputs got = Run<T>(rows, t, exposure, 0, 2, true, true, PoolMode::kNone, &a, epochs);
  Outputs want = Run<T>(plain, shifted, exposure, 0, 2, true, true, PoolMode::kNone, &b);
  g_checks.Expect(a.ok && b.ok && Same(got, want, 1 + kParamCount + 1 + 2),
                  std::string(TypeName<T>()) +
                      (order == TimesOrder::kRandom      ? ", in random order"
                       : order == TimesOrder::kAscending ? ", ascending"
                                                         : ", sparse then dense") +
                      ": transit times equal the shifted times (bitwise)",
                  a.message + b.message);
}

// Rows of params, each serving its own times, equal one call per row; on
// three threads, enough times (a quarter with exposures) for the handler to
// split the call, in chunks that cross the rows.
template <typename T>
void GroupedCalls(std::mt19937_64& rng) {
  constexpr int kTimes = 1000;
  const std::vector<std::vector<double>> rows = {
      {3.0, 0.1, 8.0, 0.3, 0.1, 0.0, 0.0, 0.4, 0.26},
      {5.0, -0.2, 12.0, 0.5, 0.05, 0.3, 1.0, 0.2, 0.3},
      {2.0, 0.0, 6.0, 0.9, 0.15, 0.6, -2.0, 0.5, 0.1}};
  HostBuffer params = RowsBuffer<T>(rows, {3});
  HostBuffer t = MakeBuffer<T>({3, kTimes}), exposure = MakeBuffer<T>({3, kTimes});
  for (size_t k = 0; k < rows.size(); ++k) {
    HostBuffer tk = MakeBuffer<T>({kTimes}), xk = MakeBuffer<T>({kTimes});
    FillTimes<T>(rows[k], tk, xk, true, rng);
    for (int i = 0; i < kTimes; ++i) {
      t.data<T>()[k * kTimes + i] = tk.data<T>()[i];
      exposure.data<T>()[k * kTimes + i] = xk.data<T>()[i];
    }
  }
  Outcome outcome;
  Outputs all = Run<T>(params, t, exposure, 0, 2, true, true, PoolMode::kThreads, &outcome);
  bool same = outcome.ok;
  for (size_t k = 0; k < rows.size(); ++k) {
    HostBuffer pk = RowsBuffer<T>({rows[k]}, {});
    HostBuffer tk = MakeBuffer<T>({kTimes}), xk = MakeBuffer<T>({kTimes});
    for (int i = 0; i < kTimes; ++i) {
      tk.data<T>()[i] = t.data<T>()[k * kTimes + i];
      xk.data<T>()[i] = exposure.data<T>()[k * kTimes + i];
    }
    Outputs one = Run<T>(pk, tk, xk, 0, 2, true, true, PoolMode::kNone, &outcome);
    for (size_t c = 0; c < one.all.size(); ++c) {
      for (int i = 0; i < kTimes; ++i) {
        const T* in_all = &all.all[c].data<T>()[k * kTimes + i];
        same = same && std::memcmp(&one.all[c].data<T>()[i], in_all, sizeof(T)) == 0;
      }
    }
  }
  g_checks.Expect(same, std::string(TypeName<T>()) + ": rows of params equal one call per row",
                  outcome.message);
}

template <typename T>
void AdversarialValues() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::vector<double> good = {3.0, 0.0, 8.0, 0.3, 0.1, 0.2, 0.5, 0.4, 0.26};
  // Times and exposures: NaN, +-inf, T < 0 give NaN; the rest finite.
  {
    const std::vector<T> ts = {0, 0.01, nan, inf, -inf, 0.02, 0.0};
    const std::vector<T> xs = {0, 0.02, 0, 0, 0, -0.01, nan};
    HostBuffer params = RowsBuffer<T>({good}, {});
    HostBuffer t = MakeBuffer<T>({7}), exposure = MakeBuffer<T>({7});
    for (int i = 0; i < 7; ++i) {
      t.data<T>()[i] = ts[i];
      exposure.data<T>()[i] = xs[i];
    }
    Outcome outcome;
    Outputs out = Run<T>(params, t, exposure, 0, 2, true, true, PoolMode::kNone, &outcome);
    bool ok = outcome.ok;
    for (int i = 0; i < 7; ++i) {
      const bool expect_nan = i >= 2;
      for (HostBuffer& x : out.all) ok = ok && std::isnan(x.data<T>()[i]) == expect_nan;
    }
    g_checks.Expect(ok, std::string(TypeName<T>()) + ": NaN and inf times, T < 0: NaN there",
                    outcome.message);
  }
  // Parameters outside their domain: NaN everywhere.
  const std::vector<std::pair<int, double>> bad = {
      {kPeriod, 0.0}, {kPeriod, -1.0}, {kSemiMajor, 0.0}, {kEccentricity, 1.0},
      {kEccentricity, -0.1}, {kInclination, -0.1}, {kInclination, 20.0}, {kRadius, -0.1},
      {kT0, static_cast<double>(nan)}, {kOmega, static_cast<double>(inf)},
      {kParamCount + 1, static_cast<double>(nan)}};
  for (const auto& [index, value] : bad) {
    std::vector<double> row = good;
    row[index] = value;
    HostBuffer params = RowsBuffer<T>({row}, {});
    HostBuffer t = MakeBuffer<T>({4}), exposure = MakeBuffer<T>({4});
    for (int i = 0; i < 4; ++i) {
      t.data<T>()[i] = static_cast<T>(0.01 * i + (i == 3 ? 1.5 : 0.0));
      exposure.data<T>()[i] = static_cast<T>(i % 2 ? 0.02 : 0.0);
    }
    Outcome outcome;
    Outputs out = Run<T>(params, t, exposure, 0, 2, true, true, PoolMode::kNone, &outcome);
    int finite = 0;
    for (HostBuffer& x : out.all) {
      for (int i = 0; i < 4; ++i) finite += !std::isnan(x.data<T>()[i]);
    }
    g_checks.Expect(outcome.ok && finite == 0,
                    std::string(TypeName<T>()) + ": parameter " + std::to_string(index) + " = " +
                        Num(value) + " gives NaN everywhere",
                    std::to_string(finite) + " not NaN " + outcome.message);
  }
}

void MalformedCalls() {
  HostBuffer params = MakeBuffer<double>({kParamCount + 2}, 0.3);
  HostBuffer t = MakeBuffer<double>({4}, 0.5), x = MakeBuffer<double>({4}, 0.0);
  HostBuffer t3 = MakeBuffer<double>({3}, 0.5), x_f32 = MakeBuffer<float>({4}, 0.0f);
  HostBuffer narrow = MakeBuffer<double>({kParamCount - 1}, 0.3);
  HostBuffer p_f32 = MakeBuffer<float>({kParamCount + 2}, 0.3f);
  HostBuffer p_lead = MakeBuffer<double>({3, kParamCount + 2}, 0.3);
  std::vector<HostBuffer> outs;
  for (int k = 0; k < 1 + kParamCount + 1 + 2; ++k) outs.push_back(MakeBuffer<double>({4}));
  HostBuffer short_out = MakeBuffer<double>({3});
  auto results = [&](size_t count) {
    std::vector<HostBuffer*> r;
    for (size_t k = 0; k < count; ++k) r.push_back(&outs[k]);
    return r;
  };
  auto call = [](HostBuffer& p, HostBuffer& t_, HostBuffer& x_,
                 const std::vector<HostBuffer*>& rets, int law, int geometry, int light = 0,
                 int epochs = 0) {
    Call c;
    c.Arg(p).Arg(t_).Arg(x_);
    for (HostBuffer* r : rets) c.Ret(*r);
    c.I32Attr("epochs", epochs).I32Attr("geometry", geometry).I32Attr("law", law).I32Attr(
        "light", light);
    return c;
  };
  auto reject = [](Call c, const std::string& what, const std::string& expect,
                   const std::vector<HostBuffer*>& rets) {
    g_checks.ExpectRejected(TransitCpu, c, what, expect, rets);
  };
  const auto all = results(outs.size());
  reject(call(params, t, t3, all, 0, 0), "t (4,) and exposure (3,)", "exposure has shape (3,)",
         all);
  reject(call(params, t, x_f32, all, 0, 0), "exposure of another dtype", "different dtype", all);
  reject(call(p_f32, t, x, all, 0, 0), "params of another dtype", "params must have t's dtype",
         all);
  reject(call(narrow, t, x, all, 0, 0), "a row narrower than the orbit",
         "fewer than the 7 before the law's coefficients", all);
  reject(call(p_lead, t, x, all, 0, 0), "params' leading dimension not t's",
         "leading dimensions of params", all);
  reject(call(params, t, x, results(3), 0, 0), "three results", "3 results; expected 1", results(3));
  std::vector<HostBuffer*> wrong_shape = all;
  wrong_shape[4] = &short_out;
  reject(call(params, t, x, wrong_shape, 0, 0), "a derivative of another shape",
         "d_3 has shape (3,)", wrong_shape);
  for (int count : {1, 1 + kParamCount + 1, 1 + kParamCount + 1 + 2}) {
    Outcome ok = call(params, t, x, results(count), 0, 0).Run(TransitCpu, PoolMode::kNone);
    g_checks.Expect(ok.ok, std::to_string(count) + " results: accepted", ok.message);
  }
  reject(call(params, t, x, all, -1, 0), "an unknown law", "unknown law -1", all);
  reject(call(params, t, x, all, 2, 0), "coefficients the law does not take",
         "takes 4 coefficients", all);
  reject(call(params, t, x, all, 0, 2), "an unknown geometry", "geometry 2", all);
  reject(call(params, t, x, all, 0, 0, 2), "an unknown light mode", "light 2", all);
  // The light mode: five more parameters before the coefficients, five more
  // derivatives after dF/dT.
  reject(call(params, t, x, all, 0, 0, 1), "a row too narrow for the light",
         "fewer than the 12 before the law's coefficients", all);
  HostBuffer lit = MakeBuffer<double>({kParamCount + kLightParamCount + 2}, 0.3);
  std::vector<HostBuffer> lit_outs;
  for (int k = 0; k < 1 + kFirstDerivatives + 2; ++k) lit_outs.push_back(MakeBuffer<double>({4}));
  std::vector<HostBuffer*> lit_all;
  for (HostBuffer& r : lit_outs) lit_all.push_back(&r);
  reject(call(lit, t, x, all, 0, 0, 1), "the transit's results in the light mode",
         "results; expected 1", all);
  Outcome lit_ok = call(lit, t, x, lit_all, 0, 0, 1).Run(TransitCpu, PoolMode::kNone);
  g_checks.Expect(lit_ok.ok, "the light mode's results: accepted", lit_ok.message);
  // Transit times: epochs >= 0, their variations before the coefficients.
  reject(call(params, t, x, all, 0, 0, 0, -1), "negative epochs", "epochs -1", all);
  reject(call(params, t, x, all, 0, 0, 0, kMaxEpochs + 1), "more epochs than the most",
         "epochs " + std::to_string(kMaxEpochs + 1), all);
  reject(call(narrow, t, x, all, 0, 0, 0, 3), "a row too narrow for its epochs",
         "fewer than the 10 before the law's coefficients", all);
  Call stage = call(params, t, x, all, 0, 0);
  stage.Stage(XLA_FFI_ExecutionStage_PREPARE);
  reject(std::move(stage), "the prepare stage", "Wrong execution stage", all);
}

// With the planet's light, the times without an exposure run in blocks
// (transit_cpu_loops.cc's LightTimes: the eccentric anomaly four vectors at
// a time, a circular orbit's without a solve, the overlap found from b^2);
// LightFluxAt (planet_flux.h) computes a time at a time what the blocks
// must give to rounding. Over two orbits (the transit, the eclipse and the
// phase curve between, denser next to the contacts; blocks of the phase
// curve alone, with a time or two where the disks overlap), NaN and inf
// times among them, a circular and an eccentric orbit, grazing transits and
// eclipses (b0 = 1.05, r = 0.3) and a planet larger than the star (r = 1.4,
// which hides the star in transit and which the star never hides whole):
// the value, every derivative and dF/du.
void LightBlocks(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  struct Case {
    double b0, r, ecc;
  };
  for (const Case c : {Case{0.3, 0.1, 0.0}, Case{0.3, 0.1, 0.4}, Case{1.05, 0.3, 0.0},
                       Case{0.2, 1.4, 0.2}}) {
    const double ecc = c.ecc;
    // P, t0, a, b0, r, e, omega, the LightParams, a quadratic law.
    const std::vector<double> p = {3.0, 0.25, 8.0,  c.b0, c.r,  ecc,  0.7,
                                   1e-3, 1e-4, 0.3, 2e-5, 3e-5, 0.4, 0.26};
    Planet planet;
    MakePlanet(p.data(), Geometry::kImpactParameter, limb_dark::Law::kPolynomial,
               p.data() + kParamCount + kLightParamCount, 2, true, &planet);
    const size_t n = 4000;
    HostBuffer params = RowsBuffer<double>({p}, {});
    HostBuffer t = MakeBuffer<double>({static_cast<int64_t>(n)});
    HostBuffer exposure = MakeBuffer<double>({static_cast<int64_t>(n)});
    for (size_t i = 0; i < n; ++i) {
      // The first half: half the times anywhere in two orbits, half within
      // 0.1 (a tenth of a day) of a conjunction. The second: within 0.3 of
      // a quadrature (the phase curve alone), every 97th near a
      // conjunction, so that blocks hold no overlap, or one or two.
      const double conjunction = p[kT0] + 0.5 * std::floor(4 * unit(rng)) * p[kPeriod];
      const double near = conjunction + 0.2 * (unit(rng) - 0.5);
      const double anywhere = p[kT0] + 2 * p[kPeriod] * (unit(rng) - 0.25);
      const double quadrature = conjunction + 0.25 * p[kPeriod] + 0.6 * (unit(rng) - 0.5);
      t.data<double>()[i] = i < n / 2 ? (i % 2 ? anywhere : near)
                            : i % 97 == 0 ? near
                                          : quadrature;
    }
    t.data<double>()[17] = std::numeric_limits<double>::quiet_NaN();
    t.data<double>()[1000] = HUGE_VAL;
    Outputs out;
    const size_t count = 1 + kParamCount + 1 + kLightParamCount + 2;
    for (size_t k = 0; k < count; ++k) out.all.push_back(MakeBuffer<double>(t.dims(), 7.0));
    Call call;
    call.Arg(params).Arg(t).Arg(exposure);
    for (HostBuffer& x : out.all) call.Ret(x);
    call.I32Attr("epochs", 0).I32Attr("geometry", 0).I32Attr("law", 0).I32Attr("light", 1);
    const Outcome outcome = call.Run(TransitCpu, PoolMode::kNone);
    double worst = 0;
    size_t mismatched = 0;
    for (size_t i = 0; i < n; ++i) {
      double want[1 + kParamCount + 1 + kLightParamCount + 2];
      want[0] = LightFluxAt(planet, t.data<double>()[i] - p[kT0], want + 1,
                            want + 1 + kParamCount + 1, want + count - 2);
      want[1 + kParamCount] = want[0] == want[0] ? 0.0 : want[0];  // dF/dT at T = 0
      for (size_t k = 0; k < count; ++k) {
        const double got = out.all[k].data<double>()[i];
        // The transit's F - 1 comes from the light curve's low-order path
        // in the blocks (limb_dark.h), its closed form here: each within a
        // few 1e-16 of the exact value; its derivatives, of their own size,
        // within ~1e-13 of it, less next to the contacts (4.5e-13 seen
        // there; dF/dP grows with the orbits from t0). The blocks' loops
        // round the position otherwise than LightFluxAt (a few ulps of a),
        // which F's slope in b, growing as r, carries into F (5.2e-15 seen
        // at r = 1.4).
        const double error = std::fabs(got - want[k]);
        const double allowed = k == 0 ? 8e-16 * std::max(1.0, c.r / 0.1)
                                       : 2e-12 * std::max(1.0, std::fabs(want[k]));
        if (want[k] == want[k] ? !(error <= allowed) : got == got) ++mismatched;
        if (want[k] == want[k] && error / allowed > worst) worst = error / allowed;
      }
    }
    g_checks.Expect(outcome.ok && mismatched == 0,
                    std::string("the planet's light in blocks, b0 = ") + std::to_string(c.b0) +
                        ", r = " + std::to_string(c.r) + ", e = " + std::to_string(ecc) +
                        ": LightFluxAt's values and derivatives, NaN where it gives NaN",
                    outcome.message + " " + std::to_string(mismatched) +
                        " results outside the bound; worst " + std::to_string(worst) +
                        " of it");
  }
}

int Main() {
  std::mt19937_64 rng(20261127);
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {2, 0}, {5}, {3, 7}, {3000}};
  return g_checks.Run({
      {"malformed calls", MalformedCalls},
      {"adversarial values", [] {
         AdversarialValues<double>();
         AdversarialValues<float>();
       }},
      {"valid calls, with and without exposures",
       [&] {
         for (const auto& dims : shapes) {
           for (bool exposures : {false, true}) {
             ValidCalls<double>(dims, exposures, rng);
             ValidCalls<float>(dims, exposures, rng);
           }
         }
       }},
      {"the uniform disk", [&] { UniformDiskCalls(rng); }},
      {"transit times", [&] {
         for (TimesOrder order :
              {TimesOrder::kRandom, TimesOrder::kAscending, TimesOrder::kSparseThenDense}) {
           TimingVariations<double>(rng, order);
           TimingVariations<float>(rng, order);
         }
       }},
      {"the planet's light in blocks", [&] { LightBlocks(rng); }},
      {"grouped calls", [&] {
         GroupedCalls<double>(rng);
         GroupedCalls<float>(rng);
       }},
  });
}

}  // namespace
}  // namespace jaxext::transit

int main() { return jaxext::transit::Main(); }
