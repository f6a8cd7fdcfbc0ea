"""The transit + radial-velocity model of examples/transit_rv_fit.py, on swappable ops.

`predict` (and its radial velocity alone, `radial_velocity`) is written once
on a pair of ops (`Ops`: a true anomaly and a limb-darkened light curve), so
that the same model runs on kepler's ops (`OURS`) and on jaxoplanet's
(`jaxoplanet_ops()`): the example's fit and timing, and
benchmarks/fit_benchmark.py and gpu_benchmark.py, use it. Needs jax and
kepler only (jaxoplanet for `jaxoplanet_ops`).
"""

import collections
import math

import jax.numpy as jnp

import kepler
from kepler import limb_dark

Ops = collections.namedtuple("Ops", ["name", "true_anomaly", "light_curve"])
Ops.__doc__ = """A true anomaly (M, e) -> (sin f, cos f) and a light curve (u, b, r) -> flux - 1."""

# The simulated planet: the parameters of `predict` (the order of the
# example's PARAMS), true values.
_E_TRUE, _OMEGA_TRUE = 0.18, math.radians(65.0)
TRUTH = {
    "period": 4.2351,
    "t0": 12.4718,
    "r": 0.085,
    "b": 0.45,
    "a_rs": 11.8,
    "sqrt_e_cosw": math.sqrt(_E_TRUE) * math.cos(_OMEGA_TRUE),
    "sqrt_e_sinw": math.sqrt(_E_TRUE) * math.sin(_OMEGA_TRUE),
    "q1": 0.36,
    "q2": 0.32,
    "k_rv": 38.0,
    "gamma": -12.0,
}

OURS = Ops("kepler", kepler.true_anomaly, limb_dark.light_curve)


def jaxoplanet_ops():
  """The same two ops from jaxoplanet 0.2 (imported here: only the comparison needs it)."""
  # jaxoplanet.core exports the two functions (`kepler` is the true anomaly).
  from jaxoplanet import core  # pylint: disable=g-import-not-at-top
  return Ops("jaxoplanet", core.kepler, core.light_curve)


def limb_darkening(q1, q2):
  """Kipping's (2013) (q1, q2) in [0, 1]^2 -> the quadratic law's (u1, u2), as a jnp array."""
  sqrt_q1 = jnp.sqrt(q1)
  return jnp.stack([2 * sqrt_q1 * q2, sqrt_q1 * (1 - 2 * q2)])


def _orbit(params, t, ops):
  """The orbit at the times t: (e, cos w, sin w, cos f, cos(w + f), sin(w + f)).

  The mean anomaly from (P, t0), the true anomaly f from `ops.true_anomaly`
  (one call for every time). Reads period, t0, sqrt_e_cosw and sqrt_e_sinw.
  """
  h, k = params["sqrt_e_cosw"], params["sqrt_e_sinw"]
  ecc = h**2 + k**2
  # cos w and sin w from (h, k) = sqrt(e) (cos w, sin w). A circular orbit
  # has no periastron: w = pi/2 there, which puts periastron at mid-transit
  # (the where()s keep its value and gradient finite).
  circular = ecc == 0
  sqrt_e = jnp.sqrt(jnp.where(circular, 1.0, ecc))
  cos_w = jnp.where(circular, 0.0, h / sqrt_e)
  sin_w = jnp.where(circular, 1.0, k / sqrt_e)
  # e is capped below 1 inside the orbit only, so that no op sees e >= 1; the
  # prior (`numpyro_model`) is zero beyond E_MAX anyway.
  ecc = jnp.minimum(ecc, 0.99)

  # t0 is the mid-transit time: the true anomaly is pi/2 - w there. Its mean
  # anomaly, through the eccentric anomaly E0 (tan(E/2) = sqrt((1-e)/(1+e)) tan(f/2)).
  f0 = jnp.pi / 2 - jnp.arctan2(sin_w, cos_w)
  e0 = 2 * jnp.arctan2(jnp.sqrt(1 - ecc) * jnp.sin(f0 / 2), jnp.sqrt(1 + ecc) * jnp.cos(f0 / 2))
  m0 = e0 - ecc * jnp.sin(e0)

  mean_anomaly = 2 * jnp.pi * (t - params["t0"]) / params["period"] + m0
  sin_f, cos_f = ops.true_anomaly(mean_anomaly, jnp.full_like(mean_anomaly, ecc))
  cos_wf = cos_w * cos_f - sin_w * sin_f  # cos(w + f)
  sin_wf = sin_w * cos_f + cos_w * sin_f  # sin(w + f): > 0 with the planet in front
  return ecc, cos_w, sin_w, cos_f, cos_wf, sin_wf


def _velocity(params, ecc, cos_w, cos_wf):
  return params["k_rv"] * (cos_wf + ecc * cos_w) + params["gamma"]


def radial_velocity(params, t, ops=OURS):
  """The star's radial velocity in m/s at the times t (days):
  K (cos(w + f) + e cos w) + gamma, as `predict` computes it. params: a dict
  with at least period, t0, sqrt_e_cosw, sqrt_e_sinw, k_rv and gamma."""
  ecc, cos_w, _, _, cos_wf, _ = _orbit(params, t, ops)
  return _velocity(params, ecc, cos_w, cos_wf)


def predict(params, t_lc, t_rv, ops=OURS):
  """(flux - 1 at the times t_lc, the star's radial velocity in m/s at t_rv).

  params: a dict with the keys of TRUTH (scalars). The orbit: the mean
  anomaly from (P, t0), the true anomaly f from `ops.true_anomaly` (one call
  for the times of both), the planet's projected separation from the star's
  centre in stellar radii (the flux is 0 while the planet is behind the
  star), and the limb-darkened light curve from `ops.light_curve`; the
  radial velocity is `radial_velocity`'s. Times in days.
  """
  n = t_lc.shape[0]
  ecc, cos_w, sin_w, cos_f, cos_wf, sin_wf = _orbit(params, jnp.concatenate([t_lc, t_rv]), ops)

  # The light curve. b is the impact parameter at mid-transit,
  # b = (a/R*) cos i (1 - e^2) / (1 + e sin w), which gives cos i.
  one_minus_e2 = (1 - ecc) * (1 + ecc)
  cos_i = params["b"] * (1 + ecc * sin_w) / (params["a_rs"] * one_minus_e2)
  dist = params["a_rs"] * one_minus_e2 / (1 + ecc * cos_f[:n])
  sep = dist * jnp.sqrt(cos_wf[:n]**2 + (sin_wf[:n] * cos_i) ** 2)
  u = limb_darkening(params["q1"], params["q2"])
  flux = jnp.where(sin_wf[:n] > 0, ops.light_curve(u, sep, params["r"]), 0.0)
  return flux, _velocity(params, ecc, cos_w, cos_wf[n:])
