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
from kepler._ffi import partition

_TARGET = _ffi.target("kepler_solve")


def _call(true_anomaly):
  def call(m, e):
    # Partitioned elementwise on many devices (kepler/_ffi/partition.py).
    return tuple(partition.call(_TARGET, (m, e), out_trailing=((), ()),
                                 attrs=(("true_anomaly", true_anomaly),)))
  return call


@jax.custom_jvp
def _eccentric(m, e):
  return _call(False)(m, e)


@_eccentric.defjvp
def _eccentric_jvp(primals, tangents):
  m, e = primals
  dm, de = tangents
  sin_e, cos_e = _eccentric(m, e)
  # Implicit differentiation of M = E - e sin E.
  d_ecc_anom = (dm + sin_e * de) / _one_minus_e_cos(e, sin_e, cos_e)
  return (sin_e, cos_e), (cos_e * d_ecc_anom, -sin_e * d_ecc_anom)


@jax.custom_jvp
def _true(m, e):
  return _call(True)(m, e)


@_true.defjvp
def _true_jvp(primals, tangents):
  m, e = primals
  dm, de = tangents
  sin_f, cos_f = _true(m, e)
  # 1 - e^2 and 1 + e cos f without cancellation as e -> 1 (and cos f -> -1).
  one_minus_e2 = (1 - e) * (1 + e)
  ecos = _one_plus_e_cos(e, sin_f, cos_f)
  # df/dM = (1 + e cos f)^2 / (1 - e^2)^(3/2); df/de = sin f (2 + e cos f) / (1 - e^2).
  d_true_anom = (dm * ecos * ecos / (one_minus_e2 * jnp.sqrt(one_minus_e2))
                 + de * sin_f * (1 + ecos) / one_minus_e2)
  return (sin_f, cos_f), (cos_f * d_true_anom, -sin_f * d_true_anom)


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
  sin_e, cos_e = _eccentric(m, e)
  return sin_e.astype(dtype), cos_e.astype(dtype)


def true_anomaly(mean_anomaly, eccentricity):
  """The true anomaly f of Kepler's equation M = E - e sin E.

  tan(f/2) = sqrt((1 + e) / (1 - e)) tan(E/2). Same arguments, dtype rules,
  broadcasting and NaN behaviour as `solve`.

  Returns:
    (sin f, cos f).
  """
  m, e, dtype = _prepare("true_anomaly", mean_anomaly, eccentricity)
  sin_f, cos_f = _true(m, e)
  return sin_f.astype(dtype), cos_f.astype(dtype)
