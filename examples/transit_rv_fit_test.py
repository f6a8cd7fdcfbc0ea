"""Tests of examples/transit_rv_fit.py: its model's pieces, and its last run's results.

    python examples/transit_rv_fit_test.py                 # after the example has run
    KEPLER_DEMO_PNG=/path/to/out.png python examples/transit_rv_fit_test.py

Needs the demo's packages (tools/requirements/requirements_demo_lock_3_12.txt)
and a kepler-jax install; tools/demo.sh runs it right after the demo. The run's
results are the PNG that the example wrote and the JSON beside it
(KEPLER_DEMO_PNG; by default kepler_demo_fit.png at the repository root, where
tools/demo.sh writes it). Without them the result tests fail, they never skip:
run the example first. Takes seconds: nothing here samples.
"""

import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import transit_rv_fit as fit  # pylint: disable=g-import-not-at-top,wrong-import-position

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top,wrong-import-position
import numpy as np  # pylint: disable=g-import-not-at-top,wrong-import-position

import kepler  # pylint: disable=g-import-not-at-top,wrong-import-position

PNG = os.environ.get("KEPLER_DEMO_PNG") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "kepler_demo_fit.png")
RESULT_JSON = os.path.splitext(PNG)[0] + ".json"


def _results(test):
  """The JSON of the last run, or the test fails saying how to make it."""
  if not os.path.exists(RESULT_JSON):
    test.fail(f"{RESULT_JSON} is missing: run `python examples/transit_rv_fit.py {PNG}` "
              "(or bash tools/demo.sh) first, or set KEPLER_DEMO_PNG")
  with open(RESULT_JSON, encoding="utf-8") as f:
    return json.load(f)


# ---------------------------------------------------------------------------
# Independent references: numpy, Newton's method, a quadrature.


def _numpy_true_anomaly(mean_anomaly, ecc):
  """f of Kepler's equation by Newton's method in numpy, to rounding."""
  e_anom = mean_anomaly + ecc * np.sin(mean_anomaly)
  for _ in range(50):
    e_anom = e_anom - (e_anom - ecc * np.sin(e_anom) - mean_anomaly) / (1 - ecc * np.cos(e_anom))
  return 2 * np.arctan2(np.sqrt(1 + ecc) * np.sin(e_anom / 2),
                        np.sqrt(1 - ecc) * np.cos(e_anom / 2))


def _numpy_rv(params, t):
  """The star's radial velocity in numpy, from the time of periastron."""
  ecc = params["sqrt_e_cosw"]**2 + params["sqrt_e_sinw"]**2
  omega = math.atan2(params["sqrt_e_sinw"], params["sqrt_e_cosw"])
  # At mid-transit f = pi/2 - w; its mean anomaly gives the time of periastron.
  f0 = math.pi / 2 - omega
  e0 = 2 * math.atan(math.sqrt((1 - ecc) / (1 + ecc)) * math.tan(f0 / 2))
  t_peri = params["t0"] - (e0 - ecc * math.sin(e0)) * params["period"] / (2 * math.pi)
  f = _numpy_true_anomaly(2 * np.pi * (t - t_peri) / params["period"], ecc)
  return params["k_rv"] * (np.cos(omega + f) + ecc * np.cos(omega)) + params["gamma"]


def _quadrature_flux(u1, u2, b, r):
  """flux - 1 of a quadratic-law star behind a disk at separation b, by rings in scipy's quad.

  Each ring of radius s loses the arc of it inside the planet's disk; the
  intensity of the law is normalised by the star's total flux.
  """
  from scipy import integrate  # pylint: disable=g-import-not-at-top

  def intensity(s):
    mu = math.sqrt(max(0.0, 1 - s * s))
    return 1 - u1 * (1 - mu) - u2 * (1 - mu)**2

  def hidden_arc(s):  # radians of the ring of radius s inside the planet
    if s <= r - b:
      return 2 * math.pi
    if s >= b + r or s <= b - r:
      return 0.0
    return 2 * math.acos(max(-1.0, min(1.0, (s * s + b * b - r * r) / (2 * s * b))))

  points = [p for p in (b - r, b + r, r - b) if 0 < p < 1]
  lost = integrate.quad(lambda s: intensity(s) * hidden_arc(s) * s, 0, 1, points=points,
                        epsabs=1e-14, epsrel=1e-12, limit=200)[0]
  total = integrate.quad(lambda s: intensity(s) * 2 * math.pi * s, 0, 1, epsabs=1e-14,
                         epsrel=1e-12)[0]
  return -lost / total


# The model at the times themselves (no exposures): what the references give.
INSTANT = fit.kepler_backend(0.0)


def _predict(params, t_lc, t_rv=(0.0,), backend=INSTANT):
  params = {name: jnp.asarray(value, dtype=jnp.float64) for name, value in params.items()}
  flux, rv = fit.predict(params, jnp.asarray(t_lc, dtype=jnp.float64),
                         jnp.asarray(t_rv, dtype=jnp.float64), backend)
  return np.asarray(flux), np.asarray(rv)


class ModelTest(unittest.TestCase):
  """The model's pieces against references that share none of its code."""

  def test_rv_against_numpy(self):
    t = np.linspace(0.0, 30.0, 97)
    for params in (fit.TRUTH, dict(fit.TRUTH, sqrt_e_cosw=-0.5, sqrt_e_sinw=0.6, t0=3.0)):
      _, rv = _predict(params, [params["t0"]], t)
      np.testing.assert_allclose(rv, _numpy_rv(params, t), rtol=0, atol=1e-9)

  def test_mid_transit_depth_against_quadrature(self):
    truth = fit.TRUTH
    u1, u2 = (float(v) for v in fit.limb_darkening(truth["q1"], truth["q2"]))
    flux, _ = _predict(truth, [truth["t0"], truth["t0"] + 3 * truth["period"]])
    # At t0 the projected separation is the impact parameter b, by definition.
    expected = _quadrature_flux(u1, u2, truth["b"], truth["r"])
    np.testing.assert_allclose(flux, [expected, expected], rtol=1e-9)

  def test_no_planet_no_transit(self):
    t = np.linspace(fit.TRUTH["t0"] - 0.2, fit.TRUTH["t0"] + 0.2, 101)
    flux, _ = _predict(dict(fit.TRUTH, r=0.0), t)
    np.testing.assert_array_equal(flux, 0.0)

  def test_out_of_transit_and_behind_the_star(self):
    truth = fit.TRUTH
    ecc = truth["sqrt_e_cosw"]**2 + truth["sqrt_e_sinw"]**2
    omega = math.atan2(truth["sqrt_e_sinw"], truth["sqrt_e_cosw"])
    # Times of a few true anomalies: the eclipse (planet behind, f = 3 pi/2 - w,
    # separation below 1 + r with this b = 0 orbit) and quarter orbits away.
    params = dict(truth, b=0.0)

    def mean_anomaly(f):
      e_anom = 2 * math.atan2(math.sqrt(1 - ecc) * math.sin(f / 2),
                              math.sqrt(1 + ecc) * math.cos(f / 2))
      return e_anom - ecc * math.sin(e_anom)

    def time_of(f):
      d_m = mean_anomaly(f) - mean_anomaly(math.pi / 2 - omega)
      return truth["t0"] + d_m * truth["period"] / (2 * math.pi)

    times = [time_of(3 * math.pi / 2 - omega), time_of(math.pi - omega), time_of(-omega)]
    flux, _ = _predict(params, times)
    np.testing.assert_array_equal(flux, 0.0)
    flux_at_t0, _ = _predict(params, [truth["t0"]])
    self.assertLess(flux_at_t0[0], -truth["r"]**2 / 2)

  def test_circular_orbit(self):
    params = dict(fit.TRUTH, sqrt_e_cosw=0.0, sqrt_e_sinw=0.0)
    t0, period = params["t0"], params["period"]
    t = t0 + period * np.array([0.0, 0.25, 0.5, 0.75])
    flux, rv = _predict(params, t, t)
    self.assertLess(flux[0], -params["r"]**2 / 2)  # the transit at t0
    np.testing.assert_array_equal(flux[1:], 0.0)
    # The star recedes fastest a quarter orbit before the transit.
    k, gamma = params["k_rv"], params["gamma"]
    np.testing.assert_allclose(rv, [gamma, gamma - k, gamma, gamma + k], rtol=0, atol=1e-9)

  def test_limb_darkening_inverts_kippings_map(self):
    u1, u2 = (float(v) for v in fit.limb_darkening(0.36, 0.32))
    self.assertAlmostEqual((u1 + u2)**2, 0.36, places=14)
    self.assertAlmostEqual(u1 / (2 * (u1 + u2)), 0.32, places=14)

  def test_kepler_and_jaxoplanet_give_the_same_model(self):
    data = fit.simulate()
    ours = _predict(fit.TRUTH, data["t_lc"], data["t_rv"])
    theirs = _predict(fit.TRUTH, data["t_lc"], data["t_rv"], fit.jaxoplanet_backend(0.0))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=0, atol=1e-10)  # relative flux
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=1e-9)  # m/s
    self.assertLess(ours[0].min(), -0.005)  # the comparison covers the transits
    # With the exposures: jaxoplanet's integrate converges to the exact mean.
    exact = _predict(fit.TRUTH, data["t_lc"], backend=fit.KEPLER)[0]
    errors = [np.max(np.abs(_predict(fit.TRUTH, data["t_lc"], backend=fit.jaxoplanet_backend(
        fit.EXPOSURE, s))[0] - exact)) for s in (17, 65)]
    self.assertLess(errors[1], 1e-6)
    self.assertLess(errors[1], errors[0] / 8)  # second order: 4x the samples, 1/16 the error

  def test_exposure_mean_against_quadrature(self):
    """Each observed point is the mean of the instantaneous model over its
    29.4-minute exposure (scipy's quad, the contacts as breakpoints)."""
    from scipy import integrate  # pylint: disable=g-import-not-at-top
    truth = fit.TRUTH
    half = fit.EXPOSURE / 2
    times = truth["t0"] + np.array([-0.07, -0.055, -0.03, 0.0, 0.052, 0.06, 0.2])
    exact = _predict(truth, times, backend=fit.KEPLER)[0]
    fine = np.linspace(truth["t0"] - 0.12, truth["t0"] + 0.12, 24001)
    instant = _predict(truth, fine)[0]
    inside = np.flatnonzero(np.diff(instant != 0))  # the first and last contacts
    for t, want in zip(times, exact):
      points = [fine[i] for i in inside if t - half < fine[i] < t + half]
      mean = integrate.quad(lambda x: float(_predict(truth, [x])[0][0]), t - half, t + half,
                            points=points or None, epsabs=1e-12, limit=200)[0] / fit.EXPOSURE
      self.assertAlmostEqual(want, mean, delta=2e-9, msg=f"t - t0 = {t - truth['t0']}")


# ---------------------------------------------------------------------------
# The last run: its numbers, its PNG, its figure.


class ResultsTest(unittest.TestCase):
  """What the example wrote: the fit recovers the truth; the figure is as described."""

  def test_fit_recovers_the_truth(self):
    results = _results(self)
    self.assertEqual(results["fitted"], list(fit.PARAMS))
    for name in fit.PARAMS:
      row = results["parameters"][name]
      with self.subTest(parameter=name):
        self.assertAlmostEqual(row["truth"], fit.TRUTH[name], places=12)
        self.assertTrue(math.isfinite(row["mean"]) and math.isfinite(row["sd"]))
        self.assertGreater(row["sd"], 0.0)
        self.assertLessEqual(abs(row["mean"] - row["truth"]), 3 * row["sd"])
        self.assertLessEqual(abs(row["map"] - row["truth"]), 3 * row["sd"])
        self.assertLessEqual(abs(row["map"] - row["mean"]), row["sd"])

  def test_sampler_converged(self):
    nuts = _results(self)["nuts"]
    self.assertLess(nuts["max_r_hat"], 1.05)
    self.assertGreater(nuts["min_ess"], 100)
    self.assertLessEqual(nuts["divergences"], 0.01 * nuts["chains"] * nuts["samples"])

  def test_timing_compares_the_same_model(self):
    results = _results(self)
    samples, error = results["jaxoplanet_samples"]
    self.assertLessEqual(error, fit.PPM)
    names = ("kepler", f"jaxoplanet, {samples} samples", "kepler, no exposures",
             "jaxoplanet, no exposures")
    self.assertEqual(sorted(results["timing"]), sorted(names))
    for name in names:
      self.assertGreater(results["timing"][name]["seconds"], 0.0)
    # The same log posterior (thousands in size) on both implementations:
    # without exposures to rounding; with them to jaxoplanet's 1 ppm (the
    # log likelihood moves by sum |r| / sigma^2 * 1e-6, a few units here).
    self.assertLess(results["timing_max_abs_diff"], 1e-6)
    timing = results["timing"]
    self.assertAlmostEqual(timing["kepler, no exposures"]["value"],
                           timing["jaxoplanet, no exposures"]["value"], delta=1e-6)
    self.assertAlmostEqual(timing["kepler"]["value"], timing[names[1]]["value"], delta=10.0)
    self.assertEqual(sorted(results["timing_speedups"]), ["exposures", "no exposures"])

  def test_png_and_its_metadata(self):
    _results(self)
    from PIL import Image  # pylint: disable=g-import-not-at-top
    with open(PNG, "rb") as f:
      self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
    with Image.open(PNG) as image:
      self.assertEqual(image.format, "PNG")
      self.assertEqual(image.size, (1500, 1150))
      text = dict(image.text)
    self.assertEqual(text.get("Title"), fit.FIGURE_TITLE)
    self.assertIn(f"kepler-jax {kepler.__version__}", text.get("Software", ""))
    self.assertIn("NUTS", text.get("Description", ""))

  def test_figure_axes_and_labels(self):
    results = _results(self)
    data = fit.simulate(results["seed"])
    fig = fit.make_figure(data, results["draws"])
    self.assertEqual(fig.get_suptitle(), fit.FIGURE_TITLE)
    axes = fig.axes
    self.assertEqual(len(axes), 4 + len(fit.HIST_PANELS))
    for ax in axes:
      with self.subTest(title=ax.get_title()):
        self.assertTrue(ax.get_title() and ax.get_xlabel() and ax.get_ylabel())
    lc, lc_res, rv, rv_res = axes[:4]
    self.assertEqual((lc.get_title(), lc.get_xlabel(), lc.get_ylabel()),
                     ("Transit light curve, folded on the period", "hours from mid-transit",
                      "flux - 1 (ppm)"))
    self.assertEqual((lc_res.get_xlabel(), lc_res.get_ylabel()),
                     ("hours from mid-transit", "data - model (ppm)"))
    self.assertEqual((rv.get_title(), rv.get_xlabel(), rv.get_ylabel()),
                     ("Radial velocity of the star", "orbital phase (0 = mid-transit)",
                      "radial velocity (m/s)"))
    self.assertEqual((rv_res.get_xlabel(), rv_res.get_ylabel()),
                     ("orbital phase (0 = mid-transit)", "data - model (m/s)"))
    # Every data point is drawn, and the model goes through them: the
    # residuals scatter as the noise does, around zero.
    self.assertEqual(len(lc.lines[0].get_xdata()), len(data["t_lc"]))
    resid = np.asarray(lc_res.lines[0].get_ydata())
    self.assertEqual(len(resid), len(data["t_lc"]))
    self.assertLess(abs(np.mean(resid)), 5 * fit.LC_SIGMA * 1e6 / math.sqrt(len(resid)))
    self.assertAlmostEqual(np.std(resid) / (fit.LC_SIGMA * 1e6), 1.0, delta=0.1)
    # The histograms: one per HIST_PANELS entry, each with a line at the truth.
    labels = dict(fit.PARAMS, **fit.DERIVED)
    truths = dict(fit.TRUTH, **fit.derived(fit.TRUTH))
    for ax, (name, shown, xlabel) in zip(axes[4:], fit.HIST_PANELS):
      with self.subTest(panel=name):
        self.assertEqual((ax.get_title(), ax.get_xlabel(), ax.get_ylabel()),
                         (labels[name][0], xlabel, "density"))
        self.assertTrue(ax.patches)  # the histogram's bars
        truth = truths[name] if shown is None else shown(truths[name], truths[name])
        self.assertAlmostEqual(float(ax.lines[0].get_xdata()[0]), float(truth), places=9)


if __name__ == "__main__":
  unittest.main()
