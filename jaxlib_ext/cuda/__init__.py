"""The CUDA half of the compiled extension: `_kepler_cuda.registrations()`.

Present only in wheels built with --config=cuda.
"""
