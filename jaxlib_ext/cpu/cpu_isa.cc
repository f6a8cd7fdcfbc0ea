// Which instruction-set variant this CPU can run, and which one the handlers
// use. Compiled for the architecture's baseline like the rest of the
// extension.
#include "jaxlib_ext/cpu/cpu_isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <string>

namespace jaxext {
namespace {

// The environment variable that forces a variant (docs/api.md, "The CPU:
// instruction sets and threads").
constexpr char kIsaEnvVar[] = "KEPLER_CPU_ISA";

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// What this CPU and its OS can run, read with CPUID and XGETBV directly
// (Intel SDM vol. 1, 13.2 and 15.2): a feature counts only if the CPU has it
// and the OS saves its registers on a context switch. Not
// __builtin_cpu_supports, which needs libgcc's __cpu_model: the wheels are
// linked by a toolchain without libgcc (see third_party/zig).
unsigned ReadCpuFeatures() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const bool fma = ecx & (1u << 12);
  const bool osxsave = ecx & (1u << 27);
  const bool avx = ecx & (1u << 28);
  if (!osxsave || !avx) return 0;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const bool os_ymm = (xcr0_lo & 0x6u) == 0x6u;    // SSE + AVX state
  const bool os_zmm = (xcr0_lo & 0xE6u) == 0xE6u;  // + opmask, ZMM state
  if (!os_ymm) return 0;
  unsigned features = fma ? kCpuFeature_fma : 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return features;
  if (ebx & (1u << 5)) features |= kCpuFeature_avx2;
  if (os_zmm && (ebx & (1u << 16))) features |= kCpuFeature_avx512f;
  if (os_zmm && (ebx & (1u << 17))) features |= kCpuFeature_avx512dq;
  return features;
}
#elif defined(__aarch64__) && defined(__linux__)
// What this CPU can run, as the kernel reports it (getauxval(AT_HWCAP)): a
// feature counts only if the kernel also saves its state, which the bit
// says. HWCAP_SVE is bit 22 (Linux, arch/arm64/include/uapi/asm/hwcap.h).
// FMA is part of armv8-a: every aarch64 CPU has it.
unsigned ReadCpuFeatures() {
  constexpr unsigned long kHwcapSve = 1ul << 22;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  return kCpuFeature_fma | ((hwcap & kHwcapSve) ? kCpuFeature_sve : 0u);
}
#else
// Elsewhere the variants are all compiled for the default target, and only
// the featureless one (the first) counts as supported.
unsigned ReadCpuFeatures() { return 0; }
#endif

unsigned CpuFeatures() {
  static const unsigned features = ReadCpuFeatures();
  return features;
}

CpuIsa BestSupported() {
  CpuIsa best = kAllCpuIsas[0];
  for (CpuIsa isa : kAllCpuIsas) {
    if (CpuSupports(isa)) best = isa;
  }
  return best;
}

std::string AllNames() {
  std::string names = "auto";
  for (CpuIsa isa : kAllCpuIsas) names += std::string(", ") + CpuIsaName(isa);
  return names;
}

IsaChoice ChooseCpuIsa() {
  const char* env = std::getenv(kIsaEnvVar);
  const std::string requested = env ? env : "";
  if (requested.empty() || requested == "auto") {
    return {BestSupported(), ""};
  }
  for (CpuIsa isa : kAllCpuIsas) {
    if (requested != CpuIsaName(isa)) continue;
    if (CpuSupports(isa)) return {isa, ""};
    const CpuIsa fallback = BestSupported();
    std::fprintf(stderr,
                 "kepler: %s=%s but this CPU lacks the instructions it needs; "
                 "using %s instead\n",
                 kIsaEnvVar, requested.c_str(), CpuIsaName(fallback));
    return {fallback, ""};
  }
  return {BestSupported(), std::string("kepler: ") + kIsaEnvVar + "='" +
                               requested + "' is not one of " + AllNames()};
}

}  // namespace

const char* CpuIsaName(CpuIsa isa) {
#define JAXEXT_ISA_NAME_(name, features, ...) \
  case CpuIsa::name:                          \
    return #name;
  switch (isa) { JAXEXT_CPU_ISA_LIST(JAXEXT_ISA_NAME_, _) }
#undef JAXEXT_ISA_NAME_
  return "unknown";
}

unsigned CpuIsaFeatures(CpuIsa isa) {
#define JAXEXT_ISA_FEATURES_(name, features, ...) \
  case CpuIsa::name:                              \
    return features;
  switch (isa) { JAXEXT_CPU_ISA_LIST(JAXEXT_ISA_FEATURES_, _) }
#undef JAXEXT_ISA_FEATURES_
  return ~0u;
}

bool CpuSupports(CpuIsa isa) {
  const unsigned needed = CpuIsaFeatures(isa);
  return (CpuFeatures() & needed) == needed;
}

const IsaChoice& ActiveCpuIsa() {
  static const IsaChoice choice = ChooseCpuIsa();
  return choice;
}

}  // namespace jaxext
