// _kepler_cpu: hands XLA the CPU handler capsules, and says which solve-loop
// variant (instruction set) the handler uses. Also holds the stand-in CUDA
// handler for when no CUDA plugin is installed (jaxlib_ext/gpu_unavailable.h).
#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "jaxlib_ext/cpu/kepler_cpu.h"
#include "jaxlib_ext/cpu/kepler_cpu_loops.h"
#include "jaxlib_ext/gpu_unavailable.h"

PYBIND11_MODULE(_kepler_cpu, m) {
  m.def("registrations", []() {
    pybind11::dict targets;
    targets["kepler_solve"] =
        pybind11::capsule(reinterpret_cast<void*>(&KeplerSolveCpu));
    return targets;
  });
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
        const kepler_ext::IsaChoice& choice = kepler_ext::ActiveCpuIsa();
        if (!choice.error.empty()) throw std::invalid_argument(choice.error);
        return kepler_ext::CpuIsaName(choice.isa);
      },
      "The instruction-set variant of the solve loop in use: 'baseline', "
      "'avx2' or 'avx512' (KEPLER_CPU_ISA overrides the default, the best "
      "one the CPU supports). Raises ValueError if KEPLER_CPU_ISA is invalid.");
  m.def(
      "supported_cpu_isas",
      []() {
        pybind11::list names;
        for (kepler_ext::CpuIsa isa : kepler_ext::kAllCpuIsas) {
          if (kepler_ext::CpuSupports(isa)) {
            names.append(kepler_ext::CpuIsaName(isa));
          }
        }
        return names;
      },
      "The solve-loop variants this CPU can run.");
}
