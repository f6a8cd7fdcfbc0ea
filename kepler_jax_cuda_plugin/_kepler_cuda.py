"""The CUDA module, libkepler_cuda.so (jaxlib_ext/cuda/cuda_module.cc), read
through its C interface with ctypes: one build for every Python.

  registrations()   {FFI target name: CUDA handler capsule} of every op
  device_problem()  '' when a GPU can run the kernels here, else what is missing
  cuda_version      the CUDA toolkit the kernels are built with, e.g. "13.0"
"""

import ctypes
import json

import jax

from kepler._lib import load

_lib = load(__file__, "libkepler_cuda.so", "CUDA module")
_lib.kepler_cuda_manifest.restype = ctypes.c_char_p
_lib.kepler_cuda_handler.argtypes = (ctypes.c_char_p,)
_lib.kepler_cuda_handler.restype = ctypes.c_void_p
_lib.kepler_cuda_device_problem.restype = ctypes.c_char_p

_MANIFEST = json.loads(_lib.kepler_cuda_manifest().decode())
cuda_version = _MANIFEST["cuda_version"]


def registrations():
  """{FFI target name: CUDA handler capsule} of every op."""
  return {name: jax.ffi.pycapsule(_lib.kepler_cuda_handler(name.encode()))
          for name in _MANIFEST["targets"].values()}


def device_problem():
  """'' when a GPU can run the kernels here, else what is missing (driver, GPU)."""
  return _lib.kepler_cuda_device_problem().decode()
