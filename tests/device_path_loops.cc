// The solve loop over the solver's device path; see device_path_loops.h.
//
// Compiled with JAXEXT_DEVICE_PATH=1, so kepler_solver.h takes the branches
// the CUDA kernel takes (::fma, ::rint, ::sqrt, ::cbrt, plain selects)
// instead of the host's bit-level ones, and KEPLER_DEVICE_PATH_VARIANT naming
// the namespace of this compilation (strict or fused).
//
// As in jaxlib_ext/cpu/kepler_cpu_loops.cc, the solver is included inside an
// unnamed namespace, so that the two variants, compiled with different
// floating-point flags, each keep private copies of its inline functions
// (otherwise the linker would keep one of them for both). The standard
// headers the solver includes on this path are included first, so that their
// include guards keep them out of that namespace.
#include <math.h>

#include <cstddef>
#include <cstdint>

#include "jaxlib_ext/host_device.h"
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

#include "jaxlib_ext/solver/kepler_solver.h"

// The same per-element calls as the kernel (jaxlib_ext/cuda/kepler_kernel.cu).
template <typename T>
void SolveLoop(const T* mean_anomaly, const T* ecc, T* out_sin, T* out_cos,
               std::size_t n, bool true_anomaly) {
  for (std::size_t i = 0; i < n; ++i) {
    const T m = mean_anomaly[i];
    const T e = ecc[i];
    T s, c;
    if (true_anomaly) {
      kepler_ext::solve_true(m, e, &s, &c);
    } else {
      kepler_ext::solve_eccentric(m, e, &s, &c);
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
