// Every light-curve loop variant this CPU supports, run on the same points
// (random draws over the transit and edge cases: b = 0, b = r, b + r = 1 and
// next to it, r > 1, r = 0, r < 0, NaN, +-inf), for laws of 0 to 3
// coefficients, must:
//   - agree with every other variant within kTolerance (absolute, on F - 1 in
//     [-1, 0], and relative to max(1, |value|) on the derivatives): the
//     variants differ in FMA contraction and vector width only; the Python
//     tests check the active variant against an mpmath reference, so this
//     carries that check over to the variants this CPU does not pick;
//   - give the same NaNs;
//   - not depend on where the input is split (vector body, scalar remainder,
//     block boundaries), as the threaded handler splits it: bit for bit.
// The laws of 0 to 2 coefficients take the vectorised path
// (LowOrderLightCurvePoint), order 3 the general one. The power laws of
// laws.h (power2, nonlinear, square root) take law_blocks.h's blocks: the
// same checks, and each variant within kBlockTolerance of the one-point-at-
// a-time path (LawLightCurvePoint, the GPU's). Variants the CPU lacks are
// reported as skipped, not passed. Exits nonzero if any check failed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/limb_dark/limb_dark_cpu_loops.h"

namespace jaxext::limb_dark {
namespace {


// Measured on these inputs (2026-11-23): at most 3.9e-15 (order 3, baseline
// against the FMA variants, next to b = r = 1.5).
constexpr double kTolerance = 1e-14;
// The power laws' blocks against LawLightCurvePoint: the same rules but for
// the inside rule's node count (the blocks' midpoint rule up to x = 0.955,
// where LawLightCurvePoint takes the contact rule from x = 0.85), sums in
// another order. Measured 2026-11-27: at most 7.5e-14, next to the inner
// contact (b + r = 0.96 to 0.997), where the two paths take different rules.
constexpr double kBlockTolerance = 1e-12;

int g_failed = 0;

void Report(bool ok, const std::string& what, const std::string& detail) {
  std::printf("[%s] %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  if (!ok) ++g_failed;
}

struct Points {
  std::vector<double> b, r;
};

Points MakePoints() {
  Points p;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double r : {0.0, 1e-120, 1e-90, 1e-3, 0.1, 0.5, 1.0, 1.5, -0.1, inf, nan}) {
    for (double b : {0.0, r, 1 - r, 1 + r, r - 1, 1 - r + 1e-9, 1 - r - 1e-9,
                     r + 1e-9, 1e-9, -0.3, inf, nan}) {
      p.b.push_back(b);
      p.r.push_back(r);
    }
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> ub(0.0, 1.3), ur(0.005, 0.6);
  for (int i = 0; i < 5000; ++i) {
    p.b.push_back(ub(rng));
    p.r.push_back(ur(rng));
  }
  return p;
}

struct Outputs {
  std::vector<double> flux, d_db, d_dr, d_du;  // d_du: one plane of n per coefficient
};

// derivatives false: the value alone (the derivatives' pointers null).
Outputs Run(CpuIsa isa, const Points& p, const double* g, const double* q, int order,
            double norm,
            const std::vector<size_t>& pieces, bool derivatives = true) {
  const size_t n = p.b.size();
  Outputs o{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
            std::vector<double>(n * order)};
  const LightCurveLoop<double> loop = LoopsForIsa(isa).get(0.0);
  size_t begin = 0;
  for (size_t k = 0; begin < n; ++k) {
    const size_t len = std::min(pieces[k % pieces.size()], n - begin);
    // dF/du: one plane of n per coefficient, each offset to this piece.
    double* planes[kMaxOrder];
    for (int c = 0; c < order; ++c) planes[c] = o.d_du.data() + c * n + begin;
    loop(g, q, order, norm, p.b.data() + begin, p.r.data() + begin, o.flux.data() + begin,
         derivatives ? o.d_db.data() + begin : nullptr,
         derivatives ? o.d_dr.data() + begin : nullptr, derivatives ? planes : nullptr, len);
    begin += len;
  }
  return o;
}

// The largest difference over all outputs (scaled as in the header comment),
// or +inf where one side is NaN and the other not.
double Compare(const Outputs& a, const Outputs& b, size_t* where) {
  double worst = 0;
  const size_t n = a.flux.size();
  auto check = [&](const std::vector<double>& x, const std::vector<double>& y) {
    for (size_t i = 0; i < x.size(); ++i) {
      double d;
      if (std::isnan(x[i]) || std::isnan(y[i])) {
        d = std::isnan(x[i]) == std::isnan(y[i]) ? 0 : std::numeric_limits<double>::infinity();
      } else {
        d = std::fabs(x[i] - y[i]) / std::max(1.0, std::fabs(y[i]));
      }
      if (d > worst) {
        worst = d;
        *where = i % n;
      }
    }
  };
  check(a.flux, b.flux);
  check(a.d_db, b.d_db);
  check(a.d_dr, b.d_dr);
  check(a.d_du, b.d_du);
  return worst;
}

bool SameBits(const std::vector<double>& x, const std::vector<double>& y) {
  // (empty vectors may have null data, which memcmp must not get)
  return x.size() == y.size() &&
         (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
}

void CheckOrder(const Points& p, int order) {
  const double u[3] = {0.4, 0.26, 0.1};
  // (gcc cannot see that GreensRow fills them)
  double g[kMaxOrder + 1] = {}, q[kMaxOrder + 2] = {};
  const double norm = GreensRow(u, order, g, q);
  const std::vector<size_t> whole = {p.b.size()};
  const std::vector<size_t> pieces = {1, 3, 7, 64, 13, 255, 257, 1000, 31};
  const std::string law = "order " + std::to_string(order);
  Outputs first;
  std::string first_name;  // empty until the first supported variant ran
  for (CpuIsa isa : kAllCpuIsas) {
    const std::string name = law + " " + CpuIsaName(isa);
    if (!CpuSupports(isa)) {
      std::printf("[SKIP] %s: this CPU lacks it\n", name.c_str());
      continue;
    }
    const Outputs out = Run(isa, p, g, q, order, norm, whole);
    const Outputs split = Run(isa, p, g, q, order, norm, pieces);
    Report(SameBits(out.flux, split.flux) && SameBits(out.d_db, split.d_db) &&
               SameBits(out.d_dr, split.d_dr) && SameBits(out.d_du, split.d_du),
           name + " split into pieces vs whole (bitwise)", "");
    const Outputs value_only = Run(isa, p, g, q, order, norm, pieces, false);
    Report(SameBits(value_only.flux, out.flux),
           name + " the value alone equals the value with derivatives (bitwise)", "");
    if (first_name.empty()) {
      first = out;
      first_name = CpuIsaName(isa);
      continue;
    }
    size_t where = 0;
    const double worst = Compare(out, first, &where);
    char detail[200];
    std::snprintf(detail, sizeof detail, "max difference %.3g (bound %.3g) at b=%.17g r=%.17g",
                  worst, kTolerance, p.b[where], p.r[where]);
    Report(worst <= kTolerance, name + " vs " + first_name, detail);
  }
}

// A law of laws.h through LawLoops (pieces as Run's).
Outputs RunLaw(CpuIsa isa, const Points& p, Law law, const double* u, int order,
               const std::vector<size_t>& pieces, bool derivatives = true) {
  const size_t n = p.b.size();
  Outputs o{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
            std::vector<double>(n * order)};
  const LawCurveLoop<double> loop = LawLoopsForIsa(isa).get(0.0);
  size_t begin = 0;
  for (size_t k = 0; begin < n; ++k) {
    const size_t len = std::min(pieces[k % pieces.size()], n - begin);
    double* planes[kMaxLawTerms];
    for (int c = 0; c < order; ++c) planes[c] = o.d_du.data() + c * n + begin;
    loop(law, u, order, p.b.data() + begin, p.r.data() + begin, o.flux.data() + begin,
         derivatives ? o.d_db.data() + begin : nullptr,
         derivatives ? o.d_dr.data() + begin : nullptr, derivatives ? planes : nullptr, len);
    begin += len;
  }
  return o;
}

void CheckLaw(const Points& p, const std::string& law_name, Law law, std::vector<double> u) {
  const int order = static_cast<int>(u.size());
  const size_t n = p.b.size();
  const std::vector<size_t> whole = {n};
  const std::vector<size_t> pieces = {1, 3, 7, 64, 13, 255, 257, 1000, 31};
  // The one-point-at-a-time path.
  Outputs point{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
                std::vector<double>(n * order)};
  const LawRow row = MakeLawRow(law, u.data());
  for (size_t i = 0; i < n; ++i) {
    const LawFlux f = LawLightCurvePoint(row, p.b[i], p.r[i]);
    point.flux[i] = f.value;
    point.d_db[i] = f.d_db;
    point.d_dr[i] = f.d_dr;
    for (int c = 0; c < order; ++c) point.d_du[c * n + i] = f.du[c];
  }
  Outputs first;
  std::string first_name;
  for (CpuIsa isa : kAllCpuIsas) {
    const std::string name = law_name + " " + CpuIsaName(isa);
    if (!CpuSupports(isa)) {
      std::printf("[SKIP] %s: this CPU lacks it\n", name.c_str());
      continue;
    }
    const Outputs out = RunLaw(isa, p, law, u.data(), order, whole);
    const Outputs split = RunLaw(isa, p, law, u.data(), order, pieces);
    Report(SameBits(out.flux, split.flux) && SameBits(out.d_db, split.d_db) &&
               SameBits(out.d_dr, split.d_dr) && SameBits(out.d_du, split.d_du),
           name + " split into pieces vs whole (bitwise)", "");
    const Outputs value_only = RunLaw(isa, p, law, u.data(), order, pieces, false);
    Report(SameBits(value_only.flux, out.flux),
           name + " the value alone equals the value with derivatives (bitwise)", "");
    size_t where = 0;
    char detail[200];
    double worst = Compare(out, point, &where);
    std::snprintf(detail, sizeof detail, "max difference %.3g (bound %.3g) at b=%.17g r=%.17g",
                  worst, kBlockTolerance, p.b[where], p.r[where]);
    Report(worst <= kBlockTolerance, name + " vs one point at a time", detail);
    if (first_name.empty()) {
      first = out;
      first_name = CpuIsaName(isa);
      continue;
    }
    worst = Compare(out, first, &where);
    std::snprintf(detail, sizeof detail, "max difference %.3g (bound %.3g) at b=%.17g r=%.17g",
                  worst, kTolerance, p.b[where], p.r[where]);
    Report(worst <= kTolerance, name + " vs " + first_name, detail);
  }
}

}  // namespace
}  // namespace jaxext::limb_dark

int main() {
  const jaxext::limb_dark::Points points = jaxext::limb_dark::MakePoints();
  for (int order = 0; order <= 3; ++order) jaxext::limb_dark::CheckOrder(points, order);
  using jaxext::limb_dark::Law;
  jaxext::limb_dark::CheckLaw(points, "power2", Law::kPower2, {0.6, 0.6});
  jaxext::limb_dark::CheckLaw(points, "power2 steep", Law::kPower2, {0.9, 0.05});
  jaxext::limb_dark::CheckLaw(points, "power2 flat", Law::kPower2, {0.7, 3.0});
  jaxext::limb_dark::CheckLaw(points, "nonlinear", Law::kNonlinear, {0.5, 0.1, 0.1, -0.1});
  jaxext::limb_dark::CheckLaw(points, "square root", Law::kSquareRoot, {0.3, 0.4});
  std::printf("%s\n", jaxext::limb_dark::g_failed ? "FAILED" : "all checks passed");
  return jaxext::limb_dark::g_failed ? 1 : 0;
}
