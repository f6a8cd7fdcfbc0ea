// _kepler_cuda: hands XLA the CUDA handler capsules and says which CUDA
// toolkit built them; nothing else.
#include <pybind11/pybind11.h>

#include "jaxlib_ext/cuda/kepler_cuda.h"
#include "jaxlib_ext/cuda/limbdark_cuda.h"
#include "jaxlib_ext/ffi_targets.h"

PYBIND11_MODULE(_kepler_cuda, m) {
  m.def("registrations", []() {
    pybind11::dict targets;
#define JAXEXT_REGISTER_(name, Handler) \
  targets[name] = pybind11::capsule(reinterpret_cast<void*>(&Handler##Cuda));
    JAXEXT_FFI_TARGETS(JAXEXT_REGISTER_)
#undef JAXEXT_REGISTER_
    return targets;
  });
  m.attr("cuda_version") = KEPLER_CUDA_VERSION;
}
