// _kepler_cpu: hands XLA the CPU handler capsules; nothing else.
#include <pybind11/pybind11.h>

#include "jaxlib_ext/cpu/kepler_cpu.h"

PYBIND11_MODULE(_kepler_cpu, m) {
  m.def("registrations", []() {
    pybind11::dict targets;
    targets["kepler_solve"] =
        pybind11::capsule(reinterpret_cast<void*>(&KeplerSolveCpu));
    return targets;
  });
}
