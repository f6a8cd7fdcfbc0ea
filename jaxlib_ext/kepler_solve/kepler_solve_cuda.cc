// The CUDA handler of kepler_solve (the op: kepler_solve_ffi.h): the checks,
// then the buffers unpacked into the kernel's Params and one launch on XLA's
// stream.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/cuda/launch_status.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_ffi.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::kepler_solve {
namespace {

ffi::Error KeplerSolveCudaImpl(cudaStream_t stream, ffi::AnyBuffer mean_anomaly,
                               ffi::AnyBuffer ecc, ffi::Result<ffi::AnyBuffer> out_sin,
                               ffi::Result<ffi::AnyBuffer> out_cos, bool true_anomaly) {
  if (ffi::Error err = CheckBuffers(mean_anomaly, ecc, *out_sin, *out_cos); err.failure()) {
    return err;
  }
  return LaunchForDtype<kernel::Params>(
      kOp, mean_anomaly.element_type(), stream, [&](auto zero, auto* params) {
        using T = decltype(zero);
        *params = {mean_anomaly.typed_data<T>(), ecc.typed_data<T>(), out_sin->typed_data<T>(),
                   out_cos->typed_data<T>(), static_cast<int64_t>(mean_anomaly.element_count()),
                   true_anomaly};
      });
}

}  // namespace
}  // namespace jaxext::kepler_solve

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    KeplerSolveCuda, jaxext::kepler_solve::KeplerSolveCudaImpl,
    xla::ffi::Ffi::Bind()
        .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
        .Arg<xla::ffi::AnyBuffer>()
        .Arg<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>()
        .Attr<bool>("true_anomaly"),
    // Pure and stream-ordered (one kernel launch on XLA's stream, no host
    // synchronisation or allocation): XLA may record it into CUDA graphs.
    {xla::ffi::Traits::kCmdBufferCompatible});
