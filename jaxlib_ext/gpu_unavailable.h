// A stand-in handler for the CUDA platform, used when the CUDA plugin
// (kepler-jax[cuda13]) is missing or refused: every op's target gets it, so
// that passing GPU arrays fails with a message saying what to install rather
// than XLA's "no registered implementation". It never touches the GPU.
#ifndef JAXLIB_EXT_GPU_UNAVAILABLE_H_
#define JAXLIB_EXT_GPU_UNAVAILABLE_H_

#include <string>

#include "xla/ffi/api/ffi.h"

namespace jaxext {

// The message the stand-in returns (set once, at import, by the Python layer).
void SetGpuUnavailableMessage(std::string message);

}  // namespace jaxext

// Accepts any arguments, results and attributes; returns FailedPrecondition.
XLA_FFI_DECLARE_HANDLER_SYMBOL(GpuUnavailable);

#endif  // JAXLIB_EXT_GPU_UNAVAILABLE_H_
