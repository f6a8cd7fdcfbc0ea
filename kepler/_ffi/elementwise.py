"""Argument rules shared by every op: dtypes, promotion and broadcasting.

Each op calls `prepare` before its XLA FFI call, so that all ops accept the
same inputs and reject bad ones with the same errors.
"""

import jax
import jax.numpy as jnp
import numpy as np

from kepler._lib import _kepler_cpu

# The dtypes the kernels compute in (jaxlib_ext/ffi_helpers.h,
# JAXEXT_KERNEL_DTYPES); narrower floats are computed in float32.
KERNEL_DTYPES = tuple(np.dtype(name) for name in _kepler_cpu.KERNEL_DTYPES)


def as_array(op_name, label, x):
  """x as an array jnp accepts: lists and tuples (of numbers, numpy or jax
  arrays or tracers) and other objects with __array__ are converted with
  jnp.asarray; arrays, tracers and scalars are returned as they are.

  Raises:
    TypeError: a sequence that is not a rectangular array of numbers, or an
      object that is neither an array nor convertible to one, naming it.
  """
  if isinstance(x, (jax.Array, np.ndarray, np.generic, int, float, complex, bool)):
    return x
  if isinstance(x, (list, tuple)) or hasattr(x, "__array__") or hasattr(x, "__jax_array__"):
    try:
      return jnp.asarray(x)
    except (TypeError, ValueError) as err:
      raise TypeError(f"kepler.{op_name}: {label} is not an array of numbers ({err})") from None
  raise TypeError(f"kepler.{op_name}: {label} has type {type(x).__name__}; expected an array, "
                  "a number, or a list or tuple of them")


def _check_real(op_name, label, x):
  dtype = jnp.result_type(x)
  if not (jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.integer)):
    raise TypeError(
        f"kepler.{op_name}: {label} has dtype {dtype}; expected a real "
        "floating-point or integer dtype")


def prepare(op_name, elementwise, others=()):
  """Checks, promotes and broadcasts arguments like a jnp elementwise op.

  Args:
    op_name: the public name, for error messages (e.g. "solve").
    elementwise: ((label, value), ...): broadcast against each other. Each
      value: a jax or numpy array, a tracer, a Python or numpy scalar, or a
      list or tuple of them (see as_array).
    others: ((label, value), ...): take part in the dtype promotion but keep
      their own shapes (e.g. a vector of coefficients).

  Returns:
    (elementwise arrays broadcast to one shape, others' arrays, both in the
    kernel dtype; the dtype of the op's result). Integers promote to the float
    dtype that jnp.sin gives them; dtypes the kernels lack (float16,
    bfloat16) are computed in float32 and the result cast back.

  Raises:
    TypeError: a complex, bool or other non-real argument, or one that is not
      an array, naming it.
    ValueError: elementwise shapes that do not broadcast, naming them.
  """
  elementwise = tuple((label, as_array(op_name, label, x)) for label, x in elementwise)
  others = tuple((label, as_array(op_name, label, x)) for label, x in others)
  for label, x in elementwise + others:
    _check_real(op_name, label, x)
  values = [x for _, x in elementwise] + [x for _, x in others]
  dtype = np.dtype(jnp.result_type(*values))
  if not jnp.issubdtype(dtype, jnp.floating):
    dtype = np.dtype(jax.eval_shape(jnp.sin, jax.ShapeDtypeStruct((), dtype)).dtype)
  shapes = [np.shape(x) for _, x in elementwise]
  try:
    shape = np.broadcast_shapes(*shapes)
  except ValueError:
    described = " and ".join(f"{s} ({label})" for s, (label, _) in zip(shapes, elementwise))
    raise ValueError(f"kepler.{op_name}: shapes {described} do not broadcast") from None
  compute = dtype if dtype in KERNEL_DTYPES else np.dtype(np.float32)
  broadcast = [jnp.broadcast_to(jnp.asarray(x, compute), shape) for _, x in elementwise]
  converted = [jnp.asarray(x, compute) for _, x in others]
  return broadcast, converted, dtype
