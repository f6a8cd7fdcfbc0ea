"""Agreement of kepler.transit with jaxoplanet 0.2 (the transit light curve
and the star's radial velocity) and batman 2.5 (the transit light curve, with
and without exposures, and the secondary eclipse) on the same parameters: the conventions
(docs/transit_model.md) carry over.

Both are benchmark-only packages locked for Python 3.12
(tools/requirements/requirements_bench_lock_3_12.txt), so this target is
tagged manual and run by tools/test_all.sh in the Python 3.12 leg. Their own
accuracy is not assumed: tests/transit_test.py holds ours to an mpmath orbit
and an adaptive exposure integral; this only shows that the codes agree, to
the peers' own accuracy.
"""

import importlib.util
import sys
import types
import warnings

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

# batman/openmp.py (consulted by TransitModel for nthreads > 1 only) needs
# distutils, which Python 3.12 lacks without setuptools: a stand-in that
# finds no OpenMP.
if importlib.util.find_spec("distutils") is None:
  sys.modules["batman.openmp"] = types.SimpleNamespace(detect=lambda: False)
with warnings.catch_warnings():  # batman/tests.py's docstrings
  warnings.simplefilter("ignore", SyntaxWarning)
  import batman  # pylint: disable=g-import-not-at-top
from jaxoplanet.light_curves import limb_dark as jaxoplanet_lc  # pylint: disable=g-import-not-at-top
from jaxoplanet.orbits import keplerian  # pylint: disable=g-import-not-at-top
from kepler import transit  # pylint: disable=g-import-not-at-top

U = (0.4, 0.26)


def _orbits(seed, count):
  """Orbits drawn (seeded): P in [1, 20] days, e in [0, 0.9] (every other
  one circular), omega any, r in [0.02, 0.2], b in [0, 1 + r)."""
  rng = np.random.default_rng(seed)
  out = []
  for k in range(count):
    r = rng.uniform(0.02, 0.2)
    out.append(dict(period=rng.uniform(1, 20), t0=rng.uniform(-1, 1), b=rng.uniform(0, 1 + r),
                    r=r, ecc=rng.uniform(0, 0.9) if k % 2 else 0.0,
                    omega=rng.uniform(-np.pi, np.pi)))
  return out


def _jaxoplanet_body(p, K=10.0):
  """jaxoplanet's system for p (a Sun-like star: a from the period) and the
  semi-major axis in stellar radii."""
  system = keplerian.System(keplerian.Central(), bodies=[keplerian.Body(
      period=p["period"], time_transit=p["t0"], impact_param=p["b"], radius=p["r"],
      eccentricity=p["ecc"], omega_peri=p["omega"], radial_velocity_semiamplitude=K)])
  body = system.bodies[0]
  return system, body, float(body.semimajor / body.central_radius)


def _times(p, a, rng, count):
  """Times within two half-durations of conjunctions of several epochs."""
  half = (1 + p["r"]) * p["period"] * np.sqrt(1 - p["ecc"]**2) / (
      2 * np.pi * a * (1 + p["ecc"] * np.sin(p["omega"])))
  return (p["t0"] + rng.integers(-2, 3, count) * p["period"] +
          rng.uniform(-2, 2, count) * half)


class JaxoplanetTest(absltest.TestCase):

  def test_light_curve_and_radial_velocity(self):
    rng = np.random.default_rng(1)
    for p in _orbits(2, 10):
      system, body, a = _jaxoplanet_body(p)
      t = _times(p, a, rng, 200)
      theirs = np.asarray(jaxoplanet_lc.light_curve(system, jnp.array(U))(t)).reshape(-1)
      ours = transit.light_curve(t, period=p["period"], t0=p["t0"], a=a, b=p["b"], r=p["r"],
                                 ecc=p["ecc"], omega=p["omega"], u=U)
      self.assertTrue(np.any(theirs < 0))
      np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
      rv = transit.radial_velocity(t, period=p["period"], t0=p["t0"], K=10.0, ecc=p["ecc"],
                                   omega=p["omega"])
      np.testing.assert_allclose(rv, np.asarray(body.radial_velocity(jnp.asarray(t))),
                                 rtol=0, atol=1e-10)


def _batman(p, a, t, law, u, exposure=0.0, samples=1):
  params = batman.TransitParams()
  params.t0, params.per, params.rp, params.a = p["t0"], p["period"], p["r"], a
  cos_i = p["b"] * (1 + p["ecc"] * np.sin(p["omega"])) / (a * (1 - p["ecc"]**2))
  params.inc = np.degrees(np.arccos(cos_i))
  params.ecc, params.w = p["ecc"], np.degrees(p["omega"])
  params.limb_dark, params.u = law, list(u)
  model = batman.TransitModel(params, np.asarray(t, np.float64), supersample_factor=samples,
                              exp_time=exposure)
  return model.light_curve(params) - 1


class BatmanTest(absltest.TestCase):

  def test_laws(self):
    """batman's quadratic law is analytic (6e-9 apart on circular orbits,
    measured); its power-2 and nonlinear laws are integrated to its default
    max_err (1 ppm); on eccentric orbits its Kepler solver stops short of
    double precision (1.8e-7 apart at e = 0.63, measured)."""
    rng = np.random.default_rng(3)
    for law, batman_law, u, bound in (("polynomial", "quadratic", U, 2e-8),
                                      ("power2", "power2", (0.6, 0.6), 2e-6),
                                      ("nonlinear", "nonlinear", (0.5, 0.1, 0.1, -0.1), 2e-6)):
      for p in _orbits(4, 6):
        a = 5 + 25 * rng.uniform()
        t = _times(p, a, rng, 300)
        ours = transit.light_curve(t, period=p["period"], t0=p["t0"], a=a, b=p["b"], r=p["r"],
                                   ecc=p["ecc"], omega=p["omega"], u=u, law=law)
        np.testing.assert_allclose(ours, _batman(p, a, t, batman_law, u), rtol=0,
                                   atol=bound if p["ecc"] == 0 else max(bound, 5e-7),
                                   err_msg=law)

  def test_exposures(self):
    """batman's supersampling (equal weights, its ends included: first
    order) with 2001 samples against the exact mean: within its error (3.1e-6
    measured); an exposure not centred on t would be off by the depth."""
    rng = np.random.default_rng(5)
    for p in _orbits(6, 4):
      a = 8 + 20 * rng.uniform()
      t = _times(p, a, rng, 100)
      exposure = 0.0204
      ours = transit.light_curve(t, period=p["period"], t0=p["t0"], a=a, b=p["b"], r=p["r"],
                                 ecc=p["ecc"], omega=p["omega"], u=U, exposure_time=exposure)
      theirs = _batman(p, a, t, "quadratic", U, exposure=exposure, samples=2001)
      np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)

  def test_secondary_eclipse(self):
    """batman's secondary eclipse (the uniform disks' exact overlap, its
    flux 1 + fp out of eclipse) against ours with the planet's light alone
    (planet_flux = fp, no phase variation): the same eclipse time from t0
    (its get_t_secondary, our eclipse_time) and the same depth and shape,
    up to its Kepler solver on eccentric orbits."""
    rng = np.random.default_rng(7)
    fp = 1e-3
    for p in _orbits(8, 8):
      a = 3 + 20 * rng.uniform()
      params = batman.TransitParams()
      params.t0, params.per, params.rp, params.a = p["t0"], p["period"], p["r"], a
      cos_i = p["b"] * (1 + p["ecc"] * np.sin(p["omega"])) / (a * (1 - p["ecc"]**2))
      params.inc = np.degrees(np.arccos(cos_i))
      params.ecc, params.w = p["ecc"], np.degrees(p["omega"])
      params.limb_dark, params.u, params.fp = "uniform", [], fp
      probe = batman.TransitModel(params, np.zeros(1))
      params.t_secondary = probe.get_t_secondary(params)
      apart = float(transit.eclipse_time(p["period"], p["t0"], p["ecc"], p["omega"])) - (
          params.t_secondary)
      # (the same eclipse, or one of another epoch)
      self.assertAlmostEqual(apart - p["period"] * round(apart / p["period"]), 0,
                             delta=1e-6 * p["period"])
      b_eclipse = p["b"] * (1 + p["ecc"] * np.sin(p["omega"])) / (1 - p["ecc"] * np.sin(p["omega"]))
      half = (1 + p["r"]) * p["period"] * np.sqrt(1 - p["ecc"]**2) / (
          2 * np.pi * a * (1 - p["ecc"] * np.sin(p["omega"])))
      t = (params.t_secondary + rng.integers(-2, 3, 300) * p["period"] +
           rng.uniform(-2, 2, 300) * half)
      theirs = batman.TransitModel(params, t, transittype="secondary").light_curve(params) - 1
      ours = transit.light_curve(t, period=p["period"], t0=p["t0"], a=a, b=p["b"], r=p["r"],
                                 ecc=p["ecc"], omega=p["omega"], u=U, planet_flux=fp)
      if b_eclipse < 1 + p["r"]:
        self.assertTrue(np.any(theirs < fp * (1 - 1e-3)), p)
      np.testing.assert_allclose(ours, theirs, rtol=0,
                                 atol=1e-12 if p["ecc"] == 0 else 1e-8, err_msg=str(p))


if __name__ == "__main__":
  absltest.main()
