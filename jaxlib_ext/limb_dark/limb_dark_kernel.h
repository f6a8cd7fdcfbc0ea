// The light-curve device kernel (the interface every kernel here has:
// Params, the __global__ Kernel in the .cu file, a host Launch).
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/limb_dark/law_call.h"

namespace jaxext::limb_dark::kernel {

// The call (law_call.h): rows of u, x = b, y = r; out.d[0] dF/db, out.d[1]
// dF/dr.
template <typename T>
struct Params : LawParams<T, 2> {};

// Enqueues the kernel on `stream`; returns the launch error, if any.
template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream);

}  // namespace jaxext::limb_dark::kernel

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_
