// Framework-free accuracy / contract test for kepler_solve.h.
//
// The reference is an independent long double solver (bracketed bisection on
// [0, pi] followed by Newton polishing, with an exact-ish two-part 2*pi range
// reduction), accurate to ~1e-18 for the tested inputs.
//
// Prints one line per check and ends with "N passed, M failed"; the exit
// status is nonzero if any check failed.

#include "jaxlib_ext/kepler_solve/kepler_solve.h"

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

int g_passed = 0;
int g_failed = 0;

void Report(bool ok, const std::string& msg) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", msg.c_str());
  std::fflush(stdout);
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
  }
}

template <typename T>
const char* DtypeName() {
  return sizeof(T) == sizeof(double) ? "float64" : "float32";
}

std::string Fmt(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// ---------------------------------------------------------------------------
// long double reference
// ---------------------------------------------------------------------------
using LD = long double;
const LD kPiL = 3.141592653589793238462643383279502884L;
// 2*pi = k2PiHi + k2PiTail beyond long double precision (k2PiHi is 2*pi
// rounded to the 64-bit x87 significand; the tail is the exact remainder).
const LD k2PiHi = 6.283185307179586476925286766559005768394L;
const LD k2PiTail =
    std::numeric_limits<LD>::digits == 64 ? -1.003311522533666404711465e-19L : 0.0L;

// M reduced to (-pi, pi] in long double (absolute error ~1e-19 * (1 + |k|)).
LD ReduceRef(LD M) {
  const LD k = std::nearbyint(M / k2PiHi);
  LD r = (M - k * k2PiHi) - k * k2PiTail;
  if (r > kPiL) r -= 2 * kPiL;
  if (r <= -kPiL) r += 2 * kPiL;
  return r;
}

// Solve E - e sin E = m for m in [0, pi].
LD SolveRefPositive(LD m, LD e) {
  if (m == 0) return 0;
  auto f = [&](LD E) {
    // (1-e) E + e (E - sin E) - m; E - sin E by series for small E.
    LD d;
    if (E < 0.25L) {
      const LD E2 = E * E;
      LD term = E * E2 / 6, sum = 0;
      for (int k = 1; k < 20; ++k) {
        sum += term;
        term *= -E2 / ((2 * k + 2) * (2 * k + 3));
      }
      d = sum;
    } else {
      d = E - std::sin(E);
    }
    return (1 - e) * E + e * d - m;
  };
  LD lo = 0, hi = kPiL;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const LD mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    if (f(mid) > 0) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  LD E = (lo + hi) / 2;
  for (int i = 0; i < 3; ++i) {
    const LD fp = 1 - e * std::cos(E);
    if (fp > 0) {
      const LD En = E - f(E) / fp;
      if (En >= lo && En <= hi) E = En;
    }
  }
  return E;
}

LD SolveRef(LD M, LD e) {
  const LD r = ReduceRef(M);
  const LD E = SolveRefPositive(std::fabs(r), e);
  return r < 0 ? -E : E;
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------
template <typename T>
struct Result {
  T s, c;
};

template <typename T>
Result<T> Ecc(T M, T e) {
  Result<T> r;
  jaxext::kepler_solve::SolveEccentric<T>(M, e, &r.s, &r.c);
  return r;
}

template <typename T>
Result<T> True(T M, T e) {
  Result<T> r;
  jaxext::kepler_solve::SolveTrue<T>(M, e, &r.s, &r.c);
  return r;
}

struct Worst {
  double err = -1;
  double M = 0, e = 0;
  void Update(double err_in, double M_in, double e_in) {
    if (!(err_in <= err)) {  // also catches NaN
      err = std::isnan(err_in) ? std::numeric_limits<double>::infinity()
                               : err_in;
      M = M_in;
      e = e_in;
    }
  }
};

// Input sets: grid + random + adversarial.
template <typename T>
std::vector<std::pair<T, T>> Inputs(double emax, double Mmax, std::mt19937_64& rng) {
  std::vector<std::pair<T, T>> in;
  const double pi = 3.14159265358979323846;
  for (int i = 0; i <= 64; ++i) {
    for (int j = 0; j <= 40; ++j) {
      const double M = -pi + 2 * pi * i / 64.0;
      const double e = emax * j / 40.0;
      in.emplace_back(static_cast<T>(M), static_cast<T>(e));
    }
  }
  std::uniform_real_distribution<double> uM(-Mmax, Mmax), ue(0, emax);
  std::uniform_real_distribution<double> ulog(-12, 0);
  for (int i = 0; i < 20000; ++i) {
    in.emplace_back(static_cast<T>(uM(rng)), static_cast<T>(ue(rng)));
  }
  for (int i = 0; i < 3000; ++i) {
    const double sgn = (i & 1) ? 1.0 : -1.0;
    const double tiny = std::pow(10.0, ulog(rng));
    const double e = emax * (1 - std::pow(10.0, ulog(rng) / 2));
    in.emplace_back(static_cast<T>(sgn * tiny), static_cast<T>(e));       // M ~ 0
    in.emplace_back(static_cast<T>(sgn * (pi - tiny)), static_cast<T>(e));  // M ~ pi
    const int k = static_cast<int>(i % 31) - 15;
    const double M = 2 * pi * k + sgn * tiny;
    if (std::fabs(M) <= Mmax) in.emplace_back(static_cast<T>(M), static_cast<T>(e));
  }
  const T adv_M[] = {T(0),      T(-0.0),   std::numeric_limits<T>::denorm_min(),
                     T(1e-30),  T(1e-8),   T(1e-3),
                     T(pi),     T(-pi),    T(2 * pi),
                     T(-2 * pi), T(4 * pi), T(Mmax)};
  const T adv_e[] = {T(0), T(0.5) * T(emax), T(emax)};
  for (T M : adv_M) {
    for (T e : adv_e) in.emplace_back(M, e);
  }
  return in;
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------
template <typename T>
void CheckForward(double emax, double Mmax, double tol, std::mt19937_64& rng) {
  Worst we, wt, wn, wnt;
  const LD eps = std::numeric_limits<T>::epsilon();
  for (auto [M, e] : Inputs<T>(emax, Mmax, rng)) {
    const LD Ml = M, el = e;
    const LD E = SolveRef(Ml, el);
    const LD sE = std::sin(E), cE = std::cos(E);
    const Result<T> r = Ecc(M, e);
    we.Update(static_cast<double>(std::fmax(std::fabs(r.s - sE), std::fabs(r.c - cE))), M, e);
    wn.Update(static_cast<double>(std::fabs(LD(r.s) * r.s + LD(r.c) * r.c - 1) / eps), M, e);
    // True anomaly reference.
    const LD den = (1 - el) + el * (1 - cE);
    const LD sf = std::sqrt((1 - el) * (1 + el)) * sE / den;
    const LD cf = (cE - el) / den;
    const Result<T> t = True(M, e);
    wt.Update(static_cast<double>(std::fmax(std::fabs(t.s - sf), std::fabs(t.c - cf))), M, e);
    wnt.Update(static_cast<double>(std::fabs(LD(t.s) * t.s + LD(t.c) * t.c - 1) / eps), M, e);
  }
  Report(we.err <= tol,
         Fmt("%s SolveEccentric forward error e<=%g |M|<=%g: max %.3g (tol %.3g) at M=%.17g e=%.17g",
             DtypeName<T>(), emax, Mmax, we.err, tol, we.M, we.e));
  Report(wt.err <= tol,
         Fmt("%s SolveTrue forward error e<=%g |M|<=%g: max %.3g (tol %.3g) at M=%.17g e=%.17g",
             DtypeName<T>(), emax, Mmax, wt.err, tol, wt.M, wt.e));
  Report(wn.err <= 4,
         Fmt("%s SolveEccentric |sin^2+cos^2-1| e<=%g: max %.3g ulp (tol 4) at M=%.17g e=%.17g",
             DtypeName<T>(), emax, wn.err, wn.M, wn.e));
  Report(wnt.err <= 4,
         Fmt("%s SolveTrue |sin^2+cos^2-1| e<=%g: max %.3g ulp (tol 4) at M=%.17g e=%.17g",
             DtypeName<T>(), emax, wnt.err, wnt.M, wnt.e));
}

// Backward error |E' - e sin E' - M_red| with E' = atan2(sin, cos).
template <typename T>
void CheckBackward(double emax, double Mmax, double tol, std::mt19937_64& rng) {
  Worst w;
  for (auto [M, e] : Inputs<T>(emax, Mmax, rng)) {
    const Result<T> r = Ecc(M, e);
    const LD Ep = std::atan2(LD(r.s), LD(r.c));
    const LD el = e;
    LD res = Ep - el * std::sin(Ep) - ReduceRef(LD(M));
    res -= 2 * kPiL * std::nearbyint(res / (2 * kPiL));  // same branch
    w.Update(static_cast<double>(std::fabs(res)), M, e);
  }
  Report(w.err <= tol,
         Fmt("%s SolveEccentric backward error e<=%.10g |M|<=%g: max %.3g (tol %.3g) at M=%.17g e=%.17g",
             DtypeName<T>(), emax, Mmax, w.err, tol, w.M, w.e));
}

template <typename T>
void CheckNaNContract() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const T one_up = std::nextafter(T(1), T(2));
  const std::pair<T, T> bad[] = {
      {T(1), T(-0.1)}, {T(1), T(-1e-30)}, {T(1), T(1)},    {T(0), T(1)},
      {T(1), one_up},  {T(1), T(1.5)},    {T(1), T(-inf)}, {T(1), inf},
      {T(1), nan},     {nan, T(0.5)},     {inf, T(0.5)},   {-inf, T(0.5)},
      {nan, nan},      {inf, T(2)},       {T(0), nan},     {T(-3), T(-2)}};
  for (auto [M, e] : bad) {
    const Result<T> r = Ecc(M, e);
    const Result<T> t = True(M, e);
    const bool ok = std::isnan(r.s) && std::isnan(r.c) && std::isnan(t.s) && std::isnan(t.c);
    Report(ok, Fmt("%s NaN contract M=%g e=%.9g: ecc=(%g, %g) true=(%g, %g)", DtypeName<T>(),
                   double(M), double(e), double(r.s), double(r.c), double(t.s), double(t.c)));
  }
  // Valid edge inputs must be finite.
  const T largest_below_one = std::nextafter(T(1), T(0));
  const std::pair<T, T> good[] = {{T(0), T(0)},
                                  {T(-0.0), T(-0.0)},
                                  {T(1), largest_below_one},
                                  {std::numeric_limits<T>::denorm_min(), largest_below_one},
                                  {T(3.14159265358979323846), largest_below_one},
                                  {std::numeric_limits<T>::max(), T(0.5)},
                                  {-std::numeric_limits<T>::max(), T(0.9)}};
  for (auto [M, e] : good) {
    const Result<T> r = Ecc(M, e);
    const Result<T> t = True(M, e);
    const bool ok = std::isfinite(r.s) && std::isfinite(r.c) && std::isfinite(t.s) &&
                    std::isfinite(t.c) && std::fabs(r.s) <= 1 && std::fabs(r.c) <= 1 &&
                    std::fabs(t.s) <= 1 && std::fabs(t.c) <= 1;
    Report(ok, Fmt("%s finite output for valid edge input M=%g e=%.9g: ecc=(%g, %g) true=(%g, %g)",
                   DtypeName<T>(), double(M), double(e), double(r.s), double(r.c), double(t.s),
                   double(t.c)));
  }
}

template <typename T>
void CheckZeroAndSymmetry(std::mt19937_64& rng) {
  for (T M : {T(0), T(-0.0)}) {
    for (T e : {T(0), T(0.3), T(0.999)}) {
      const Result<T> r = Ecc(M, e);
      const Result<T> t = True(M, e);
      const bool ok = r.s == 0 && r.c == 1 && t.s == 0 && t.c == 1;
      Report(ok, Fmt("%s M=%s0.0 e=%g: ecc=(%g, %.17g) true=(%g, %.17g)", DtypeName<T>(),
                     std::signbit(M) ? "-" : "+", double(e), double(r.s), double(r.c),
                     double(t.s), double(t.c)));
    }
  }
  std::uniform_real_distribution<double> uM(-1000, 1000), ue(0, 1);
  int bad = 0;
  double bM = 0, be = 0;
  for (int i = 0; i < 20000; ++i) {
    const T M = static_cast<T>(uM(rng));
    T e = static_cast<T>(ue(rng));
    if (!(e < T(1))) e = T(0.5);
    const Result<T> a = Ecc(M, e), b = Ecc(T(-M), e);
    const Result<T> ta = True(M, e), tb = True(T(-M), e);
    if (!(a.s == -b.s && a.c == b.c && ta.s == -tb.s && ta.c == tb.c)) {
      if (!bad) {
        bM = M;
        be = e;
      }
      ++bad;
    }
  }
  Report(bad == 0, Fmt("%s odd symmetry solve(-M) == (-sin, cos) (exact), 20000 draws: %d mismatches (first M=%.17g e=%.17g)",
                       DtypeName<T>(), bad, bM, be));
}

template <typename T>
void CheckPeriodicity(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uM(-3.1, 3.1), ue(0, 0.9);
  std::uniform_int_distribution<int> uk(-100, 100);
  const double two_pi = 6.283185307179586476925286766559;
  const double eps = std::numeric_limits<T>::epsilon();
  Worst w;
  double worst_ratio = 0;
  for (int i = 0; i < 20000; ++i) {
    const T M0 = static_cast<T>(uM(rng));
    const T e = static_cast<T>(ue(rng));
    const int k = uk(rng);
    const T Mk = static_cast<T>(double(M0) + two_pi * k);
    // The shift is inexact in T: |Mk - (M0 + 2 pi k)| is known in long double.
    const LD shift_err = std::fabs(ReduceRef(LD(Mk)) - LD(M0));
    const Result<T> a = Ecc(M0, e), b = Ecc(Mk, e);
    const double diff = std::fmax(std::fabs(double(a.s) - double(b.s)),
                                  std::fabs(double(a.c) - double(b.c)));
    // Allowed: conditioning 1/(1-e) times the input shift + ulps of rounding.
    const double allowed = (double(shift_err) + 8 * eps * 3.15) / (1 - double(e)) + 8 * eps;
    const double ratio = diff / allowed;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      w.Update(diff, Mk, e);
    }
  }
  Report(worst_ratio <= 1,
         Fmt("%s periodicity solve(M + 2 pi k) vs solve(M), |k|<=100: worst diff %.3g (%.3g of allowed) at M=%.17g e=%.17g",
             DtypeName<T>(), w.err, worst_ratio, w.M, w.e));
}

template <typename T>
void CheckSpecialValues() {
  // Subnormal M: E ~ M / (1 - e), sin E ~ E, cos E == 1.
  const T dmin = std::numeric_limits<T>::denorm_min();
  for (T e : {T(0), T(0.5), T(0.9)}) {
    const Result<T> r = Ecc(dmin, e);
    const double expect = double(dmin) / (1 - double(e));
    const bool ok = r.c == 1 && std::fabs(double(r.s) - expect) <= 2 * double(dmin) + 1e-3 * expect;
    Report(ok, Fmt("%s subnormal M=%g e=%g: sinE=%g (expect ~%g) cosE=%.17g", DtypeName<T>(),
                   double(dmin), double(e), double(r.s), expect, double(r.c)));
  }
  // e = 0: E == M exactly up to rounding of sin/cos.
  const double tol = sizeof(T) == 8 ? 4e-16 : 2e-7;
  Worst w;
  for (int i = -50; i <= 50; ++i) {
    const T M = static_cast<T>(0.0617 * i);
    const Result<T> r = Ecc(M, T(0));
    w.Update(std::fmax(std::fabs(double(r.s) - std::sin(double(M))),
                       std::fabs(double(r.c) - std::cos(double(M)))),
             M, 0);
  }
  Report(w.err <= tol, Fmt("%s e=0 gives E=M: max err %.3g (tol %.3g) at M=%.17g", DtypeName<T>(),
                           w.err, tol, w.M));
}

// SolveCircular against SolveElement at e = 0, to the bit (sin E, cos E,
// 1 - cos E), over M from the subnormal to 1e4 of either sign; and against
// sin M and cos M in long double (the reduction's ~1 ulp of pi and the
// polynomials' rounding).
void CheckCircular(std::mt19937_64& rng) {
  using jaxext::kepler_solve::SolveCircular;
  using jaxext::kepler_solve::SolveElement;
  std::uniform_real_distribution<double> uM(-1e4, 1e4), u_exponent(-310, 4);
  int mismatches = 0;
  double first = 0;
  Worst w;
  for (int i = 0; i < 100000; ++i) {
    const double M =
        i % 2 ? uM(rng) : std::copysign(std::pow(10.0, u_exponent(rng)), uM(rng));
    const auto a = SolveCircular(M);
    const auto b = SolveElement(M, 0.0);
    if (!(a.s == b.s && a.c == b.c && a.omc == b.omc && !a.bad && !b.bad)) {
      if (!mismatches) first = M;
      ++mismatches;
    }
    const LD m = ReduceRef(LD(M));
    w.Update(double(std::fmax(std::fabs(LD(a.s) - std::sin(m)), std::fabs(LD(a.c) - std::cos(m)))),
             M, 0);
  }
  Report(mismatches == 0,
         Fmt("float64 SolveCircular(M) == SolveElement(M, 0) to the bit, 100000 draws: %d "
             "mismatches (first M=%.17g)",
             mismatches, first));
  Report(w.err <= 8e-16, Fmt("float64 SolveCircular against sin M, cos M: max err %.3g (tol "
                             "8e-16) at M=%.17g",
                             w.err, w.M));
  bool refused = true;
  for (double M : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL}) {
    refused = refused && SolveCircular(M).bad && SolveElement(M, 0.0).bad;
  }
  Report(refused, "float64 SolveCircular refuses NaN and +-inf, as SolveElement");
}

}  // namespace

int main() {
  std::mt19937_64 rng(20240601);

  // float64
  CheckForward<double>(0.5, 100.0, 1e-15, rng);
  CheckForward<double>(0.999, 100.0, 1e-12, rng);
  CheckBackward<double>(1 - 1e-6, 1000.0, 2e-15, rng);
  CheckBackward<double>(1 - 1e-9, 1000.0, 2e-15, rng);
  CheckNaNContract<double>();
  CheckZeroAndSymmetry<double>(rng);
  CheckPeriodicity<double>(rng);
  CheckSpecialValues<double>();
  CheckCircular(rng);

  // float32
  CheckForward<float>(0.5, 100.0, 1e-6, rng);
  CheckForward<float>(0.999, 100.0, 2e-6, rng);
  CheckBackward<float>(0.95, 100.0, 4e-7, rng);
  CheckNaNContract<float>();
  CheckZeroAndSymmetry<float>(rng);
  CheckPeriodicity<float>(rng);
  CheckSpecialValues<float>();

  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
