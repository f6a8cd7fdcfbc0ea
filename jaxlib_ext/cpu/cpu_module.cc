// _kepler_cpu: hands XLA the CPU handler capsules, and says which solve-loop
// variant (instruction set) the handler uses. Also holds the stand-in CUDA
// handler for when no CUDA plugin is installed (jaxlib_ext/gpu_unavailable.h).
#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/cpu/kepler_cpu.h"
#include "jaxlib_ext/cpu/limbdark_cpu.h"
#include "jaxlib_ext/limbdark/limbdark.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/gpu_unavailable.h"

PYBIND11_MODULE(_kepler_cpu, m) {
  m.def("registrations", []() {
    pybind11::dict targets;
#define JAXEXT_REGISTER_(name, Handler) \
  targets[name] = pybind11::capsule(reinterpret_cast<void*>(&Handler##Cpu));
    JAXEXT_FFI_TARGETS(JAXEXT_REGISTER_)
#undef JAXEXT_REGISTER_
    return targets;
  });
  // {Handler: target name} for the Python side's jax.ffi.ffi_call.
  pybind11::dict names;
#define JAXEXT_NAME_(name, Handler) names[#Handler] = name;
  JAXEXT_FFI_TARGETS(JAXEXT_NAME_)
#undef JAXEXT_NAME_
  m.attr("TARGET_NAMES") = names;
  m.attr("LIMB_DARK_MAX_ORDER") = kepler_ext::limbdark::kMaxOrder;
  m.def(
      "gpu_unavailable_handler",
      []() { return pybind11::capsule(reinterpret_cast<void*>(&KeplerGpuUnavailable)); },
      "A handler for the CUDA platform that fails with the message set by "
      "set_gpu_unavailable_message: for every target when no CUDA plugin is used.");
  m.def("set_gpu_unavailable_message",
        [](std::string message) { kepler_ext::SetGpuUnavailableMessage(std::move(message)); });
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
