// The CPU FFI handler of the Kepler op.
#ifndef KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_H_
#define KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_H_

#include "xla/ffi/api/ffi.h"

// kepler_solve on the host. Arguments: mean_anomaly, eccentricity (same shape,
// float32 or float64). Results: (sin, cos) of the eccentric anomaly, or of the
// true anomaly when the attribute `true_anomaly` is set.
XLA_FFI_DECLARE_HANDLER_SYMBOL(KeplerSolveCpu);

#endif  // KEPLER_JAXLIB_EXT_CPU_KEPLER_CPU_H_
