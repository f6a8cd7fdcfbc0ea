// The Kepler device kernel: one interface, as every kernel here has it:
// `Params` (what the kernel needs), the __global__ `Kernel` (in the .cu file)
// and a host `Launch`.
#ifndef JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_KERNEL_H_
#define JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

namespace jaxext::kepler_solve::kernel {

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
cudaError_t Launch(const Params<T>& params, cudaStream_t stream);

}  // namespace jaxext::kepler_solve::kernel

#endif  // JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_KERNEL_H_
