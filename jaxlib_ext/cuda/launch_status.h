// What every op's CUDA handler does after its checks: the kernel's Params
// for the buffers' dtype, one launch on XLA's stream, and the launch's
// result as the FFI error the handler returns.
#ifndef JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_
#define JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_

#include <string>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext {

// Success, or kInternal naming `op` and CUDA's message. `op` prefixes it.
inline xla::ffi::Error LaunchStatus(const char* op, cudaError_t status) {
  if (status == cudaSuccess) return xla::ffi::Error::Success();
  return xla::ffi::Error(xla::ffi::ErrorCode::kInternal,
                         std::string(op) + ": CUDA kernel launch failed: " +
                             cudaGetErrorString(status));
}

// For T the C++ type of `dtype` (DispatchFloat): Params<T> value-initialised,
// fill(T{}, &params) to set them from the buffers, then the op's
// Launch(params, stream) (its kernel's, found by argument-dependent lookup
// in Params's namespace); its status as LaunchStatus's.
template <template <typename> class Params, typename Fill>
xla::ffi::Error LaunchForDtype(const char* op, xla::ffi::DataType dtype, cudaStream_t stream,
                               Fill&& fill) {
  return DispatchFloat(op, dtype, [&](auto zero) {
    Params<decltype(zero)> params{};
    fill(zero, &params);
    return LaunchStatus(op, Launch(params, stream));
  });
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_CUDA_LAUNCH_STATUS_H_
