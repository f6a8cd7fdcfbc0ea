// The XLA FFI targets of this project: the one list of their names.
//
// X(name, Handler): the target `name` (what jax.ffi.ffi_call names) is served
// by the handler symbols HandlerCpu (jaxlib_ext/cpu, in the CPU module) and
// HandlerCuda (jaxlib_ext/cuda, in the CUDA plugin). The modules register
// from this list, and hand the names to Python (TARGET_NAMES, keyed by
// Handler), which calls the targets by them.
#ifndef JAXLIB_EXT_FFI_TARGETS_H_
#define JAXLIB_EXT_FFI_TARGETS_H_

#define JAXEXT_FFI_TARGETS(X)     \
  X("kepler_solve", KeplerSolve) \
  X("limb_dark_light_curve", LimbDark)

#endif  // JAXLIB_EXT_FFI_TARGETS_H_
