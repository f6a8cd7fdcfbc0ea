"""The light curve's constant tables (jaxlib_ext/math/nodes.h).

The header is what tools/math_tables.py writes, byte for byte; and its
tables, as the doubles a compiler reads from it, do what the edge rules and
Atan2NonNegative rely on, checked here against mpmath on their own terms:
each Gauss-Legendre rule integrates the monomials it must integrate exactly,
the cosine tables are cos(pi j / n) (and 1 - cos), the inside rule's
limits keep its error at 1e-17, the atan polynomial is within 1.5e-16 of
atan relative and the log and expm1 polynomials within 1e-17 of theirs, each
over the interval it serves.
"""

import importlib.util
import os
import re

from absl.testing import absltest
import mpmath as mp

HEADER = "jaxlib_ext/math/nodes.h"
SCRIPT = "tools/math_tables.py"


def _load_script():
  spec = importlib.util.spec_from_file_location("math_tables", SCRIPT)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def _tables(text):
  """{function name: [the doubles of its table]} of the header's text."""
  found = re.findall(r"Table<(\d+)> (\w+(?:<\d+>)?)\(\) \{\s*return \{\{(.*?)\}\};", text, re.S)
  tables = {}
  for size, name, body in found:
    values = [float(v) for v in body.replace("\n", " ").split(",") if v.strip()]
    assert len(values) == int(size), (name, len(values), size)
    tables[name] = values
  return tables


class NodesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    with open(HEADER) as f:
      cls.text = f.read()
    cls.tables = _tables(cls.text)

  def test_header_is_what_the_script_writes(self):
    self.assertEqual(_load_script().render(), self.text,
                     f"{HEADER} differs from what {SCRIPT} writes: run `python3 {SCRIPT}`")

  def test_every_table(self):
    counts = (4, 6, 8, 12, 16, 24, 32, 64)
    self.assertEqual(sorted(self.tables), sorted([
        "HalfPeriodCos<17>", "HalfPeriodCos<33>",
        *[f"HalfPeriodMidCos<{m}>" for m in counts],
        *[f"HalfPeriodMidOneMinusCos<{m}>" for m in counts],
        "InsideRuleNodeCount", "InsideRuleMaxX", "HalfPeriodMidHalfTan2", "GaussHalfPiCos",
        "GaussHalfPiSin2",
        "GaussHalfPiWeight", "GaussUnitNode", "GaussUnitWeight",
        *[f"GradedHalfPi{t}<{n}>" for t in ("Cos", "Sin2", "Weight", "LogCos2")
          for n in (32, 64)],
        "ExponentialTermTails", "AtanCoefficients", "LogRatioCoefficients",
        "Expm1Coefficients",
        "ExposureRuleCount", "ExposureRuleNode", "ExposureRuleWeight"]))

  def test_exponential_term(self):
    # sum_i d_i z^i = integral from z to 1 of t / (e^t - 1) dt, over 1 - z
    # (laws.h), on [0, 1].
    mp.mp.dps = 30
    tails = self.tables["ExponentialTermTails"]
    for z in (0.0, 1e-3, 0.25, 0.5, 0.9, 0.999999):
      z = mp.mpf(z)
      want = mp.quad(lambda t: t / mp.expm1(t) if t else mp.mpf(1), [z, 1]) / (1 - z)
      got = mp.fsum(mp.mpf(d) * z ** i for i, d in enumerate(tails))
      self.assertLess(abs(got - want), 2e-16, z)

  def test_graded_rule(self):
    # theta = pi/2 (1 - (1 - s)^3): a rule on [0, pi/2] whose nodes crowd at
    # pi/2. Against integrals with the endpoint behaviour it is for:
    # cos(theta)^p for fractional p >= 1 (every integrand of the crossing
    # rule carries a factor cos(theta) from dpsi; cos^2 + sin^2 = 1 at every
    # node).
    # Both counts; the rule of 64 nodes also integrates what the crossing
    # rule's weights carry next to the contact, 1 / (1 - k^2 sin^2)^(1/2)
    # with its singularities near pi / 2, to 4e-16 for k^2 up to 0.99.
    mp.mp.dps = 30
    for n in (32, 64):
      cos, sin2 = self.tables[f"GradedHalfPiCos<{n}>"], self.tables[f"GradedHalfPiSin2<{n}>"]
      weights = self.tables[f"GradedHalfPiWeight<{n}>"]
      for c, s2 in zip(cos, sin2):
        self.assertAlmostEqual(c * c + s2, 1.0, delta=4e-16)
      for p in (0.0, 1.0, 1.05, 1.37, 2.5, 4.0):
        want = mp.sqrt(mp.pi) * mp.gamma((p + 1) / 2) / (2 * mp.gamma(p / 2 + 1))
        got = mp.fsum(mp.mpf(w) * mp.mpf(c) ** p for c, w in zip(cos, weights))
        self.assertLess(abs(got - want), 2e-15, (n, p))
    cos, sin2 = self.tables["GradedHalfPiCos<64>"], self.tables["GradedHalfPiSin2<64>"]
    weights = self.tables["GradedHalfPiWeight<64>"]
    for k2 in (0.9, 0.97, 0.99):
      # The complete elliptic integral K(k^2) = integral of (1 - k^2 sin^2)^(-1/2).
      got = mp.fsum(mp.mpf(w) / mp.sqrt(1 - k2 * mp.mpf(s2)) for s2, w in zip(sin2, weights))
      self.assertLess(abs(got / mp.ellipk(k2) - 1), 4e-16, k2)

  def test_cosines(self):
    for name, steps in (("HalfPeriodCos<17>", 16), ("HalfPeriodCos<33>", 32)):
      for j, value in enumerate(self.tables[name]):
        self.assertEqual(value, float(mp.cospi(mp.mpf(j) / steps)), (name, j))
    for m in (int(c) for c in self.tables["InsideRuleNodeCount"]):
      cos = self.tables[f"HalfPeriodMidCos<{m}>"]
      one_minus = self.tables[f"HalfPeriodMidOneMinusCos<{m}>"]
      for j, (c, d) in enumerate(zip(cos, one_minus)):
        exact = mp.cospi((j + mp.mpf(1) / 2) / m)
        self.assertEqual(c, float(exact), (m, j))
        self.assertEqual(d, float(1 - exact), (m, j))
        # The cosines of psi and pi - psi opposite to the bit: they sum to 0.
        self.assertEqual(c, -cos[m - 1 - j], (m, j))

  def test_half_tangents(self):
    # tan^2(phi / 2) = (1 - cos phi) / (1 + cos phi) at the midpoint rule's
    # 64 nodes, each the double nearest the exact value.
    tan2 = self.tables["HalfPeriodMidHalfTan2"]
    for j, (t2, c) in enumerate(zip(tan2, self.tables["HalfPeriodMidCos<64>"])):
      exact = mp.tan(mp.pi * (j + mp.mpf(1) / 2) / 128) ** 2
      self.assertEqual(t2, float(exact), j)
      self.assertAlmostEqual(t2, (1 - c) / (1 + c), delta=2e-12 * t2)

  def test_inside_rule_limits(self):
    # The midpoint rule of 2 M steps on the period of 1 / (1 + x cos psi),
    # the integrand whose nearest singularity is the edge rules', errs by
    # about exp(-2 M acosh(1 / x)): each count's largest x keeps that at
    # 1e-17; ascending counts serve ascending x.
    mp.mp.dps = 40
    counts = [int(c) for c in self.tables["InsideRuleNodeCount"]]
    max_x = self.tables["InsideRuleMaxX"]
    self.assertEqual(counts, sorted(counts))
    self.assertEqual(max_x, sorted(max_x))
    for m, x in zip(counts, max_x):
      self.assertAlmostEqual(float(mp.exp(-2 * m * mp.acosh(1 / mp.mpf(x)))), 1e-17, delta=1e-30)
      # The rule itself: its error on that integrand at x, against the exact
      # 2 pi / sqrt(1 - x^2), is of the model's size.
      got = mp.fsum(2 * mp.pi / m / (1 + x * mp.cospi((j + mp.mpf(1) / 2) / m))
                    for j in range(m))
      error = abs(got / (2 * mp.pi / mp.sqrt(1 - mp.mpf(x) ** 2)) - 1)
      self.assertLess(error, 4e-17, m)
      self.assertGreater(error, 1e-18, m)

  def test_graded_log_cosines(self):
    for n in (32, 64):
      for c, log_c2 in zip(self.tables[f"GradedHalfPiCos<{n}>"],
                           self.tables[f"GradedHalfPiLogCos2<{n}>"]):
        self.assertLess(abs(log_c2 - 2 * mp.log(c)), 4e-16 * max(1.0, abs(log_c2)), n)

  def test_gauss_legendre_is_exact_to_degree_63(self):
    # 32 points integrate every polynomial of degree <= 63 exactly; with the
    # nodes and weights rounded to double, to a few ulps.
    mp.mp.dps = 30
    nodes, weights = self.tables["GaussUnitNode"], self.tables["GaussUnitWeight"]
    for k in range(64):
      got = mp.fsum(mp.mpf(w) * mp.mpf(x) ** k for x, w in zip(nodes, weights))
      self.assertLess(abs(got - mp.mpf(1) / (k + 1)) * (k + 1), 4e-16, k)
    cos, sin2 = self.tables["GaussHalfPiCos"], self.tables["GaussHalfPiSin2"]
    weights = self.tables["GaussHalfPiWeight"]
    for c, s2 in zip(cos, sin2):
      self.assertAlmostEqual(c * c + s2, 1.0, delta=4e-16)
    # The integral of cos(theta)^(2m) over [0, pi/2] is pi/2 (2m-1)!!/(2m)!!;
    # analytic integrands, so the rule is near exact for small m.
    for m in range(8):
      got = mp.fsum(mp.mpf(w) * mp.mpf(c) ** (2 * m) for c, w in zip(cos, weights))
      want = mp.pi / 2 * mp.binomial(2 * m, m) / mp.mpf(4) ** m
      self.assertLess(abs(got / want - 1), 1e-15, m)

  def test_exposure_rules_are_exact_to_their_degree(self):
    # Rule k of n points on [0, 1]: ascending nodes inside (0, 1), symmetric
    # about 1/2, and every monomial of degree <= 2 n - 1 integrated to a few
    # ulps; degree 2 n with Gauss's error (the rule is Gauss's, of that many
    # points).
    mp.mp.dps = 30
    counts = [int(c) for c in self.tables["ExposureRuleCount"]]
    nodes, weights = self.tables["ExposureRuleNode"], self.tables["ExposureRuleWeight"]
    self.assertEqual(sum(counts), len(nodes))
    start = 0
    for n in counts:
      x, w = nodes[start:start + n], weights[start:start + n]
      start += n
      self.assertTrue(all(0 < a < b < 1 for a, b in zip(x, x[1:])), n)
      for a, b in zip(x, reversed(x)):
        self.assertAlmostEqual(a + b, 1.0, delta=4e-16)
      for k in range(2 * n + 1):
        error = abs(mp.fsum(mp.mpf(wj) * mp.mpf(xj) ** k for xj, wj in zip(x, w)) - mp.mpf(1) / (k + 1))
        if k < 2 * n:
          self.assertLess(error * (k + 1), 8e-16, (n, k))
        elif (gauss_error := mp.factorial(n) ** 4 / ((2 * n + 1) * mp.factorial(2 * n) ** 2)) > 1e-12:
          # Gauss's error for x^(2 n): (n!)^4 / ((2 n + 1) ((2 n)!)^2).
          self.assertAlmostEqual(error / gauss_error, 1.0, delta=1e-3, msg=(n, k))

  def test_atan_polynomial(self):
    mp.mp.dps = 30
    coefficients = [mp.mpf(c) for c in self.tables["AtanCoefficients"]]
    top = mp.tan(mp.pi / 8)
    worst = 0
    for i in range(1, 2001):
      v = top * i / 2000
      z = v * v
      poly = mp.mpf(0)
      for c in reversed(coefficients):
        poly = poly * z + c
      worst = max(worst, abs((v + v * z * poly) / mp.atan(v) - 1))
    self.assertLess(worst, 1.5e-16)

  def test_log_polynomial(self):
    # log m = 2 s P(s^2), s = (m - 1) / (m + 1), m from sqrt(1/2) to sqrt(2)
    # (elementary.h's LogFromRatio), against mpmath's log.
    mp.mp.dps = 30
    low, high = mp.sqrt(mp.mpf(1) / 2), mp.sqrt(2)
    coefficients = [mp.mpf(c) for c in self.tables["LogRatioCoefficients"]]
    worst = 0
    for i in range(3001):
      m = low + (high - low) * i / 3000
      if abs(m - 1) < mp.mpf(10) ** -20:
        m = 1 + mp.mpf(10) ** -12
      s = (m - 1) / (m + 1)
      p = mp.fsum(c * (s * s) ** k for k, c in enumerate(coefficients))
      worst = max(worst, abs(2 * s * p / mp.log(m) - 1))
    self.assertLess(worst, 1e-17)

  def test_expm1_polynomial(self):
    # e^y - 1 = y + y^2 P(y), |y| <= log(2) / 2 (elementary.h's Expm1OfNode),
    # against mpmath's expm1.
    mp.mp.dps = 30
    half_log2 = mp.log(2) / 2
    coefficients = [mp.mpf(c) for c in self.tables["Expm1Coefficients"]]
    worst = 0
    for i in range(-3000, 3001):
      y = half_log2 * i / 3000 if i else mp.mpf(10) ** -12
      p = mp.fsum(c * y ** k for k, c in enumerate(coefficients))
      worst = max(worst, abs((y + y * y * p) / mp.expm1(y) - 1))
    self.assertLess(worst, 1e-17)


if __name__ == "__main__":
  absltest.main()
