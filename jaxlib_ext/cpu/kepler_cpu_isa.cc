// Which solve-loop variant this CPU can run, and which one the handler uses.
// Compiled for baseline x86-64 like the rest of the extension.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "jaxlib_ext/cpu/kepler_cpu_loops.h"

namespace kepler_ext {

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kBaseline:
      return "baseline";
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kAvx512:
      return "avx512";
  }
  return "unknown";
}

bool CpuSupports(CpuIsa isa) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's feature bits also check that the OS saves the AVX/AVX-512
  // registers (XGETBV), not only the CPUID bits.
  __builtin_cpu_init();
  switch (isa) {
    case CpuIsa::kBaseline:
      return true;
    case CpuIsa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CpuIsa::kAvx512:
      return __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  return false;
#else
  // Elsewhere the variants are all compiled for the default target.
  return isa == CpuIsa::kBaseline;
#endif
}

const SolveLoops& LoopsFor(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2:
      return isa_avx2::Loops();
    case CpuIsa::kAvx512:
      return isa_avx512::Loops();
    case CpuIsa::kBaseline:
      break;
  }
  return isa_baseline::Loops();
}

namespace {

CpuIsa BestSupported() {
  CpuIsa best = CpuIsa::kBaseline;
  for (CpuIsa isa : kAllCpuIsas) {
    if (CpuSupports(isa)) best = isa;
  }
  return best;
}

IsaChoice ChooseCpuIsa() {
  const char* env = std::getenv("KEPLER_CPU_ISA");
  const std::string requested = env ? env : "";
  if (requested.empty() || requested == "auto") {
    return {BestSupported(), ""};
  }
  for (CpuIsa isa : kAllCpuIsas) {
    if (requested != CpuIsaName(isa)) continue;
    if (CpuSupports(isa)) return {isa, ""};
    const CpuIsa fallback = BestSupported();
    std::fprintf(stderr,
                 "kepler: KEPLER_CPU_ISA=%s but this CPU lacks the "
                 "instructions it needs; using %s instead\n",
                 requested.c_str(), CpuIsaName(fallback));
    return {fallback, ""};
  }
  return {BestSupported(),
          "kepler: KEPLER_CPU_ISA='" + requested +
              "' is not one of auto, baseline, avx2, avx512"};
}

}  // namespace

const IsaChoice& ActiveCpuIsa() {
  static const IsaChoice choice = ChooseCpuIsa();
  return choice;
}

}  // namespace kepler_ext
