// The transit model's device kernel (the interface every kernel here has:
// Params, the __global__ Kernel in the .cu file, a host Launch).
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/transit/transit.h"

namespace jaxext {
namespace transit {
namespace kernel {

template <typename T>
struct Params {
  const T* params;  // (groups, kParamCount + order)
  const T* t;
  const T* exposure;
  Outputs<T> out;
  limb_dark::Law law;
  Geometry geometry;
  int order;
  int64_t group_size;
  int64_t n;
};

// Enqueues the kernel on `stream`; returns the launch error, if any.
template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream);

}  // namespace kernel
}  // namespace transit
}  // namespace jaxext

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_
