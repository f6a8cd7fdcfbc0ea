// The elementwise solve loops of the CPU handler, compiled once per x86-64
// instruction-set level, and the run-time choice between them.
#ifndef KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_
#define KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_

#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"

namespace kepler_ext {

// out_sin[i], out_cos[i] = solve(mean_anomaly[i], ecc[i]) for i in [0, n):
// of the eccentric anomaly, or of the true anomaly when true_anomaly is set.
template <typename T>
using SolveLoop = void (*)(const T* mean_anomaly, const T* ecc, T* out_sin,
                           T* out_cos, size_t n, bool true_anomaly);

// The loops of one instruction-set variant.
using SolveLoops = jaxext::FloatLoops<SolveLoop>;

// Each variant's loops (cpu_isa.bzl's CPU_ISAS; kepler_cpu_loops.cc compiled
// once per variant): isa_<variant>::Loops(), and LoopsForIsa(isa), which the
// caller may use only where jaxext::CpuSupports(isa).
JAXEXT_PER_ISA_TABLE(SolveLoops, Loops)

}  // namespace kepler_ext

#endif  // KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_
