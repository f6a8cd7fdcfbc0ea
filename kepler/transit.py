"""The transit model, time to flux: kepler.transit.light_curve and
kepler.transit.radial_velocity.

A planet on a Keplerian orbit in front of a limb-darkened star: for each
time, the mean anomaly, Kepler's equation, the sky separation, the light
curve of kepler.limb_dark (any of its laws) and, for exposures of finite
length, the flux averaged over the exposure, integrated exactly (within
1e-9, 2.5e-10 the worst measured; docs/transit_model.md); with the first
derivatives in every parameter from the same handler call
(jaxlib_ext/transit/). The conventions are batman's and jaxoplanet's
(docs/transit_model.md derives them).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kepler import _ffi
from kepler import kepler_solve
from kepler import limb_dark
from kepler._ffi import differences
from kepler._ffi import elementwise
from kepler._ffi import partition

__all__ = ["light_curve", "radial_velocity"]

_TARGET = _ffi.target("transit")
# The orbital parameters of the kernel's row, in its order
# (jaxlib_ext/transit/orbit.h, Param), before the law's coefficients.
_PARAMS = ("period", "t0", "a", "b_or_inc", "r", "ecc", "omega")
if len(_PARAMS) != _ffi.constant("TRANSIT_PARAM_COUNT"):
  raise ImportError("kepler.transit: the compiled module's parameters are not this package's")
_T0 = _PARAMS.index("t0")


def _attrs(law, geometry):
  # Sorted by name, as XLA passes them.
  return (("geometry", np.int32(geometry)), ("law", np.int32(law)))


def _call(row, t, exposure, law, geometry, derivatives):
  """F - 1 and, with `derivatives`, (dF/d row_j for every row entry with a
  derivative, in row order; dF/dT) from one call of the handler."""
  if not derivatives:
    return partition.call(_TARGET, (t, exposure), shared=(row,), n_results=1,
                          attrs=_attrs(law, geometry))[0], (), None
  n_u = row.shape[-1] - len(_PARAMS)
  n_du = n_u - limb_dark.first_differentiated(law, n_u)
  out = partition.call(_TARGET, (t, exposure), shared=(row,),
                       n_results=1 + len(_PARAMS) + 1 + n_du, attrs=_attrs(law, geometry))
  d_row = tuple(out[1:1 + len(_PARAMS)]) + tuple(out[2 + len(_PARAMS):])
  return out[0], d_row, out[1 + len(_PARAMS)]


def _row_tangent_index(law, n_row):
  """The row entries with a derivative, in the order _call returns them."""
  return list(range(len(_PARAMS))) + list(range(_first_differentiated_u(law, n_row), n_row))


def _first_differentiated_u(law, n_row):
  """The row index of the first of the law's coefficients with a derivative."""
  return len(_PARAMS) + limb_dark.first_differentiated(law, n_row - len(_PARAMS))


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4))
def _kernel(row, t, exposure, law, geometry):
  """(F - 1, dF/d row entries, dF/dT) in one call; differentiable once more
  by central differences of these first derivatives."""
  return _call(row, t, exposure, law, geometry, True)


@_kernel.defjvp
def _kernel_jvp(law, geometry, primals, tangents):
  row, t, exposure = primals
  d_row, d_t, d_exposure = tangents
  out = _kernel(row, t, exposure, law, geometry)

  # Second derivatives: central differences of every output
  # (kepler/_ffi/differences.py); F depends on t through t - t0 alone.
  kernel = lambda rr, tt, xx: _kernel(rr, tt, xx, law, geometry)
  step = differences.fd_step
  d_by_t = differences.difference(lambda x: kernel(row, x, exposure), t, step(t))
  tangent = jax.tree_util.tree_map(lambda x: x * d_t, d_by_t)
  d_by_x = differences.difference(lambda x: kernel(row, t, x), exposure,
                                  1e-6 * jnp.maximum(exposure, 1e-3), lowest=0.0)
  tangent = jax.tree_util.tree_map(lambda s, x: s + x * d_exposure, tangent, d_by_x)
  for j in _row_tangent_index(law, row.shape[0]):
    # The period, a, b or i, r and e are >= 0.
    lowest = 0.0 if _PARAMS[j:j + 1] in (("period",), ("a",), ("b_or_inc",), ("r",), ("ecc",)) \
        else None
    d_j = differences.entry_difference(lambda v: kernel(v, t, exposure), row, j,
                                       step(row[j]), lowest)
    tangent = jax.tree_util.tree_map(lambda s, x: s + x * d_row[j], tangent, d_j)
  return out, tangent


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4))
def _light_curve(row, t, exposure, law, geometry):
  return _call(row, t, exposure, law, geometry, False)[0]


def _light_curve_jvp(law, geometry, primals, tangents):
  row, t, exposure = primals
  d_row, d_t, d_exposure = tangents
  flux, by_row, by_exposure = _kernel(row, t, exposure, law, geometry)
  tangent = jnp.zeros_like(flux)
  if not differences.is_zero(d_row):
    # A dot over the row's entries (row is 1-D here; vmap hides a batch), at
    # full precision (a float32 dot on a GPU defaults to TF32, ~5e-4), its
    # tangents taken by slices (a gather's transpose is a scatter).
    first_u = _first_differentiated_u(law, row.shape[0])
    d_entries = jnp.concatenate([d_row[:len(_PARAMS)], d_row[first_u:]])
    tangent = tangent + jnp.tensordot(d_entries, jnp.stack(by_row), axes=1,
                                      precision=jax.lax.Precision.HIGHEST)
  if not differences.is_zero(d_t):
    tangent = tangent - by_row[_T0] * d_t
  if not differences.is_zero(d_exposure):
    tangent = tangent + by_exposure * d_exposure
  return flux, tangent


_light_curve.defjvp(_light_curve_jvp, symbolic_zeros=True)


def _scalar(where, name, value):
  x = elementwise.as_array(where, name, value)
  if np.ndim(x) != 0:
    raise ValueError(f"kepler.{where}: {name} must be a scalar, got shape {np.shape(x)}; "
                     "for many parameter sets, jax.vmap over them (one kernel call)")
  return x


def light_curve(t, *, period, t0, a, r, u, b=None, inc=None, ecc=0.0, omega=0.0,
                law="polynomial", mu=None, exposure_time=0.0):
  """The relative flux minus one of a star transited by a planet on a
  Keplerian orbit, at times t, averaged over exposures.

  Args:
    t: the times, an array (any shape); `period`, `t0` and `exposure_time`
      in the same unit.
    period: the orbital period (> 0).
    t0: a time of mid-transit (inferior conjunction: the planet's true
      anomaly there is pi/2 - omega).
    a: the semi-major axis in stellar radii (> 0).
    r: the planet's radius in stellar radii (>= 0).
    u: the limb-darkening law's coefficients, as kepler.limb_dark.light_curve
      takes them for `law` (and `mu`, the tabulated law's grid).
    b: the impact parameter at conjunction, b = a cos(i) (1 - e^2) / (1 + e
      sin(omega)), in [0, a (1 - e^2) / (1 + e sin(omega))]; or
    inc: the inclination in radians (exactly one of b and inc).
    ecc: the eccentricity, in [0, 1).
    omega: the planet's argument of periastron in radians (batman's `w` in
      radians; jaxoplanet's `omega_peri`).
    law, mu: the law's name and the tabulated law's grid
      (kepler.limb_dark.light_curve); static.
    exposure_time: T >= 0, a scalar or an array broadcasting with t: the
      flux averaged over [t - T/2, t + T/2] (0: at t itself).

  Every parameter but t and exposure_time is a scalar (an array of shape (),
  a number or a tracer); for many parameter sets (chains, planets), jax.vmap
  over them: the whole batch is one call of the handler.

  Returns:
    F - 1 (0 out of transit, negative in transit), of the broadcast shape of
    t and exposure_time and the promoted float dtype of all the arguments.
    Differentiable in every argument (first derivatives from the handler's
    same pass; higher orders by central differences of them).

  NaN where a parameter is outside its domain (period or a <= 0, ecc
  outside [0, 1), b < 0 or beyond the orbit, r < 0, NaN or inf anywhere, a
  law the light curve refuses), where t is NaN or inf, where T < 0 or NaN,
  and, for T > 0, where the orbit's periastron a (1 - ecc) is not beyond
  1 + r (an orbit through the star has no contact times).

  Raises:
    TypeError: an argument of complex, bool or other non-real dtype.
    ValueError: neither or both of b and inc; a parameter that is not a
      scalar; t and exposure_time shapes that do not broadcast; the law's
      errors of kepler.limb_dark.light_curve.
  """
  where = "transit.light_curve"
  if (b is None) == (inc is None):
    raise ValueError(f"kepler.{where}: give exactly one of b (the impact parameter) and inc "
                     "(the inclination)")
  u = limb_dark.check_law(where, law, u, mu)
  geometry = 0 if b is not None else 1
  scalars = (("period", period), ("t0", t0), ("a", a), ("b" if inc is None else "inc",
             b if inc is None else inc), ("r", r), ("ecc", ecc), ("omega", omega))
  scalars = tuple((name, _scalar(where, name, x)) for name, x in scalars)
  (t, exposure), others, dtype = elementwise.prepare(
      where, (("t", t), ("exposure_time", exposure_time)), others=scalars + (("u", u),))
  u = limb_dark.kernel_coefficients(where, law, others[-1], mu)
  row = jnp.concatenate([jnp.stack(others[:-1]), u])
  flux = _light_curve(row, t, exposure, limb_dark.law_index(law), geometry)
  return flux.astype(dtype)


def radial_velocity(t, *, period, t0, K, ecc=0.0, omega=0.0):
  """The star's radial velocity (positive receding) at times t, for a
  planet of the same orbit as light_curve's: K (cos(omega + f) + e cos
  omega), f the planet's true anomaly, omega the planet's argument of
  periastron, t0 a time of mid-transit. At a circular orbit's transit it
  falls through zero (the star recedes before, approaches after).

  Args:
    t: the times (any shape); period and t0 in the same unit.
    period, t0, K, ecc, omega: scalars (jax.vmap for many); K the
      semi-amplitude, in the velocity's unit.

  Returns:
    The velocity, of t's shape and the promoted float dtype; NaN where
    period <= 0 or ecc is outside [0, 1). Differentiable in every argument
    (through kepler.true_anomaly's derivatives).
  """
  where = "transit.radial_velocity"
  scalars = (("period", period), ("t0", t0), ("K", K), ("ecc", ecc), ("omega", omega))
  scalars = tuple((name, _scalar(where, name, x)) for name, x in scalars)
  (t,), (period, t0, K, ecc, omega), dtype = elementwise.prepare(
      where, (("t", t),), others=scalars)
  period = jnp.where(period > 0, period, jnp.nan)
  # The mean anomaly at conjunction, where f = pi/2 - omega.
  half = jnp.pi / 4 - omega / 2
  e_c = 2 * jnp.arctan2(jnp.sqrt(1 - ecc) * jnp.sin(half), jnp.sqrt(1 + ecc) * jnp.cos(half))
  mean = e_c - ecc * jnp.sin(e_c) + 2 * jnp.pi * (t - t0) / period
  sin_f, cos_f = kepler_solve.true_anomaly(mean, ecc)
  cos_w, sin_w = jnp.cos(omega), jnp.sin(omega)
  velocity = K * (cos_w * cos_f - sin_w * sin_f + ecc * cos_w)
  return velocity.astype(dtype)
