// Every transit-model loop variant this CPU supports, run on the same times
// (around transits and away from them, with and without exposures, on
// circular, eccentric and grazing orbits and the laws' three kinds; with the
// planet's light, over whole orbits), must
//   - agree with every other variant within kTolerance (absolute on F - 1,
//     relative to max(1, |value|) on the derivatives): the variants differ
//     in FMA contraction and vector width only;
//   - give the same NaNs;
//   - not depend on where the input is split, as the threaded handler splits
//     it: bit for bit.
// Variants the CPU lacks are reported as skipped, not passed. Exits nonzero
// if any check failed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_cpu_loops.h"

namespace jaxext::transit {
namespace {

// Measured on these inputs (2026-11-27): at most 1.9e-12 (power2,
// eccentric, the FMA variants against the baseline): the variants' contact
// times differ in the last bits, and with them the exposures' nodes.
constexpr double kTolerance = 1e-11;

int g_failed = 0;

void Report(bool ok, const std::string& what, const std::string& detail) {
  std::printf("[%s] %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  if (!ok) ++g_failed;
}

struct Case {
  std::string name;
  limb_dark::Law law;
  std::vector<double> row;  // parameters (and the light's) then coefficients
  int n_du;
  bool light = false;
};

// Every output, one plane of n per result.
std::vector<double> Run(CpuIsa isa, const Case& c, const std::vector<double>& t,
                        const std::vector<double>& exposure, const std::vector<size_t>& pieces) {
  const size_t n = t.size();
  const int first_du = 1 + kParamCount + 1 + (c.light ? kLightParamCount : 0);
  const int results = first_du + c.n_du;
  std::vector<double> out(n * results);
  const TransitLoop<double> loop = LoopsForIsa(isa).get(0.0);
  const int order = static_cast<int>(c.row.size()) - RowOffsetOfU(c.light);
  size_t begin = 0;
  for (size_t k = 0; begin < n; ++k) {
    const size_t len = std::min(pieces[k % pieces.size()], n - begin);
    Outputs<double> o{};
    o.flux = out.data() + begin;
    for (int j = 0; j + 1 < first_du; ++j) o.d[j] = out.data() + (1 + j) * n + begin;
    for (int j = 0; j < c.n_du; ++j) o.du[j] = out.data() + (first_du + j) * n + begin;
    loop(c.row.data(), order, Geometry::kImpactParameter, c.law, c.light, 0, t.data() + begin,
         exposure.data() + begin, o, len);
    begin += len;
  }
  return out;
}

void CheckCase(const Case& c) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> t, exposure;
  const double period = c.row[kPeriod], t0 = c.row[kT0];
  const double duration = period / c.row[kSemiMajor];
  for (int i = 0; i < 1500; ++i) {
    t.push_back(c.light ? t0 + (4 * unit(rng) - 2) * period
                        : t0 + std::floor(4 * unit(rng) - 2) * period + (unit(rng) - 0.5) * duration);
    exposure.push_back(i % 3 == 0 ? duration * unit(rng) : 0.0);
  }
  t.push_back(std::numeric_limits<double>::quiet_NaN());
  exposure.push_back(0.0);
  const std::vector<size_t> whole = {t.size()};
  const std::vector<size_t> pieces = {1, 3, 7, 64, 13, 255, 257, 31};
  std::vector<double> first;
  std::string first_name;
  for (CpuIsa isa : kAllCpuIsas) {
    const std::string name = c.name + " " + CpuIsaName(isa);
    if (!CpuSupports(isa)) {
      std::printf("[SKIP] %s: this CPU lacks it\n", name.c_str());
      continue;
    }
    const std::vector<double> out = Run(isa, c, t, exposure, whole);
    const std::vector<double> split = Run(isa, c, t, exposure, pieces);
    Report(std::memcmp(out.data(), split.data(), out.size() * sizeof(double)) == 0,
           name + " split into pieces vs whole (bitwise)", "");
    if (first_name.empty()) {
      first = out;
      first_name = CpuIsaName(isa);
      continue;
    }
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      double d;
      if (std::isnan(out[i]) || std::isnan(first[i])) {
        d = std::isnan(out[i]) == std::isnan(first[i]) ? 0 : INFINITY;
      } else {
        d = std::fabs(out[i] - first[i]) / std::max(1.0, std::fabs(first[i]));
      }
      worst = std::max(worst, d);
    }
    char detail[120];
    std::snprintf(detail, sizeof detail, "max difference %.3g (bound %.3g)", worst, kTolerance);
    Report(worst <= kTolerance, name + " vs " + first_name, detail);
  }
}

}  // namespace
}  // namespace jaxext::transit

int main() {
  using jaxext::limb_dark::Law;
  const std::vector<jaxext::transit::Case> cases = {
      {"circular, quadratic", Law::kPolynomial, {3.0, 0.1, 8.0, 0.3, 0.1, 0.0, 0.0, 0.4, 0.26}, 2},
      {"eccentric, power2", Law::kPower2, {5.0, -0.3, 12.0, 0.5, 0.08, 0.6, 2.0, 0.7, 0.6}, 2},
      {"grazing, nonlinear", Law::kNonlinear,
       {4.0, 0.0, 10.0, 1.05, 0.12, 0.2, -1.0, 0.5, -0.2, 0.6, -0.2}, 4},
      {"tabulated", Law::kTabulated,
       {3.0, 0.0, 8.0, 0.2, 0.1, 0.0, 0.0, 0.0, 0.3, 0.7, 1.0, 0.3, 0.6, 0.85, 1.0}, 4},
      {"circular, quadratic, the planet's light", Law::kPolynomial,
       {3.0, 0.1, 8.0, 0.3, 0.1, 0.0, 0.0, 2e-3, 4e-4, 0.3, 2e-5, 5e-5, 0.4, 0.26}, 2, true},
      {"eccentric, nonlinear, the planet's light", Law::kNonlinear,
       {4.0, 0.0, 6.0, 0.9, 0.12, 0.4, -1.0, 2e-3, 4e-4, -0.2, 2e-5, 5e-5, 0.5, -0.2, 0.6, -0.2},
       4, true}};
  for (const auto& c : cases) jaxext::transit::CheckCase(c);
  std::printf("%s\n", jaxext::transit::g_failed ? "FAILED" : "all checks passed");
  return jaxext::transit::g_failed ? 1 : 0;
}
