// The light-curve device kernel (the interface every kernel here has:
// Params, the __global__ kernel in the .cu file, a host launch).
#ifndef KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_KERNEL_H_
#define KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

namespace kepler_ext {
namespace limbdark_kernel {

template <typename T>
struct Params {
  const T* u;  // (groups, order)
  const T* b;
  const T* r;
  T* flux;  // F - 1
  T* d_db;
  T* d_dr;
  T* s;  // (n, order + 1), or null
  int order;
  int64_t group_size;
  int64_t n;
};

// Enqueues the kernel on `stream`; returns the launch error, if any.
template <typename T>
cudaError_t launch(const Params<T>& params, cudaStream_t stream);

}  // namespace limbdark_kernel
}  // namespace kepler_ext

#endif  // KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_KERNEL_H_
