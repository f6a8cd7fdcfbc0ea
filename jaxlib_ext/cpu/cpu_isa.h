// The instruction-set variants of the CPU loops for the architecture compiled
// for (the lists are jaxlib_ext/cpu/cpu_isa.bzl's CPU_ISAS, as
// cpu_isa_list.h), what this CPU supports, and the one the handlers use.
//
// An op compiles its loop file once per variant (per_isa_cc_library in
// cpu_isa.bzl), each compilation defining its entry point in namespace
// JAXEXT_ISA_NAMESPACE (isa_baseline, isa_avx2, ...), and picks the variant's
// entry point with JAXEXT_PER_ISA_TABLE:
//
//   // in the op's header, inside its namespace:
//   JAXEXT_PER_ISA_TABLE(MyLoops, Loops)   // MyLoops& LoopsForIsa(CpuIsa)
//   // in the op's loop file, Loop a function template of T:
//   namespace JAXEXT_ISA_NAMESPACE { JAXEXT_ISA_LOOPS(MyLoops, Loops, Loop) }
#ifndef JAXLIB_EXT_CPU_CPU_ISA_H_
#define JAXLIB_EXT_CPU_CPU_ISA_H_

#include <string>

#include "jaxlib_ext/cpu/cpu_isa_list.h"

namespace jaxext {

// CPU features a variant may need (cpu_isa.bzl's `features`), as bits;
// cpu_isa.cc reads those of the architecture it is compiled for.
enum CpuFeature : unsigned {
  kCpuFeature_avx2 = 1u << 0,
  kCpuFeature_fma = 1u << 1,
  kCpuFeature_avx512f = 1u << 2,
  kCpuFeature_avx512dq = 1u << 3,
  kCpuFeature_sve = 1u << 4,
};

#define JAXEXT_ISA_ENUM_(name, features, ...) name,
enum class CpuIsa : int { JAXEXT_CPU_ISA_LIST(JAXEXT_ISA_ENUM_, _) };
#undef JAXEXT_ISA_ENUM_

#define JAXEXT_ISA_VALUE_(name, features, ...) CpuIsa::name,
inline constexpr CpuIsa kAllCpuIsas[] = {JAXEXT_CPU_ISA_LIST(JAXEXT_ISA_VALUE_, _)};
#undef JAXEXT_ISA_VALUE_

// An op's loop for each dtype the kernels support (DispatchFloat in
// jaxlib_ext/ffi_helpers.h): `Loop<T>` is the loop's function-pointer type.
// Each instruction-set variant of an op hands out one of these.
template <template <typename> class Loop>
struct FloatLoops {
  Loop<float> f32;
  Loop<double> f64;

  Loop<float> get(float) const { return f32; }
  Loop<double> get(double) const { return f64; }
};

const char* CpuIsaName(CpuIsa isa);

// The CpuFeature bits the variant needs.
unsigned CpuIsaFeatures(CpuIsa isa);

// Whether this CPU (and its operating system) can run the variant.
bool CpuSupports(CpuIsa isa);

// The variant the handlers use, chosen once per process: the most capable one
// the CPU supports, unless the environment variable KEPLER_CPU_ISA names one
// ("" or "auto" mean the default). A variant the CPU lacks is never chosen:
// the request falls back to the default with a warning on stderr. An unknown
// name is an error: `error` says why, and the handlers fail with that message
// instead of guessing.
struct IsaChoice {
  CpuIsa isa;
  std::string error;  // empty on success
};
const IsaChoice& ActiveCpuIsa();

}  // namespace jaxext

#define JAXEXT_PER_ISA_DECLARE_(name, features, Type, Fn) \
  namespace isa_##name {                                  \
  const Type& Fn();                                       \
  }
#define JAXEXT_PER_ISA_POINTER_(name, features, Type, Fn) &isa_##name::Fn,

// Declares `const Type& isa_<variant>::Fn()` for every variant, and defines
// `const Type& Fn##ForIsa(jaxext::CpuIsa)`, which returns that variant's.
#define JAXEXT_PER_ISA_TABLE(Type, Fn)                                     \
  JAXEXT_CPU_ISA_LIST(JAXEXT_PER_ISA_DECLARE_, Type, Fn)                   \
  inline const Type& Fn##ForIsa(::jaxext::CpuIsa isa) {                    \
    static const Type& (*const kTable[])() = {                             \
        JAXEXT_CPU_ISA_LIST(JAXEXT_PER_ISA_POINTER_, Type, Fn)};           \
    return kTable[static_cast<int>(isa)]();                                \
  }

// In an op's loop file, inside JAXEXT_ISA_NAMESPACE: defines the variant's
// `const Type& Fn()`, Type a FloatLoops of the function template Loop's
// instances for float and double.
#define JAXEXT_ISA_LOOPS(Type, Fn, Loop)                            \
  const Type& Fn() {                                                \
    static constexpr Type kLoops = {&Loop<float>, &Loop<double>}; \
    return kLoops;                                                  \
  }

#endif  // JAXLIB_EXT_CPU_CPU_ISA_H_
