// The transit model's kernels built as one variant of their compile-time
// switches (transit_kernel.cu's JAXEXT_EXPOSED_PER_THREAD: the exposed
// times in batches, or a thread per time; JAXEXT_INSIDE_NODES_A_STEP: the
// inside rules' nodes four a step, or 32), timed on the GPU without jax,
// beside tools/gpu/kernel_variants.cu's light-curve variants
// (tools/gpu/kernel_variants.sh builds and runs them all).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. [-DJAXEXT_EXPOSED_PER_THREAD=1] \
//       [-DJAXEXT_INSIDE_NODES_A_STEP=32] tools/gpu/transit_variants.cu -o transit_variants
//   ./transit_variants NAME [N]
//
// Per case (the quadratic law with Kepler's long-cadence exposures, the
// value and the value with every derivative, without and with the
// planet's light; one without an exposure; power-2 with the exposures and,
// with every derivative, without),
// float64 and float32, N times (default 1e7) of a hot Jupiter, 40% of them
// within its transits' windows: the median time of 20 launches after 3
// (CUDA events, ns per time); the times left poisoned or marked; a hash of
// every output's bytes (kernel_variants.sh compares it across the
// variants); and the largest difference from the host build of the same
// element (a thread per time, transit.h's TransitRowElement) on 20,000 of
// the times. Prints kernel_variants.cu's columns (its copy columns 0);
// exits non-zero when a check fails.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/transit/transit_kernel.cu"
#include "tools/gpu/variant_checks.h"

namespace {

namespace transit = jaxext::transit;
namespace kernel = jaxext::transit::kernel;

using jaxext::limb_dark::Law;

struct Case {
  const char* name;
  bool gradient;
  double exposure;  // days
  bool light;       // with the planet's light
  Law law;          // the quadratic law or power-2, two coefficients each
};

const Case kCases[] = {
    {"lc_exposed", false, 0.02043, false, Law::kPolynomial},
    {"lc_exposed+grad", true, 0.02043, false, Law::kPolynomial},
    {"lc_instant", false, 0.0, false, Law::kPolynomial},
    {"light_exposed", false, 0.02043, true, Law::kPolynomial},
    {"light_exposed+grad", true, 0.02043, true, Law::kPolynomial},
    {"power2_exposed", false, 0.02043, false, Law::kPower2},
    {"power2_instant+grad", true, 0.0, false, Law::kPower2},
};

// period, t0, a, b, r, e, omega; the planet's light (day and night flux,
// phase offset, beaming, ellipsoidal); the law's two coefficients: the
// quadratic law's u1, u2 or power-2's c, alpha.
const double kRow[14] = {3.0, 0.2, 8.8, 0.3, 0.1, 0.1, 0.5,
                         1e-3, 2e-4, 0.3, 1e-5, 2e-5, 0.4, 0.26};
const double kPower2[2] = {0.7, 0.6};
constexpr int kOrder = 2;

// Times of 2,000 orbits: 40% within 0.12 d of a conjunction (the transit
// and its window), the others anywhere, from a fixed seed.
template <typename T>
std::vector<T> MakeTimes(int64_t n) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<T> t(n);
  for (int64_t i = 0; i < n; ++i) {
    const double orbit = std::floor(2000 * unit(rng)) - 1000;
    const double offset = i % 5 < 2 ? 0.24 * (unit(rng) - 0.5) : kRow[0] * unit(rng);
    t[i] = static_cast<T>(kRow[1] + orbit * kRow[0] + offset);
  }
  return t;
}

template <typename T>
int RunCase(const char* variant, const Case& c, const std::vector<T>& t) {
  const int64_t n = static_cast<int64_t>(t.size());
  // F, d, dT, with the light its derivatives, du.
  const int n_d = transit::kParamCount + 1 + (c.light ? transit::kLightParamCount : 0);
  const int n_out = c.gradient ? 1 + n_d + kOrder : 1;
  T row[14];
  int n_row = 0;
  for (int j = 0; j < 14; ++j) {
    if (c.light || j < transit::kParamCount || j >= 12) row[n_row++] = static_cast<T>(kRow[j]);
  }
  if (c.law == Law::kPower2) {
    row[n_row - 2] = static_cast<T>(kPower2[0]);
    row[n_row - 1] = static_cast<T>(kPower2[1]);
  }
  std::vector<T> exposure(n, static_cast<T>(c.exposure));

  T *d_row, *d_t, *d_exposure, *d_out;
  CHECK_CUDA(cudaMalloc(&d_row, n_row * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_t, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_exposure, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_out, n_out * n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d_row, row, n_row * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_t, t.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_exposure, exposure.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  kernel::Params<T> p{};
  p.rows = d_row;
  p.x = d_t;
  p.y = d_exposure;
  p.out.flux = d_out;
  if (c.gradient) {
    for (int j = 0; j < n_d; ++j) p.out.d[j] = d_out + (1 + j) * n;
    for (int j = 0; j < kOrder; ++j) p.out.du[j] = d_out + (1 + n_d + j) * n;
  }
  p.law = c.law;
  p.order = kOrder;
  p.group_size = n;
  p.n = n;
  p.geometry = transit::Geometry::kImpactParameter;
  p.light = c.light;
  p.epochs = 0;

  // The checked launch, on poisoned outputs.
  CHECK_CUDA(cudaMemset(d_out, 0xff, n_out * n * sizeof(T)));
  CHECK_CUDA(kernel::Launch(p, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  const variant_checks::ReadBack<T> r = variant_checks::ReadOutputs(d_out, n_out * n);
  // The host build of a thread per time, on a sample.
  double worst = 0;
  const int64_t stride = std::max<int64_t>(1, n / 20000);
  std::vector<T> column(n_out);
  for (int64_t i = 0; i < n; i += stride) {
    transit::Outputs<T> o{};
    o.flux = &column[0];
    if (c.gradient) {
      for (int j = 0; j < n_d; ++j) o.d[j] = &column[1 + j];
      for (int j = 0; j < kOrder; ++j) o.du[j] = &column[1 + n_d + j];
    }
    if (c.law == Law::kPolynomial) {
      transit::TransitRowElement<transit::LowOrderCurve, transit::LightCode::kEither,
                                 transit::SpanCode::kEither, false>(
          row, &t[i], &exposure[i], kOrder, n, p.geometry, p.law, c.light, 0, 0, o);
    } else {
      transit::TransitRowElement<transit::LawCurve, transit::LightCode::kEither,
                                 transit::SpanCode::kEither, false>(
          row, &t[i], &exposure[i], kOrder, n, p.geometry, p.law, c.light, 0, 0, o);
    }
    for (int k = 0; k < n_out; ++k) {
      const double got = r.values[k * n + i], want = column[k];
      const double d = std::fabs(got - want) / std::max(1.0, std::fabs(want));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
  }

  const float kernel_ms =
      variant_checks::MedianMs([&] { CHECK_CUDA(kernel::Launch(p, nullptr)); });
  CHECK_CUDA(cudaFree(d_row));
  CHECK_CUDA(cudaFree(d_t));
  CHECK_CUDA(cudaFree(d_exposure));
  CHECK_CUDA(cudaFree(d_out));

  return variant_checks::Report(variant, c.name, n, kernel_ms, 0.0f, r, worst) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s VARIANT_NAME [N]\n", argv[0]);
    return 2;
  }
  const int64_t n = argc > 2 ? static_cast<int64_t>(std::atof(argv[2])) : 10000000;
  variant_checks::PrintHeader("ns/time");
  int failed = 0;
  const std::vector<double> t64 = MakeTimes<double>(n);
  for (const Case& c : kCases) failed += RunCase(argv[1], c, t64);
  const std::vector<float> t32 = MakeTimes<float>(n);
  for (const Case& c : kCases) failed += RunCase(argv[1], c, t32);
  return failed ? 1 : 0;
}
