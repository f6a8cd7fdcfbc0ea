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

namespace jaxext {
namespace transit {
namespace {

ffi::Error TransitCudaImpl(cudaStream_t stream, ffi::AnyBuffer params, ffi::AnyBuffer t,
                           ffi::AnyBuffer exposure, ffi::Result<ffi::AnyBuffer> flux,
                           ffi::RemainingRets rest, int32_t law, int32_t geometry) {
  Layout layout;
  if (ffi::Error err = CheckLayout(params, t, exposure, *flux, rest, law, geometry, &layout);
      err.failure()) {
    return err;
  }
  return LaunchForDtype<kernel::Params>(kOp, t.element_type(), stream, [&](auto zero, auto* p) {
    using T = decltype(zero);
    const limb_dark::LawCall& l = layout.call;
    p->params = params.typed_data<T>();
    p->t = t.typed_data<T>();
    p->exposure = exposure.typed_data<T>();
    p->out.flux = flux->typed_data<T>();
    for (int j = 0; j <= kParamCount; ++j) p->out.d[j] = static_cast<T*>(l.d[j]);
    for (int j = 0; j < l.n_du; ++j) {
      p->out.du[j] = l.with_du ? static_cast<T*>(l.d_du[j]) : nullptr;
    }
    p->law = l.law;
    p->geometry = layout.geometry;
    p->order = l.order;
    p->group_size = static_cast<int64_t>(l.group_size);
    p->n = static_cast<int64_t>(l.n);
  });
}

}  // namespace
}  // namespace transit
}  // namespace jaxext

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    TransitCuda, jaxext::transit::TransitCudaImpl,
    jaxext::BindRowOp<xla::ffi::PlatformStream<cudaStream_t>>()
        .Attr<int32_t>("law")
        .Attr<int32_t>("geometry"),
    // Pure and stream-ordered, as the other ops': XLA may record it into CUDA graphs.
    {xla::ffi::Traits::kCmdBufferCompatible});
