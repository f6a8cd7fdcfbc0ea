// The Kepler device kernel: one interface, as every kernel here has it:
// `Params` (what the kernel needs), the __global__ `kernel` (in the .cu file)
// and a host `launch`.
#ifndef KEPLER_JAXLIB_EXT_CUDA_KEPLER_KERNEL_H_
#define KEPLER_JAXLIB_EXT_CUDA_KEPLER_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

namespace kepler_ext {
namespace kepler_kernel {

template <typename T>
struct Params {
  const T* mean_anomaly;
  const T* ecc;
  T* out_sin;  // sin E, or sin f when true_anomaly
  T* out_cos;
  int64_t n;
  bool true_anomaly;
};

// Enqueues the kernel on `stream`; returns the launch error, if any.
// Instantiated for float and double.
template <typename T>
cudaError_t launch(const Params<T>& params, cudaStream_t stream);

}  // namespace kepler_kernel
}  // namespace kepler_ext

#endif  // KEPLER_JAXLIB_EXT_CUDA_KEPLER_KERNEL_H_
