#include "jaxlib_ext/cpu/kepler_cpu.h"

#include <cstddef>

#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/solver/kepler_solver.h"
#include "xla/ffi/api/ffi.h"

namespace kepler_ext {
namespace {

template <typename T, bool kTrueAnomaly>
void SolveRange(const T* mean_anomaly, const T* ecc, T* out_sin, T* out_cos,
                size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (kTrueAnomaly) {
      solve_true(mean_anomaly[i], ecc[i], &out_sin[i], &out_cos[i]);
    } else {
      solve_eccentric(mean_anomaly[i], ecc[i], &out_sin[i], &out_cos[i]);
    }
  }
}

ffi::Error KeplerSolveImpl(ffi::AnyBuffer mean_anomaly, ffi::AnyBuffer ecc,
                           ffi::Result<ffi::AnyBuffer> out_sin,
                           ffi::Result<ffi::AnyBuffer> out_cos,
                           bool true_anomaly) {
  if (ffi::Error err =
          CheckSameShapeAndType(mean_anomaly, ecc, *out_sin, *out_cos);
      err.failure()) {
    return err;
  }
  const size_t n = mean_anomaly.element_count();
  return DispatchFloat(mean_anomaly.element_type(), [&](auto zero) {
    using T = decltype(zero);
    auto* solve = true_anomaly ? &SolveRange<T, true> : &SolveRange<T, false>;
    solve(mean_anomaly.typed_data<T>(), ecc.typed_data<T>(),
          out_sin->typed_data<T>(), out_cos->typed_data<T>(), 0, n);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_ext

XLA_FFI_DEFINE_HANDLER_SYMBOL(KeplerSolveCpu, kepler_ext::KeplerSolveImpl,
                              xla::ffi::Ffi::Bind()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("true_anomaly"));
