// The solver's device path (JAXEXT_DEVICE_PATH=1: the code the CUDA kernel
// runs) compiled for the host, for tests/device_path_test.py. Test-only.
//
// tests/BUILD.bazel compiles device_path_loops.cc twice, once per way a
// compiler may round the code (see there), each into its own namespace.
#ifndef TESTS_DEVICE_PATH_LOOPS_H_
#define TESTS_DEVICE_PATH_LOOPS_H_

#include <cstddef>

namespace kepler_device_path {

// out_sin[i], out_cos[i] = solve(mean_anomaly[i], ecc[i]) for i in [0, n):
// SolveTrue when true_anomaly is set, else SolveEccentric.
#define KEPLER_DEVICE_PATH_DECLARE(ns)                                      \
  namespace ns {                                                            \
  void Solve(const float* mean_anomaly, const float* ecc, float* out_sin,   \
             float* out_cos, std::size_t n, bool true_anomaly);             \
  void Solve(const double* mean_anomaly, const double* ecc, double* out_sin, \
             double* out_cos, std::size_t n, bool true_anomaly);            \
  }

// No contraction: only the solver's explicit fma calls fuse.
KEPLER_DEVICE_PATH_DECLARE(strict)
// The compiler may contract any a * b + c into an fma, as nvcc does.
KEPLER_DEVICE_PATH_DECLARE(fused)

#undef KEPLER_DEVICE_PATH_DECLARE

}  // namespace kepler_device_path

#endif  // TESTS_DEVICE_PATH_LOOPS_H_
