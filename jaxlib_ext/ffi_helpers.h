// Checks and dtype dispatch shared by every op's CPU and CUDA FFI handlers,
// so that both platforms accept and reject exactly the same buffers.
#ifndef JAXLIB_EXT_FFI_HELPERS_H_
#define JAXLIB_EXT_FFI_HELPERS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"

namespace jaxext {

namespace ffi = xla::ffi;

inline std::string ShapeString(ffi::AnyBuffer::Dimensions dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(dims[i]);
  }
  return out + (dims.size() == 1 ? ",)" : ")");
}

inline bool SameShape(ffi::AnyBuffer::Dimensions a,
                      ffi::AnyBuffer::Dimensions b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] != b[d]) return false;
  }
  return true;
}

// A buffer with the name the error messages give it.
struct Named {
  const char* name;
  const ffi::AnyBuffer& buffer;
};

// Every buffer must have the first one's shape and dtype (elementwise inputs
// and outputs: the Python layer broadcasts and promotes before it calls the
// FFI target, so a mismatch here is a caller's bug). `op` prefixes messages.
inline ffi::Error CheckSameShapeAndType(const char* op,
                                        std::initializer_list<Named> buffers) {
  const Named& first = *buffers.begin();
  for (const Named& other : buffers) {
    if (!SameShape(first.buffer.dimensions(), other.buffer.dimensions())) {
      return ffi::Error::InvalidArgument(
          std::string(op) + ": " + first.name + " has shape " +
          ShapeString(first.buffer.dimensions()) + " but " + other.name +
          " has shape " + ShapeString(other.buffer.dimensions()));
    }
    if (other.buffer.element_type() != first.buffer.element_type()) {
      return ffi::Error::InvalidArgument(std::string(op) + ": " + other.name +
                                         " has a different dtype from " +
                                         first.name);
    }
  }
  return ffi::Error::Success();
}

// The dtypes the kernels compute in: X(C++ type, XLA DataType, numpy name).
// The one list: DispatchFloat's cases and message, the CPU module's
// KERNEL_DTYPES (which the Python layer promotes to) come from it; the
// instantiations of each op's loops and kernels must cover it.
#define JAXEXT_KERNEL_DTYPES(X) \
  X(float, F32, "float32")      \
  X(double, F64, "float64")

// "float32 and float64": JAXEXT_KERNEL_DTYPES's names, for messages.
inline std::string KernelDtypeNames() {
  std::string names;
#define JAXEXT_DTYPE_NAME_(type, xla, name) names += (names.empty() ? "" : " and ") + std::string(name);
  JAXEXT_KERNEL_DTYPES(JAXEXT_DTYPE_NAME_)
#undef JAXEXT_DTYPE_NAME_
  return names;
}

// Calls fn(T{}) with T the C++ type of `dtype`, one of JAXEXT_KERNEL_DTYPES.
template <typename Fn>
ffi::Error DispatchFloat(const char* op, ffi::DataType dtype, Fn&& fn) {
  switch (dtype) {
#define JAXEXT_DTYPE_CASE_(type, xla, name) \
  case ffi::DataType::xla:                  \
    return fn(type{});
    JAXEXT_KERNEL_DTYPES(JAXEXT_DTYPE_CASE_)
#undef JAXEXT_DTYPE_CASE_
    default:
      return ffi::Error::InvalidArgument(
          std::string(op) + ": unsupported dtype (XLA element type " +
          std::to_string(static_cast<int>(dtype)) + "); the kernels support " +
          KernelDtypeNames());
  }
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_FFI_HELPERS_H_
