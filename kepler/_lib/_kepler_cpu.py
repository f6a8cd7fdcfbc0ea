"""The CPU module, libkepler_cpu.so (jaxlib_ext/cpu/cpu_module.cc), read
through its C interface with ctypes: one build for every Python.

  registrations()               {FFI target name: CPU handler capsule} of every op
  TARGET_NAMES                  {op: FFI target name}
  KERNEL_DTYPES                 the numpy names of the dtypes the kernels compute in
  constants()                   the integers the ops export (JAXEXT_EXPORT_CONSTANT)
  gpu_unavailable_handler()     a CUDA stand-in handler that fails with the message
  set_gpu_unavailable_message() ... set here: for every target when no CUDA plugin is used
  cpu_isa()                     the loop variant in use (ValueError if KEPLER_CPU_ISA is invalid)
  cpu_isas(), supported_cpu_isas()
                                every variant compiled, least to most demanding; those
                                this CPU runs
"""

import ctypes
import json

import jax

from kepler._lib import load

_lib = load(__file__, "libkepler_cpu.so", "CPU module")
_lib.kepler_cpu_manifest.restype = ctypes.c_char_p
_lib.kepler_cpu_handler.argtypes = (ctypes.c_char_p,)
_lib.kepler_cpu_handler.restype = ctypes.c_void_p
_lib.kepler_gpu_unavailable_handler.restype = ctypes.c_void_p
_lib.kepler_set_gpu_unavailable_message.argtypes = (ctypes.c_char_p,)
_lib.kepler_set_gpu_unavailable_message.restype = None
_lib.kepler_cpu_isa.argtypes = (ctypes.POINTER(ctypes.c_int),)
_lib.kepler_cpu_isa.restype = ctypes.c_char_p

_MANIFEST = json.loads(_lib.kepler_cpu_manifest().decode())
TARGET_NAMES = _MANIFEST["targets"]
KERNEL_DTYPES = _MANIFEST["kernel_dtypes"]


def registrations():
  """{FFI target name: CPU handler capsule} of every op."""
  return {name: jax.ffi.pycapsule(_lib.kepler_cpu_handler(name.encode()))
          for name in TARGET_NAMES.values()}


def constants():
  """The integer constants the ops export (JAXEXT_EXPORT_CONSTANT), by name."""
  return dict(_MANIFEST["constants"])


def gpu_unavailable_handler():
  """A handler for the CUDA platform that fails with the message set by
  set_gpu_unavailable_message: for every target when no CUDA plugin is used."""
  return jax.ffi.pycapsule(_lib.kepler_gpu_unavailable_handler())


def set_gpu_unavailable_message(message):
  _lib.kepler_set_gpu_unavailable_message(str(message).encode())


def cpu_isa():
  """The instruction-set variant of the CPU loops in use (see cpu_isas();
  KEPLER_CPU_ISA overrides the default, the best one the CPU supports).
  Raises ValueError if KEPLER_CPU_ISA is invalid."""
  ok = ctypes.c_int(0)
  text = _lib.kepler_cpu_isa(ctypes.byref(ok)).decode()
  if not ok.value:
    raise ValueError(text)
  return text


def cpu_isas():
  """Every instruction-set variant the loops are compiled for, from the least
  to the most demanding (jaxlib_ext/cpu/cpu_isa.bzl)."""
  return list(_MANIFEST["cpu_isas"])


def supported_cpu_isas():
  """The variants of cpu_isas() this CPU can run."""
  return list(_MANIFEST["supported_cpu_isas"])
