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

// Calls fn(T{}) with T the C++ type of `dtype`: the one place that lists the
// dtypes the kernels support.
template <typename Fn>
ffi::Error DispatchFloat(const char* op, ffi::DataType dtype, Fn&& fn) {
  switch (dtype) {
    case ffi::DataType::F32:
      return fn(float{});
    case ffi::DataType::F64:
      return fn(double{});
    default:
      return ffi::Error::InvalidArgument(
          std::string(op) + ": unsupported dtype (XLA element type " +
          std::to_string(static_cast<int>(dtype)) +
          "); the kernels support float32 and float64");
  }
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_FFI_HELPERS_H_
