// The CUDA FFI handler of the Kepler op.
#ifndef KEPLER_JAXLIB_EXT_CUDA_KEPLER_CUDA_H_
#define KEPLER_JAXLIB_EXT_CUDA_KEPLER_CUDA_H_

#include "xla/ffi/api/ffi.h"

// kepler_solve on a CUDA device: the same arguments, results and attribute
// as KeplerSolveCpu (jaxlib_ext/cpu/kepler_cpu.h).
XLA_FFI_DECLARE_HANDLER_SYMBOL(KeplerSolveCuda);

#endif  // KEPLER_JAXLIB_EXT_CUDA_KEPLER_CUDA_H_
