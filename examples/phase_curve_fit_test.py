"""Checks examples/phase_curve_fit.py: its model against references that
share none of its code, and the results of its last run.

    KEPLER_PHASE_CURVE_PNG=out.png python examples/phase_curve_fit_test.py

- the model (kepler.transit with the planet's light) on the example's
  circular orbit against numpy: the planet's flux out of transit and eclipse
  (night side plus the phase term), zero in full eclipse, and the eclipse's
  ingress and egress as the planet's flux times the part of its disk the
  star does not hide (the two circles' overlap, written here);
- the last run's results (the PNG named by KEPLER_PHASE_CURVE_PNG, by
  default phase_curve_fit.png in the working folder, and the JSON beside
  it): every parameter's posterior mean within 3 sd of the truth, the
  posterior sd of the day side, night side and offset below 6 ppm, 6 ppm
  and 2 degrees (two orbits at 60 ppm give about 4.4, 4.3 and 0.9), the chains converged (R-hat < 1.05, ESS >
  100, no divergences), the PNG's format and metadata, and the figure,
  rebuilt from the saved draws, with its axes and their titles.
Without the result files it fails; it never skips.
"""

import json
import os
import sys
import unittest

import jax

jax.config.update("jax_enable_x64", True)

# pylint: disable=g-import-not-at-top,wrong-import-position
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phase_curve_fit as example
# pylint: enable=g-import-not-at-top,wrong-import-position

PNG = os.environ.get("KEPLER_PHASE_CURVE_PNG", "phase_curve_fit.png")


def _overlap(d, r):
  """The area shared by the unit disk and a disk of radius r at distance d."""
  d = np.asarray(d, np.float64)
  inner = np.clip((d * d + r * r - 1) / (2 * d * r), -1, 1)
  outer = np.clip((d * d + 1 - r * r) / (2 * d), -1, 1)
  lens = (r * r * np.arccos(inner) + np.arccos(outer) -
          0.5 * np.sqrt(np.clip((-d + r + 1) * (d + r - 1) * (d - r + 1) * (d + r + 1), 0, None)))
  return np.where(d >= 1 + r, 0.0, np.where(d <= 1 - r, np.pi * r * r, lens))


class ModelTest(unittest.TestCase):
  """The example's model on its circular orbit, against numpy."""

  def setUp(self):
    self.p = dict(example.TRUTH)
    self.params = {k: jnp.asarray(v) for k, v in self.p.items()}

  def _geometry(self, t):
    """Phase angle (0 at the transit) and the disks' projected distance."""
    phi = 2 * np.pi * (t - self.p["t0"]) / example.PERIOD
    cos_i = self.p["b"] / self.p["a"]
    d = self.p["a"] * np.sqrt(np.sin(phi)**2 + (cos_i * np.cos(phi))**2)
    return phi, d

  def _planet(self, phi):
    day, night = self.p["planet_flux"], self.p["night_flux"]
    return night + (day - night) * (1 - np.cos(phi + self.p["phase_offset"])) / 2

  def test_out_of_transit_and_eclipse_is_the_planet_alone(self):
    rng = np.random.default_rng(1)
    t = self.p["t0"] + example.PERIOD * rng.uniform(0.06, 0.44, 300) * rng.choice([1, -1], 300)
    phi, d = self._geometry(t)
    self.assertTrue(np.all(d > 1 + self.p["r"]))
    np.testing.assert_allclose(example.model_flux(self.params, jnp.asarray(t)), self._planet(phi),
                               rtol=0, atol=1e-15)

  def test_the_eclipse(self):
    r = self.p["r"]
    # Times across the eclipse, from out of it through both contacts.
    half = np.arcsin(np.sqrt(((1 + r)**2 - self.p["b"]**2) /
                             (self.p["a"]**2 - self.p["b"]**2))) / (2 * np.pi) * example.PERIOD
    t = self.p["t0"] + example.PERIOD / 2 + np.linspace(-1.3, 1.3, 401) * half
    phi, d = self._geometry(t)
    visible = 1 - _overlap(d, r) / (np.pi * r * r)
    got = np.asarray(example.model_flux(self.params, jnp.asarray(t)))
    self.assertTrue(np.any(visible == 0) and np.any((visible > 0) & (visible < 1)))
    np.testing.assert_allclose(got, self._planet(phi) * visible, rtol=0, atol=1e-13)
    self.assertEqual(float(example.model_flux(self.params, self.p["t0"] + example.PERIOD / 2)), 0.0)


class ResultsTest(unittest.TestCase):
  """The last run's results and figure."""

  @classmethod
  def setUpClass(cls):
    json_path = os.path.splitext(PNG)[0] + ".json"
    if not (os.path.exists(PNG) and os.path.exists(json_path)):
      raise AssertionError(f"no results at {PNG} and {json_path}: run "
                           "examples/phase_curve_fit.py first")
    with open(json_path, encoding="utf-8") as f:
      cls.results = json.load(f)

  def test_every_parameter_recovered(self):
    for name, row in self.results["rows"].items():
      self.assertLess(abs(row["mean"] - row["truth"]), 3 * row["sd"], name)
    # What the example is for: the planet's light, to the precision the data allow.
    for name, resolved in (("planet_flux", 6.0), ("night_flux", 6.0), ("phase_offset", 2.0)):
      row = self.results["rows"][name]
      self.assertLess(row["sd"], resolved, name)

  def test_chains_converged(self):
    nuts = self.results["nuts"]
    self.assertLess(nuts["max_r_hat"], 1.05)
    self.assertGreater(nuts["min_ess"], 100)
    self.assertEqual(nuts["divergences"], 0)

  def test_png(self):
    with open(PNG, "rb") as f:
      data = f.read()
    self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    self.assertEqual((width, height), (1350, 900))
    self.assertIn(example.FIGURE_TITLE.encode(), data)

  def test_figure_from_the_saved_draws(self):
    data = example.simulate()
    draws = {k: np.asarray(v) for k, v in self.results["draws"].items()}
    fig = example.make_figure(data, draws)
    titles = [ax.get_title() for ax in fig.axes]
    self.assertEqual(len(fig.axes), 6)
    self.assertTrue(titles[0].startswith("Folded light curve"))
    self.assertIn("Residuals", titles)
    for name in ("planet_flux", "night_flux", "phase_offset"):
      self.assertIn(example.LABELS[name][0], titles)
    # Each histogram marks the truth.
    for ax in fig.axes[3:]:
      self.assertTrue(any(line.get_label() == "truth" for line in ax.get_lines()))


if __name__ == "__main__":
  unittest.main()
