"""The transit + radial-velocity model of examples/transit_rv_fit.py.

`predict`: the flux observed with Kepler's long-cadence exposures and the
star's radial velocity, from the 11 fitted parameters (`TRUTH`'s keys), on a
`Backend`: `kepler_backend()` (`kepler.transit`, one kernel call for the
light curve with its exact exposure integral and every gradient, one for the
radial velocity) or `jaxoplanet_backend()` (jaxoplanet 0.2's System light
curve, its `integrate` with a number of samples for the exposures). The
example's fit uses `KEPLER`; its timing and benchmarks/fit_benchmark.py
compare the backends on the same model. `observation_times` lays out the
simulated observations.

`predict_on_ops` is the same model without exposures written on two lower
ops (`Ops`: a true anomaly and a light curve of separations), the glue a
user writes around `kepler.true_anomaly` and `kepler.limb_dark.light_curve`
(`OURS`) or jaxoplanet's core functions (`jaxoplanet_ops()`):
benchmarks/fit_benchmark.py and gpu_benchmark.py time the ops inside it.
Needs jax and kepler only (jaxoplanet for its backend and ops).
"""

import collections
import math

import jax
import jax.numpy as jnp
import numpy as np

import kepler
from kepler import limb_dark
from kepler import transit

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


def predict_on_ops(params, t_lc, t_rv, ops=OURS):
  """(flux - 1 at the times t_lc, the star's radial velocity in m/s at t_rv).

  params: a dict with the keys of TRUTH (scalars). The orbit: the mean
  anomaly from (P, t0), the true anomaly f from `ops.true_anomaly` (one call
  for the times of both), the planet's projected separation from the star's
  centre in stellar radii (the flux is 0 while the planet is behind the
  star), and the limb-darkened light curve from `ops.light_curve`; the
  radial velocity is `radial_velocity`'s. Times in days. No exposure
  integral: the flux at the times themselves.
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


# ---------------------------------------------------------------------------
# The model on kepler.transit (or jaxoplanet's System): what the example fits.

EXPOSURE = 29.4 / 1440  # Kepler's long cadence (and exposure), days
# The simulated observations: every long cadence within LC_WINDOW days of a
# mid-transit of the epochs LC_TRANSITS (a quarter of Kepler photometry
# around its transits), and RV_POINTS radial velocities over RV_SPAN days.
LC_TRANSITS = tuple(range(-10, 10))
LC_WINDOW = 0.25
RV_POINTS = 40
RV_SPAN = (0.0, 60.0)

Backend = collections.namedtuple("Backend", ["name", "light_curve", "radial_velocity"])
Backend.__doc__ = """light_curve(elements, u, t) -> flux - 1 as observed (its exposures its
own); radial_velocity(elements, t) -> the star's velocity, gamma excluded."""


def elements(params):
  """The orbit of the fitted parameters in batman's and jaxoplanet's terms:
  period, t0 (mid-transit), a (a/R*), b, r, ecc, omega (the planet's
  argument of periastron, radians), K. A circular orbit (h = k = 0) gets
  omega = pi/2, with finite gradients; e is capped at 0.99 (the prior stops
  at E_MAX, but a sampler's trial step may not)."""
  h, k = params["sqrt_e_cosw"], params["sqrt_e_sinw"]
  ecc = h**2 + k**2
  circular = ecc == 0
  omega = jnp.arctan2(jnp.where(circular, 1.0, k), jnp.where(circular, 0.0, h))
  return {"period": params["period"], "t0": params["t0"], "a": params["a_rs"], "b": params["b"],
          "r": params["r"], "ecc": jnp.minimum(ecc, 0.99), "omega": omega, "K": params["k_rv"]}


def kepler_backend(exposure_time=EXPOSURE):
  """`kepler.transit`: the light curve averaged exactly over exposures of
  exposure_time days (0: none), and the radial velocity."""

  def light_curve(el, u, t):
    return transit.light_curve(t, period=el["period"], t0=el["t0"], a=el["a"], b=el["b"],
                               r=el["r"], ecc=el["ecc"], omega=el["omega"], u=u,
                               exposure_time=exposure_time)

  def radial_velocity(el, t):
    return transit.radial_velocity(t, period=el["period"], t0=el["t0"], K=el["K"],
                                   ecc=el["ecc"], omega=el["omega"])

  name = "kepler" if exposure_time else "kepler, no exposures"
  return Backend(name, light_curve, radial_velocity)


def jaxoplanet_backend(exposure_time=EXPOSURE, samples=None):
  """jaxoplanet 0.2's System (a star of unit radius whose mass gives a/R* at
  the period, by its own gravitational constant): its light curve averaged
  over the exposures by `integrate` with `samples` points (None or
  exposure_time 0: not averaged), its body's radial velocity."""
  # pylint: disable=g-import-not-at-top
  from jaxoplanet import constants
  from jaxoplanet.light_curves import limb_dark as jaxoplanet_light_curve
  from jaxoplanet.light_curves import transforms
  from jaxoplanet.orbits import keplerian
  # pylint: enable=g-import-not-at-top

  def body(el):
    mass = 4 * math.pi**2 * el["a"]**3 / (constants.G * el["period"]**2)
    return keplerian.System(keplerian.Central(radius=1.0, mass=mass), bodies=[keplerian.Body(
        period=el["period"], time_transit=el["t0"], impact_param=el["b"], radius=el["r"],
        eccentricity=el["ecc"], omega_peri=el["omega"], radial_velocity_semiamplitude=el["K"])])

  integrated = bool(exposure_time and samples)

  def light_curve(el, u, t):
    fn = jaxoplanet_light_curve.light_curve(body(el), u)
    if integrated:
      fn = transforms.integrate(fn, exposure_time=exposure_time, num_samples=samples)
    return fn(t)[..., 0]

  def radial_velocity(el, t):
    return body(el).bodies[0].radial_velocity(t)

  name = f"jaxoplanet, {samples} samples" if integrated else "jaxoplanet, no exposures"
  return Backend(name, light_curve, radial_velocity)


KEPLER = kepler_backend()


def observed_flux(params, t_lc, backend=KEPLER):
  """flux - 1 at the times t_lc as `backend` observes it. params: a dict
  with the keys of TRUTH."""
  return backend.light_curve(elements(params), limb_darkening(params["q1"], params["q2"]), t_lc)


def predict(params, t_lc, t_rv, backend=KEPLER):
  """(observed_flux at t_lc, the star's radial velocity in m/s at t_rv),
  the orbit's elements formed once for both."""
  el = elements(params)
  u = limb_darkening(params["q1"], params["q2"])
  return (backend.light_curve(el, u, t_lc),
          backend.radial_velocity(el, t_rv) + params["gamma"])


def fewest_samples(params, t_lc, limit=1e-6, most=1025):
  """(s, error): the fewest samples s of jaxoplanet's `integrate` (odd,
  doubling: 3, 5, 9, 17, ...) whose light curve at `params` is within
  `limit` of the exact exposure mean (`KEPLER`) at every time of t_lc;
  (None, the error at `most`) if none up to `most` is."""
  exact = np.asarray(jax.jit(lambda p: observed_flux(p, t_lc))(params))
  s = 3
  while True:
    backend = jaxoplanet_backend(EXPOSURE, s)
    flux = jax.jit(lambda p, backend=backend: observed_flux(p, t_lc, backend))(params)
    error = float(np.max(np.abs(np.asarray(flux) - exact)))
    if error <= limit or s >= most:
      return (s if error <= limit else None), error
    s = 2 * s - 1


def observation_times(truth, seed):
  """(t_lc, t_rv): the long cadences (every EXPOSURE days from the first
  window's start) within LC_WINDOW of the mid-transits of LC_TRANSITS, and
  RV_POINTS times drawn uniformly over RV_SPAN (numpy, seeded)."""
  centres = truth["t0"] + np.asarray(LC_TRANSITS) * truth["period"]
  start = centres[0] - LC_WINDOW
  grid = start + EXPOSURE * np.arange(int((centres[-1] + LC_WINDOW - start) / EXPOSURE) + 1)
  near = np.min(np.abs(grid[:, None] - centres[None, :]), axis=1) <= LC_WINDOW
  rng = np.random.default_rng(seed)
  return grid[near], np.sort(rng.uniform(*RV_SPAN, RV_POINTS))
