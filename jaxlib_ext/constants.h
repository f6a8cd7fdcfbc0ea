// Integer constants an op hands to its Python module, without the modules
// including the op's header: at namespace scope in the op's CPU handler file,
//
//   JAXEXT_EXPORT_CONSTANT(LIMB_DARK_MAX_ORDER, limb_dark::kMaxOrder);
//
// and the CPU module's constants() returns {"LIMB_DARK_MAX_ORDER": 32, ...}.
// The handler file is linked into the module (the module references its
// handler symbol), so its registration runs when the module loads.
#ifndef JAXLIB_EXT_CONSTANTS_H_
#define JAXLIB_EXT_CONSTANTS_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace jaxext {

using ExportedConstants = std::vector<std::pair<const char*, int64_t>>;

// Every constant exported so far, in registration order.
inline ExportedConstants& AllExportedConstants() {
  static ExportedConstants* constants = new ExportedConstants;
  return *constants;
}

struct ExportConstant {
  ExportConstant(const char* name, int64_t value) {
    AllExportedConstants().emplace_back(name, value);
  }
};

}  // namespace jaxext

#define JAXEXT_EXPORT_CONSTANT(name, value) \
  static const ::jaxext::ExportConstant jaxext_exported_##name(#name, value)

#endif  // JAXLIB_EXT_CONSTANTS_H_
