// KeplerSolveCpu, the handler XLA calls, driven through a call frame as XLA
// builds one (jaxlib_ext/cpu/ffi_test_runtime.h), on every thread-pool mode:
//   - valid calls (float32 and float64; 0-d, empty, odd and multi-dimensional
//     shapes, and one large enough to be split across the pool; both
//     attributes): the outputs solve Kepler's equation (E - e sin E = M, and
//     the true anomaly from E), lie on the unit circle, and do not depend on
//     the pool (bitwise); the JVP form (tangents in, tangents out) returns
//     the same values bitwise and tangents equal to central differences of
//     the plain call;
//   - adversarial values (NaN, +-inf, e < 0, e >= 1, huge and subnormal M and
//     e, -0): NaN exactly where docs/api.md says, finite everywhere else,
//     tangents included;
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

namespace jaxext::kepler_solve {
namespace {

// The stand-in runtime and its helpers (Call, HostBuffer, Checks, ...).
using namespace ::jaxext::testing;  // NOLINT(build/namespaces)

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

struct SolvedJvp {
  HostBuffer sin_out, cos_out, d_sin_out, d_cos_out;
};

template <typename T>
SolvedJvp SolveJvp(HostBuffer& m, HostBuffer& e, HostBuffer& dm, HostBuffer& de,
                   bool true_anomaly, PoolMode mode, Outcome* outcome) {
  SolvedJvp out{MakeBuffer<T>(m.dims(), T(7)), MakeBuffer<T>(m.dims(), T(7)),
                MakeBuffer<T>(m.dims(), T(7)), MakeBuffer<T>(m.dims(), T(7))};
  *outcome = Call()
                 .Arg(m)
                 .Arg(e)
                 .Arg(dm)
                 .Arg(de)
                 .Ret(out.sin_out)
                 .Ret(out.cos_out)
                 .Ret(out.d_sin_out)
                 .Ret(out.d_cos_out)
                 .BoolAttr("true_anomaly", true_anomaly)
                 .Run(KeplerSolveCpu, mode);
  return out;
}

// The JVP form on valid inputs: values bitwise those of the plain call
// (`plain`), tangents equal to central differences of the plain call along
// (dm, de) in float64 (where the solution is smooth enough for them: 1 - e
// cos E > 0.05), and the same on every pool mode.
template <typename T>
void JvpCalls(HostBuffer& m, HostBuffer& e, Solved& plain, bool true_anomaly,
              const std::string& call, std::mt19937_64& rng) {
  HostBuffer dm = MakeBuffer<T>(m.dims()), de = MakeBuffer<T>(m.dims());
  std::uniform_real_distribution<double> sym(-1.0, 1.0);
  for (size_t i = 0; i < m.count(); ++i) {
    dm.data<T>()[i] = static_cast<T>(sym(rng));
    de.data<T>()[i] = static_cast<T>(sym(rng));
  }
  Outcome outcome;
  SolvedJvp jvp = SolveJvp<T>(m, e, dm, de, true_anomaly, PoolMode::kNone, &outcome);
  g_checks.Expect(outcome.ok, call + " JVP: accepted", outcome.message);
  if (!outcome.ok) return;
  g_checks.Expect(SameBytes(jvp.sin_out, plain.sin_out) && SameBytes(jvp.cos_out, plain.cos_out),
                  call + " JVP: values equal the plain call's (bitwise)");
  if (sizeof(T) == 8 && m.count() > 0) {
    // Central differences of the plain call, step h along (dm, de).
    const double h = 1e-6;
    HostBuffer mp = MakeBuffer<T>(m.dims()), ep = MakeBuffer<T>(m.dims());
    HostBuffer mm = MakeBuffer<T>(m.dims()), em = MakeBuffer<T>(m.dims());
    for (size_t i = 0; i < m.count(); ++i) {
      const T ei = e.data<T>()[i];
      // e +- h de stays in [0, 1) for the points compared below.
      mp.data<T>()[i] = m.data<T>()[i] + T(h) * dm.data<T>()[i];
      mm.data<T>()[i] = m.data<T>()[i] - T(h) * dm.data<T>()[i];
      ep.data<T>()[i] = ei + T(h) * de.data<T>()[i];
      em.data<T>()[i] = ei - T(h) * de.data<T>()[i];
    }
    Outcome o1, o2;
    Solved plus = Solve<T>(mp, ep, true_anomaly, PoolMode::kNone, &o1);
    Solved minus = Solve<T>(mm, em, true_anomaly, PoolMode::kNone, &o2);
    double worst = 0;
    size_t compared = 0;
    for (size_t i = 0; i < m.count(); ++i) {
      const double ei = e.data<T>()[i], ce = plain.cos_out.data<T>()[i];
      if (ei < h || ei > 1 - 1e-2 || 1 - ei * std::fabs(ce) < 0.05) continue;
      ++compared;
      const double fd_s = (double(plus.sin_out.data<T>()[i]) - minus.sin_out.data<T>()[i]) / (2 * h);
      const double fd_c = (double(plus.cos_out.data<T>()[i]) - minus.cos_out.data<T>()[i]) / (2 * h);
      const double scale = 1 + std::fabs(fd_s) + std::fabs(fd_c);
      worst = std::max(worst, std::max(std::fabs(fd_s - jvp.d_sin_out.data<T>()[i]),
                                        std::fabs(fd_c - jvp.d_cos_out.data<T>()[i])) / scale);
    }
    g_checks.Expect(o1.ok && o2.ok && worst <= 1e-6 && (m.count() < 64 || compared * 4 >= m.count() / 3),
                    call + " JVP: tangents equal central differences",
                    "worst " + Num(worst) + " over " + std::to_string(compared) + " points");
  }
  for (PoolMode mode : testing::kAllPoolModes) {
    Outcome again_outcome;
    SolvedJvp again = SolveJvp<T>(m, e, dm, de, true_anomaly, mode, &again_outcome);
    g_checks.Expect(again_outcome.ok && SameBytes(again.sin_out, jvp.sin_out) &&
                        SameBytes(again.d_sin_out, jvp.d_sin_out) &&
                        SameBytes(again.d_cos_out, jvp.d_cos_out),
                    call + " JVP: " + testing::PoolModeName(mode) + " equals serial (bitwise)",
                    again_outcome.message);
  }
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
    JvpCalls<T>(m, e, first, true_anomaly, call, rng);
  }
}

// Every pair of special values: NaN where the docs say, finite elsewhere.
template <typename T>
void AdversarialValues() {
  const auto [inf, nan, tiny, big] = testing::Extremes<T>();
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
      // The JVP form, unit tangents: all four outputs NaN exactly there.
      HostBuffer dm = MakeBuffer<T>({n}, T(1)), de = MakeBuffer<T>({n}, T(1));
      Outcome jvp_outcome;
      SolvedJvp jvp = SolveJvp<T>(m, e, dm, de, true_anomaly, mode, &jvp_outcome);
      int jvp_wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T mi = m.data<T>()[i], ei = e.data<T>()[i];
        const bool invalid = !std::isfinite(mi) || !std::isfinite(ei) || ei < 0 || ei >= 1;
        const T ds = jvp.d_sin_out.data<T>()[i], dc = jvp.d_cos_out.data<T>()[i];
        const bool ok = invalid ? (std::isnan(ds) && std::isnan(dc))
                                : (std::isfinite(ds) && std::isfinite(dc));
        if (!ok && jvp_wrong++ == 0) {
          first_wrong = "M=" + Num(mi) + " e=" + Num(ei) + " -> " + Num(ds) + ", " + Num(dc);
        }
      }
      g_checks.Expect(jvp_outcome.ok && SameBytes(jvp.sin_out, out.sin_out) &&
                          SameBytes(jvp.cos_out, out.cos_out) && jvp_wrong == 0,
                      what + ": JVP form, NaN exactly where documented",
                      jvp_outcome.message + " " + std::to_string(jvp_wrong) + " wrong, first " +
                          first_wrong);
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
  ExpectRejected(c9, "three arguments", "a JVP call takes 4 arguments and 4 results; got 3 "
                 "arguments and 2 results", {&s, &c});
  HostBuffer ds = MakeBuffer<double>({5}), dc = MakeBuffer<double>({5});
  HostBuffer dm = MakeBuffer<double>({5}, 1.0), de = MakeBuffer<double>({5}, 1.0);
  Call j1;
  j1.Arg(m).Arg(e).Arg(dm).Arg(de).Ret(s).Ret(c).BoolAttr("true_anomaly", false);
  ExpectRejected(j1, "tangents without their results", "got 4 arguments and 2 results",
                 {&s, &c});
  Call j2;
  j2.Arg(m).Arg(e).Ret(s).Ret(c).Ret(ds).Ret(dc).BoolAttr("true_anomaly", false);
  ExpectRejected(j2, "tangent results without tangents", "got 2 arguments and 4 results",
                 {&s, &c, &ds, &dc});
  Call j3;
  j3.Arg(m).Arg(e).Arg(dm).Arg(de).Arg(de).Ret(s).Ret(c).Ret(ds).Ret(dc).BoolAttr("true_anomaly",
                                                                                 false);
  ExpectRejected(j3, "five arguments", "got 5 arguments and 4 results", {&s, &c, &ds, &dc});
  Call j4;
  j4.Arg(m).Arg(e).Arg(dm).Arg(e4).Ret(s).Ret(c).Ret(ds).Ret(dc).BoolAttr("true_anomaly", true);
  ExpectRejected(j4, "a tangent of another shape", "eccentricity's tangent has shape (4,)",
                 {&s, &c, &ds, &dc});
  Call j5;
  j5.Arg(m).Arg(e).Arg(dm).Arg(e_f32).Ret(s).Ret(c).Ret(ds).Ret(dc).BoolAttr("true_anomaly", false);
  ExpectRejected(j5, "a float32 tangent", "different dtype", {&s, &c, &ds, &dc});
  Call j6;
  j6.Arg(m).Arg(e).Arg(dm).Arg(de).Ret(s).Ret(c).Ret(ds).Ret(c4).BoolAttr("true_anomaly", false);
  ExpectRejected(j6, "a tangent result of another shape", "fourth output has shape (4,)",
                 {&s, &c, &ds, &c4});
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
  return g_checks.Run({
      {"malformed calls", MalformedCalls},
      {"adversarial values", [] {
         AdversarialValues<double>();
         AdversarialValues<float>();
       }},
      {"valid calls, every shape",
       [&] {
         for (const auto& dims : shapes) {
           ValidCalls<double>(dims, 1e3, rng);
           ValidCalls<float>(dims, 10, rng);
         }
       }},
  });
}

}  // namespace
}  // namespace jaxext::kepler_solve

int main() { return jaxext::kepler_solve::Main(); }
