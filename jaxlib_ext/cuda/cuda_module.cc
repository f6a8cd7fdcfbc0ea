// _kepler_cuda: hands XLA every op's CUDA handler capsule (the list:
// jaxlib_ext/ffi_targets.h, from ops.bzl's OPS) and says which CUDA toolkit
// built them; nothing else. It includes no op's header.
#include <pybind11/pybind11.h>

#include "jaxlib_ext/ffi_targets.h"

PYBIND11_MODULE(_kepler_cuda, m) {
  m.def(
      "registrations",
      []() {
        pybind11::dict targets;
#define JAXEXT_REGISTER_(op, target, Handler) \
  targets[target] = pybind11::capsule(reinterpret_cast<void*>(&Handler##Cuda));
        JAXEXT_FFI_TARGETS(JAXEXT_REGISTER_)
#undef JAXEXT_REGISTER_
        return targets;
      },
      "{FFI target name: CUDA handler capsule} of every op.");
  m.attr("cuda_version") = JAXEXT_CUDA_VERSION;
}
