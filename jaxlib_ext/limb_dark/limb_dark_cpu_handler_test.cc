// LimbDarkCpu, the handler XLA calls, driven through a call frame as XLA
// builds one (jaxlib_ext/cpu/ffi_test_runtime.h), on every thread-pool mode:
//   - valid calls (float32 and float64; laws of 0 to kMaxOrder coefficients;
//     0-d, empty and multi-dimensional shapes, one large enough to be split
//     across the pool; rows of u each serving its own points; with and
//     without the gradient in u): the uniform disk equals the lens area of
//     two circles, dF/db, dF/dr and dF/du equal central differences of F, a
//     call with several rows of u equals one call per row, asking for dF/du
//     changes no other output, and nothing depends on the pool (bitwise);
//   - adversarial values (NaN, +-inf, r < 0, huge, subnormal and signed-zero
//     b and r, NaN and inf in u): NaN exactly where docs/api.md says, finite
//     everywhere else;
//   - malformed calls (shapes of u, b, r, the results and dF/du's planes,
//     dtypes, too many coefficients, counts of arguments, results and
//     attributes, an unknown law, a law given the wrong number of
//     coefficients, the execution stage): an error naming the problem, and
//     no output written.
// Run under --config=sanitize by CI: any access outside a buffer, any data
// race that corrupts memory, or undefined behaviour fails it.
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
#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext::limb_dark {
namespace {

// The stand-in runtime and its helpers (Call, HostBuffer, Checks, ...).
using namespace ::jaxext::testing;  // NOLINT(build/namespaces)

Checks g_checks;

// F - 1 lies in [-1, 0] for a positive intensity, up to the kernel's
// rounding (absolute: about 1e-16, at most 6e-16 with 6 coefficients, r <=
// 1e-20 next to b = 0; the accuracy bound is 1e-15).
constexpr double kFluxSlack = 1e-15;

// The handler's outputs for b of shape `dims` and a law of `order`
// coefficients: F - 1, dF/db, dF/dr (not passed for the value alone) and
// dF/du_1..dF/du_order (each of b's shape; none when not asked for).
struct Outputs {
  HostBuffer flux, d_db, d_dr;
  std::vector<HostBuffer> d_du;
};

bool SameDu(Outputs& a, Outputs& b) {
  if (a.d_du.size() != b.d_du.size()) return false;
  for (size_t k = 0; k < a.d_du.size(); ++k) {
    if (!SameBytes(a.d_du[k], b.d_du[k])) return false;
  }
  return true;
}

// with_derivatives false: one result, the value alone.
template <typename T>
Outputs Run(HostBuffer& u, HostBuffer& b, HostBuffer& r, bool with_du, PoolMode mode,
            Outcome* outcome, bool with_derivatives = true) {
  Outputs out{MakeBuffer<T>(b.dims(), T(7)), MakeBuffer<T>(b.dims(), T(7)),
              MakeBuffer<T>(b.dims(), T(7)), {}};
  if (with_du) {
    for (int64_t k = 0; k < u.dims().back(); ++k) out.d_du.push_back(MakeBuffer<T>(b.dims(), T(7)));
  }
  Call call;
  call.Arg(u).Arg(b).Arg(r).Ret(out.flux);
  if (with_derivatives) call.Ret(out.d_db).Ret(out.d_dr);
  for (HostBuffer& plane : out.d_du) call.Ret(plane);
  call.I32Attr("law", 0);
  *outcome = call.Run(LimbDarkCpu, mode);
  return out;
}

// A law of `order` non-negative coefficients summing to at most 0.9, so that
// the intensity is positive over the disk.
std::vector<double> RandomLaw(int order, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> u(order);
  double sum = 0;
  for (double& x : u) sum += (x = unit(rng));
  const double scale = order ? 0.9 * unit(rng) / sum : 0;
  for (double& x : u) x *= scale;
  return u;
}

// The uniform disk's F - 1: minus the area of the lens where a disk of
// radius r at distance b covers the unit disk, over pi, in long double:
// r^2 k0 + k1 - 2 A, with A the area of the triangle of sides 1, r, b
// (Kahan's form of Heron's formula) and k0, k1 its angles at the occultor's
// and the star's centre (atan2 of 4 A and the cosine rule's numerators),
// which stay accurate at the contact points.
double UniformReference(double b_in, double r_in) {
  using LD = long double;
  const LD b = std::fabs(b_in), r = r_in;
  const LD pi = 3.141592653589793238462643383279502884L;
  if (b - r >= 1) return 0;
  if (r - b >= 1) return -1;
  if (b + r <= 1) return static_cast<double>(-r * r);
  const LD x = std::max({b, r, LD(1)}), z = std::min({b, r, LD(1)});
  const LD y = std::max(std::min(b, r), std::min(std::max(b, r), LD(1)));  // the middle side
  const LD q = (x + (y + z)) * (z - (x - y)) * (z + (x - y)) * (x + (y - z));
  const LD area = 0.25L * std::sqrt(std::max(q, LD(0)));
  const LD k0 = std::atan2(4 * area, (r - 1) * (r + 1) + b * b);
  const LD k1 = std::atan2(4 * area, (1 - r) * (1 + r) + b * b);
  return static_cast<double>(-(r * r * k0 + k1 - 2 * area) / pi);
}

// Points spread over the whole range: b in [0, 1 + r + 0.5], r in [1e-3, 3]
// (log-uniform), a fifth of them on the special points b = 0, |1 - r|, 1 + r
// and r = 1.
template <typename T>
void FillPoints(HostBuffer& b, HostBuffer& r, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (size_t i = 0; i < b.count(); ++i) {
    double ri = std::pow(10.0, -3 + std::log10(3.0 * 1000) * unit(rng));
    if (i % 11 == 3) ri = 1;
    double bi = (1 + ri + 0.5) * unit(rng);
    switch (i % 5 == 4 ? (i / 5) % 3 : 3) {
      case 0:
        bi = 0;
        break;
      case 1:
        bi = std::fabs(1 - ri);
        break;
      case 2:
        bi = 1 + ri;
        break;
      default:
        break;
    }
    b.data<T>()[i] = static_cast<T>(bi);
    r.data<T>()[i] = static_cast<T>(ri);
  }
}

// One law, points of shape `dims`: the properties of valid calls.
template <typename T>
void ValidCalls(int order, const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  const std::vector<double> law = RandomLaw(order, rng);
  HostBuffer u = RowsBuffer<T>({law}, {});
  HostBuffer b = MakeBuffer<T>(dims), r = MakeBuffer<T>(dims);
  FillPoints<T>(b, r, rng);
  const std::string what = std::string(TypeName<T>()) + " order " + std::to_string(order) +
                           " " + ShapeName(dims);
  Outcome outcome;
  Outputs plain = Run<T>(u, b, r, false, PoolMode::kNone, &outcome);
  g_checks.Expect(outcome.ok, what + ": valid call accepted", outcome.message);
  if (!outcome.ok) return;

  Outputs with_du = Run<T>(u, b, r, true, PoolMode::kNone, &outcome);
  g_checks.Expect(outcome.ok && SameBytes(with_du.flux, plain.flux) &&
                      SameBytes(with_du.d_db, plain.d_db) && SameBytes(with_du.d_dr, plain.d_dr),
                  what + ": asking for dF/du changes no other output", outcome.message);
  for (PoolMode mode : testing::kAllPoolModes) {
    Outputs again = Run<T>(u, b, r, true, mode, &outcome);
    g_checks.Expect(outcome.ok && SameBytes(again.flux, with_du.flux) &&
                        SameBytes(again.d_db, with_du.d_db) &&
                        SameBytes(again.d_dr, with_du.d_dr) && SameDu(again, with_du),
                    what + ": " + testing::PoolModeName(mode) + " equals serial (bitwise)",
                    outcome.message);
    Outputs value_only = Run<T>(u, b, r, false, mode, &outcome, false);
    g_checks.Expect(outcome.ok && SameBytes(value_only.flux, plain.flux),
                    what + ": " + testing::PoolModeName(mode) +
                        ", the value alone equals the value with derivatives (bitwise)",
                    outcome.message);
  }

  // Every output finite, F - 1 in [-1, 0] (up to kFluxSlack), and 0
  // outside the disk.
  int bad = 0;
  std::string first_bad;
  for (size_t i = 0; i < b.count(); ++i) {
    const double f = plain.flux.data<T>()[i];
    const double bi = b.data<T>()[i], ri = r.data<T>()[i];
    const bool ok = std::isfinite(f) && std::isfinite(double(plain.d_db.data<T>()[i])) &&
                    std::isfinite(double(plain.d_dr.data<T>()[i])) && f <= kFluxSlack && f >= -1 - kFluxSlack &&
                    (bi < 1 + ri || bi - ri < 1 || f == 0);
    if (!ok && bad++ == 0) first_bad = "b=" + Num(bi) + " r=" + Num(ri) + " F-1=" + Num(f);
  }
  g_checks.Expect(bad == 0, what + ": finite, in [-1, 0], 0 off the disk",
                  std::to_string(bad) + " bad, first " + first_bad);

  if (order == 0) {
    double worst = 0;
    for (size_t i = 0; i < b.count(); ++i) {
      const double ref = UniformReference(b.data<T>()[i], r.data<T>()[i]);
      worst = std::max(worst, std::fabs(plain.flux.data<T>()[i] - ref));
    }
    const double tol = sizeof(T) == 4 ? 2e-7 : 1e-14;
    g_checks.Expect(worst <= tol, what + ": the lens area of two circles",
                    "worst " + Num(worst) + " > " + Num(tol));
  }

  // dF/db and dF/dr against central differences (float64; away from the
  // contact points, where F is not differentiable; laws of up to 6
  // coefficients, beyond which F's rounding error swamps the differences).
  if (sizeof(T) == 8 && b.count() > 0 && order <= 6) {
    const size_t n = b.count();
    const std::vector<int64_t> flat = {static_cast<int64_t>(n)};
    for (int which = 0; which < 2; ++which) {
      HostBuffer bp = MakeBuffer<T>(flat), bm = MakeBuffer<T>(flat);
      HostBuffer rp = MakeBuffer<T>(flat), rm = MakeBuffer<T>(flat);
      std::vector<double> h(n);
      for (size_t i = 0; i < n; ++i) {
        const double bi = b.data<T>()[i], ri = r.data<T>()[i];
        h[i] = 1e-5 * std::max(which == 0 ? bi : ri, 0.1);
        bp.data<T>()[i] = static_cast<T>(bi + (which == 0 ? h[i] : 0));
        bm.data<T>()[i] = static_cast<T>(bi - (which == 0 ? h[i] : 0));
        rp.data<T>()[i] = static_cast<T>(ri + (which == 1 ? h[i] : 0));
        rm.data<T>()[i] = static_cast<T>(ri - (which == 1 ? h[i] : 0));
      }
      Outputs up = Run<T>(u, bp, rp, false, PoolMode::kThreads, &outcome);
      Outputs down = Run<T>(u, bm, rm, false, PoolMode::kThreads, &outcome);
      double worst = 0;
      for (size_t i = 0; i < n; ++i) {
        const double bi = b.data<T>()[i], ri = r.data<T>()[i];
        const double gap = std::min({std::fabs(bi - std::fabs(1 - ri)), std::fabs(bi - (1 + ri)),
                                     std::fabs(bi)});
        if (gap < 1e-2) continue;
        const double fd = (up.flux.data<T>()[i] - down.flux.data<T>()[i]) / (2 * h[i]);
        const double an = which == 0 ? plain.d_db.data<T>()[i] : plain.d_dr.data<T>()[i];
        worst = std::max(worst, std::fabs(fd - an) / (std::fabs(an) + 1e-3));
      }
      g_checks.Expect(worst <= 1e-5,
                      what + (which == 0 ? ": dF/db" : ": dF/dr") + " = central difference",
                      "worst relative " + Num(worst));
    }
    // dF/du_j: F is a ratio of two linear functions of u, smooth everywhere.
    for (int j = 0; j < order; ++j) {
      const double h = 1e-5;
      std::vector<double> up_law = law, down_law = law;
      up_law[j] += h;
      down_law[j] -= h;
      HostBuffer u_up = RowsBuffer<T>({up_law}, {}), u_down = RowsBuffer<T>({down_law}, {});
      Outputs up = Run<T>(u_up, b, r, false, PoolMode::kThreads, &outcome);
      Outputs down = Run<T>(u_down, b, r, false, PoolMode::kThreads, &outcome);
      double worst = 0;
      for (size_t i = 0; i < n; ++i) {
        const double fd = (up.flux.data<T>()[i] - down.flux.data<T>()[i]) / (2 * h);
        const double an = with_du.d_du[j].data<T>()[i];
        worst = std::max(worst, std::fabs(fd - an) / (std::fabs(an) + 1e-3));
      }
      g_checks.Expect(worst <= 1e-7, what + ": dF/du_" + std::to_string(j + 1) +
                                         " = central difference",
                      "worst relative " + Num(worst));
    }
  }
}

// Three laws as rows of u, each serving its own points: the same as one call
// per row.
template <typename T>
void GroupedCalls(int order, std::mt19937_64& rng) {
  const int64_t rows = 3, per_row = 2500;  // 7500 points: split across the pool
  std::vector<std::vector<double>> laws;
  for (int64_t k = 0; k < rows; ++k) laws.push_back(RandomLaw(order, rng));
  HostBuffer u = RowsBuffer<T>(laws, {rows});
  HostBuffer b = MakeBuffer<T>({rows, per_row}), r = MakeBuffer<T>({rows, per_row});
  FillPoints<T>(b, r, rng);
  const std::string what = std::string(TypeName<T>()) + " order " + std::to_string(order) +
                           ": 3 rows of u";
  Outcome outcome;
  Outputs all = Run<T>(u, b, r, true, PoolMode::kThreads, &outcome);
  g_checks.Expect(outcome.ok, what + ": accepted", outcome.message);
  int mismatched = 0;
  for (int64_t k = 0; k < rows; ++k) {
    HostBuffer uk = RowsBuffer<T>({laws[k]}, {});
    HostBuffer bk = MakeBuffer<T>({per_row}), rk = MakeBuffer<T>({per_row});
    for (int64_t i = 0; i < per_row; ++i) {
      bk.data<T>()[i] = b.data<T>()[k * per_row + i];
      rk.data<T>()[i] = r.data<T>()[k * per_row + i];
    }
    Outputs one = Run<T>(uk, bk, rk, true, PoolMode::kNone, &outcome);
    for (int64_t i = 0; i < per_row; ++i) {
      const size_t j = static_cast<size_t>(k * per_row + i);
      mismatched += one.flux.data<T>()[i] != all.flux.data<T>()[j] ||
                    one.d_db.data<T>()[i] != all.d_db.data<T>()[j] ||
                    one.d_dr.data<T>()[i] != all.d_dr.data<T>()[j];
      for (int c = 0; c < order; ++c) {
        mismatched += one.d_du[c].data<T>()[i] != all.d_du[c].data<T>()[j];
      }
    }
  }
  g_checks.Expect(mismatched == 0, what + " equal one call per row",
                  std::to_string(mismatched) + " values differ");
}

// Every pair of special b and r, for a few laws: NaN exactly where the docs
// say, finite everywhere else.
template <typename T>
void AdversarialValues() {
  const auto [inf, nan, tiny, big] = testing::Extremes<T>();
  const std::vector<T> bs = {0, T(-0.0), tiny, T(1e-17), T(0.5), T(0.9), T(1), T(1.1), T(2),
                             T(-0.5), T(1e20), big, inf, -inf, nan};
  const std::vector<T> rs = {0, T(-0.0), tiny, T(1e-20), T(1e-3), T(0.1), T(1), T(2.5),
                             T(1e20), big, T(-0.1), -tiny, inf, -inf, nan};
  const int64_t n = static_cast<int64_t>(bs.size() * rs.size());
  HostBuffer b = MakeBuffer<T>({n}), r = MakeBuffer<T>({n});
  for (size_t i = 0; i < bs.size(); ++i) {
    for (size_t j = 0; j < rs.size(); ++j) {
      b.data<T>()[i * rs.size() + j] = bs[i];
      r.data<T>()[i * rs.size() + j] = rs[j];
    }
  }
  const std::vector<std::vector<double>> laws = {
      {}, {0.6}, {0.4, 0.26}, {0.3, 0.2, 0.1}, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1}};
  for (const auto& law : laws) {
    HostBuffer u = RowsBuffer<T>({law}, {});
    const std::string what = std::string(TypeName<T>()) + " special b and r, order " +
                             std::to_string(law.size());
    Outcome outcome;
    Outputs out = Run<T>(u, b, r, true, PoolMode::kThreads, &outcome);
    g_checks.Expect(outcome.ok, what + ": accepted", outcome.message);
    int wrong = 0;
    std::string first_wrong;
    for (int64_t i = 0; i < n; ++i) {
      const T bi = b.data<T>()[i], ri = r.data<T>()[i];
      const bool invalid = !std::isfinite(bi) || !std::isfinite(ri) || ri < 0;
      // An occultor beyond kMaxCrossingRadius whose limb crosses the disk:
      // NaN (docs/api.md).
      const bool too_big = ri > kMaxCrossingRadius && std::fabs(std::fabs(bi) - ri) < 1;
      const T f = out.flux.data<T>()[i], fb = out.d_db.data<T>()[i], fr = out.d_dr.data<T>()[i];
      const bool ok = invalid || too_big ? (std::isnan(f) && std::isnan(fb) && std::isnan(fr))
                              : (std::isfinite(f) && f <= kFluxSlack && f >= -1 - kFluxSlack && !std::isnan(fb) &&
                                 !std::isnan(fr));
      if (!ok && wrong++ == 0) {
        first_wrong = "b=" + Num(bi) + " r=" + Num(ri) + " -> " + Num(f) + ", " + Num(fb) +
                      ", " + Num(fr);
      }
    }
    g_checks.Expect(wrong == 0, what + ": NaN exactly where documented",
                    std::to_string(wrong) + " wrong, first " + first_wrong);
  }
  // NaN or inf in u: NaN everywhere.
  for (T bad : {nan, inf, -inf}) {
    HostBuffer u = RowsBuffer<T>({{0.4, static_cast<double>(bad)}}, {});
    Outcome outcome;
    Outputs out = Run<T>(u, b, r, false, PoolMode::kThreads, &outcome);
    int finite = 0;
    for (int64_t i = 0; i < n; ++i) finite += !std::isnan(out.flux.data<T>()[i]);
    g_checks.Expect(outcome.ok && finite == 0,
                    std::string(TypeName<T>()) + " u with " + Num(bad) + ": NaN everywhere",
                    std::to_string(finite) + " not NaN " + outcome.message);
  }
}

void MalformedCalls() {
  HostBuffer u = MakeBuffer<double>({2}, 0.3), b = MakeBuffer<double>({4}, 0.5);
  HostBuffer r = MakeBuffer<double>({4}, 0.1);
  HostBuffer f = MakeBuffer<double>({4}), fb = MakeBuffer<double>({4});
  HostBuffer fr = MakeBuffer<double>({4}), du1 = MakeBuffer<double>({4});
  HostBuffer du2 = MakeBuffer<double>({4});
  HostBuffer r3 = MakeBuffer<double>({3}, 0.1), f3 = MakeBuffer<double>({3});
  HostBuffer du_short = MakeBuffer<double>({3}), du_f32 = MakeBuffer<float>({4});
  HostBuffer u0 = MakeBuffer<double>({}, 0.3), u_lead = MakeBuffer<double>({3, 2}, 0.3);
  HostBuffer u_deep = MakeBuffer<double>({1, 4, 2}, 0.3);
  HostBuffer u_long = MakeBuffer<double>({kMaxOrder + 1}, 0.0);
  HostBuffer u_f32 = MakeBuffer<float>({2}, 0.3f), r_f32 = MakeBuffer<float>({4}, 0.1f);
  HostBuffer u_i32(XLA_FFI_DataType_S32, 4, {2}, 2), b_i32(XLA_FFI_DataType_S32, 4, {4}, 4);
  HostBuffer r_i32(XLA_FFI_DataType_S32, 4, {4}, 4), o_i32(XLA_FFI_DataType_S32, 4, {4}, 4);
  HostBuffer o2_i32(XLA_FFI_DataType_S32, 4, {4}, 4), o3_i32(XLA_FFI_DataType_S32, 4, {4}, 4);
  for (HostBuffer* x : {&u_i32, &b_i32, &r_i32}) x->Fill(0);

  // u, b, r, then the results in order.
  auto call = [](HostBuffer& u_, HostBuffer& b_, HostBuffer& r_,
                 const std::vector<HostBuffer*>& results) {
    Call c;
    c.Arg(u_).Arg(b_).Arg(r_);
    for (HostBuffer* x : results) c.Ret(*x);
    c.I32Attr("law", 0);
    return c;
  };
  auto reject = [](Call c, const std::string& what, const std::string& expect,
                   const std::vector<HostBuffer*>& outs) {
    g_checks.ExpectRejected(LimbDarkCpu, c, what, expect, outs);
  };
  const std::vector<HostBuffer*> outs = {&f, &fb, &fr, &du1, &du2};
  reject(call(u, b, r3, outs), "b (4,) and r (3,)", "r has shape (3,)", outs);
  reject(call(u, b, r, {&f3, &fb, &fr, &du1, &du2}), "flux of another shape",
         "flux has shape (3,)", {&f3, &fb, &fr, &du1, &du2});
  reject(call(u, b, r, {&f, &fb, &fr, &du_short, &du2}), "a plane of dF/du of another shape",
         "d_du_1 has shape (3,)", {&f, &fb, &fr, &du_short, &du2});
  reject(call(u, b, r, {&f, &fb, &fr, &du1, &du_f32}), "a plane of dF/du of another dtype",
         "d_du_2 has a different dtype", {&f, &fb, &fr, &du1, &du_f32});
  reject(call(u, b, r, {&f, &f3, &fr}), "d_db of another shape", "d_db has shape (3,)",
         {&f, &f3, &fr});
  reject(call(u_f32, b, r, outs), "u of another dtype", "u must have b's dtype", outs);
  HostBuffer fb_f32 = MakeBuffer<float>({4});
  reject(call(u, b, r, {&f, &fb_f32, &fr}), "d_db of another dtype", "different dtype",
         {&f, &fb_f32, &fr});
  // The results: 1 (the value alone), 3 (with dF/db, dF/dr) or N + 3 (and
  // dF/du), nothing else.
  reject(call(u, b, r, {&f, &fb}), "two results", "2 results; expected 1", {&f, &fb});
  reject(call(u, b, r, {&f, &fb, &fr, &du1}), "dF/du with a plane missing",
         "4 results; expected 1 (F - 1), 3 (and dF/db, dF/dr) or 5", {&f, &fb, &fr, &du1});
  for (int count : {1, 3, 5}) {
    Outcome ok = call(u, b, r, std::vector<HostBuffer*>(outs.begin(), outs.begin() + count))
                     .Run(LimbDarkCpu, PoolMode::kNone);
    g_checks.Expect(ok.ok, std::to_string(count) + " results: accepted", ok.message);
  }
  reject(call(u, b, r_f32, outs), "r of another dtype", "different dtype", outs);
  reject(call(u0, b, r, outs), "0-d u", "not (K..., N)", outs);
  reject(call(u_deep, b, r, outs), "u of more dimensions than b", "not (K..., N)", outs);
  reject(call(u_lead, b, r, outs), "u's leading dimension not b's",
         "leading dimensions of u", outs);
  reject(call(u_long, b, r, {&f, &fb, &fr}), "too many coefficients",
         std::to_string(kMaxOrder + 1) + " coefficients", {&f, &fb, &fr});
  reject(call(u_i32, b_i32, r_i32, {&o_i32, &o2_i32, &o3_i32}), "int32 buffers",
         "unsupported dtype", {&o_i32, &o2_i32, &o3_i32});
  Call few;
  few.Arg(u).Arg(b).Ret(f).Ret(fb).Ret(fr);
  reject(std::move(few), "two arguments", "Wrong number of arguments", {&f, &fb, &fr});
  Call no_results;
  no_results.Arg(u).Arg(b).Arg(r);
  reject(std::move(no_results), "no result", "Wrong number of results", {});
  Call attr = call(u, b, r, outs);
  attr.BoolAttr("with_du", true);
  reject(std::move(attr), "an attribute", "Wrong number of attributes", outs);
  for (int32_t law : {-1, kLawCount}) {
    Call unknown;
    unknown.Arg(u).Arg(b).Arg(r);
    for (HostBuffer* x : outs) unknown.Ret(*x);
    unknown.I32Attr("law", law);
    reject(std::move(unknown), "an unknown law", "unknown law " + std::to_string(law), outs);
  }
  Call miscounted;  // u has 2 coefficients; the nonlinear law takes 4
  miscounted.Arg(u).Arg(b).Arg(r);
  for (HostBuffer* x : outs) miscounted.Ret(*x);
  miscounted.I32Attr("law", static_cast<int32_t>(Law::kNonlinear));
  reject(std::move(miscounted), "coefficients the law does not take", "takes 4 coefficients",
         outs);
  // The tabulated law: 2 M coefficients (grid, intensities), M >= 2, and
  // one dF/du per intensity.
  auto tabulated = [&](HostBuffer& u_, const std::vector<HostBuffer*>& results) {
    Call c;
    c.Arg(u_).Arg(b).Arg(r);
    for (HostBuffer* x : results) c.Ret(*x);
    c.I32Attr("law", static_cast<int32_t>(Law::kTabulated));
    return c;
  };
  HostBuffer u3 = MakeBuffer<double>({3}, 0.3), u4 = MakeBuffer<double>({4}, 0.3);
  HostBuffer du3 = MakeBuffer<double>({4}), du4 = MakeBuffer<double>({4});
  reject(tabulated(u, {&f, &fb, &fr}), "a table of one point", "2 M coefficients for M = 2..",
         {&f, &fb, &fr});
  reject(tabulated(u3, {&f, &fb, &fr}), "an odd count for a table", "u has 3", {&f, &fb, &fr});
  reject(tabulated(u_long, {&f, &fb, &fr}), "a table of too many points", "u has 33",
         {&f, &fb, &fr});
  reject(tabulated(u4, {&f, &fb, &fr, &du1, &du2, &du3, &du4}),
         "one dF/du per coefficient of a table", "for N = 2", {&f, &fb, &fr, &du1, &du2, &du3,
                                                               &du4});
  Call stage = call(u, b, r, outs);
  stage.Stage(XLA_FFI_ExecutionStage_PREPARE);
  reject(std::move(stage), "the prepare stage", "Wrong execution stage", outs);
}

int Main() {
  std::mt19937_64 rng(20261124);
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {1}, {2, 0}, {5}, {3, 7}, {5000}};
  return g_checks.Run({
      {"malformed calls", MalformedCalls},
      {"adversarial values, every law", [] {
         AdversarialValues<double>();
         AdversarialValues<float>();
       }},
      {"valid and grouped calls, every order and shape",
       [&] {
         for (int order : {0, 1, 2, 3, 6, kMaxOrder}) {
           for (const auto& dims : shapes) {
             ValidCalls<double>(order, dims, rng);
             ValidCalls<float>(order, dims, rng);
           }
           GroupedCalls<double>(order, rng);
           GroupedCalls<float>(order, rng);
         }
       }},
  });
}

}  // namespace
}  // namespace jaxext::limb_dark

int main() { return jaxext::limb_dark::Main(); }
