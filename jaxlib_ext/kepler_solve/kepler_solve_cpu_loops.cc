// The solve loop, written once. BUILD.bazel compiles this file once per
// instruction-set variant (per_isa_cc_library, jaxlib_ext/cpu/cpu_isa.bzl),
// with that variant's -m flags, JAXEXT_ISA_NAMESPACE naming the namespace of
// its entry point (isa_baseline, isa_avx2, ...) and JAXEXT_MATH_NAMESPACE
// giving its copy of the solver symbols of its own (host_device.h).
//
// The solver picks its code paths from the target macros (__FMA__, __AVX__,
// ...), so each variant must be its own translation unit: the function
// attributes of GCC's multi-versioning do not change those macros.
#include <cstddef>

#include "jaxlib_ext/kepler_solve/kepler_solve.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_cpu_loops.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext::kepler_solve::JAXEXT_ISA_NAMESPACE {
namespace {

template <typename T, bool kTrueAnomaly>
void SolveLoopOf(const T* __restrict mean_anomaly, const T* __restrict ecc,
                 T* __restrict out_sin, T* __restrict out_cos, size_t n) {
  // Clang vectorises this loop with one vector of elements in flight, GCC
  // with several: four in flight (JAXEXT_SOLVES_IN_FLIGHT).
  JAXEXT_SOLVES_IN_FLIGHT
  for (size_t i = 0; i < n; ++i) {
    if (kTrueAnomaly) {
      SolveTrue(mean_anomaly[i], ecc[i], &out_sin[i], &out_cos[i]);
    } else {
      SolveEccentric(mean_anomaly[i], ecc[i], &out_sin[i], &out_cos[i]);
    }
  }
}

template <typename T>
void Solve(const T* mean_anomaly, const T* ecc, T* out_sin, T* out_cos,
           size_t n, bool true_anomaly) {
  if (true_anomaly) {
    SolveLoopOf<T, true>(mean_anomaly, ecc, out_sin, out_cos, n);
  } else {
    SolveLoopOf<T, false>(mean_anomaly, ecc, out_sin, out_cos, n);
  }
}

template <typename T, bool kTrueAnomaly>
void JvpLoopOf(const T* __restrict mean_anomaly, const T* __restrict ecc,
               const T* __restrict d_mean_anomaly, const T* __restrict d_ecc,
               T* __restrict out_sin, T* __restrict out_cos, T* __restrict out_d_sin,
               T* __restrict out_d_cos, size_t n) {
  JAXEXT_SOLVES_IN_FLIGHT
  for (size_t i = 0; i < n; ++i) {
    if (kTrueAnomaly) {
      SolveTrueJvp(mean_anomaly[i], ecc[i], d_mean_anomaly[i], d_ecc[i], &out_sin[i],
                   &out_cos[i], &out_d_sin[i], &out_d_cos[i]);
    } else {
      SolveEccentricJvp(mean_anomaly[i], ecc[i], d_mean_anomaly[i], d_ecc[i], &out_sin[i],
                        &out_cos[i], &out_d_sin[i], &out_d_cos[i]);
    }
  }
}

template <typename T>
void Jvp(const T* mean_anomaly, const T* ecc, const T* d_mean_anomaly, const T* d_ecc,
         T* out_sin, T* out_cos, T* out_d_sin, T* out_d_cos, size_t n, bool true_anomaly) {
  if (true_anomaly) {
    JvpLoopOf<T, true>(mean_anomaly, ecc, d_mean_anomaly, d_ecc, out_sin, out_cos, out_d_sin,
                       out_d_cos, n);
  } else {
    JvpLoopOf<T, false>(mean_anomaly, ecc, d_mean_anomaly, d_ecc, out_sin, out_cos, out_d_sin,
                        out_d_cos, n);
  }
}

}  // namespace

JAXEXT_ISA_LOOPS(SolveLoops, Loops, Solve)
JAXEXT_ISA_LOOPS(JvpLoops, TangentLoops, Jvp)

}  // namespace jaxext::kepler_solve::JAXEXT_ISA_NAMESPACE
