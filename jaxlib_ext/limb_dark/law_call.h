// One call of an op that takes a law (the light curve, the transit model)
// as its CUDA kernel takes it: the buffers that limb_dark_ffi.h's
// CheckLawCall checks on the host. Plain structs, for host and device code.
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_CALL_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_CALL_H_

#include <cstddef>
#include <cstdint>

#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/limb_dark/limb_dark.h"

namespace jaxext::limb_dark {

// The most first derivatives (those before dF/du) such an op has: the
// transit model's with the planet's light, 7 + 1 + 5.
constexpr int kMaxFirstDerivatives = 13;

// Its results: F - 1; the op's kFirst first derivatives (d[0] null: the
// value alone); dF/du_1.. (du[0] null: not asked for).
template <typename T, int kFirst>
struct LawOutputs {
  static_assert(kFirst <= kMaxFirstDerivatives, "first derivatives");
  T* flux;
  T* d[kFirst];
  T* du[kMaxDerivativesInU];

  // The same results from element `first` on (null stays null).
  LawOutputs From(std::size_t first) const {
    LawOutputs from = *this;
    from.flux += first;
    for (T*& column : from.d) column = column ? column + first : nullptr;
    for (T*& column : from.du) column = column ? column + first : nullptr;
    return from;
  }
};

// Its arguments: rows of the op's own values then `order` coefficients of
// `law`, each row serving `group_size` consecutive elements of x and y, n
// in all; and its results.
template <typename T, int kFirst>
struct LawParams {
  const T* rows;
  const T* x;
  const T* y;
  LawOutputs<T, kFirst> out;
  Law law;
  int order;
  int64_t group_size;
  int64_t n;
};

}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_CALL_H_
