// The result of a kernel launch as the FFI error the CUDA handlers return.
#ifndef JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_
#define JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_

#include <string>

#include <cuda_runtime_api.h>

#include "xla/ffi/api/ffi.h"

namespace jaxext {

// Success, or kInternal naming `op` and CUDA's message. `op` prefixes it.
inline xla::ffi::Error LaunchStatus(const char* op, cudaError_t status) {
  if (status == cudaSuccess) return xla::ffi::Error::Success();
  return xla::ffi::Error(xla::ffi::ErrorCode::kInternal,
                         std::string(op) + ": CUDA kernel launch failed: " +
                             cudaGetErrorString(status));
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_
