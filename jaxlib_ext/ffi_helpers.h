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

// The buffers of a row op: `rows` of shape (K..., W), each row serving the
// elements under it of the elementwise buffers (arguments and the first
// result: one shape, which starts with K..., and one dtype, rows' too).
// Sets *width to W, *group_size to the elements a row serves and *n to
// their number in all. `width_name` names W in the messages.
inline ffi::Error CheckRowCall(const char* op, Named rows, std::initializer_list<Named> elementwise,
                               const char* width_name, int64_t* width, size_t* group_size,
                               size_t* n) {
  if (ffi::Error err = CheckSameShapeAndType(op, elementwise); err.failure()) return err;
  const Named& like = *elementwise.begin();
  if (rows.buffer.element_type() != like.buffer.element_type()) {
    return ffi::Error::InvalidArgument(std::string(op) + ": " + rows.name + " must have " +
                                       like.name + "'s dtype");
  }
  const auto rd = rows.buffer.dimensions();
  const auto ld = like.buffer.dimensions();
  if (rd.size() < 1 || rd.size() - 1 > ld.size()) {
    return ffi::Error::InvalidArgument(std::string(op) + ": " + rows.name + " has shape " +
                                       ShapeString(rd) + ", which is not (K..., " + width_name +
                                       ") for " + like.name + " of shape " + ShapeString(ld));
  }
  size_t groups = 1;
  for (size_t d = 0; d + 1 < rd.size(); ++d) {
    if (rd[d] != ld[d]) {
      return ffi::Error::InvalidArgument(std::string(op) + ": the leading dimensions of " +
                                         rows.name + " " + ShapeString(rd) +
                                         " are not those of " + like.name + " " +
                                         ShapeString(ld));
    }
    groups *= static_cast<size_t>(rd[d]);
  }
  *width = rd.back();
  *n = like.buffer.element_count();
  *group_size = groups ? *n / groups : 0;
  return ffi::Error::Success();
}

// The data of the results after the first (`rest`), into data[0..rest.size()),
// each checked to have `like`'s shape and dtype (like_name and name(k), the
// k-th's name, in the messages).
template <typename Name>
ffi::Error RestResultsData(const char* op, const char* like_name, const ffi::AnyBuffer& like,
                           const ffi::RemainingRets& rest, Name&& name, void** data) {
  for (size_t k = 0; k < rest.size(); ++k) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> result = rest.get<ffi::AnyBuffer>(k);
    if (result.has_error()) return result.error();
    const ffi::AnyBuffer& buffer = **result;
    const std::string buffer_name = name(k);
    if (ffi::Error err = CheckSameShapeAndType(op, {{like_name, like}, {buffer_name.c_str(), buffer}});
        err.failure()) {
      return err;
    }
    data[k] = buffer.untyped_data();
  }
  return ffi::Error::Success();
}

// The binding of a row op's handler (CheckRowCall) up to its attributes:
// `Context` (XLA's thread pool, or its CUDA stream), the rows, two
// elementwise arguments, the first result and any after it.
template <typename Context>
auto BindRowOp() {
  return ffi::Ffi::Bind()
      .Ctx<Context>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .RemainingRets();
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
