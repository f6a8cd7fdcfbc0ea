// The solve loop over the solver's device path; see device_path_loops.h.
//
// Compiled with JAXEXT_DEVICE_PATH=1, so kepler_solve.h takes the branches
// the CUDA kernel takes (::fma, ::rint, ::sqrt, ::cbrt, plain selects)
// instead of the host's bit-level ones, and KEPLER_DEVICE_PATH_VARIANT naming
// the namespace of this compilation's entry points (strict or fused); the
// BUILD file also gives each compilation its own JAXEXT_MATH_NAMESPACE, so
// that the two, compiled with different floating-point flags, keep separate
// copies of the solver's inline functions.
#include <cstddef>

#include "jaxlib_ext/kepler_solve/kepler_solve.h"
#include "tests/device_path_loops.h"

#if !defined(JAXEXT_DEVICE_PATH) || !JAXEXT_DEVICE_PATH
#error "compile with JAXEXT_DEVICE_PATH=1 (see tests/BUILD.bazel)"
#endif
#ifndef KEPLER_DEVICE_PATH_VARIANT
#error "KEPLER_DEVICE_PATH_VARIANT must name the variant (see tests/BUILD.bazel)"
#endif

namespace kepler_device_path {
namespace KEPLER_DEVICE_PATH_VARIANT {
namespace {

// The same per-element calls as the kernel (jaxlib_ext/kepler_solve/kepler_solve_kernel.cu).
template <typename T>
void SolveLoop(const T* mean_anomaly, const T* ecc, T* out_sin, T* out_cos,
               std::size_t n, bool true_anomaly) {
  for (std::size_t i = 0; i < n; ++i) {
    const T m = mean_anomaly[i];
    const T e = ecc[i];
    T s, c;
    if (true_anomaly) {
      jaxext::kepler_solve::SolveTrue(m, e, &s, &c);
    } else {
      jaxext::kepler_solve::SolveEccentric(m, e, &s, &c);
    }
    out_sin[i] = s;
    out_cos[i] = c;
  }
}

}  // namespace

void Solve(const float* mean_anomaly, const float* ecc, float* out_sin,
           float* out_cos, std::size_t n, bool true_anomaly) {
  SolveLoop(mean_anomaly, ecc, out_sin, out_cos, n, true_anomaly);
}

void Solve(const double* mean_anomaly, const double* ecc, double* out_sin,
           double* out_cos, std::size_t n, bool true_anomaly) {
  SolveLoop(mean_anomaly, ecc, out_sin, out_cos, n, true_anomaly);
}

}  // namespace KEPLER_DEVICE_PATH_VARIANT
}  // namespace kepler_device_path
