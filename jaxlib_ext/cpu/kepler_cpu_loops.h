// The elementwise solve loops of the CPU handler, compiled once per x86-64
// instruction-set level, and the run-time choice between them.
#ifndef KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_
#define KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace kepler_ext {

// out_sin[i], out_cos[i] = solve(mean_anomaly[i], ecc[i]) for i in [0, n):
// of the eccentric anomaly, or of the true anomaly when true_anomaly is set.
template <typename T>
using SolveLoop = void (*)(const T* mean_anomaly, const T* ecc, T* out_sin,
                           T* out_cos, size_t n, bool true_anomaly);

// The loops of one instruction-set variant.
struct SolveLoops {
  SolveLoop<float> f32;
  SolveLoop<double> f64;

  SolveLoop<float> get(float) const { return f32; }
  SolveLoop<double> get(double) const { return f64; }
};

// The variants, from the least to the most demanding. Each is the same source
// (kepler_cpu_loops.cc) compiled with its own -m flags:
//   baseline: plain x86-64 (SSE2), no FMA; the loops do not vectorise.
//   avx2:     AVX2 + FMA (the vector part of x86-64-v3).
//   avx512:   AVX-512F + AVX-512DQ + AVX2 + FMA.
enum class CpuIsa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
inline constexpr CpuIsa kAllCpuIsas[] = {CpuIsa::kBaseline, CpuIsa::kAvx2,
                                         CpuIsa::kAvx512};

const char* CpuIsaName(CpuIsa isa);

// Whether this CPU (and its operating system) can run the variant.
bool CpuSupports(CpuIsa isa);

// The loops of a variant. The caller must check CpuSupports(isa) first.
const SolveLoops& LoopsFor(CpuIsa isa);

// The variant the handler uses, chosen once per process: the most capable one
// the CPU supports, unless the environment variable KEPLER_CPU_ISA names one
// (baseline, avx2, avx512; "" or "auto" mean the default). A variant the CPU
// lacks is never chosen: the request falls back to the default with a warning
// on stderr. An unknown name is an error: `error` says why, and the handler
// fails with that message instead of guessing.
struct IsaChoice {
  CpuIsa isa;
  std::string error;  // empty on success
};
const IsaChoice& ActiveCpuIsa();

// Per-variant entry points, defined by kepler_cpu_loops.cc.
namespace isa_baseline {
const SolveLoops& Loops();
}
namespace isa_avx2 {
const SolveLoops& Loops();
}
namespace isa_avx512 {
const SolveLoops& Loops();
}

}  // namespace kepler_ext

#endif  // KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_LOOPS_H_
