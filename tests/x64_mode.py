"""The jax_enable_x64 mode of a test process, chosen by KEPLER_TEST_X64.

Test files import this module before they use JAX. KEPLER_TEST_X64=1 (the
default) turns jax_enable_x64 on; KEPLER_TEST_X64=0 turns it off, and then,
as everywhere in JAX, float64 inputs are demoted to float32 (and int64 to
int32, complex128 to complex64). tests/BUILD.bazel makes a target for each
mode.

The helpers say what JAX does with a dtype or an array in the chosen mode, so
that one test body states the expected results of both.
"""

import os

import jax
import numpy as np

_VALUE = os.environ.get("KEPLER_TEST_X64", "1")
if _VALUE not in ("0", "1"):
  raise ValueError(f"KEPLER_TEST_X64={_VALUE!r}: expected 0 or 1")

X64 = _VALUE == "1"
jax.config.update("jax_enable_x64", X64)


def canonical(dtype):
  """The dtype JAX computes in for inputs of `dtype` (float64 -> float32 without x64)."""
  return np.dtype(jax.dtypes.canonicalize_dtype(np.dtype(dtype)))


def demote(x):
  """The values JAX sees for the numpy array x: x converted to its canonical dtype."""
  x = np.asarray(x)
  return x.astype(canonical(x.dtype))


# The widest float of the mode: float64 with x64, else float32.
FLOAT = canonical(np.float64)
