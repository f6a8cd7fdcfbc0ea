// The CUDA FFI handler of the limb-darkened light curve (the same arguments
// and results as LimbDarkCpu, jaxlib_ext/cpu/limbdark_cpu.h).
#ifndef KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_CUDA_H_
#define KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_CUDA_H_

#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(LimbDarkCuda);

#endif  // KEPLER_JAXLIB_EXT_CUDA_LIMBDARK_CUDA_H_
