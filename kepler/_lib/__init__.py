"""The compiled half of kepler: `_kepler_cpu`, built from jaxlib_ext/cpu.

The CUDA module ships separately, in the kepler-jax-cuda13 plugin wheel
(package kepler_jax_cuda_plugin).
"""
