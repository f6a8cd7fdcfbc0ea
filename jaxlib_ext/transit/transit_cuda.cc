// The CUDA handler of the transit model (the op: transit_ffi.h): the checks,
// then the buffers unpacked into the kernel's Params and one launch on XLA's
// stream.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/cuda/launch_status.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/transit/transit_ffi.h"
#include "jaxlib_ext/transit/transit_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::transit {
namespace {

ffi::Error TransitCudaImpl(cudaStream_t stream, ffi::AnyBuffer params, ffi::AnyBuffer t,
                           ffi::AnyBuffer exposure, ffi::Result<ffi::AnyBuffer> flux,
                           ffi::RemainingRets rest, int32_t law, int32_t geometry,
                           int32_t light, int32_t epochs) {
  Layout layout;
  if (ffi::Error err =
          CheckLayout(params, t, exposure, *flux, rest, law, geometry, light, epochs, &layout);
      err.failure()) {
    return err;
  }
  return LaunchForDtype<kernel::Params>(kOp, t.element_type(), stream, [&](auto zero, auto* p) {
    using T = decltype(zero);
    static_cast<limb_dark::LawParams<T, kFirstDerivatives>&>(*p) =
        limb_dark::KernelParams<T, kFirstDerivatives>(layout.call, params, t, exposure, *flux);
    p->geometry = layout.geometry;
    p->light = layout.light;
    p->epochs = layout.epochs;
  });
}

}  // namespace
}  // namespace jaxext::transit

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    TransitCuda, jaxext::transit::TransitCudaImpl,
    jaxext::BindRowOp<xla::ffi::PlatformStream<cudaStream_t>>()
        .Attr<int32_t>("law")
        .Attr<int32_t>("geometry")
        .Attr<int32_t>("light")
        .Attr<int32_t>("epochs"),
    // Pure and stream-ordered, as the other ops': XLA may record it into CUDA graphs.
    {xla::ffi::Traits::kCmdBufferCompatible});
