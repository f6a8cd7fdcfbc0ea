// The transit model's device kernel (the interface every kernel here has:
// Params, the __global__ Kernel in the .cu file, a host Launch).
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit::kernel {

// The call (limb_dark/law_call.h): rows of params, x = t, y = exposure,
// out.d the derivatives in the parameters and T (Outputs); the geometry,
// whether the rows hold the planet's light, and their epochs' timing
// variations (ShiftedTime; 0: none).
template <typename T>
struct Params : limb_dark::LawParams<T, kFirstDerivatives> {
  Geometry geometry;
  bool light;
  int epochs;
};

// Enqueues the kernel on `stream`; returns the launch error, if any.
template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream);

}  // namespace jaxext::transit::kernel

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_KERNEL_H_
