// What the CPU and CUDA handlers of kepler_solve share: the buffer checks.
//
// The op: arguments mean_anomaly and eccentricity (one shape, float32 or
// float64); results (sin, cos) of the eccentric anomaly, or of the true
// anomaly when the attribute `true_anomaly` is set, of the same shape.
// The CPU handler also takes the JVP form: two more arguments, the tangents
// of mean_anomaly and eccentricity, and two more results, the tangents of
// (sin, cos), all of that shape and dtype (kepler/kepler_solve.py calls it
// under jax.jvp; on GPUs the tangent is left to XLA).
#ifndef JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_FFI_H_
#define JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_FFI_H_

#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace jaxext::kepler_solve {

// The prefix of the op's error messages.
constexpr char kOp[] = "kepler_solve";

inline xla::ffi::Error CheckBuffers(const xla::ffi::AnyBuffer& mean_anomaly,
                                    const xla::ffi::AnyBuffer& ecc,
                                    const xla::ffi::AnyBuffer& out_sin,
                                    const xla::ffi::AnyBuffer& out_cos) {
  return CheckSameShapeAndType(kOp, {{"mean_anomaly", mean_anomaly},
                                          {"eccentricity", ecc},
                                          {"first output", out_sin},
                                          {"second output", out_cos}});
}

inline xla::ffi::Error CheckTangentBuffers(const xla::ffi::AnyBuffer& mean_anomaly,
                                           const xla::ffi::AnyBuffer& d_mean_anomaly,
                                           const xla::ffi::AnyBuffer& d_ecc,
                                           const xla::ffi::AnyBuffer& out_d_sin,
                                           const xla::ffi::AnyBuffer& out_d_cos) {
  return CheckSameShapeAndType(kOp, {{"mean_anomaly", mean_anomaly},
                                     {"mean_anomaly's tangent", d_mean_anomaly},
                                     {"eccentricity's tangent", d_ecc},
                                     {"third output", out_d_sin},
                                     {"fourth output", out_d_cos}});
}

}  // namespace jaxext::kepler_solve

#endif  // JAXLIB_EXT_KEPLER_SOLVE_KEPLER_SOLVE_FFI_H_
