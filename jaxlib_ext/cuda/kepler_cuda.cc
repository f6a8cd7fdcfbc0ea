#include "jaxlib_ext/cuda/kepler_cuda.h"

#include <string>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/cuda/kepler_kernel.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace kepler_ext {
namespace {

namespace ffi = xla::ffi;

ffi::Error KeplerSolveCudaImpl(cudaStream_t stream, ffi::AnyBuffer mean_anomaly,
                               ffi::AnyBuffer ecc, ffi::Result<ffi::AnyBuffer> out_sin,
                               ffi::Result<ffi::AnyBuffer> out_cos, bool true_anomaly) {
  if (ffi::Error err = jaxext::CheckSameShapeAndType(
          "kepler", {{"mean_anomaly", mean_anomaly},
                     {"eccentricity", ecc},
                     {"first output", *out_sin},
                     {"second output", *out_cos}});
      err.failure()) {
    return err;
  }
  return jaxext::DispatchFloat("kepler", mean_anomaly.element_type(), [&](auto zero) {
    using T = decltype(zero);
    const kepler_kernel::Params<T> params{
        mean_anomaly.typed_data<T>(), ecc.typed_data<T>(), out_sin->typed_data<T>(),
        out_cos->typed_data<T>(), static_cast<int64_t>(mean_anomaly.element_count()),
        true_anomaly};
    const cudaError_t status = kepler_kernel::launch(params, stream);
    if (status != cudaSuccess) {
      return ffi::Error(ffi::ErrorCode::kInternal,
                        std::string("kepler: CUDA kernel launch failed: ") +
                            cudaGetErrorString(status));
    }
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_ext

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    KeplerSolveCuda, kepler_ext::KeplerSolveCudaImpl,
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
