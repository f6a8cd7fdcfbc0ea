// Checks and dtype dispatch shared by the CPU and CUDA FFI handlers, so that
// both platforms accept and reject exactly the same buffers.
#ifndef KEPLER_JAXLIB_EXT_FFI_HELPERS_H_
#define KEPLER_JAXLIB_EXT_FFI_HELPERS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"

namespace kepler_ext {

namespace ffi = xla::ffi;

inline std::string ShapeString(ffi::AnyBuffer::Dimensions dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(dims[i]);
  }
  return out + (dims.size() == 1 ? ",)" : ")");
}

// Both inputs and both outputs must have one shape and one dtype: the Python
// layer broadcasts and promotes before it calls the FFI target.
inline ffi::Error CheckSameShapeAndType(const ffi::AnyBuffer& mean_anomaly,
                                        const ffi::AnyBuffer& ecc,
                                        const ffi::AnyBuffer& out_a,
                                        const ffi::AnyBuffer& out_b) {
  const ffi::AnyBuffer* others[] = {&ecc, &out_a, &out_b};
  const char* names[] = {"eccentricity", "first output", "second output"};
  for (int i = 0; i < 3; ++i) {
    const auto want = mean_anomaly.dimensions();
    const auto got = others[i]->dimensions();
    bool same = want.size() == got.size();
    for (size_t d = 0; same && d < want.size(); ++d) same = want[d] == got[d];
    if (!same) {
      return ffi::Error::InvalidArgument(
          std::string("kepler: mean_anomaly has shape ") + ShapeString(want) +
          " but " + names[i] + " has shape " + ShapeString(got));
    }
    if (others[i]->element_type() != mean_anomaly.element_type()) {
      return ffi::Error::InvalidArgument(
          std::string("kepler: ") + names[i] +
          " has a different dtype from mean_anomaly");
    }
  }
  return ffi::Error::Success();
}

// Calls fn(T{}) with T the C++ type of `dtype`: the one place that lists the
// dtypes the kernels support.
template <typename Fn>
ffi::Error DispatchFloat(ffi::DataType dtype, Fn&& fn) {
  switch (dtype) {
    case ffi::DataType::F32:
      return fn(float{});
    case ffi::DataType::F64:
      return fn(double{});
    default:
      return ffi::Error::InvalidArgument(
          "kepler: unsupported dtype (XLA element type " +
          std::to_string(static_cast<int>(dtype)) +
          "); the kernels support float32 and float64");
  }
}

}  // namespace kepler_ext

#endif  // KEPLER_JAXLIB_EXT_FFI_HELPERS_H_
