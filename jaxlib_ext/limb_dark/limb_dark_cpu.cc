// The CPU handler of the light curve (the op: limb_dark_ffi.h): the checks,
// then the instruction-set variant's loop over the points, split across
// XLA's thread pool, one run per row of u.
#include <cstddef>
#include <cstdint>

#include "jaxlib_ext/constants.h"
#include "jaxlib_ext/cpu/cpu_handler.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/ffi_targets.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "jaxlib_ext/limb_dark/limb_dark_cpu_loops.h"
#include "jaxlib_ext/limb_dark/limb_dark_ffi.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::limb_dark {

// kepler.limb_dark.MAX_ORDER, MAX_TABLE_SIZE and MAX_CROSSING_RADIUS.
JAXEXT_EXPORT_CONSTANT(LIMB_DARK_MAX_ORDER, kMaxOrder);
JAXEXT_EXPORT_CONSTANT(LIMB_DARK_MAX_TABLE_SIZE, kMaxTableSize);
JAXEXT_EXPORT_CONSTANT(LIMB_DARK_MAX_CROSSING_RADIUS, static_cast<int64_t>(kMaxCrossingRadius));
static_assert(kMaxCrossingRadius == static_cast<int64_t>(kMaxCrossingRadius),
              "exported as an integer");
// kepler.limb_dark.LAWS, from laws.h's table: per law, its number
// ("LIMB_DARK_LAW:<name>") and the coefficients it takes
// ("LIMB_DARK_LAW_COEFFICIENTS:<name>", -1: any number).
#define JAXEXT_EXPORT_LAW_(name, text, count)                                              \
  static const ::jaxext::ExportConstant jaxext_exported_law_##name(                        \
      "LIMB_DARK_LAW:" text, static_cast<std::int64_t>(Law::name));                        \
  static const ::jaxext::ExportConstant jaxext_exported_law_coefficients_##name(           \
      "LIMB_DARK_LAW_COEFFICIENTS:" text, LawCoefficients(static_cast<std::int32_t>(Law::name)));
JAXEXT_LIMB_DARK_LAWS(JAXEXT_EXPORT_LAW_)
#undef JAXEXT_EXPORT_LAW_

namespace {

// A point costs 50 to a few hundred ns (more with more coefficients): split
// across threads from this many points on.
constexpr size_t kParallelMinElements = 2048;

ffi::Error LimbDarkCpuImpl(ffi::ThreadPool thread_pool, ffi::AnyBuffer u, ffi::AnyBuffer b,
                           ffi::AnyBuffer r, ffi::Result<ffi::AnyBuffer> flux,
                           ffi::RemainingRets rest, int32_t law) {
  LawCall l;
  if (ffi::Error err = CheckLayout(u, b, r, *flux, rest, law, &l); err.failure()) return err;
  return RunOnCpu(kOp, b.element_type(), [&](auto zero, CpuIsa isa) {
    using T = decltype(zero);
    const LightCurveLoop<T> loop = LoopsForIsa(isa).get(zero);
    const LawCurveLoop<T> law_loop = LawLoopsForIsa(isa).get(zero);
    const T* u_data = u.typed_data<T>();
    const T* b_data = b.typed_data<T>();
    const T* r_data = r.typed_data<T>();
    T* f_data = flux->typed_data<T>();
    T* fb_data = static_cast<T*>(l.d[0]);
    T* fr_data = static_cast<T*>(l.d[1]);
    ParallelForRows(thread_pool, l.n, l.group_size, kParallelMinElements,
                    [=](size_t row, size_t begin, size_t end) {
      T* d_du[kMaxDerivativesInU];
      for (int j = 0; j < l.n_du; ++j) {
        d_du[j] = l.with_du ? static_cast<T*>(l.d_du[j]) + begin : nullptr;
      }
      if (l.law != Law::kPolynomial) {
        double coefficients[2 * kMaxTableSize];
        for (int j = 0; j < l.order; ++j) {
          coefficients[j] = static_cast<double>(u_data[row * l.order + j]);
        }
        law_loop(l.law, coefficients, l.order, b_data + begin, r_data + begin, f_data + begin,
                 fb_data ? fb_data + begin : nullptr, fr_data ? fr_data + begin : nullptr,
                 l.with_du ? d_du : nullptr, end - begin);
        return;
      }
      double g[kMaxOrder + 1], q[kMaxOrder + 2];
      const double norm = GreensRow(u_data + row * l.order, l.order, g, q);
      loop(g, q, l.order, norm, b_data + begin, r_data + begin, f_data + begin,
           fb_data ? fb_data + begin : nullptr, fr_data ? fr_data + begin : nullptr,
           l.with_du ? d_du : nullptr, end - begin);
    });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxext::limb_dark

XLA_FFI_DEFINE_HANDLER_SYMBOL(LimbDarkCpu, jaxext::limb_dark::LimbDarkCpuImpl,
                              jaxext::BindRowOp<xla::ffi::ThreadPool>().Attr<int32_t>("law"));
