// _kepler_cpu: hands XLA every op's CPU handler capsule (the list:
// jaxlib_ext/ffi_targets.h, from ops.bzl's OPS), the ops' exported constants,
// and says which loop variant (instruction set) the handlers use. Also holds
// the stand-in CUDA handler for when no CUDA plugin is installed
// (jaxlib_ext/gpu_unavailable.h). It includes no op's header.
#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "jaxlib_ext/constants.h"
#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/gpu_unavailable.h"

PYBIND11_MODULE(_kepler_cpu, m) {
  m.def(
      "registrations",
      []() {
        pybind11::dict targets;
#define JAXEXT_REGISTER_(op, target, Handler) \
  targets[target] = pybind11::capsule(reinterpret_cast<void*>(&Handler##Cpu));
        JAXEXT_FFI_TARGETS(JAXEXT_REGISTER_)
#undef JAXEXT_REGISTER_
        return targets;
      },
      "{FFI target name: CPU handler capsule} of every op.");
  // {op: FFI target name}, for the ops' Python modules (kepler/<op>.py).
  pybind11::dict names;
#define JAXEXT_NAME_(op, target, Handler) names[op] = target;
  JAXEXT_FFI_TARGETS(JAXEXT_NAME_)
#undef JAXEXT_NAME_
  m.attr("TARGET_NAMES") = names;
  // The numpy names of the dtypes the kernels compute in.
  pybind11::list dtypes;
#define JAXEXT_DTYPE_NAME_(type, xla, name) dtypes.append(name);
  JAXEXT_KERNEL_DTYPES(JAXEXT_DTYPE_NAME_)
#undef JAXEXT_DTYPE_NAME_
  m.attr("KERNEL_DTYPES") = dtypes;
  m.def(
      "constants",
      []() {
        pybind11::dict out;
        for (const auto& [name, value] : jaxext::AllExportedConstants()) out[name] = value;
        return out;
      },
      "The integer constants the ops export (JAXEXT_EXPORT_CONSTANT), by name.");
  m.def(
      "gpu_unavailable_handler",
      []() { return pybind11::capsule(reinterpret_cast<void*>(&GpuUnavailable)); },
      "A handler for the CUDA platform that fails with the message set by "
      "set_gpu_unavailable_message: for every target when no CUDA plugin is used.");
  m.def("set_gpu_unavailable_message",
        [](std::string message) { jaxext::SetGpuUnavailableMessage(std::move(message)); });
  m.def(
      "cpu_isa",
      []() {
        const jaxext::IsaChoice& choice = jaxext::ActiveCpuIsa();
        if (!choice.error.empty()) throw std::invalid_argument(choice.error);
        return jaxext::CpuIsaName(choice.isa);
      },
      "The instruction-set variant of the CPU loops in use (see "
      "cpu_isas(); KEPLER_CPU_ISA overrides the default, the best one the "
      "CPU supports). Raises ValueError if KEPLER_CPU_ISA is invalid.");
  m.def(
      "cpu_isas",
      []() {
        pybind11::list names;
        for (jaxext::CpuIsa isa : jaxext::kAllCpuIsas) {
          names.append(jaxext::CpuIsaName(isa));
        }
        return names;
      },
      "Every instruction-set variant the loops are compiled for, from the "
      "least to the most demanding (jaxlib_ext/cpu/cpu_isa.bzl).");
  m.def(
      "supported_cpu_isas",
      []() {
        pybind11::list names;
        for (jaxext::CpuIsa isa : jaxext::kAllCpuIsas) {
          if (jaxext::CpuSupports(isa)) {
            names.append(jaxext::CpuIsaName(isa));
          }
        }
        return names;
      },
      "The variants of cpu_isas() this CPU can run.");
}
