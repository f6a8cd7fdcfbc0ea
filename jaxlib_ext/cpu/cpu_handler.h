// What every op's CPU handler does after its checks, around its loop.
#ifndef JAXLIB_EXT_CPU_CPU_HANDLER_H_
#define JAXLIB_EXT_CPU_CPU_HANDLER_H_

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/cpu/parallel_for.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext {

// fn(T{}, isa): T the C++ type of `dtype` (DispatchFloat), isa the
// instruction-set variant in use (ActiveCpuIsa); KEPLER_CPU_ISA's error
// instead when it names no variant.
template <typename Fn>
xla::ffi::Error RunOnCpu(const char* op, xla::ffi::DataType dtype, Fn&& fn) {
  const IsaChoice& choice = ActiveCpuIsa();
  if (!choice.error.empty()) return xla::ffi::Error::InvalidArgument(choice.error);
  return DispatchFloat(op, dtype, [&](auto zero) { return fn(zero, choice.isa); });
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_CPU_CPU_HANDLER_H_
