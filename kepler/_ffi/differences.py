"""Second and higher derivatives of ops whose handler returns their first
derivatives with the values (kepler.limb_dark, kepler.transit), written once.

Such an op wraps the handler's call (values and first derivatives) in a
jax.custom_jvp whose own JVP is central differences of those first
derivatives in each differentiable input: `difference` for an elementwise
input or a scalar, `entry_difference` for one entry of a 1-D shared input
(a law's coefficients, a row of parameters). Each difference is taken from
the primals alone and multiplied by its tangent, so that the tangent stays
linear in the tangents and reverse mode transposes it. About 1e-8 relative
in float64 (`check_grads(order=2)` passes in both modes).
"""

import jax
import jax.numpy as jnp

__all__ = ["difference", "entry_difference", "fd_step", "is_zero"]


def fd_step(x):
  """The central-difference step at x: 1e-6 relative, absolute below 1."""
  return 1e-6 * jnp.maximum(1.0, jnp.abs(x))


def is_zero(tangent):
  """Whether a tangent is a symbolic zero (custom_jvp's symbolic_zeros)."""
  return isinstance(tangent, jax.custom_derivatives.SymbolicZero)


def difference(call, x, eps, lowest=None):
  """(call(x + eps) - call(x - eps)) / (2 eps) over every leaf of call's
  outputs; one-sided, (call(x + eps) - call(x)) / eps, where x - eps would
  fall below `lowest` (the edge of a parameter's domain, e.g. e = 0)."""
  if lowest is None:
    lo, step = x - eps, 2 * eps
  else:
    inside = x - eps >= lowest
    lo, step = jnp.where(inside, x - eps, x), jnp.where(inside, 2 * eps, eps)
  return jax.tree_util.tree_map(lambda p, m: (p - m) / step, call(x + eps), call(lo))


def entry_difference(call, vector, j, eps, lowest=None):
  """`difference` in entry j of the 1-D `vector`, call taking the whole
  vector. The entry is replaced by a select, not a scatter (.at[j].set):
  XLA's GPU scatter kernel reads past the end of a small buffer
  (compute-sanitizer memcheck)."""
  entry = jnp.arange(vector.shape[0]) == j
  return difference(lambda x: call(jnp.where(entry, x, vector)), vector[j], eps, lowest)
