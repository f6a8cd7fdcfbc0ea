// KeplerSolveCpu, the handler XLA calls, driven through a call frame as XLA
// builds one (jaxlib_ext/cpu/ffi_test_runtime.h), on every thread-pool mode:
//   - valid calls (float32 and float64; 0-d, empty, odd and multi-dimensional
//     shapes, and one large enough to be split across the pool; both
//     attributes): the outputs solve Kepler's equation (E - e sin E = M, and
//     the true anomaly from E), lie on the unit circle, and do not depend on
//     the pool (bitwise);
//   - adversarial values (NaN, +-inf, e < 0, e >= 1, huge and subnormal M and
//     e, -0): NaN exactly where docs/api.md says, finite everywhere else;
//   - malformed calls (shapes, dtypes, counts of arguments, results and
//     attributes, the attribute's type and name, the execution stage): an
//     error naming the problem, and no output written.
// Run under --config=sanitize by CI: any access outside a buffer, any data
// race that corrupts memory, or undefined behaviour fails it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "jaxlib_ext/cpu/ffi_test_runtime.h"
#include "jaxlib_ext/ffi_targets.h"

namespace jaxext {
namespace kepler_solve {
namespace {

using testing::Call;
using testing::Checks;
using testing::HostBuffer;
using testing::MakeBuffer;
using testing::Num;
using testing::Outcome;
using testing::PoolMode;
using testing::SameBytes;
using testing::TypeName;
using testing::ShapeName;

constexpr double kTwoPi = 6.283185307179586476925286766559;

Checks g_checks;

// M - (E - e sin E) reduced to (-pi, pi].
double Residual(double m, double e, double sin_e, double cos_e) {
  const double ecc_anomaly = std::atan2(sin_e, cos_e);
  const double d = std::remainder(ecc_anomaly - e * sin_e - m, kTwoPi);
  return std::fabs(d);
}

struct Solved {
  HostBuffer sin_out, cos_out;
};

template <typename T>
Solved Solve(HostBuffer& m, HostBuffer& e, bool true_anomaly, PoolMode mode, Outcome* outcome) {
  Solved out{MakeBuffer<T>(m.dims(), T(7)), MakeBuffer<T>(m.dims(), T(7))};
  *outcome = Call()
                 .Arg(m)
                 .Arg(e)
                 .Ret(out.sin_out)
                 .Ret(out.cos_out)
                 .BoolAttr("true_anomaly", true_anomaly)
                 .Run(KeplerSolveCpu, mode);
  return out;
}

// Random (M, e) in the valid region: M in [-m_max, m_max], e in [0, 1) with
// many near 0 and near 1.
template <typename T>
void ValidCalls(const std::vector<int64_t>& dims, double m_max, std::mt19937_64& rng) {
  HostBuffer m = MakeBuffer<T>(dims);
  HostBuffer e = MakeBuffer<T>(dims);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (size_t i = 0; i < m.count(); ++i) {
    m.data<T>()[i] = static_cast<T>(m_max * (2 * unit(rng) - 1));
    const double x = unit(rng);
    const double ecc = i % 3 == 0 ? x : (i % 3 == 1 ? 1 - std::pow(10.0, -8 * x) : 1e-6 * x);
    e.data<T>()[i] = std::min(static_cast<T>(ecc), std::nextafter(T(1), T(0)));
  }
  const std::string what = std::string(TypeName<T>()) + " " + ShapeName(dims);
  // float32 solves in float32: its residual is a few ulp of max(|M|, 2 pi).
  const double tol = sizeof(T) == 4 ? 3e-6 * (m_max + kTwoPi) : 4e-15 * (m_max + kTwoPi);
  for (bool true_anomaly : {false, true}) {
    const std::string call = what + (true_anomaly ? " true_anomaly" : " eccentric");
    Outcome first_outcome;
    Solved first = Solve<T>(m, e, true_anomaly, PoolMode::kNone, &first_outcome);
    g_checks.Expect(first_outcome.ok, call + ": valid call accepted", first_outcome.message);
    if (!first_outcome.ok) continue;
    double worst_circle = 0, worst_residual = 0;
    // The eccentric anomaly, for the true anomaly's check.
    Outcome ecc_outcome;
    Solved ecc = true_anomaly ? Solve<T>(m, e, false, PoolMode::kNone, &ecc_outcome)
                              : Solved{MakeBuffer<T>({0}), MakeBuffer<T>({0})};
    for (size_t i = 0; i < m.count(); ++i) {
      const double s = first.sin_out.data<T>()[i], c = first.cos_out.data<T>()[i];
      worst_circle = std::max(worst_circle, std::fabs(s * s + c * c - 1));
      const double ei = e.data<T>()[i];
      if (!true_anomaly) {
        worst_residual = std::max(worst_residual, Residual(m.data<T>()[i], ei, s, c));
      } else {
        // From E: cos f = (cos E - e) / (1 - e cos E),
        // sin f = sqrt(1 - e^2) sin E / (1 - e cos E); compared on the
        // circle, as an angle (f is ill-conditioned in E near e = 1).
        const double se = ecc.sin_out.data<T>()[i], ce = ecc.cos_out.data<T>()[i];
        const double den = 1 - ei * ce;
        const double cf = (ce - ei) / den, sf = std::sqrt((1 - ei) * (1 + ei)) * se / den;
        const double angle = std::fabs(std::atan2(sf * c - cf * s, cf * c + sf * s));
        // The true anomaly's condition number in E is sqrt((1+e)/(1-e)) at most.
        const double cond = std::sqrt((1 + ei) / std::max(1 - ei, 1e-300));
        worst_residual = std::max(worst_residual, angle / std::max(cond, 1.0));
      }
    }
    const double circle_tol = sizeof(T) == 4 ? 5e-7 : 1e-15;
    g_checks.Expect(worst_circle <= circle_tol, call + ": sin^2 + cos^2 = 1",
                    "worst " + Num(worst_circle));
    g_checks.Expect(worst_residual <= tol, call + ": solves Kepler's equation",
                    "worst " + Num(worst_residual) + " > " + Num(tol));
    for (PoolMode mode : testing::kAllPoolModes) {
      Outcome outcome;
      Solved again = Solve<T>(m, e, true_anomaly, mode, &outcome);
      g_checks.Expect(outcome.ok && SameBytes(again.sin_out, first.sin_out) &&
                          SameBytes(again.cos_out, first.cos_out),
                      call + ": " + testing::PoolModeName(mode) + " equals serial (bitwise)",
                      outcome.message);
    }
  }
}

// Every pair of special values: NaN where the docs say, finite elsewhere.
template <typename T>
void AdversarialValues() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T tiny = std::numeric_limits<T>::denorm_min();
  const T big = std::numeric_limits<T>::max();
  const std::vector<T> ms = {0, T(-0.0), T(1), T(-3), tiny, -tiny, T(1e30), -big, big,
                             inf, -inf, nan, T(kTwoPi), T(1e-30)};
  const std::vector<T> es = {0, T(-0.0), tiny, -tiny, T(0.5), std::nextafter(T(1), T(0)), T(1),
                             T(1.5), T(-0.5), inf, -inf, nan, big, T(1e-30)};
  const int64_t n = static_cast<int64_t>(ms.size() * es.size());
  HostBuffer m = MakeBuffer<T>({n});
  HostBuffer e = MakeBuffer<T>({n});
  for (size_t i = 0; i < ms.size(); ++i) {
    for (size_t j = 0; j < es.size(); ++j) {
      m.data<T>()[i * es.size() + j] = ms[i];
      e.data<T>()[i * es.size() + j] = es[j];
    }
  }
  for (bool true_anomaly : {false, true}) {
    for (PoolMode mode : testing::kAllPoolModes) {
      Outcome outcome;
      Solved out = Solve<T>(m, e, true_anomaly, mode, &outcome);
      const std::string what = std::string(TypeName<T>()) + " special values, " +
                               (true_anomaly ? "true anomaly, " : "eccentric, ") +
                               testing::PoolModeName(mode);
      g_checks.Expect(outcome.ok, what + ": accepted", outcome.message);
      int wrong = 0;
      std::string first_wrong;
      for (int64_t i = 0; i < n; ++i) {
        const T mi = m.data<T>()[i], ei = e.data<T>()[i];
        const bool invalid = !std::isfinite(mi) || !std::isfinite(ei) || ei < 0 || ei >= 1;
        const T s = out.sin_out.data<T>()[i], c = out.cos_out.data<T>()[i];
        const bool ok = invalid ? (std::isnan(s) && std::isnan(c))
                                : (std::isfinite(s) && std::isfinite(c) && std::fabs(s) <= 1 &&
                                   std::fabs(c) <= 1);
        if (!ok && wrong++ == 0) {
          first_wrong = "M=" + Num(mi) + " e=" + Num(ei) + " -> " + Num(s) + ", " + Num(c);
        }
      }
      g_checks.Expect(wrong == 0, what + ": NaN exactly where documented",
                      std::to_string(wrong) + " wrong, first " + first_wrong);
    }
  }
}

void ExpectRejected(Call& call, const std::string& what, const std::string& expect,
                    const std::vector<HostBuffer*>& outputs) {
  g_checks.ExpectRejected(KeplerSolveCpu, call, what, expect, outputs);
}

void MalformedCalls() {
  HostBuffer m = MakeBuffer<double>({5}, 1.0), e = MakeBuffer<double>({5}, 0.5);
  HostBuffer s = MakeBuffer<double>({5}), c = MakeBuffer<double>({5});
  HostBuffer e4 = MakeBuffer<double>({4}, 0.5), e51 = MakeBuffer<double>({5, 1}, 0.5);
  HostBuffer c4 = MakeBuffer<double>({4});
  HostBuffer e_f32 = MakeBuffer<float>({5}, 0.5f), c_f32 = MakeBuffer<float>({5});
  HostBuffer m_i32(XLA_FFI_DataType_S32, 4, {5}, 5), e_i32(XLA_FFI_DataType_S32, 4, {5}, 5);
  HostBuffer s_i32(XLA_FFI_DataType_S32, 4, {5}, 5), c_i32(XLA_FFI_DataType_S32, 4, {5}, 5);
  HostBuffer m_f16(XLA_FFI_DataType_F16, 2, {5}, 5), e_f16(XLA_FFI_DataType_F16, 2, {5}, 5);
  HostBuffer s_f16(XLA_FFI_DataType_F16, 2, {5}, 5), c_f16(XLA_FFI_DataType_F16, 2, {5}, 5);
  m_i32.Fill(0), e_i32.Fill(0), m_f16.Fill(0), e_f16.Fill(0);

  auto full = [&](HostBuffer& a, HostBuffer& b, HostBuffer& x, HostBuffer& y) {
    Call call;
    call.Arg(a).Arg(b).Ret(x).Ret(y).BoolAttr("true_anomaly", false);
    return call;
  };
  Call c1 = full(m, e4, s, c);
  ExpectRejected(c1, "shapes (5,) and (4,)", "has shape (4,)", {&s, &c});
  Call c2 = full(m, e51, s, c);
  ExpectRejected(c2, "shapes (5,) and (5, 1)", "has shape (5, 1)", {&s, &c});
  Call c3 = full(m, e, s, c4);
  ExpectRejected(c3, "an output of another shape", "second output has shape (4,)", {&s, &c4});
  Call c4_ = full(m, e_f32, s, c);
  ExpectRejected(c4_, "float64 and float32 arguments", "different dtype", {&s, &c});
  Call c5 = full(m, e, s, c_f32);
  ExpectRejected(c5, "a float32 output of float64 arguments", "different dtype", {&s, &c_f32});
  Call c6 = full(m_i32, e_i32, s_i32, c_i32);
  ExpectRejected(c6, "int32 buffers", "unsupported dtype", {&s_i32, &c_i32});
  Call c7 = full(m_f16, e_f16, s_f16, c_f16);
  ExpectRejected(c7, "float16 buffers", "unsupported dtype", {&s_f16, &c_f16});

  Call c8;
  c8.Arg(m).Ret(s).Ret(c).BoolAttr("true_anomaly", false);
  ExpectRejected(c8, "one argument", "Wrong number of arguments", {&s, &c});
  Call c9;
  c9.Arg(m).Arg(e).Arg(e).Ret(s).Ret(c).BoolAttr("true_anomaly", false);
  ExpectRejected(c9, "three arguments", "Wrong number of arguments", {&s, &c});
  Call c10;
  c10.Arg(m).Arg(e).Ret(s).BoolAttr("true_anomaly", false);
  ExpectRejected(c10, "one result", "Wrong number of results", {&s});
  Call c11;
  c11.Arg(m).Arg(e).Ret(s).Ret(c);
  ExpectRejected(c11, "no attribute", "Wrong number of attributes", {&s, &c});
  Call c12;
  c12.Arg(m).Arg(e).Ret(s).Ret(c).I32Attr("true_anomaly", 1);
  ExpectRejected(c12, "an int32 attribute", "Wrong scalar data type", {&s, &c});
  Call c13;
  c13.Arg(m).Arg(e).Ret(s).Ret(c).BoolAttr("true_anomalyx", false);
  ExpectRejected(c13, "another attribute's name", "Attribute name mismatch", {&s, &c});
  Call c14 = full(m, e, s, c);
  c14.Stage(XLA_FFI_ExecutionStage_INSTANTIATE);
  ExpectRejected(c14, "the instantiate stage", "Wrong execution stage", {&s, &c});
}

int Main() {
  std::mt19937_64 rng(20261124);
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {1}, {7}, {3, 0, 2}, {2, 3, 5}, {64}, {1000}, {70001}};
  for (const auto& dims : shapes) {
    ValidCalls<double>(dims, 1e3, rng);
    ValidCalls<float>(dims, 10, rng);
  }
  AdversarialValues<double>();
  AdversarialValues<float>();
  MalformedCalls();
  return g_checks.Summary();
}

}  // namespace
}  // namespace kepler_solve
}  // namespace jaxext

int main() { return jaxext::kepler_solve::Main(); }
