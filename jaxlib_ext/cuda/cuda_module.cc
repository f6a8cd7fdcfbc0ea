// _kepler_cuda: hands XLA the CUDA handler capsules and says which CUDA
// toolkit built them; nothing else.
#include <pybind11/pybind11.h>

#include "jaxlib_ext/cuda/kepler_cuda.h"

PYBIND11_MODULE(_kepler_cuda, m) {
  m.def("registrations", []() {
    pybind11::dict targets;
    targets["kepler_solve"] = pybind11::capsule(reinterpret_cast<void*>(&KeplerSolveCuda));
    return targets;
  });
  m.attr("cuda_version") = KEPLER_CUDA_VERSION;
}
