// _kepler_cuda: hands XLA every op's CUDA handler capsule (the list:
// jaxlib_ext/ffi_targets.h, from ops.bzl's OPS), says which CUDA toolkit
// built them and whether this machine can run them; nothing else. It
// includes no op's header.
#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

#include <string>

#include "jaxlib_ext/ffi_targets.h"

namespace {

std::string CudaRelease(int version) {  // 13020 -> "13.2"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// "" when the CUDA runtime linked in here finds a GPU, else what is missing.
// Touches no device: no context is made, nothing is allocated.
std::string DeviceProblem() {
  int driver = 0;
  cudaDriverGetVersion(&driver);
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return "";
  const std::string built = "kepler's CUDA plugin is built with CUDA " + CudaRelease(CUDART_VERSION);
  if (driver == 0) {
    return "no NVIDIA driver: libcuda.so.1 could not be loaded; GPU use needs an NVIDIA GPU "
           "and its driver for CUDA " + std::to_string(CUDART_VERSION / 1000) +
           " (" + built + ")";
  }
  if (status == cudaErrorInsufficientDriver || driver / 1000 < CUDART_VERSION / 1000) {
    return "the NVIDIA driver supports CUDA " + CudaRelease(driver) + " only; " + built +
           ", which needs a driver for CUDA " + std::to_string(CUDART_VERSION / 1000) +
           " or newer";
  }
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    return "the NVIDIA driver (CUDA " + CudaRelease(driver) + ") finds no GPU";
  }
  return std::string("the CUDA runtime cannot use the GPU: ") + cudaGetErrorName(status) + ": " +
         cudaGetErrorString(status);
}

}  // namespace

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
  m.def("device_problem", &DeviceProblem,
        "'' when a GPU can run the kernels here, else what is missing (driver, GPU).");
  m.attr("cuda_version") = JAXEXT_CUDA_VERSION;
}
