// libkepler_cpu.so: every op's CPU handler (the list: jaxlib_ext/ffi_targets.h,
// from ops.bzl's OPS), the ops' exported constants, and which loop variant
// (instruction set) the handlers use, behind a C interface that
// kepler/_lib/_kepler_cpu.py reads with ctypes. Also holds the stand-in CUDA
// handler for when no CUDA plugin is installed (jaxlib_ext/gpu_unavailable.h).
// Nothing here uses Python's C API, so one build serves every Python. It
// includes no op's header.
#include <string>

#include "jaxlib_ext/c_module.h"
#include "jaxlib_ext/constants.h"
#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/gpu_unavailable.h"

namespace {

using jaxext::JsonString;

#define JAXEXT_ENTRY_(op, target, Handler) {op, target, &Handler##Cpu},
constexpr jaxext::ModuleTarget kTargets[] = {JAXEXT_FFI_TARGETS(JAXEXT_ENTRY_)};
#undef JAXEXT_ENTRY_

std::string Manifest() {
  std::string dtypes;
#define JAXEXT_DTYPE_NAME_(type, xla, name) dtypes += (dtypes.empty() ? "" : ", ") + JsonString(name);
  JAXEXT_KERNEL_DTYPES(JAXEXT_DTYPE_NAME_)
#undef JAXEXT_DTYPE_NAME_
  std::string constants;
  for (const auto& [name, value] : jaxext::AllExportedConstants()) {
    constants += (constants.empty() ? "" : ", ") + JsonString(name) + ": " + std::to_string(value);
  }
  std::string isas, supported;
  for (jaxext::CpuIsa isa : jaxext::kAllCpuIsas) {
    isas += (isas.empty() ? "" : ", ") + JsonString(jaxext::CpuIsaName(isa));
    if (jaxext::CpuSupports(isa)) {
      supported += (supported.empty() ? "" : ", ") + JsonString(jaxext::CpuIsaName(isa));
    }
  }
  return "{\"targets\": " + jaxext::TargetsJson(kTargets) + ", \"kernel_dtypes\": [" + dtypes +
         "], \"constants\": {" + constants + "}, \"cpu_isas\": [" + isas +
         "], \"supported_cpu_isas\": [" + supported + "]}";
}

}  // namespace

// What the module holds, as JSON: {"targets": {op: FFI target name},
// "kernel_dtypes": [numpy names], "constants": {name: integer} (those of
// JAXEXT_EXPORT_CONSTANT), "cpu_isas": [every loop variant compiled, from the
// least to the most demanding], "supported_cpu_isas": [those this CPU runs]}.
JAXEXT_C_EXPORT const char* kepler_cpu_manifest() {
  static const std::string* manifest = new std::string(Manifest());
  return manifest->c_str();
}

// The CPU handler (an XLA_FFI_Handler*) of the FFI target named `target`;
// null for a name that is no op's.
JAXEXT_C_EXPORT void* kepler_cpu_handler(const char* target) {
  return jaxext::HandlerNamed(kTargets, target);
}

// A handler for the CUDA platform that fails with the message set by
// kepler_set_gpu_unavailable_message: every target's when no CUDA plugin is used.
JAXEXT_C_EXPORT void* kepler_gpu_unavailable_handler() {
  return reinterpret_cast<void*>(&GpuUnavailable);
}

JAXEXT_C_EXPORT void kepler_set_gpu_unavailable_message(const char* message) {
  jaxext::SetGpuUnavailableMessage(message);
}

// The name of the loop variant in use (KEPLER_CPU_ISA overrides the default,
// the best one the CPU supports); when KEPLER_CPU_ISA is invalid, *ok is 0
// and the result says why.
JAXEXT_C_EXPORT const char* kepler_cpu_isa(int* ok) {
  const jaxext::IsaChoice& choice = jaxext::ActiveCpuIsa();
  *ok = choice.error.empty();
  return *ok ? jaxext::CpuIsaName(choice.isa) : choice.error.c_str();
}
