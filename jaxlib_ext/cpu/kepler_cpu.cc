#include "jaxlib_ext/cpu/kepler_cpu.h"

#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/cpu/kepler_cpu_loops.h"
#include "jaxlib_ext/cpu/parallel_for.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace kepler_ext {
namespace {

namespace ffi = xla::ffi;

// Inputs below this many elements are solved on the calling thread alone
// (a solve costs a few ns: below this, scheduling costs more than it saves).
constexpr size_t kParallelMinElements = 32 * 1024;

ffi::Error KeplerSolveImpl(ffi::ThreadPool thread_pool,
                           ffi::AnyBuffer mean_anomaly, ffi::AnyBuffer ecc,
                           ffi::Result<ffi::AnyBuffer> out_sin,
                           ffi::Result<ffi::AnyBuffer> out_cos,
                           bool true_anomaly) {
  if (ffi::Error err = jaxext::CheckSameShapeAndType(
          "kepler", {{"mean_anomaly", mean_anomaly},
                     {"eccentricity", ecc},
                     {"first output", *out_sin},
                     {"second output", *out_cos}});
      err.failure()) {
    return err;
  }
  const jaxext::IsaChoice& isa = jaxext::ActiveCpuIsa();
  if (!isa.error.empty()) return ffi::Error::InvalidArgument(isa.error);
  const SolveLoops& loops = LoopsForIsa(isa.isa);
  const size_t n = mean_anomaly.element_count();
  return jaxext::DispatchFloat("kepler", mean_anomaly.element_type(), [&](auto zero) {
    using T = decltype(zero);
    const SolveLoop<T> loop = loops.get(zero);
    const T* m = mean_anomaly.typed_data<T>();
    const T* e = ecc.typed_data<T>();
    T* s = out_sin->typed_data<T>();
    T* c = out_cos->typed_data<T>();
    jaxext::ParallelFor(thread_pool, n, kParallelMinElements,
                        [=](size_t begin, size_t end) {
                          loop(m + begin, e + begin, s + begin, c + begin,
                               end - begin, true_anomaly);
                        });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_ext

XLA_FFI_DEFINE_HANDLER_SYMBOL(KeplerSolveCpu, kepler_ext::KeplerSolveImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("true_anomaly"));
