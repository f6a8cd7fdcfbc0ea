"""Compiled half of kepler: kernels, XLA FFI handlers and extension modules.

Users import `kepler`; `kepler` imports this package, never the reverse.
"""
