// The light curve's kernels built as one variant of their compile-time
// switches (limb_dark_kernel.cu's JAXEXT_LOW_ORDER_*, JAXEXT_LAW_ONE_PASS and
// JAXEXT_POLYNOMIAL_PASSES),
// timed on the GPU without jax, so that one call of a lent GPU compares the
// variants side by side (tools/gpu/kernel_variants.sh builds and runs them
// all).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. [-DJAXEXT_LOW_ORDER_ONE_PASS=1 ...] \
//       tools/gpu/kernel_variants.cu -o kernel_variants
//   [KERNEL_VARIANTS_CASES=power2,ten] ./kernel_variants NAME [N]
//
// Per case (kCases below: by default the quadratic law's value, its value
// and gradient and the linear law's value; also power-2's and ten
// coefficients'), float64 and float32, N points (default 1e8): the median
// time of 20 launches after 3 (CUDA events, ns per point); a
// device-to-device copy of the bytes the kernel moves (its inputs and
// outputs; ns per point), and the kernel's bandwidth as a share of the
// copy's (the copy reads and writes each byte: twice the kernel's
// traffic); the points a pass left marked; a hash of every output's bytes,
// which kernel_variants.sh compares across the variants and reports when
// it differs (variants that build another kernel for the same law, such as
// JAXEXT_LAW_ONE_PASS, can differ in the last bits: nvcc contracts the same
// arithmetic into FMAs per kernel); and the largest difference from the host build of
// the same element function on 100,000 of the points. The outputs are
// poisoned (all bits set) before the checked launch, and a point left
// poisoned or marked fails the case. Prints one line a case; exits non-zero
// when a check fails.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/limb_dark/limb_dark_kernel.cu"
#include "tools/gpu/variant_checks.h"

namespace {

using jaxext::limb_dark::Law;
namespace kernel = jaxext::limb_dark::kernel;

struct Case {
  const char* name;
  Law law;
  int order;  // the law's coefficients, u below
  bool gradient;
  double u[10];
};

// The cases, by name (KERNEL_VARIANTS_CASES chooses among them: default,
// the low-order ones). power2 and ten: gpu_benchmark.py's laws.
const Case kCases[] = {
    {"quadratic", Law::kPolynomial, 2, false, {0.4, 0.26}},
    {"quad+grad", Law::kPolynomial, 2, true, {0.4, 0.26}},
    {"linear", Law::kPolynomial, 1, false, {0.4}},
    {"power2", Law::kPower2, 2, false, {0.7, 0.6}},
    {"power2+grad", Law::kPower2, 2, true, {0.7, 0.6}},
    {"ten", Law::kPolynomial, 10, false,
     {0.2, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02, 0.01, 0.01}},
};

// The points: b over the transit and out of it, r per point, from a fixed
// seed (every variant the same points): every region of the low-order
// path, and r > 1, b = 0 and b = r for the second pass.
template <typename T>
void MakePoints(int64_t n, std::vector<T>* b, std::vector<T>* r) {
  std::mt19937_64 rng(20261128);
  b->resize(n);
  r->resize(n);
  const double scale = 1.0 / 18446744073709551616.0;
  for (int64_t i = 0; i < n; ++i) {
    (*b)[i] = static_cast<T>(1.3 * scale * static_cast<double>(rng()));
    (*r)[i] = static_cast<T>(0.01 + 0.19 * scale * static_cast<double>(rng()));
  }
  for (int64_t i = 0; i < n; i += 9973) (*r)[i] = static_cast<T>(1.5);  // r > 1
  for (int64_t i = 4999; i < n; i += 9973) (*b)[i] = 0;                 // b = 0
  for (int64_t i = 7001; i < n; i += 9973) (*b)[i] = (*r)[i];           // b = r
}

template <typename T>
int RunCase(const char* variant, const Case& c, const std::vector<T>& b,
            const std::vector<T>& r) {
  const int64_t n = static_cast<int64_t>(b.size());
  T u[10];
  for (int j = 0; j < c.order; ++j) u[j] = static_cast<T>(c.u[j]);
  const int n_out = 1 + (c.gradient ? 2 + c.order : 0);

  T *d_u, *d_b, *d_r, *d_out;
  CHECK_CUDA(cudaMalloc(&d_u, sizeof(u)));
  CHECK_CUDA(cudaMalloc(&d_b, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_r, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_out, n_out * n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d_u, u, sizeof(u), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_b, b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_r, r.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  kernel::Params<T> p{};
  p.rows = d_u;
  p.x = d_b;
  p.y = d_r;
  p.out.flux = d_out;
  if (c.gradient) {
    p.out.d[0] = d_out + n;
    p.out.d[1] = d_out + 2 * n;
    for (int j = 0; j < c.order; ++j) p.out.du[j] = d_out + (3 + j) * n;
  }
  p.law = c.law;
  p.order = c.order;
  p.group_size = n;
  p.n = n;

  // The checked launch, on poisoned outputs.
  CHECK_CUDA(cudaMemset(d_out, 0xff, n_out * n * sizeof(T)));
  CHECK_CUDA(kernel::Launch(p, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  const variant_checks::ReadBack<T> out = variant_checks::ReadOutputs(d_out, n_out * n);
  // The host build of the same element function on a sample.
  double worst = 0;
  const int64_t stride = std::max<int64_t>(1, n / 100000);
  for (int64_t i = 0; i < n; i += stride) {
    T f[1 + 2 + 10];
    T* du[jaxext::limb_dark::kMaxDerivativesInU] = {};
    if (c.gradient) {
      for (int j = 0; j < c.order; ++j) du[j] = &f[3 + j];
    }
    jaxext::limb_dark::CurveElement(c.law, u, &b[i], &r[i], c.order, n, 0, &f[0],
                                    c.gradient ? &f[1] : nullptr, &f[2], du);
    for (int k = 0; k < n_out; ++k) {
      const double got = out.values[k * n + i], want = f[k];
      const double d = std::fabs(got - want) / std::max(1.0, std::fabs(want));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
  }

  // Timing: the kernel, then a copy of the same bytes.
  using variant_checks::MedianMs;
  const float kernel_ms = MedianMs([&] { CHECK_CUDA(kernel::Launch(p, nullptr)); });
  const int64_t in_bytes = 2 * n * sizeof(T), out_bytes = n_out * n * sizeof(T);
  T* d_copy;
  CHECK_CUDA(cudaMalloc(&d_copy, in_bytes + out_bytes));
  const float copy_ms = MedianMs([&] {
    CHECK_CUDA(cudaMemcpyAsync(d_copy, d_out, out_bytes, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpyAsync(d_copy + n_out * n, d_b, n * sizeof(T),
                               cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpyAsync(d_copy + (n_out + 1) * n, d_r, n * sizeof(T),
                               cudaMemcpyDeviceToDevice));
  });
  CHECK_CUDA(cudaFree(d_copy));
  CHECK_CUDA(cudaFree(d_u));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_r));
  CHECK_CUDA(cudaFree(d_out));

  return variant_checks::Report(variant, c.name, n, kernel_ms, copy_ms, out, worst) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s VARIANT_NAME [N]\n", argv[0]);
    return 2;
  }
  const int64_t n = argc > 2 ? static_cast<int64_t>(std::atof(argv[2])) : 100000000;
  const char* chosen = std::getenv("KERNEL_VARIANTS_CASES");
  const std::string names = std::string(",") + (chosen ? chosen : "quadratic,quad+grad,linear") + ",";
  std::vector<Case> cases;
  for (const Case& c : kCases) {
    if (names.find(std::string(",") + c.name + ",") != std::string::npos) cases.push_back(c);
  }
  if (cases.empty()) {
    std::fprintf(stderr, "KERNEL_VARIANTS_CASES names no case\n");
    return 2;
  }
  variant_checks::PrintHeader("ns/point");
  int failed = 0;
  std::vector<double> b64, r64;
  MakePoints(n, &b64, &r64);
  for (const Case& c : cases) failed += RunCase(argv[1], c, b64, r64);
  b64 = r64 = {};
  std::vector<float> b32, r32;
  MakePoints(n, &b32, &r32);
  for (const Case& c : cases) failed += RunCase(argv[1], c, b32, r32);
  return failed ? 1 : 0;
}
