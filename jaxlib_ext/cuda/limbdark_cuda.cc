#include "jaxlib_ext/cuda/limbdark_cuda.h"

#include <string>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/cuda/limbdark_kernel.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/limbdark/limbdark_ffi.h"
#include "xla/ffi/api/ffi.h"

namespace kepler_ext {
namespace {

namespace ffi = xla::ffi;

ffi::Error LimbDarkCudaImpl(cudaStream_t stream, ffi::AnyBuffer u, ffi::AnyBuffer b,
                            ffi::AnyBuffer r, ffi::Result<ffi::AnyBuffer> flux,
                            ffi::Result<ffi::AnyBuffer> d_db,
                            ffi::Result<ffi::AnyBuffer> d_dr,
                            ffi::Result<ffi::AnyBuffer> s) {
  limbdark::Layout l;
  if (ffi::Error err = limbdark::CheckLayout(u, b, r, *flux, *d_db, *d_dr, *s, &l);
      err.failure()) {
    return err;
  }
  return jaxext::DispatchFloat("limb_dark", b.element_type(), [&](auto zero) {
    using T = decltype(zero);
    const limbdark_kernel::Params<T> params{
        u.typed_data<T>(),     b.typed_data<T>(),    r.typed_data<T>(),
        flux->typed_data<T>(), d_db->typed_data<T>(), d_dr->typed_data<T>(),
        l.with_s ? s->typed_data<T>() : nullptr,
        l.order, static_cast<int64_t>(l.group_size), static_cast<int64_t>(l.n)};
    const cudaError_t status = limbdark_kernel::launch(params, stream);
    if (status != cudaSuccess) {
      return ffi::Error(ffi::ErrorCode::kInternal,
                        std::string("limb_dark: CUDA kernel launch failed: ") +
                            cudaGetErrorString(status));
    }
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_ext

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LimbDarkCuda, kepler_ext::LimbDarkCudaImpl,
    xla::ffi::Ffi::Bind()
        .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
        .Arg<xla::ffi::AnyBuffer>()
        .Arg<xla::ffi::AnyBuffer>()
        .Arg<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>()
        .Ret<xla::ffi::AnyBuffer>(),
    {xla::ffi::Traits::kCmdBufferCompatible});
