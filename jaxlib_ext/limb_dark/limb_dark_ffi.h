// What the CPU and CUDA handlers of the light curve share, and of every op
// that takes a law (the transit model): the checks of a call's law and
// buffers, and the results' data pointers.
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
#include "jaxlib_ext/limb_dark/law_call.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::limb_dark {

// The prefix of the op's error messages.
constexpr char kOp[] = "limb_dark";

// "" when `count` coefficients suit law number `law`, else why not (the
// caller prefixes its op): an unknown law; the tabulated law's 2 M values
// (M = 2..kMaxTableSize grid points, then the intensities); at most
// kMaxOrder for the polynomial law; the others' own counts. `holder` names
// what holds the coefficients in the message ("u", "the row").
inline std::string LawCoefficientsError(std::int32_t law, std::int64_t count,
                                        const std::string& holder) {
  if (law < 0 || law >= kLawCount) {
    return "unknown law " + std::to_string(law) + "; laws are 0.." +
           std::to_string(kLawCount - 1);
  }
  if (law == static_cast<std::int32_t>(Law::kTabulated)) {
    if (count % 2 != 0 || count < 4 || count > 2 * kMaxTableSize) {
      return "the tabulated law takes a grid and its intensities, 2 M coefficients for M = 2.." +
             std::to_string(kMaxTableSize) + " points; " + holder + " has " +
             std::to_string(count);
    }
    return "";
  }
  if (count > kMaxOrder) {
    return std::to_string(count) + " coefficients; at most " + std::to_string(kMaxOrder) +
           " are supported";
  }
  const int law_order = LawCoefficients(law);
  if (law_order >= 0 && count != law_order) {
    return "law " + std::to_string(law) + " takes " + std::to_string(law_order) +
           " coefficients, " + holder + " has " + std::to_string(count);
  }
  return "";
}

// One call of an op that takes a law: rows of `offset` values then the
// law's `order` coefficients, each row serving `group_size` consecutive
// elements, n in all; the results after F - 1: none (the value alone), the
// op's first derivatives (d), or those and dF/du_1..dF/du_n_du (d_du);
// null where not asked for.
struct LawCall {
  Law law;
  int order;
  int n_du;  // the coefficients with a derivative: order, or M (tabulated)
  size_t group_size, n;
  bool with_du;
  void* d[kMaxFirstDerivatives];
  void* d_du[kMaxDerivativesInU];
};

// The checks of such a call, in this order: the law's number; the buffers
// (CheckRowCall: `rows`, the elementwise x, y and F - 1; `width_name` names
// the row's width); the count of coefficients after `offset` values
// (`holder` names the row in messages); the results after F - 1: 0, `first`
// (`first_what` describes them, first_name(k) names the k-th) or first +
// n_du (named d_du_1..), each of x's shape and dtype.
template <typename FirstName>
ffi::Error CheckLawCall(const char* op, std::int32_t law, Named rows, int offset,
                        const char* width_name, const char* holder, Named x, Named y, Named flux,
                        const ffi::RemainingRets& rest, int first, const std::string& first_what,
                        FirstName&& first_name, LawCall* out) {
  if (law < 0 || law >= kLawCount) {
    return ffi::Error::InvalidArgument(std::string(op) + ": " + LawCoefficientsError(law, 0, holder));
  }
  int64_t width;
  if (ffi::Error err =
          CheckRowCall(op, rows, {x, y, flux}, width_name, &width, &out->group_size, &out->n);
      err.failure()) {
    return err;
  }
  const int64_t order = width - offset;
  if (order < 0) {
    return ffi::Error::InvalidArgument(
        std::string(op) + ": " + rows.name + " has " + std::to_string(width) +
        " values per row, fewer than the " + std::to_string(offset) +
        " before the law's coefficients");
  }
  if (const std::string error = LawCoefficientsError(law, order, holder); !error.empty()) {
    return ffi::Error::InvalidArgument(std::string(op) + ": " + error);
  }
  const int n_du = DerivativesInU(law, static_cast<int>(order));
  const size_t extra = rest.size();
  const size_t with_du = static_cast<size_t>(first + n_du);
  if (extra != 0 && extra != static_cast<size_t>(first) && extra != with_du) {
    return ffi::Error::InvalidArgument(
        std::string(op) + ": " + std::to_string(1 + extra) + " results; expected 1 (F - 1), " +
        std::to_string(1 + first) + " (and " + first_what + ") or " +
        std::to_string(1 + with_du) + " (and dF/du_1..dF/du_N for N = " + std::to_string(n_du) +
        ")");
  }
  void* data[kMaxFirstDerivatives + kMaxDerivativesInU] = {};
  const auto name = [&](size_t k) {
    return k < static_cast<size_t>(first) ? std::string(first_name(k))
                                           : "d_du_" + std::to_string(k - first + 1);
  };
  if (ffi::Error err = RestResultsData(op, x.name, x.buffer, rest, name, data); err.failure()) {
    return err;
  }
  out->law = static_cast<Law>(law);
  out->order = static_cast<int>(order);
  out->n_du = n_du;
  out->with_du = extra == with_du && n_du > 0;
  for (int j = 0; j < kMaxFirstDerivatives; ++j) out->d[j] = j < first ? data[j] : nullptr;
  for (int j = 0; j < kMaxDerivativesInU; ++j) out->d_du[j] = data[first + j];
  return ffi::Error::Success();
}

// The results of a call CheckLawCall accepted (law_call.h's LawOutputs),
// F - 1 in `flux`, each from element `begin` on; null where not asked for.
template <typename T, int kFirst>
LawOutputs<T, kFirst> OutputsFrom(const LawCall& l, T* flux, size_t begin) {
  LawOutputs<T, kFirst> out{};
  out.flux = flux + begin;
  for (int j = 0; j < kFirst; ++j) out.d[j] = l.d[j] ? static_cast<T*>(l.d[j]) + begin : nullptr;
  for (int j = 0; j < l.n_du; ++j) {
    out.du[j] = l.with_du ? static_cast<T*>(l.d_du[j]) + begin : nullptr;
  }
  return out;
}

// The kernel's arguments (law_call.h) of a call CheckLawCall accepted, with
// its buffers: the rows, the elementwise arguments x and y and F - 1.
template <typename T, int kFirst>
LawParams<T, kFirst> KernelParams(const LawCall& l, const ffi::AnyBuffer& rows,
                                  const ffi::AnyBuffer& x, const ffi::AnyBuffer& y,
                                  ffi::AnyBuffer& flux) {
  LawParams<T, kFirst> p{};
  p.rows = rows.typed_data<T>();
  p.x = x.typed_data<T>();
  p.y = y.typed_data<T>();
  p.out = OutputsFrom<T, kFirst>(l, flux.typed_data<T>(), 0);
  p.law = l.law;
  p.order = l.order;
  p.group_size = static_cast<int64_t>(l.group_size);
  p.n = static_cast<int64_t>(l.n);
  return p;
}

// The light curve's call: d[0] dF/db, d[1] dF/dr.
inline ffi::Error CheckLayout(const ffi::AnyBuffer& u, const ffi::AnyBuffer& b,
                              const ffi::AnyBuffer& r, const ffi::AnyBuffer& flux,
                              const ffi::RemainingRets& rest, std::int32_t law, LawCall* out) {
  return CheckLawCall(kOp, law, {"u", u}, 0, "N", "u", {"b", b}, {"r", r}, {"flux", flux}, rest,
                      2, "dF/db, dF/dr", [](size_t k) { return k == 0 ? "d_db" : "d_dr"; }, out);
}

}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_FFI_H_
