// The elementwise solve loops of the CPU handler, compiled once per CPU
// instruction-set variant (jaxlib_ext/cpu/cpu_isa.bzl).
#ifndef JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_CPU_LOOPS_H_
#define JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_CPU_LOOPS_H_

#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"

namespace jaxext::kepler_solve {

// out_sin[i], out_cos[i] = solve(mean_anomaly[i], ecc[i]) for i in [0, n):
// of the eccentric anomaly, or of the true anomaly when true_anomaly is set.
template <typename T>
using SolveLoop = void (*)(const T* mean_anomaly, const T* ecc, T* out_sin,
                           T* out_cos, size_t n, bool true_anomaly);

// The same with the tangents (JVP): out_d_sin[i], out_d_cos[i] are the
// outputs' derivatives along the inputs' tangents d_mean_anomaly[i], d_ecc[i].
template <typename T>
using JvpLoop = void (*)(const T* mean_anomaly, const T* ecc, const T* d_mean_anomaly,
                         const T* d_ecc, T* out_sin, T* out_cos, T* out_d_sin, T* out_d_cos,
                         size_t n, bool true_anomaly);

// The loops of one instruction-set variant.
using SolveLoops = FloatLoops<SolveLoop>;
using JvpLoops = FloatLoops<JvpLoop>;

// Each variant's loops (kepler_solve_cpu_loops.cc compiled once per variant):
// isa_<variant>::Loops() and isa_<variant>::TangentLoops(), and LoopsForIsa(isa)
// and TangentLoopsForIsa(isa), which the caller may use only where
// CpuSupports(isa).
JAXEXT_PER_ISA_TABLE(SolveLoops, Loops)
JAXEXT_PER_ISA_TABLE(JvpLoops, TangentLoops)

}  // namespace jaxext::kepler_solve

#endif  // JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_CPU_LOOPS_H_
