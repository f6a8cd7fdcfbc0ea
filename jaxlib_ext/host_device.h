// Host/device portability for headers that both the host compiler and nvcc
// compile (the ops' math headers, jaxlib_ext/<op>/<op>.h).
//
//   JAXEXT_HD             on a function: callable from host and device code.
//   JAXEXT_ALWAYS_INLINE  force inlining on the host, so that the compiler
//                         can vectorise the loop the function is called in.
//   JAXEXT_DEVICE_PATH    1 where the device's implementations of helpers
//                         apply (nvcc's device pass); tests may predefine it
//                         to 1 to run that path on the host.
//   JAXEXT_HAS_HW_FMA     1 where fma() is one instruction.
//   TableAt<kMake>(j)     element j of a constant table (math/nodes.h),
//                         indexed by a variable: on the device from
//                         constant memory.
//   JAXEXT_MATH_NAMESPACE the inline namespace an op's math header wraps its
//                         code in (jaxext::<op>::JAXEXT_MATH_NAMESPACE).
//                         A translation unit compiled with other flags than
//                         the rest (each CPU instruction-set variant, the
//                         device-path tests) predefines its own name, so that
//                         its copies of the inline functions get symbols of
//                         their own and the linker cannot swap one copy for
//                         another. Callers name the functions without it.
#ifndef JAXLIB_EXT_HOST_DEVICE_H_
#define JAXLIB_EXT_HOST_DEVICE_H_

#if defined(__CUDACC__)
#define JAXEXT_HD __host__ __device__ __forceinline__
#else
#define JAXEXT_HD inline
#endif

// JAXEXT_HD for a large body that a kernel calls on some paths only (an
// edge rule): a call of its own on the device, where inlining every such
// body into one kernel makes ptxas's register allocation over the whole
// slow (seconds per body) and spill more; inline on the host. `inline`
// there too: its linkage, so that two .cu files that include the same
// header (every op's kernel) link into one module.
#if defined(__CUDACC__)
#define JAXEXT_HD_CALLED inline __host__ __device__ __noinline__
#else
#define JAXEXT_HD_CALLED inline
#endif

// Large inline bodies exceed the compilers' default inlining heuristics.
#if !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#define JAXEXT_ALWAYS_INLINE __attribute__((always_inline))
#else
#define JAXEXT_ALWAYS_INLINE
#endif

// Unrolls the loop that follows fully (its trip count a constant).
#if defined(__clang__) || defined(__CUDACC__)
#define JAXEXT_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define JAXEXT_UNROLL _Pragma("GCC unroll 16")
#else
#define JAXEXT_UNROLL
#endif

// Unrolls the loop that follows n times (on the device; elsewhere fully).
#define JAXEXT_PRAGMA_OF(text) _Pragma(#text)
#if defined(__CUDACC__)
#define JAXEXT_UNROLL_BY(n) JAXEXT_PRAGMA_OF(unroll n)
#else
#define JAXEXT_UNROLL_BY(n) JAXEXT_UNROLL
#endif

// Keeps the loop that follows rolled.
#if defined(__clang__) || defined(__CUDACC__)
#define JAXEXT_NO_UNROLL _Pragma("unroll 1")
#elif defined(__GNUC__)
#define JAXEXT_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define JAXEXT_NO_UNROLL
#endif

// Before a CPU loop whose body solves Kepler's equation: clang vectorises
// it with four vectors in flight, which hide the latency of the solver's
// dependent divisions and FMAs (with one, the loop takes about twice as
// long; docs/accuracy_and_speed.md, "The compiler"). GCC has no such pragma.
#if defined(__clang__) && !defined(__CUDACC__)
#define JAXEXT_SOLVES_IN_FLIGHT _Pragma("clang loop interleave_count(4)")
#else
#define JAXEXT_SOLVES_IN_FLIGHT
#endif

#if !defined(JAXEXT_DEVICE_PATH)
#if defined(__CUDA_ARCH__)
#define JAXEXT_DEVICE_PATH 1
#else
#define JAXEXT_DEVICE_PATH 0
#endif
#endif

// The device path calls the C math functions in the global namespace (::fma,
// ::rint, ::sqrt, ...). nvcc declares them for device code itself; a host
// compiler running that path (tests) needs <math.h>, which declares them in
// the global namespace.
#if JAXEXT_DEVICE_PATH && !defined(__CUDACC__)
#include <math.h>
#endif

#if JAXEXT_DEVICE_PATH || defined(__FMA__) || defined(__FP_FAST_FMA) || \
    defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
#define JAXEXT_HAS_HW_FMA 1
#else
#define JAXEXT_HAS_HW_FMA 0
#endif

#ifndef JAXEXT_MATH_NAMESPACE
#define JAXEXT_MATH_NAMESPACE math_portable
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace jaxext {

// A kernel's first pass over its elements marks those it leaves to a later
// pass by storing this value into the element's first result (the later
// pass reads that result back and computes the marked elements): a quiet
// NaN whose payload no arithmetic makes (the GPUs' arithmetic NaN is the
// canonical one), and the passes compare bits, not values; kBits + mark, mark
// in [0, kMarks), for a first pass that leaves its elements to several
// passes. An element whose inputs are NaN is one the first pass leaves, so
// no input's payload reaches the result either.
template <typename T>
struct LeftMark {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  static constexpr Bits kBits =
      sizeof(T) == 8 ? Bits(0x7ff8'0000'4c45'4654ULL) : Bits(0x7fc4'c454UL);
  static constexpr int kMarks = 16;
};

// On the device a register move keeps a NaN's bits, so the value's own
// load and store serve (no copy through memory).
template <typename T>
JAXEXT_HD void MarkLeft(T* out, int mark = 0) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    *out = __longlong_as_double(static_cast<long long>(LeftMark<T>::kBits + mark));
  } else {
    *out = __uint_as_float(LeftMark<T>::kBits + mark);
  }
#else
  const typename LeftMark<T>::Bits bits = LeftMark<T>::kBits + mark;
  std::memcpy(out, &bits, sizeof(T));
#endif
}

template <typename T>
JAXEXT_HD bool IsMarkedLeft(T value, int mark = 0) {
  const typename LeftMark<T>::Bits want = LeftMark<T>::kBits + mark;
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    return static_cast<std::uint64_t>(__double_as_longlong(value)) == want;
  } else {
    return __float_as_uint(value) == want;
  }
#else
  typename LeftMark<T>::Bits bits;
  std::memcpy(&bits, &value, sizeof(T));
  return bits == want;
#endif
}

namespace detail {
// kMake's table as a host constant (one object for every call).
template <auto kMake>
inline constexpr auto kHostTable = kMake();
#if defined(__CUDACC__)
// kMake's table in the device's constant memory, one copy per kernel source
// (in the host pass of nvcc never read), in a namespace of the source's own
// name (JAXEXT_KERNEL_SOURCE, which a .cu file defines before its
// includes): the CUDA runtime refuses two constant variables of one name in
// separate sources. Neither static nor const: nvcc names a device variable
// of internal linkage after its temporary files (_INTERNAL_<hash>), which
// made the build's objects differ from one sandbox to another.
#ifndef JAXEXT_KERNEL_SOURCE
#define JAXEXT_KERNEL_SOURCE kernel_source
#endif
namespace JAXEXT_KERNEL_SOURCE {
template <auto kMake>
__constant__ auto kConstantTable = kMake();
}  // namespace JAXEXT_KERNEL_SOURCE
#endif
}  // namespace detail

// Element j of the table that the constexpr function kMake returns (a
// table of math/nodes.h: a struct whose array is v), for a loop that
// indexes it with a variable. On the device it is read from constant
// memory, through the constant cache, which serves a warp's threads reading
// the same element at once (a local constexpr table indexed so would be
// copied into each thread's stack); on the host from one constant object
// (a local one would be built at each call).
template <auto kMake>
JAXEXT_HD auto TableAt(int j) {
#if defined(__CUDA_ARCH__)
  return detail::JAXEXT_KERNEL_SOURCE::kConstantTable<kMake>.v[j];
#else
  return detail::kHostTable<kMake>.v[j];
#endif
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_HOST_DEVICE_H_
