// The check of a law's number and of the count of its coefficients that
// both ops taking a law make of their calls (limb_dark_ffi.h, transit's
// transit_ffi.h), so that they accept and reject the same laws alike.
// Host code only.
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_CHECK_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_CHECK_H_

#include <cstdint>
#include <string>

#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/limb_dark/solution_vector.h"
#include "jaxlib_ext/limb_dark/tabulated_law.h"

namespace jaxext {
namespace limb_dark {

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

}  // namespace limb_dark
}  // namespace jaxext

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_CHECK_H_
