// The CPU handler of the transit model (the op: transit_ffi.h): the checks,
// then the instruction-set variant's loop over the times, split across XLA's
// thread pool, one run per row of parameters.
#include <cstddef>
#include <cstdint>

#include "jaxlib_ext/constants.h"
#include "jaxlib_ext/cpu/cpu_handler.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_cpu_loops.h"
#include "jaxlib_ext/transit/transit_ffi.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::transit {

// kepler.transit's row layout: how many orbital parameters precede u, and
// how many of the planet's light follow them in the light mode.
JAXEXT_EXPORT_CONSTANT(TRANSIT_PARAM_COUNT, kParamCount);
JAXEXT_EXPORT_CONSTANT(TRANSIT_LIGHT_PARAM_COUNT, kLightParamCount);
// The most transit times a row takes.
JAXEXT_EXPORT_CONSTANT(TRANSIT_MAX_EPOCHS, kMaxEpochs);

namespace {

// Splitting a call across threads pays from about this much work on one
// thread: below it, calls measured no faster, or slower, on both cores of a
// 2-core host than on one (medians of single calls, and
// benchmarks/threads_benchmark.py, 2026-11-29).
constexpr double kParallelMinNanoseconds = 150e3;

// The call's work on one thread as the split weighs it: about 10 ns a time
// (25 with the planet's light), and 80 more a time with an exposure (170 in
// transit, little out of it), 2.5 times that with the derivatives (one
// thread of a 2-core AMD EPYC, half the times in transit).
double EstimatedNanoseconds(size_t n, size_t exposed, bool light, bool derivatives) {
  const double per_time = light ? 25.0 : 10.0;
  return (per_time * static_cast<double>(n) + 80.0 * static_cast<double>(exposed)) *
         (derivatives ? 2.5 : 1.0);
}

// The times with an exposure (T != 0; NaN counts), in a loop that vectorises.
template <typename T>
size_t ExposedTimes(const T* exposure, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) count += exposure[i] != 0;
  return count;
}

// A split's chunks a thread: the times in transit, where the work is, lie
// in stretches of a sorted light curve; with one chunk a thread, one thread
// took the whole transit and the call was no faster than on one thread.
constexpr size_t kChunksPerThread = 4;

ffi::Error TransitCpuImpl(ffi::ThreadPool thread_pool, ffi::AnyBuffer params, ffi::AnyBuffer t,
                          ffi::AnyBuffer exposure, ffi::Result<ffi::AnyBuffer> flux,
                          ffi::RemainingRets rest, int32_t law, int32_t geometry,
                          int32_t light, int32_t epochs) {
  Layout layout;
  if (ffi::Error err =
          CheckLayout(params, t, exposure, *flux, rest, law, geometry, light, epochs, &layout);
      err.failure()) {
    return err;
  }
  return RunOnCpu(kOp, t.element_type(), [&](auto zero, CpuIsa isa) {
    using T = decltype(zero);
    const TransitLoop<T> loop = LoopsForIsa(isa).get(zero);
    const T* p_data = params.typed_data<T>();
    const T* t_data = t.typed_data<T>();
    const T* x_data = exposure.typed_data<T>();
    T* f_data = flux->typed_data<T>();
    const limb_dark::LawCall l = layout.call;
    const Geometry geometry = layout.geometry;
    const bool with_light = layout.light;
    const int n_epochs = layout.epochs;
    const size_t width =
        RowOffsetOfU(with_light) + static_cast<size_t>(n_epochs) + static_cast<size_t>(l.order);
    const bool split = EstimatedNanoseconds(l.n, ExposedTimes(x_data, l.n), with_light,
                                            l.d[0] != nullptr) >= kParallelMinNanoseconds;
    ParallelForRows(
        thread_pool, l.n, l.group_size, split ? 0 : l.n + 1,
        [=](size_t row, size_t begin, size_t end) {
          const Outputs<T> out = limb_dark::OutputsFrom<T, kFirstDerivatives>(l, f_data, begin);
          loop(p_data + row * width, l.order, geometry, l.law, with_light, n_epochs,
               t_data + begin, x_data + begin, out, end - begin);
        },
        kChunksPerThread);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxext::transit

XLA_FFI_DEFINE_HANDLER_SYMBOL(TransitCpu, jaxext::transit::TransitCpuImpl,
                              jaxext::BindRowOp<xla::ffi::ThreadPool>()
                                  .Attr<int32_t>("law")
                                  .Attr<int32_t>("geometry")
                                  .Attr<int32_t>("light")
                                  .Attr<int32_t>("epochs"));
