"""The compiled half of kepler: `_kepler_cpu`, which reads the CPU module
libkepler_cpu.so (built from jaxlib_ext/cpu) with ctypes.

The CUDA module ships separately, in the kepler-jax-cuda13 plugin wheel
(package kepler_jax_cuda_plugin), read the same way (`load`).
"""

import ctypes
import os


def load(module_file, library, what):
  """The shared library `library` beside the Python file `module_file`, as a
  ctypes.CDLL; ImportError (as for a Python module) where it is missing or
  cannot be loaded here, naming the file and `what` it is."""
  path = os.path.join(os.path.dirname(os.path.abspath(module_file)), library)
  try:
    return ctypes.CDLL(path)
  except OSError as e:
    raise ImportError(f"kepler: cannot load its {what} {path}: {e}", path=path) from e
