// The light-curve device kernel (the interface every kernel here has:
// Params, the __global__ Kernel in the .cu file, a host Launch).
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext {
namespace limb_dark {
namespace kernel {

template <typename T>
struct Params {
  const T* u;  // (groups, order)
  const T* b;
  const T* r;
  T* flux;  // F - 1
  T* d_db;  // d_db and d_dr both null: the value alone
  T* d_dr;
  T* d_du[kMaxDerivativesInU];  // dF/du_1..dF/du_order, n each; d_du[0] null: not asked for
  Law law;  // CurveElement's
  int order;
  int64_t group_size;
  int64_t n;
};

// Enqueues the kernel on `stream`; returns the launch error, if any.
template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream);

}  // namespace kernel
}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_KERNEL_H_
