"""Kepler's equation: kepler.solve and kepler.true_anomaly.

Input checks, the call of the op's XLA FFI target and its derivatives. The
compiled handlers (jaxlib_ext/kepler_solve/: kepler_solve_cpu.cc and, from the
CUDA plugin, kepler_solve_cuda.cc) are registered with XLA at import
(kepler/_ffi/registration.py). One FFI target name serves both platforms, so
the same user code runs wherever its inputs live.
"""

import jax
import jax.numpy as jnp

from kepler import _ffi
from kepler._ffi import elementwise
from kepler._ffi import jvp
from kepler._ffi import partition

_TARGET = _ffi.target("kepler_solve")


def _call(m, e, true_anomaly):
  # Partitioned elementwise on many devices (kepler/_ffi/partition.py);
  # differentiated by the handler's own JVP form (kepler/_ffi/jvp.py).
  return tuple(partition.call(_TARGET, (m, e), n_results=2,
                              attrs=(("true_anomaly", true_anomaly),)))


def _tangent(x, y, dx, attrs):
  """The results' tangents (d sin, d cos) for the operands' tangents (dM, de):
  what the handler's JVP form computes (jaxlib_ext/kepler_solve/kepler_solve.h,
  SolveEccentricJvp and SolveTrueJvp), in jnp, for reverse mode and GPUs."""
  (_, e), (sin_x, cos_x), (dm, de) = x, y, dx
  # The tangent is d_angle = dM a + de b with a and b functions of the values
  # alone: in reverse mode they are computed once, with the values, and the
  # backward pass is products.
  if attrs["true_anomaly"]:
    # 1 - e^2 and 1 + e cos f without cancellation as e -> 1 (and cos f -> -1).
    one_minus_e2 = (1 - e) * (1 + e)
    ecos = _one_plus_e_cos(e, sin_x, cos_x)
    # df/dM = (1 + e cos f)^2 / (1 - e^2)^(3/2); df/de = sin f (2 + e cos f) / (1 - e^2).
    d_dm = ecos * ecos / (one_minus_e2 * jnp.sqrt(one_minus_e2))
    d_de = sin_x * (1 + ecos) / one_minus_e2
  else:
    # Implicit differentiation of M = E - e sin E.
    d_dm = 1 / _one_minus_e_cos(e, sin_x, cos_x)
    d_de = sin_x * d_dm
  d_angle = dm * d_dm + de * d_de
  return cos_x * d_angle, -sin_x * d_angle


jvp.register(_TARGET, _tangent)


def _one_minus_e_cos(e, sin_x, cos_x):
  """1 - e cos x, accurate to a few ulp for e in [0, 1) (sin_x^2 + cos_x^2 = 1).

  As (1 - e) + e (1 - cos x): 1 - e is exact for e >= 1/2, and 1 - cos x is
  taken as sin^2 x / (1 + cos x) where cos x > 0, so that nothing cancels
  when e -> 1 and x -> 0 (plain 1 - e cos x loses ~1e-16 / (1 - e) relative).
  """
  # The double where keeps 1 / (1 + cos x) finite in the branch not taken,
  # so that its derivative (second-order autodiff) is not NaN.
  cos_pos = jnp.where(cos_x > 0, cos_x, 0)
  one_minus_cos = jnp.where(cos_x > 0, sin_x * sin_x / (1 + cos_pos), 1 - cos_x)
  return (1 - e) + e * one_minus_cos


def _one_plus_e_cos(e, sin_x, cos_x):
  """1 + e cos x, accurate for e -> 1 and cos x -> -1: _one_minus_e_cos at x + pi."""
  return _one_minus_e_cos(e, -sin_x, -cos_x)


def _prepare(op_name, mean_anomaly, eccentricity):
  (m, e), _, dtype = elementwise.prepare(
      op_name, (("mean_anomaly", mean_anomaly), ("eccentricity", eccentricity)))
  return m, e, dtype


def solve(mean_anomaly, eccentricity):
  """Solves Kepler's equation M = E - e sin E for the eccentric anomaly E.

  Args:
    mean_anomaly: M, any shape, real dtype (integers promote like jnp.sin): a
      jax or numpy array, a scalar, or a list or tuple of them.
    eccentricity: e, the same kinds, broadcastable against mean_anomaly.

  Returns:
    (sin E, cos E), each of the broadcast shape and the promoted float dtype.
    Elements with e < 0, e >= 1, or a NaN/inf input are NaN in both outputs.

  Raises:
    TypeError: an input of complex, bool or other non-real dtype, or one that
      is not an array, a number, or a list or tuple of them.
    ValueError: shapes that do not broadcast.
  """
  m, e, dtype = _prepare("solve", mean_anomaly, eccentricity)
  sin_e, cos_e = _call(m, e, False)
  return sin_e.astype(dtype), cos_e.astype(dtype)


def true_anomaly(mean_anomaly, eccentricity):
  """The true anomaly f of Kepler's equation M = E - e sin E.

  tan(f/2) = sqrt((1 + e) / (1 - e)) tan(E/2). Same arguments, dtype rules,
  broadcasting and NaN behaviour as `solve`.

  Returns:
    (sin f, cos f).
  """
  m, e, dtype = _prepare("true_anomaly", mean_anomaly, eccentricity)
  sin_f, cos_f = _call(m, e, True)
  return sin_f.astype(dtype), cos_f.astype(dtype)
