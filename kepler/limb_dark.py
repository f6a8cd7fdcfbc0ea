"""Limb-darkened transit light curves: kepler.limb_dark.light_curve.

The closed form of Agol, Luger & Foreman-Mackey (2020, AJ 159, 123) for a
star with polynomial limb darkening of any order, computed by the compiled
handlers (jaxlib_ext/limb_dark/: limb_dark_cpu.cc, limb_dark_cuda.cc, the
math in limb_dark.h) with its first derivatives in b, r and u.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kepler import _ffi
from kepler._ffi import elementwise
from kepler._ffi import partition

__all__ = ["light_curve", "MAX_ORDER", "MAX_CROSSING_RADIUS"]

_TARGET = _ffi.target("limb_dark")
# The most coefficients u the op takes (jaxlib_ext/limb_dark/solution_vector.h,
# kMaxOrder).
MAX_ORDER = _ffi.constant("LIMB_DARK_MAX_ORDER")
# The largest occultor whose limb may cross the disk (limb_dark.h,
# kMaxCrossingRadius): beyond it, |b - r| < 1 gives NaN.
MAX_CROSSING_RADIUS = float(_ffi.constant("LIMB_DARK_MAX_CROSSING_RADIUS"))


def _call(u, b, r, with_du):
  """(F - 1, dF/db, dF/dr, dF/du) from one call of the handler: dF/du the
  tuple (dF/du_1, ..., dF/du_N) of arrays of b's shape with with_du, else ().
  Partitioned elementwise in b, r on many devices, u replicated
  (kepler/_ffi/partition.py)."""
  n_du = u.shape[-1] if with_du else 0
  out = partition.call(_TARGET, (b, r), shared=(u,), n_results=3 + n_du)
  return out[0], out[1], out[2], tuple(out[3:])


def _value(u, b, r):
  """F - 1 alone, which the handler computes faster than with its derivatives."""
  return partition.call(_TARGET, (b, r), shared=(u,), n_results=1)[0]


def _fd_step(x):
  """The central-difference step at x (1e-6 relative, absolute below 1).

  Only for second and higher derivatives: the handler returns first
  derivatives, and their own derivatives are central differences of them
  (about 1e-8 relative in float64).
  """
  return 1e-6 * jnp.maximum(1.0, jnp.abs(x))


@functools.partial(jax.custom_jvp, nondiff_argnums=(3,))
def _kernel(u, b, r, with_du):
  """(F - 1, dF/db, dF/dr, dF/du): see _call."""
  return _call(u, b, r, with_du)


@_kernel.defjvp
def _kernel_jvp(with_du, primals, tangents):
  u, b, r = primals
  du, db, dr = tangents
  out = _kernel(u, b, r, with_du)
  # Second derivatives, numerically (see _fd_step): central differences of
  # every output in b, in r and in each coefficient of u. Each is taken from
  # the primal alone and multiplied by its tangent, so that the tangent
  # stays linear in (du, db, dr) and reverse mode transposes it.
  def central(plus, minus, eps):
    return jax.tree_util.tree_map(lambda p, m: (p - m) / (2 * eps), plus, minus)

  eps_b, eps_r = _fd_step(b), _fd_step(r)
  d_b = central(_kernel(u, b + eps_b, r, with_du), _kernel(u, b - eps_b, r, with_du), eps_b)
  d_r = central(_kernel(u, b, r + eps_r, with_du), _kernel(u, b, r - eps_r, with_du), eps_r)
  tangent = jax.tree_util.tree_map(lambda x, y: x * db + y * dr, d_b, d_r)
  eps_u = _fd_step(jnp.zeros((), u.dtype))
  for j in range(u.shape[0]):  # u is 1-D (see _light_curve_jvp)
    step = jnp.zeros(u.shape[0], u.dtype).at[j].set(eps_u)
    d_u = central(_kernel(u + step, b, r, with_du), _kernel(u - step, b, r, with_du), eps_u)
    tangent = jax.tree_util.tree_map(lambda t, d: t + d * du[j], tangent, d_u)
  return out, tangent


@jax.custom_jvp
def _light_curve(u, b, r):
  # Not differentiated (derivatives come from _light_curve_jvp).
  return _value(u, b, r)


def _is_zero(tangent):
  return isinstance(tangent, jax.custom_derivatives.SymbolicZero)


def _light_curve_jvp(primals, tangents):
  u, b, r = primals
  du, db, dr = tangents
  # One call of the handler, with dF/du when the tangent in u is needed.
  flux, d_db, d_dr, d_du = _kernel(u, b, r, not _is_zero(du))
  tangent = jnp.zeros_like(flux)
  if not _is_zero(db):
    tangent = tangent + d_db * db
  if not _is_zero(dr):
    tangent = tangent + d_dr * dr
  if not _is_zero(du) and d_du:
    # u is 1-D here (light_curve checks it; vmap over u hides the batch): a
    # dot over the coefficients, whose transpose in reverse mode is one dot
    # over the points (measured faster than a sum per coefficient, the
    # stack's copy included: benchmarks/BENCHMARKS.md).
    tangent = tangent + jnp.tensordot(du, jnp.stack(d_du), axes=1)
  return flux, tangent


_light_curve.defjvp(_light_curve_jvp, symbolic_zeros=True)


def light_curve(u, b, r, *, order=None):
  """Relative flux minus one of a limb-darkened star occulted by a planet.

  For a star of unit radius with intensity I(mu) = 1 - sum_n u_n (1 - mu)^n
  and an opaque disk of radius r at projected separation b (|b| is used):
  0 out of transit, negative in transit (-1 when the star is fully hidden).
  The closed form of Agol, Luger & Foreman-Mackey (2020).

  Args:
    u: the coefficients u_1..u_N, shape (N,) with N <= MAX_ORDER (32); empty:
      a uniform disk; 2: the quadratic law. An array (jax or numpy), or a
      list or tuple of numbers, arrays or tracers (`(u1, u2)` inside a jitted
      model works).
    b, r: broadcast against each other like a jnp binary op; arrays, scalars,
      or lists or tuples of them.
    order: accepted for compatibility with jaxoplanet's light_curve (its
      quadrature order) and ignored: the closed form needs none.

  Returns:
    F - 1, of the broadcast shape and the promoted float dtype of u, b, r
    (integers promote like jnp.sin). Computed in float64 inside the kernel
    for both float32 and float64, then rounded.

  Elements with r < 0, or NaN or +-inf in b or r, or an occultor larger than
  MAX_CROSSING_RADIUS (1e6) across the limb (|b - r| < 1), are NaN; NaN or
  inf in u makes every element NaN. Differentiable in u, b and r (first derivatives
  analytic, from the kernel; higher orders by central differences of them);
  vmap over any argument.

  Raises:
    TypeError: an argument of complex, bool or other non-real dtype.
    ValueError: u not 1-D, more than MAX_ORDER coefficients, or b and r
      shapes that do not broadcast.
  """
  del order
  u = elementwise.as_array("limb_dark.light_curve", "u", u)
  if np.ndim(u) != 1:
    raise ValueError(f"kepler.limb_dark.light_curve: u must be 1-D, got shape {np.shape(u)}")
  if np.shape(u)[0] > MAX_ORDER:
    raise ValueError(f"kepler.limb_dark.light_curve: {np.shape(u)[0]} coefficients; at most "
                     f"{MAX_ORDER} are supported")
  (b, r), (u,), dtype = elementwise.prepare(
      "limb_dark.light_curve", (("b", b), ("r", r)), others=(("u", u),))
  # |b| inside the kernel, whose dF/db is that in b itself (limb_dark.h).
  flux = _light_curve(u, b, r)
  return flux.astype(dtype)
