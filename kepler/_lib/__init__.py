"""The compiled half of kepler: `_kepler_cpu`, which reads the CPU module
libkepler_cpu.so (built from jaxlib_ext/cpu) with ctypes.

The CUDA module ships separately, in the kepler-jax-cuda13 plugin wheel
(package kepler_jax_cuda_plugin), read the same way.
"""
