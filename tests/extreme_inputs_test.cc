// Every op on extreme inputs, each call under a watchdog: Kepler's solver
// (plain and with its tangents), the light curve of every law (the tabulated
// one included) and the transit model (both geometries, with and without
// exposures and derivatives), through the CPU handlers XLA calls (the
// stand-in runtime of jaxlib_ext/cpu/ffi_test_runtime.h, with a thread pool)
// and through the device path (the code the CUDA kernels run, compiled for
// the host: tests/device_path_loops.h), in float32 and float64.
//
// Every parameter and every element is drawn, independently, either from
// its ordinary range or from the magnitudes where such bugs live: 0,
// +-1e-300, +-1e-15, +-1e15, +-1e300, NaN, +-inf; times also up to +-1e18
// and exposures up to 1e300; e also 1 - 1e-16 and its neighbours. The draws
// are seeded: every run makes the same calls (KEPLER_EXTREME_SCALE=k, in
// the environment, makes k times as many).
//
// A call fails the test when it does not return within kCallSeconds (the
// watchdog prints the call and exits), when a valid call returns an error,
// when an output element is left unwritten, or when Kepler's solution is
// not a sine and cosine (|s|, |c| <= 1) or NaN. CI runs it in the Bazel
// legs and under AddressSanitizer and UndefinedBehaviorSanitizer
// (--config=sanitize), where any read or write outside a buffer, any
// undefined arithmetic or any leak fails it too.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "jaxlib_ext/cpu/ffi_test_runtime.h"
#include "jaxlib_ext/ffi_targets.h"
#include "tests/device_path_loops.h"

namespace {

using jaxext::testing::Call;
using jaxext::testing::Checks;
using jaxext::testing::HostBuffer;
using jaxext::testing::MakeBuffer;
using jaxext::testing::Outcome;
using jaxext::testing::PoolMode;
namespace device = kepler_device_path::strict;

// The most a call of kElements elements may take, sanitizers included: the
// independent check of an installed wheel allows 10 s per call.
constexpr double kCallSeconds = 10;
constexpr size_t kElements = 12;
constexpr int kParams = kepler_device_path::kTransitParams;
constexpr int kLightParams = kepler_device_path::kTransitLightParams;
constexpr int kMaxOrder = kepler_device_path::kLightCurveMaxOrder;
constexpr int kMaxTable = kepler_device_path::kLightCurveMaxTableSize;
constexpr int kTabulated = kepler_device_path::kLightCurveTabulatedLaw;

Checks g_checks;

// Arms a deadline around each call; a call still running at its deadline
// ends the process with the call's description.
class Watchdog {
 public:
  Watchdog() : thread_([this] { Watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void Arm(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = what;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(kCallSeconds));
    armed_ = true;
    wake_.notify_all();
  }
  void Disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }

 private:
  void Watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      if (!armed_) {
        wake_.wait(lock);
        continue;
      }
      if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
          std::chrono::steady_clock::now() >= deadline_) {
        std::fprintf(stderr, "FAILED: a call took more than %g s: %s\n", kCallSeconds,
                     what_.c_str());
        std::fflush(stderr);
        std::_Exit(1);
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false, done_ = false;
  std::thread thread_;
};

Watchdog* g_watchdog;

// The extreme magnitudes, and the drawing of a value: from `ordinary` (a
// range) or, with probability p, from the extremes and `specials`.
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<double> kExtremes = {0.0,    -0.0,    1e-300, -1e-300, 1e-15, -1e-15, 1e15,
                                       -1e15, 1e300,   -1e300, kNaN,    kInf,  -kInf};

struct Draw {
  std::mt19937_64 rng{20261128};
  double Unit() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
  bool Chance(double p) { return Unit() < p; }
  template <typename V>
  double Pick(const V& values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
  }
  double Value(double lo, double hi, double p, const std::vector<double>& specials = {}) {
    if (!Chance(p)) return lo + (hi - lo) * Unit();
    if (!specials.empty() && Chance(0.4)) return Pick(specials);
    return Pick(kExtremes);
  }
};

Draw g_draw;

// The probability that a parameter, or an element, is extreme.
constexpr double kExtremeChance = 0.25;
const std::vector<double> kEccentricities = {1 - 1e-16, 1 - 2.3e-16, 1 - 1e-9, 0.999999, 1.0,
                                             1 + 1e-16, -1e-16};
const std::vector<double> kTimes = {1e18, -1e18, 4.5e15, 9.1e15, 1e12, 2.5e6};
const std::vector<double> kExposures = {1e10, 1e20, 1e300, 1e-12, 3.0, 1e6, -1.0};

// The values in full (a failure is then reproducible from its message).
std::string Describe(const std::vector<double>& values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", values[i]);
    s += (i ? ", " : "") + std::string(text);
  }
  return s + ")";
}

template <typename T>
HostBuffer BufferOf(const std::vector<double>& values, std::vector<int64_t> dims = {}) {
  if (dims.empty()) dims = {static_cast<int64_t>(values.size())};
  HostBuffer b = MakeBuffer<T>(dims);
  for (size_t i = 0; i < values.size(); ++i) b.data<T>()[i] = static_cast<T>(values[i]);
  return b;
}

// An output buffer filled with a pattern no computation writes (all bits
// set: a NaN whose payload neither arithmetic nor the inputs produce).
template <typename T>
HostBuffer Output(size_t n) {
  HostBuffer b = MakeBuffer<T>({static_cast<int64_t>(n)});
  b.Fill(0xff);
  return b;
}

template <typename T>
bool Unwritten(T x) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &x, sizeof(T));
  for (unsigned char c : bytes) {
    if (c != 0xff) return false;
  }
  return true;
}

template <typename T>
void ExpectWritten(const T* data, size_t n, const std::string& what) {
  size_t unwritten = 0;
  for (size_t i = 0; i < n; ++i) unwritten += Unwritten(data[i]);
  g_checks.Expect(unwritten == 0, what + ": every output element written",
                  std::to_string(unwritten) + " of " + std::to_string(n) + " left as they were");
}

// Runs `call` under the watchdog; an error fails `what`.
void Run(Call& call, XLA_FFI_Handler* handler, const std::string& what) {
  g_watchdog->Arm(what);
  const Outcome outcome = call.Run(handler, PoolMode::kThreads);
  g_watchdog->Disarm();
  g_checks.Expect(outcome.ok, what + ": the handler accepts the call", outcome.message);
}

template <typename F>
void Guarded(const std::string& what, F f) {
  g_watchdog->Arm(what);
  f();
  g_watchdog->Disarm();
}

// ---------------------------------------------------------------------------
// Kepler's equation.

template <typename T>
void CheckSolution(const T* s, const T* c, size_t n, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool nan = std::isnan(s[i]) && std::isnan(c[i]);
    const bool unit = std::fabs(s[i]) <= 1 && std::fabs(c[i]) <= 1;
    bad += !(nan || unit);
  }
  g_checks.Expect(bad == 0, what + ": a sine and cosine, or NaN in both",
                  std::to_string(bad) + " elements neither");
}

template <typename T>
void KeplerCalls(int calls) {
  for (int k = 0; k < calls; ++k) {
    std::vector<double> m(kElements), e(kElements), dm(kElements), de(kElements);
    for (size_t i = 0; i < kElements; ++i) {
      m[i] = g_draw.Chance(0.3) ? g_draw.Pick(kTimes) : g_draw.Value(-10, 10, kExtremeChance);
      e[i] = g_draw.Value(0, 1, kExtremeChance, kEccentricities);
      dm[i] = g_draw.Value(-1, 1, 0.1);
      de[i] = g_draw.Value(-1, 1, 0.1);
    }
    const bool true_anomaly = g_draw.Chance(0.5), tangents = g_draw.Chance(0.5);
    const std::string what = std::string("kepler_solve ") + jaxext::testing::TypeName<T>() +
                             (true_anomaly ? " true anomaly" : " eccentric anomaly") +
                             (tangents ? " with tangents" : "") + " M=" + Describe(m) +
                             " e=" + Describe(e);
    HostBuffer bm = BufferOf<T>(m), be = BufferOf<T>(e), bdm = BufferOf<T>(dm),
               bde = BufferOf<T>(de);
    std::vector<HostBuffer> out;
    for (int j = 0; j < (tangents ? 4 : 2); ++j) out.push_back(Output<T>(kElements));
    Call call;
    call.Arg(bm).Arg(be);
    if (tangents) call.Arg(bdm).Arg(bde);
    for (HostBuffer& o : out) call.Ret(o);
    call.BoolAttr("true_anomaly", true_anomaly);
    Run(call, KeplerSolveCpu, "CPU " + what);
    for (HostBuffer& o : out) ExpectWritten(o.data<T>(), kElements, "CPU " + what);
    CheckSolution(out[0].data<T>(), out[1].data<T>(), kElements, "CPU " + what);

    // The device path, from the same (rounded) inputs.
    HostBuffer s = Output<T>(kElements), c = Output<T>(kElements);
    Guarded("device path " + what, [&] {
      device::Solve(bm.data<T>(), be.data<T>(), s.data<T>(), c.data<T>(), kElements,
                    true_anomaly);
    });
    ExpectWritten(s.data<T>(), kElements, "device path " + what);
    ExpectWritten(c.data<T>(), kElements, "device path " + what);
    CheckSolution(s.data<T>(), c.data<T>(), kElements, "device path " + what);
  }
}

// ---------------------------------------------------------------------------
// The laws' coefficients: ordinary ones (a positive intensity), with
// extremes among them.

std::vector<double> Coefficients(int law, int order) {
  std::vector<double> u;
  if (law == kTabulated) {
    // A grid mu_1 < ... < mu_M in [0, 1], then the intensities there.
    const int m = order / 2;
    for (int j = 0; j < m; ++j) {
      u.push_back(g_draw.Chance(0.05) ? g_draw.Pick(kExtremes) : static_cast<double>(j) / (m - 1));
    }
    for (int j = 0; j < m; ++j) u.push_back(g_draw.Value(0.2, 1.0, 0.05));
    return u;
  }
  for (int j = 0; j < order; ++j) {
    const double scale = law == 0 ? 0.5 / order : 0.3;
    u.push_back(law == 1 && j == 1 ? g_draw.Value(0.1, 2.0, 0.1)  // power-2's exponent
                                   : g_draw.Value(0, scale, 0.1));
  }
  return u;
}

// The coefficient counts of a law: the polynomial law's orders and the
// tabulated law's 2 M, sampled; the others' own.
int DrawOrder(int law) {
  if (law == 0) return static_cast<int>(g_draw.Pick(std::vector<double>{0, 1, 2, 3, 5, 10, kMaxOrder}));
  if (law == kTabulated) {
    return 2 * static_cast<int>(g_draw.Pick(std::vector<double>{2, 3, 17, 78, kMaxTable}));
  }
  return device::LawCoefficientCount(law);
}

// ---------------------------------------------------------------------------
// The light curve.

template <typename T>
void LightCurveCalls(int law, int calls) {
  for (int k = 0; k < calls; ++k) {
    const int order = DrawOrder(law);
    const std::vector<double> u = Coefficients(law, order);
    std::vector<double> b(kElements), r(kElements);
    const double r_row = g_draw.Value(0.001, 0.5, kExtremeChance, {1.0, 3.0});
    for (size_t i = 0; i < kElements; ++i) {
      b[i] = g_draw.Value(0, 1.6, kExtremeChance, {r_row, 1 - r_row, 1 + r_row});
      r[i] = g_draw.Chance(0.7) ? r_row : g_draw.Value(0.001, 0.5, kExtremeChance);
    }
    // 0: the value alone, 1: and d/db, d/dr, 2: and d/du.
    const int outputs = static_cast<int>(g_draw.Unit() * 3);
    const int n_du = device::LawDerivativesInU(law, order);
    const std::string what = std::string("limb_dark ") +
                             kepler_device_path::kLightCurveLawNames[law] + " " +
                             jaxext::testing::TypeName<T>() + " outputs " +
                             std::to_string(outputs) + " u=" + Describe(u) + " b=" +
                             Describe(b) + " r=" + Describe(r);
    HostBuffer bu = BufferOf<T>(u, {static_cast<int64_t>(u.size())});
    HostBuffer bb = BufferOf<T>(b), br = BufferOf<T>(r);
    std::vector<HostBuffer> out;
    const size_t count = 1 + (outputs >= 1 ? 2 : 0) + (outputs == 2 ? n_du : 0);
    for (size_t j = 0; j < count; ++j) out.push_back(Output<T>(kElements));
    Call call;
    call.Arg(bu).Arg(bb).Arg(br);
    for (HostBuffer& o : out) call.Ret(o);
    call.I32Attr("law", law);
    Run(call, LimbDarkCpu, "CPU " + what);
    for (HostBuffer& o : out) ExpectWritten(o.data<T>(), kElements, "CPU " + what);

    std::vector<HostBuffer> dev;
    for (size_t j = 0; j < count; ++j) dev.push_back(Output<T>(kElements));
    std::vector<T*> du;
    for (size_t j = 3; j < count; ++j) du.push_back(dev[j].data<T>());
    Guarded("device path " + what, [&] {
      device::LightCurve(law, bu.data<T>(), order, kElements, bb.data<T>(), br.data<T>(),
                         dev[0].data<T>(), outputs >= 1 ? dev[1].data<T>() : nullptr,
                         outputs >= 1 ? dev[2].data<T>() : nullptr,
                         outputs == 2 && n_du > 0 ? du.data() : nullptr, kElements);
    });
    for (HostBuffer& o : dev) ExpectWritten(o.data<T>(), kElements, "device path " + what);
  }
}

// ---------------------------------------------------------------------------
// The transit model.

std::vector<double> TransitRow(int geometry) {
  std::vector<double> p(kParams);
  p[0] = g_draw.Value(0.5, 10, kExtremeChance);                         // period
  p[1] = g_draw.Value(-1, 1, kExtremeChance, kTimes);                   // t0
  p[2] = g_draw.Value(2, 30, kExtremeChance);                           // a
  p[3] = geometry == 0 ? g_draw.Value(0, 1.2, kExtremeChance)           // b
                       : g_draw.Value(1.45, 1.5707963, kExtremeChance);  // inc
  p[4] = g_draw.Value(0.01, 0.3, kExtremeChance, {1.0, 3.0});          // r
  p[5] = g_draw.Chance(0.5) ? 0.0 : g_draw.Value(0, 0.9, kExtremeChance, kEccentricities);
  p[6] = g_draw.Value(-3.2, 3.2, kExtremeChance);                       // omega
  return p;
}

template <typename T>
void TransitCalls(int law, int calls) {
  for (int k = 0; k < calls; ++k) {
    const int geometry = g_draw.Chance(0.5) ? 0 : 1;
    const int order = DrawOrder(law);
    std::vector<double> row = TransitRow(geometry);
    const double period = std::isfinite(row[0]) && row[0] > 0 ? row[0] : 3.0;
    const double t0 = std::isfinite(row[1]) ? row[1] : 0.0;
    // The planet's light (its five parameters after the orbit's): its
    // exposures integrate whole orbits.
    const bool light = g_draw.Chance(0.3);
    for (int j = 0; light && j < kLightParams; ++j) row.push_back(g_draw.Value(0, 1e-3, 0.3));
    // Transit times: the variations of 0 to 3 epochs.
    const int epochs = g_draw.Chance(0.5) ? 0 : 1 + static_cast<int>(3 * g_draw.Unit()) % 3;
    for (int j = 0; j < epochs; ++j) row.push_back(g_draw.Value(-0.02, 0.02, kExtremeChance));
    for (double x : Coefficients(law, order)) row.push_back(x);
    std::vector<double> t(kElements), exposure(kElements);
    const bool exposed = g_draw.Chance(0.6);
    for (size_t i = 0; i < kElements; ++i) {
      // Near a transit (a few orbits either side), or anywhere.
      t[i] = g_draw.Chance(0.6)
                 ? t0 + std::floor(5 * g_draw.Unit() - 2) * period + 0.05 * (g_draw.Unit() - 0.5)
                 : g_draw.Value(-1e3, 1e3, 0.5, kTimes);
      exposure[i] = !exposed || g_draw.Chance(0.2) ? 0.0
                                                   : g_draw.Value(0.001, 0.1, 0.4, kExposures);
    }
    // 0: the value alone, 1: and the parameters' and T's derivatives, 2: and d/du.
    const int outputs = static_cast<int>(g_draw.Unit() * 3);
    const int n_du = device::LawDerivativesInU(law, order);
    const std::string what = std::string(light ? "transit with light " : "transit ") +
                             "epochs " + std::to_string(epochs) + " " +
                             kepler_device_path::kLightCurveLawNames[law] + " " +
                             jaxext::testing::TypeName<T>() + " geometry " +
                             std::to_string(geometry) + " outputs " + std::to_string(outputs) +
                             " row=" + Describe(row) + " t=" + Describe(t) +
                             " exposure=" + Describe(exposure);
    HostBuffer bp = BufferOf<T>(row, {static_cast<int64_t>(row.size())});
    HostBuffer bt = BufferOf<T>(t), be = BufferOf<T>(exposure);
    const size_t count = 1 + (outputs >= 1 ? kParams + 1 + (light ? kLightParams : 0) : 0) +
                         (outputs == 2 ? n_du : 0);
    std::vector<HostBuffer> out;
    for (size_t j = 0; j < count; ++j) out.push_back(Output<T>(kElements));
    Call call;
    call.Arg(bp).Arg(bt).Arg(be);
    for (HostBuffer& o : out) call.Ret(o);
    call.I32Attr("epochs", epochs).I32Attr("geometry", geometry).I32Attr("law", law).I32Attr(
        "light", light ? 1 : 0);
    Run(call, TransitCpu, "CPU " + what);
    for (HostBuffer& o : out) ExpectWritten(o.data<T>(), kElements, "CPU " + what);

    // The device path computes in double (the kernel's float32 rows too).
    if (sizeof(T) != sizeof(double)) continue;
    std::vector<HostBuffer> dev;
    for (size_t j = 0; j < count; ++j) dev.push_back(Output<double>(kElements));
    std::vector<double*> ptrs(1 + kParams + 1 + kLightParams + kMaxTable, nullptr);
    for (size_t j = 0; j < count; ++j) ptrs[j] = dev[j].data<double>();
    Guarded("device path " + what, [&] {
      device::Transit(bp.data<double>(), order, law, geometry, light, epochs, bt.data<double>(),
                      be.data<double>(), ptrs.data(), kElements);
    });
    for (HostBuffer& o : dev) ExpectWritten(o.data<double>(), kElements, "device path " + what);
  }
}

}  // namespace

int main() {
  const char* scale_text = std::getenv("KEPLER_EXTREME_SCALE");
  const int scale = scale_text ? std::max(1, std::atoi(scale_text)) : 1;
  Watchdog watchdog;
  g_watchdog = &watchdog;
  const auto start = std::chrono::steady_clock::now();
  KeplerCalls<float>(200 * scale);
  KeplerCalls<double>(200 * scale);
  for (int law = 0; law < kepler_device_path::kLightCurveLawCount; ++law) {
    LightCurveCalls<float>(law, 60 * scale);
    LightCurveCalls<double>(law, 60 * scale);
    TransitCalls<float>(law, 60 * scale);
    TransitCalls<double>(law, 120 * scale);
  }
  std::printf("extreme inputs: %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return g_checks.Summary();
}
