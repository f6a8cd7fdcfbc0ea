// What the compiled modules (jaxlib_ext/cpu/cpu_module.cc,
// jaxlib_ext/cuda/cuda_module.cc) share: their C interface, read by Python's
// ctypes rather than Python's C API, so that one build of a module loads
// into every Python.
#ifndef JAXLIB_EXT_C_MODULE_H_
#define JAXLIB_EXT_C_MODULE_H_

#include <cstddef>
#include <cstring>
#include <string>

#include "xla/ffi/api/c_api.h"

// A function of a module's interface: C linkage, visible outside the shared
// object (the modules are compiled with -fvisibility=hidden).
#define JAXEXT_C_EXPORT extern "C" __attribute__((visibility("default")))

namespace jaxext {

// `text` as a JSON string literal.
inline std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One op's entry in a module's table of handlers, made with
// JAXEXT_FFI_TARGETS (jaxlib_ext/ffi_targets.h).
struct ModuleTarget {
  const char* op;
  const char* target;  // its XLA FFI target name
  XLA_FFI_Error* (*handler)(XLA_FFI_CallFrame*);
};

// The handler (an XLA_FFI_Handler*) of the table's target named `target`;
// null for a name that is none of them.
template <std::size_t N>
void* HandlerNamed(const ModuleTarget (&table)[N], const char* target) {
  for (const ModuleTarget& entry : table) {
    if (std::strcmp(entry.target, target) == 0) return reinterpret_cast<void*>(entry.handler);
  }
  return nullptr;
}

// The table's {op: FFI target name}, as a JSON object.
template <std::size_t N>
std::string TargetsJson(const ModuleTarget (&table)[N]) {
  std::string out;
  for (const ModuleTarget& entry : table) {
    out += (out.empty() ? "" : ", ") + JsonString(entry.op) + ": " + JsonString(entry.target);
  }
  return "{" + out + "}";
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_C_MODULE_H_
