// Which solve-loop variant this CPU can run, and which one the handler uses.
// Compiled for baseline x86-64 like the rest of the extension.
#if defined(__x86_64__)
#include <cpuid.h>
#endif

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {

// What this CPU and its OS can run, read with CPUID and XGETBV directly
// (Intel SDM vol. 1, 13.2 and 15.2): an instruction set counts only if the
// CPU has it and the OS saves its registers on a context switch. Not
// __builtin_cpu_supports, which needs libgcc's __cpu_model: the wheels are
// linked by a toolchain without libgcc (see third_party/zig).
struct X86Features {
  bool avx2_fma = false;
  bool avx512_f_dq = false;
};

X86Features ReadX86Features() {
  X86Features f;
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  const bool fma = ecx & (1u << 12);
  const bool osxsave = ecx & (1u << 27);
  const bool avx = ecx & (1u << 28);
  if (!osxsave || !avx) return f;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const bool os_ymm = (xcr0_lo & 0x6u) == 0x6u;     // SSE + AVX state
  const bool os_zmm = (xcr0_lo & 0xE6u) == 0xE6u;   // + opmask, ZMM state
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return f;
  const bool avx2 = ebx & (1u << 5);
  const bool avx512f = ebx & (1u << 16);
  const bool avx512dq = ebx & (1u << 17);
  f.avx2_fma = os_ymm && avx2 && fma;
  f.avx512_f_dq = f.avx2_fma && os_zmm && avx512f && avx512dq;
  return f;
}

}  // namespace

bool CpuSupports(CpuIsa isa) {
  static const X86Features features = ReadX86Features();
  switch (isa) {
    case CpuIsa::kBaseline:
      return true;
    case CpuIsa::kAvx2:
      return features.avx2_fma;
    case CpuIsa::kAvx512:
      return features.avx512_f_dq;
  }
  return false;
}
#else
bool CpuSupports(CpuIsa isa) {
  // Elsewhere the variants are all compiled for the default target.
  return isa == CpuIsa::kBaseline;
}
#endif

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
