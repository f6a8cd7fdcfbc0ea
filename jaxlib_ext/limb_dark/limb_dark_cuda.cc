// The CUDA handler of the light curve (the op: limb_dark_ffi.h): the checks,
// then the buffers unpacked into the kernel's Params and one launch on XLA's
// stream.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/cuda/launch_status.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/limb_dark/limb_dark_ffi.h"
#include "jaxlib_ext/limb_dark/limb_dark_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::limb_dark {
namespace {

ffi::Error LimbDarkCudaImpl(cudaStream_t stream, ffi::AnyBuffer u, ffi::AnyBuffer b,
                            ffi::AnyBuffer r, ffi::Result<ffi::AnyBuffer> flux,
                            ffi::RemainingRets rest, int32_t law) {
  LawCall l;
  if (ffi::Error err = CheckLayout(u, b, r, *flux, rest, law, &l); err.failure()) {
    return err;
  }
  return LaunchForDtype<kernel::Params>(kOp, b.element_type(), stream, [&](auto zero, auto* p) {
    using T = decltype(zero);
    static_cast<LawParams<T, 2>&>(*p) = KernelParams<T, 2>(l, u, b, r, *flux);
  });
}

}  // namespace
}  // namespace jaxext::limb_dark

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LimbDarkCuda, jaxext::limb_dark::LimbDarkCudaImpl,
    jaxext::BindRowOp<xla::ffi::PlatformStream<cudaStream_t>>().Attr<int32_t>("law"),
    // Pure and stream-ordered, as kepler_solve's: XLA may record it into CUDA graphs.
    {xla::ffi::Traits::kCmdBufferCompatible});
