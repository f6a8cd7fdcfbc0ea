// The CPU handler of kepler_solve (the op: kepler_solve_ffi.h): the checks,
// the instruction-set variant's loop, split across XLA's thread pool.
#include <cstddef>
#include <optional>
#include <string>

#include "jaxlib_ext/cpu/cpu_handler.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_cpu_loops.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_ffi.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::kepler_solve {
namespace {

// Inputs below this many elements are solved on the calling thread alone
// (a solve costs a few ns: below this, scheduling costs more than it saves).
constexpr size_t kParallelMinElements = 32 * 1024;

// The JVP form's tangent buffers (kepler_solve_ffi.h), taken from the
// arguments and results after the first two: none, or exactly two of each.
struct Tangents {
  std::optional<ffi::AnyBuffer> d_mean_anomaly, d_ecc;
  std::optional<ffi::Result<ffi::AnyBuffer>> out_d_sin, out_d_cos;
};

ffi::Error DecodeTangents(const ffi::RemainingArgs& args, const ffi::RemainingRets& rets,
                          Tangents* tangents) {
  if (args.size() == 0 && rets.size() == 0) return ffi::Error::Success();
  if (args.size() != 2 || rets.size() != 2) {
    return ffi::Error::InvalidArgument(
        std::string(kOp) + ": a JVP call takes 4 arguments and 4 results; got " +
        std::to_string(2 + args.size()) + " arguments and " + std::to_string(2 + rets.size()) +
        " results");
  }
  auto dm = args.get<ffi::AnyBuffer>(0), de = args.get<ffi::AnyBuffer>(1);
  auto ds = rets.get<ffi::AnyBuffer>(0), dc = rets.get<ffi::AnyBuffer>(1);
  if (dm.has_error()) return dm.error();
  if (de.has_error()) return de.error();
  if (ds.has_error()) return ds.error();
  if (dc.has_error()) return dc.error();
  *tangents = {*dm, *de, *ds, *dc};
  return ffi::Error::Success();
}

ffi::Error KeplerSolveCpuImpl(ffi::ThreadPool thread_pool, ffi::AnyBuffer mean_anomaly,
                              ffi::AnyBuffer ecc, ffi::RemainingArgs tangent_args,
                              ffi::Result<ffi::AnyBuffer> out_sin,
                              ffi::Result<ffi::AnyBuffer> out_cos,
                              ffi::RemainingRets tangent_rets, bool true_anomaly) {
  if (ffi::Error err = CheckBuffers(mean_anomaly, ecc, *out_sin, *out_cos); err.failure()) {
    return err;
  }
  Tangents t;
  if (ffi::Error err = DecodeTangents(tangent_args, tangent_rets, &t); err.failure()) {
    return err;
  }
  const bool jvp = t.d_mean_anomaly.has_value();
  if (jvp) {
    if (ffi::Error err = CheckTangentBuffers(mean_anomaly, *t.d_mean_anomaly, *t.d_ecc,
                                             **t.out_d_sin, **t.out_d_cos);
        err.failure()) {
      return err;
    }
  }
  const size_t n = mean_anomaly.element_count();
  return RunOnCpu(kOp, mean_anomaly.element_type(), [&](auto zero, CpuIsa isa) {
    using T = decltype(zero);
    const T* m = mean_anomaly.typed_data<T>();
    const T* e = ecc.typed_data<T>();
    T* s = out_sin->typed_data<T>();
    T* c = out_cos->typed_data<T>();
    if (!jvp) {
      const SolveLoop<T> loop = LoopsForIsa(isa).get(zero);
      ParallelFor(thread_pool, n, kParallelMinElements, [=](size_t begin, size_t end) {
        loop(m + begin, e + begin, s + begin, c + begin, end - begin, true_anomaly);
      });
      return ffi::Error::Success();
    }
    const JvpLoop<T> loop = TangentLoopsForIsa(isa).get(zero);
    const T* dm = t.d_mean_anomaly->typed_data<T>();
    const T* de = t.d_ecc->typed_data<T>();
    T* ds = (*t.out_d_sin)->typed_data<T>();
    T* dc = (*t.out_d_cos)->typed_data<T>();
    ParallelFor(thread_pool, n, kParallelMinElements, [=](size_t begin, size_t end) {
      loop(m + begin, e + begin, dm + begin, de + begin, s + begin, c + begin, ds + begin,
           dc + begin, end - begin, true_anomaly);
    });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxext::kepler_solve

XLA_FFI_DEFINE_HANDLER_SYMBOL(KeplerSolveCpu, jaxext::kepler_solve::KeplerSolveCpuImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .RemainingArgs()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .RemainingRets()
                                  .Attr<bool>("true_anomaly"));
