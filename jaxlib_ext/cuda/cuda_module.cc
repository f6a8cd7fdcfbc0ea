// libkepler_cuda.so: every op's CUDA handler (the list:
// jaxlib_ext/ffi_targets.h, from ops.bzl's OPS), which CUDA toolkit built
// them and whether this machine can run them, behind a C interface that
// kepler_jax_cuda_plugin/_kepler_cuda.py reads with ctypes (one build for
// every Python); nothing else. It includes no op's header.
#include <cuda_runtime_api.h>

#include <string>

#include "jaxlib_ext/c_module.h"
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

#define JAXEXT_ENTRY_(op, target, Handler) {op, target, &Handler##Cuda},
constexpr jaxext::ModuleTarget kTargets[] = {JAXEXT_FFI_TARGETS(JAXEXT_ENTRY_)};
#undef JAXEXT_ENTRY_

}  // namespace

// The CUDA handler (an XLA_FFI_Handler*) of the FFI target named `target`;
// null for a name that is no op's.
JAXEXT_C_EXPORT void* kepler_cuda_handler(const char* target) {
  return jaxext::HandlerNamed(kTargets, target);
}

// "" when a GPU can run the kernels here, else what is missing (driver, GPU).
// The text lives until the calling thread's next call.
JAXEXT_C_EXPORT const char* kepler_cuda_device_problem() {
  static thread_local std::string problem;
  problem = DeviceProblem();
  return problem.c_str();
}

// What the module holds, as JSON: {"targets": {op: FFI target name},
// "cuda_version": the CUDA toolkit the kernels are built with, e.g. "13.0"}.
JAXEXT_C_EXPORT const char* kepler_cuda_manifest() {
  static const std::string* manifest =
      new std::string("{\"targets\": " + jaxext::TargetsJson(kTargets) + ", \"cuda_version\": " +
                      jaxext::JsonString(JAXEXT_CUDA_VERSION) + "}");
  return manifest->c_str();
}
