// What the CPU and CUDA handlers of the light curve share: the checks of the
// buffers' shapes, and the results' data pointers.
//
// The op: arguments u (shape (K..., N): the law's coefficients u_1..u_N,
// N <= kMaxOrder for the polynomial law, the grid mu then the intensities
// (N = 2 M, 2 <= M <= kMaxTableSize) for the tabulated law,
// LawCoefficients(law) for the others), b and r (one shape, which starts with K...: each row of u
// serves the elements under it; float32 or float64, all one dtype). Results,
// every one of b's shape and dtype: F - 1 (of |b|); then none (the value
// alone), or dF/db (in b itself, of b's sign) and dF/dr, or those two and
// dF/du_1..dF/du_N, one result per coefficient (which XLA reduces over the
// points in place for the gradient in u; the tabulated law's: one per
// intensity, M, its grid is not differentiated). Attribute: `law`, an int32 (Law,
// laws.h).
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_FFI_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_FFI_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "jaxlib_ext/ffi_helpers.h"
#include "jaxlib_ext/limb_dark/law_check.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext {
namespace limb_dark {

// The prefix of the op's error messages.
constexpr char kOp[] = "limb_dark";

// The layout of one call: rows of u (order coefficients each), each serving
// `group_size` consecutive elements of b and r, n elements in all; the
// optional results' data (null where not asked for).
struct Layout {
  Law law;
  int order;
  int n_du;  // the coefficients with a derivative: order, or M (tabulated)
  size_t group_size, n;
  bool with_du;
  void* d_db;  // d_db and d_dr null: the value alone
  void* d_dr;
  void* d_du[kMaxDerivativesInU];  // dF/du_1..dF/du_n_du, or all null
};

inline xla::ffi::Error CheckLayout(const xla::ffi::AnyBuffer& u,
                                   const xla::ffi::AnyBuffer& b,
                                   const xla::ffi::AnyBuffer& r,
                                   const xla::ffi::AnyBuffer& flux,
                                   const xla::ffi::RemainingRets& rest, std::int32_t law,
                                   Layout* out) {
  if (law < 0 || law >= kLawCount) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " +
                                       LawCoefficientsError(law, 0, "u"));
  }
  if (ffi::Error err = CheckSameShapeAndType(kOp, {{"b", b}, {"r", r}, {"flux", flux}});
      err.failure()) {
    return err;
  }
  if (u.element_type() != b.element_type()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": u must have b's dtype");
  }
  size_t groups;
  if (ffi::Error err = CheckRows(kOp, "u", u, "b", b, "N", &groups); err.failure()) return err;
  const int64_t order = u.dimensions().back();
  if (const std::string error = LawCoefficientsError(law, order, "u"); !error.empty()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " + error);
  }
  const int n_du = DerivativesInU(law, static_cast<int>(order));
  const size_t extra = rest.size();
  const size_t extra_with_du = 2 + static_cast<size_t>(n_du);
  if (extra != 0 && extra != 2 && extra != extra_with_du) {
    return ffi::Error::InvalidArgument(
        std::string(kOp) + ": " + std::to_string(1 + extra) + " results; expected 1 (F - 1), 3 " +
        "(and dF/db, dF/dr) or " + std::to_string(1 + extra_with_du) +
        " (and dF/du_1..dF/du_N for N = " + std::to_string(n_du) + ")");
  }
  void* data[2 + kMaxDerivativesInU] = {};
  const auto name = [](size_t k) {
    return k == 0 ? std::string("d_db") : k == 1 ? std::string("d_dr")
                                                 : "d_du_" + std::to_string(k - 1);
  };
  if (ffi::Error err = RestResultsData(kOp, "b", b, rest, name, data); err.failure()) {
    return err;
  }
  out->law = static_cast<Law>(law);
  out->order = static_cast<int>(order);
  out->n_du = n_du;
  out->n = b.element_count();
  out->group_size = groups ? out->n / groups : 0;
  out->with_du = extra == extra_with_du && n_du > 0;
  out->d_db = data[0];
  out->d_dr = data[1];
  for (int j = 0; j < kMaxDerivativesInU; ++j) out->d_du[j] = data[2 + j];
  return ffi::Error::Success();
}

}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_FFI_H_
