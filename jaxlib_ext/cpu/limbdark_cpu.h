// The CPU FFI handler of the limb-darkened light curve.
#ifndef KEPLER_JAXLIB_EXT_CPU_LIMBDARK_CPU_H_
#define KEPLER_JAXLIB_EXT_CPU_LIMBDARK_CPU_H_

#include "xla/ffi/api/ffi.h"

// limb_dark_light_curve on the host. Arguments: u (shape (K..., N): the law's
// coefficients u_1..u_N, N <= limbdark::kMaxOrder), b and r (one shape, which
// starts with K...: each row of u serves the elements under it; float32 or
// float64, all one dtype). Results: F - 1, dF/db, dF/dr (the shape of b), and
// the solution vector s (shape b.shape + (N + 1,), or empty: not computed).
XLA_FFI_DECLARE_HANDLER_SYMBOL(LimbDarkCpu);

#endif  // KEPLER_JAXLIB_EXT_CPU_LIMBDARK_CPU_H_
