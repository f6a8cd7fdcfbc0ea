// The host path's logarithm and exponential of elementary.h (LogOfNode,
// Expm1OfNode: a range reduction and a fitted polynomial each), against the
// C library's long double logl and expm1l (64 or more bits of mantissa), in
// relative error, on inputs drawn over the whole range each serves and next
// to the points where a reduction changes (powers of two, x = 1, x = 0, k
// log 2 / 2).
//
// Prints one line per check and ends with "N passed, M failed"; the exit
// status is nonzero if any check failed.

#include "jaxlib_ext/math/elementary.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using jaxext::math::Expm1OfNode;
using jaxext::math::LogOfNode;

int g_passed = 0;
int g_failed = 0;

void Report(bool ok, const std::string& what, double worst, double bound, double where) {
  std::printf("%s %s: largest relative error %.3g (bound %.3g) at x = %.17g\n",
              ok ? "PASS" : "FAIL", what.c_str(), worst, bound, where);
  (ok ? g_passed : g_failed) += 1;
}

// The largest |f(x) / reference(x) - 1| over xs, and where.
template <typename F, typename R>
void Check(const std::string& what, const std::vector<double>& xs, F f, R reference,
           double bound) {
  double worst = 0, where = 0;
  for (double x : xs) {
    const long double want = reference(static_cast<long double>(x));
    const double error =
        want == 0 ? std::fabs(f(x)) : static_cast<double>(std::fabs(f(x) / want - 1));
    if (!(error <= worst)) {
      worst = error;
      where = x;
    }
  }
  Report(worst <= bound, what, worst, bound, where);
}

}  // namespace

int main() {
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> unit(0.0, 1.0);

  // log: x log-uniform over [1e-300, 1e300], and within 1e-15 to 0.4 of 1
  // (the reduction's e = 0, log x small), and at and next to powers of 2.
  std::vector<double> log_x;
  for (int i = 0; i < 200000; ++i) log_x.push_back(std::pow(10.0, -300 + 600 * unit(rng)));
  for (int i = 0; i < 200000; ++i) {
    const double d = std::pow(10.0, -15 + 14.6 * unit(rng));
    log_x.push_back(1 + d);
    log_x.push_back(1 - d);
  }
  for (int e = -990; e <= 990; e += 3) {
    const double p = std::ldexp(1.0, e);
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, 2 * p),
                     p * 1.4142135623730951, p * 0.7071067811865476}) {
      if (x != 1) log_x.push_back(x);
    }
  }
  Check("LogOfNode", log_x, [](double x) { return LogOfNode(x); },
        [](long double x) { return std::log(x); }, 4.5e-16);

  // expm1: x uniform over [-700, 700], log-uniform in |x| from 1e-300 to
  // 1 of both signs, and next to k log(2) / 2 (where the reduction's k
  // changes).
  std::vector<double> expm1_x;
  for (int i = 0; i < 200000; ++i) expm1_x.push_back(-700 + 1400 * unit(rng));
  for (int i = 0; i < 200000; ++i) {
    const double x = std::pow(10.0, -300 + 300 * unit(rng));
    expm1_x.push_back(x);
    expm1_x.push_back(-x);
  }
  for (int k = -2000; k <= 2000; ++k) {
    const double x = k * 0.34657359027997264;
    if (x < -700 || x > 700) continue;
    expm1_x.push_back(x);
    expm1_x.push_back(std::nextafter(x, -1e300));
    expm1_x.push_back(std::nextafter(x, 1e300));
  }
  Check("Expm1OfNode", expm1_x, [](double x) { return Expm1OfNode(x); },
        [](long double x) { return std::expm1(x); }, 3e-16);

  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
