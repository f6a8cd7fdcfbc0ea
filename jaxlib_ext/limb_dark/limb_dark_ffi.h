// What the CPU and CUDA handlers of the light curve share: the checks of the
// buffers' shapes.
//
// The op: arguments u (shape (K..., N): the law's coefficients u_1..u_N,
// N <= kMaxOrder), b and r (one shape, which starts with K...: each row of u
// serves the elements under it; float32 or float64, all one dtype). Results:
// F - 1 (of |b|), dF/db (in b itself, of b's sign), dF/dr (the shape of b;
// the derivatives both empty: not computed, the value alone), and the
// solution vector s (shape b.shape + (N + 1,), or empty: not computed),
// laid out with its last dimension major: N + 1 planes of b.size elements,
// s_k of element i at k * b.size + i (the layout kepler/_ffi/partition.py's
// lowering gives results with trailing dimensions).
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

// The layout of one call: `groups` rows of u (order coefficients each), each
// serving `group_size` consecutive elements of b and r.
struct Layout {
  int order;
  size_t groups, group_size, n;
  bool with_derivatives, with_s;
};

inline xla::ffi::Error CheckLayout(const xla::ffi::AnyBuffer& u,
                                   const xla::ffi::AnyBuffer& b,
                                   const xla::ffi::AnyBuffer& r,
                                   const xla::ffi::AnyBuffer& flux,
                                   const xla::ffi::AnyBuffer& d_db,
                                   const xla::ffi::AnyBuffer& d_dr,
                                   const xla::ffi::AnyBuffer& s, Layout* out) {
  if (ffi::Error err = CheckSameShapeAndType(kOp, {{"b", b}, {"r", r}, {"flux", flux}});
      err.failure()) {
    return err;
  }
  // The derivatives: both of b's shape, or both empty of another shape (the
  // value alone).
  const bool with_derivatives = SameShape(d_db.dimensions(), b.dimensions()) ||
                                SameShape(d_dr.dimensions(), b.dimensions()) ||
                                d_db.element_count() != 0 || d_dr.element_count() != 0;
  if (with_derivatives) {
    if (ffi::Error err = CheckSameShapeAndType(kOp, {{"b", b}, {"d_db", d_db}, {"d_dr", d_dr}});
        err.failure()) {
      return err;
    }
  }
  if (u.element_type() != b.element_type() || s.element_type() != b.element_type() ||
      d_db.element_type() != b.element_type() || d_dr.element_type() != b.element_type()) {
    return ffi::Error::InvalidArgument(std::string(kOp) +
                                       ": u, d_db, d_dr and s must have b's dtype");
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
  if (order > kMaxOrder) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": " + std::to_string(order) +
                                       " coefficients; at most " +
                                       std::to_string(kMaxOrder) + " are supported");
  }
  const size_t n = b.element_count();
  const size_t s_count = s.element_count();
  if (s_count != 0 && s_count != n * static_cast<size_t>(order + 1)) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": s must have b.size * (N + 1) elements or none");
  }
  out->order = static_cast<int>(order);
  out->groups = groups;
  out->group_size = groups ? n / groups : 0;
  out->n = n;
  out->with_derivatives = with_derivatives;
  out->with_s = s_count != 0;
  if (out->with_s && !with_derivatives) {
    return ffi::Error::InvalidArgument(std::string(kOp) + ": s needs the derivatives too");
  }
  return ffi::Error::Success();
}

}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_FFI_H_
