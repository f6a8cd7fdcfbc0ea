// The CPU handler of kepler_solve (the op: kepler_solve_ffi.h): the checks,
// the instruction-set variant's loop, split across XLA's thread pool.
#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/cpu/parallel_for.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_cpu_loops.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_ffi.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext {
namespace kepler_solve {
namespace {

// Inputs below this many elements are solved on the calling thread alone
// (a solve costs a few ns: below this, scheduling costs more than it saves).
constexpr size_t kParallelMinElements = 32 * 1024;

ffi::Error KeplerSolveCpuImpl(ffi::ThreadPool thread_pool, ffi::AnyBuffer mean_anomaly,
                              ffi::AnyBuffer ecc, ffi::Result<ffi::AnyBuffer> out_sin,
                              ffi::Result<ffi::AnyBuffer> out_cos, bool true_anomaly) {
  if (ffi::Error err = CheckBuffers(mean_anomaly, ecc, *out_sin, *out_cos); err.failure()) {
    return err;
  }
  const IsaChoice& isa = ActiveCpuIsa();
  if (!isa.error.empty()) return ffi::Error::InvalidArgument(isa.error);
  const SolveLoops& loops = LoopsForIsa(isa.isa);
  const size_t n = mean_anomaly.element_count();
  return DispatchFloat(kOp, mean_anomaly.element_type(), [&](auto zero) {
    using T = decltype(zero);
    const SolveLoop<T> loop = loops.get(zero);
    const T* m = mean_anomaly.typed_data<T>();
    const T* e = ecc.typed_data<T>();
    T* s = out_sin->typed_data<T>();
    T* c = out_cos->typed_data<T>();
    ParallelFor(thread_pool, n, kParallelMinElements, [=](size_t begin, size_t end) {
      loop(m + begin, e + begin, s + begin, c + begin, end - begin, true_anomaly);
    });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_solve
}  // namespace jaxext

XLA_FFI_DEFINE_HANDLER_SYMBOL(KeplerSolveCpu, jaxext::kepler_solve::KeplerSolveCpuImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("true_anomaly"));
