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
    return ffi::Error::InvalidArgument(std::string(kOp) + ": unknown law " +
                                       std::to_string(law) + "; laws are 0.." +
                                       std::to_string(kLawCount - 1));
  }
  if (ffi::Error err = CheckSameShapeAndType(kOp, {{"b", b}, {"r", r}, {"flux", flux}});
      err.failure()) {
    return err;
  }
  if (u.element_type() != b.element_type()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": u must have b's dtype");
  }
  const auto ud = u.dimensions();
  const auto bd = b.dimensions();
  if (ud.size() < 1 || ud.size() - 1 > bd.size()) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": u has shape " + ShapeString(ud) +
                                       ", which is not (K..., N) for b of shape " +
                                       ShapeString(bd));
  }
  size_t groups = 1;
  for (size_t d = 0; d + 1 < ud.size(); ++d) {
    if (ud[d] != bd[d]) {
      return ffi::Error::InvalidArgument(std::string(kOp) + ": the leading dimensions of u " +
                                         ShapeString(ud) + " are not those of b " +
                                         ShapeString(bd));
    }
    groups *= static_cast<size_t>(ud[d]);
  }
  const int64_t order = ud[ud.size() - 1];
  const bool tabulated = law == static_cast<std::int32_t>(Law::kTabulated);
  if (tabulated && (order % 2 != 0 || order < 4 || order > 2 * kMaxTableSize)) {
    return ffi::Error::InvalidArgument(
        std::string(kOp) + ": the tabulated law takes a grid and its intensities, 2 M " +
        "coefficients for M = 2.." + std::to_string(kMaxTableSize) + " points; u has " +
        std::to_string(order));
  }
  if (!tabulated && order > kMaxOrder) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " + std::to_string(order) +
                                       " coefficients; at most " +
                                       std::to_string(kMaxOrder) + " are supported");
  }
  const int law_order = LawCoefficients(law);
  if (law_order >= 0 && order != law_order) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": law " + std::to_string(law) +
                                       " takes " + std::to_string(law_order) +
                                       " coefficients, u has " + std::to_string(order));
  }
  const int n_du = static_cast<int>(tabulated ? order / 2 : order);
  const size_t extra = rest.size();
  const size_t extra_with_du = 2 + static_cast<size_t>(n_du);
  if (extra != 0 && extra != 2 && extra != extra_with_du) {
    return ffi::Error::InvalidArgument(
        std::string(kOp) + ": " + std::to_string(1 + extra) + " results; expected 1 (F - 1), 3 " +
        "(and dF/db, dF/dr) or " + std::to_string(1 + extra_with_du) +
        " (and dF/du_1..dF/du_N for N = " + std::to_string(n_du) + ")");
  }
  void* data[2 + kMaxDerivativesInU] = {};
  for (size_t k = 0; k < extra; ++k) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> result = rest.get<ffi::AnyBuffer>(k);
    if (result.has_error()) return result.error();
    const ffi::AnyBuffer& buffer = **result;
    const std::string name = k == 0   ? "d_db"
                             : k == 1 ? "d_dr"
                                      : "d_du_" + std::to_string(k - 1);
    if (ffi::Error err = CheckSameShapeAndType(kOp, {{"b", b}, {name.c_str(), buffer}});
        err.failure()) {
      return err;
    }
    data[k] = buffer.untyped_data();
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
