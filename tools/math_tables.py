#!/usr/bin/env python3
"""Writes jaxlib_ext/math/nodes.h: the constant tables of the ops' math.

    python3 tools/math_tables.py [--check]

Every table is computed here in arbitrary precision (mpmath, 50 digits) and
written as decimal literals that a C++ compiler rounds to the nearest double:
- the nodes of the edge rules' quadratures (edge_rules.h): cos(pi j / 16) and
  cos(pi j / 32) for the trapezoidal rule of 32 and 64 steps over a period; 32-point
  Gauss-Legendre on [0, pi / 2] as (cos theta_j, sin^2 theta_j, w_j) and on
  [0, 1] as (x_j, w_j), the nodes the roots of the Legendre polynomial P_32
  by Newton's method, w_j = 2 / ((1 - x_j^2) P_32'(x_j)^2) on [-1, 1];
- the exposure quadrature's Gauss-Legendre rules on [0, 1] (transit/exposure.h)
  of EXPOSURE_RULE_COUNTS points, made the same way;
- the power laws' inside rule (law_blocks.h, law_flux.h): the midpoint
  rule's cos(pi (j + 1/2) / M) and 1 - cos for each of INSIDE_RULE_NODES,
  and the largest x each count serves, and tan^2 of the half angle at the
  nodes of MAPPED_INSIDE_RULE_NODES; the crossing rule's Gauss-Legendre
  rules of GRADED_RULE_NODES points graded towards pi / 2 (cos, sin^2,
  weights, log cos^2);
- the exponential law's series (laws.h);
- the coefficients of the polynomials of elementary.h, each the
  least-squares fit of its function's relative error on 100 Chebyshev nodes
  of the interval it serves, rounded to double:
  Atan2NonNegative's, atan(v) = v + v^3 P(z), z = v^2 in [0, tan(pi /
  8)^2], P of degree 10 fitted to v^2 (P(z) - (atan(v) - v) / v^3) (atan's
  leading term is v);
  LogFromRatio's, log m = 2 s P(t), s = (m - 1) / (m + 1), t = s^2 in [0,
  ((sqrt 2 - 1) / (sqrt 2 + 1))^2] (m in [sqrt(1/2), sqrt 2]), P of degree 7
  fitted to P(t) - atanh(s) / s (P is about 1);
  Expm1OfNode's, e^y - 1 = y + y^2 P(y), y in [-log(2) / 2, log(2) / 2], P
  of degree 10 fitted to y (P(y) - (e^y - 1 - y) / y^2) (e^y - 1 is about
  y).

With --check, exits 1 if the file differs from what this writes
(tests/math_tables_test.py runs the same comparison).
"""

import argparse
import os
import sys

import mpmath as mp

DIGITS = 50
# Significant digits of the node literals: more than the 17 a double needs,
# so that the compiler's rounding, not this one, picks the double.
LITERAL_DIGITS = 21
GAUSS_POINTS = 32
# The exposure quadrature's Gauss-Legendre rules on [0, 1] (transit/exposure.h).
EXPOSURE_RULE_COUNTS = (3, 4, 5, 6, 8, 10, 12, 16)
# The inside rule's node counts M of the power laws' CPU blocks
# (law_blocks.h; law_flux.h's per-point path takes 8, 16 and 32 of them),
# and the error the largest x = 2 b r / a each serves must stay under.
INSIDE_RULE_NODES = (4, 6, 8, 12, 16, 24, 32, 64)
INSIDE_RULE_ERROR = 1e-17
# The node count of the inside rule mapped towards the inner contact (law_blocks.h).
MAPPED_INSIDE_RULE_NODES = 64
# The graded crossing rule's node counts: 32 (every path), 64 (the CPU's blocks,
# law_blocks.h, next to the contact).
GRADED_RULE_NODES = (32, 64)
ATAN_DEGREE = 10
LOG_RATIO_DEGREE = 7
EXPM1_DEGREE = 10
# Coefficients of the exponential law's polynomial (laws.h, kExponentialTails).
EXPONENTIAL_TAILS = 26
FIT_NODES = 100
HEADER = os.path.join("jaxlib_ext", "math", "nodes.h")


def _literal(x):
  """x as a C++ double literal of LITERAL_DIGITS significant digits."""
  if x == 0:
    return "0.0"
  text = mp.nstr(x, LITERAL_DIGITS, strip_zeros=False, min_fixed=-5, max_fixed=1)
  return text if any(c in text for c in ".e") else text + ".0"


def _legendre(n, x):
  """(P_n(x), P_n'(x)) by the three-term recurrence."""
  p0, p1 = mp.mpf(1), x
  for k in range(2, n + 1):
    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
  return p1, n * (x * p1 - p0) / (x * x - 1)


def gauss_legendre(n):
  """Nodes in ascending order and weights of n-point Gauss-Legendre on [-1, 1]."""
  nodes, weights = [], []
  for i in range(n):
    x = -mp.cos(mp.pi * (i + mp.mpf(3) / 4) / (n + mp.mpf(1) / 2))  # Tricomi's start
    for _ in range(100):
      p, dp = _legendre(n, x)
      step = p / dp
      x -= step
      if abs(step) < mp.mpf(10) ** (-DIGITS + 5):
        break
    else:
      raise RuntimeError(f"Newton's method did not converge for root {i} of P_{n}")
    _, dp = _legendre(n, x)
    nodes.append(x)
    weights.append(2 / ((1 - x * x) * dp * dp))
  return nodes, weights


def _fit(function, weight, low, high, degree):
  """The coefficients of P of `degree`, constant term first, as doubles: the
  least-squares fit of weight(x) (P(x) - function(x)) on FIT_NODES Chebyshev
  nodes of [low, high]."""
  rows, rhs = [], []
  for i in range(FIT_NODES):
    x = low + (high - low) * (1 + mp.cos(mp.pi * (i + mp.mpf(1) / 2) / FIT_NODES)) / 2
    rows.append([weight(x) * x ** k for k in range(degree + 1)])
    rhs.append(weight(x) * function(x))
  q, r = mp.qr(mp.matrix(rows))
  y = q.T * mp.matrix(rhs)
  size = degree + 1
  solution = mp.lu_solve(r[:size, :size], y[:size])
  return [float(solution[k]) for k in range(size)]


def atan_coefficients():
  """Atan2NonNegative's P (see the module docstring)."""
  return _fit(lambda z: (mp.atan(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3, lambda z: z,
              mp.mpf(0), mp.tan(mp.pi / 8) ** 2, ATAN_DEGREE)


def log_ratio_coefficients():
  """LogFromRatio's P (see the module docstring)."""
  def atanh_over_s(t):
    return mp.atanh(mp.sqrt(t)) / mp.sqrt(t) if t else mp.mpf(1)
  top = ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2
  return _fit(atanh_over_s, lambda t: 1, mp.mpf(0), top, LOG_RATIO_DEGREE)


def expm1_coefficients():
  """Expm1OfNode's P (see the module docstring)."""
  def expm1_tail(y):
    return (mp.expm1(y) - y) / y ** 2 if y else mp.mpf(1) / 2
  half_log2 = mp.log(2) / 2
  return _fit(expm1_tail, abs, -half_log2, half_log2, EXPM1_DEGREE)


def exponential_tails():
  """d_i = sum_{n >= i} B_n / (n + 1)! for i < EXPONENTIAL_TAILS, the sum to
  n = 80 (its terms fall as (2 pi)^-n)."""
  c = [mp.bernoulli(n) / mp.factorial(n + 1) for n in range(81)]  # B_1 = -1/2
  return [mp.fsum(c[i:]) for i in range(EXPONENTIAL_TAILS)]


def _table(comment, name, values, specialization=False, kind="Table", literal=_literal):
  body = ",\n".join(f"      {literal(v)}" for v in values)
  return (f"// {comment}\n" + "template <>\n" * specialization +
          f"JAXEXT_HD constexpr {kind}<{len(values)}> {name}() {{\n"
          f"  return {{{{\n{body},\n  }}}};\n}}\n")


def graded_tables():
  """The crossing rule's Gauss-Legendre rules on [0, pi / 2] graded towards pi / 2, of
  GRADED_RULE_NODES points: each table a template with a specialisation per count."""
  rules = {n: gauss_legendre(n) for n in GRADED_RULE_NODES}
  units = {n: [(1 + xj) / 2 for xj in rules[n][0]] for n in GRADED_RULE_NODES}

  def family(comment, name, values):
    return (f"// {comment}\ntemplate <int N>\nJAXEXT_HD constexpr Table<N> {name}();\n",
            *[_table(f"N = {n}.", f"{name}<{n}>", values(n), specialization=True)
              for n in GRADED_RULE_NODES])

  return [
      *family("Gauss-Legendre of N points on [0, pi / 2] graded towards pi / 2: nodes\n"
              "// theta_j = pi / 2 (1 - (1 - s_j)^3), s_j Gauss-Legendre on [0, 1], ascending:\n"
              "// cos(theta_j). N one of the crossing rule's node counts (law_blocks.h).",
              "GradedHalfPiCos", lambda n: [mp.sin(mp.pi / 2 * (1 - s) ** 3) for s in units[n]]),
      *family("The same nodes: sin(theta_j)^2.", "GradedHalfPiSin2",
              lambda n: [mp.cos(mp.pi / 2 * (1 - s) ** 3) ** 2 for s in units[n]]),
      *family("The same rules' weights, dtheta / ds = 3 pi / 2 (1 - s)^2 included.",
              "GradedHalfPiWeight",
              lambda n: [wj / 2 * 3 * mp.pi / 2 * (1 - s) ** 2
                         for s, wj in zip(units[n], rules[n][1])]),
      *family("The same nodes: log cos(theta_j)^2.", "GradedHalfPiLogCos2",
              lambda n: [2 * mp.log(mp.sin(mp.pi / 2 * (1 - s) ** 3)) for s in units[n]]),
  ]


def render():
  """The text of nodes.h."""
  mp.mp.dps = DIGITS
  x, w = gauss_legendre(GAUSS_POINTS)
  theta = [mp.pi / 4 * (1 + xj) for xj in x]
  quarter_pi = mp.pi / 4
  unit = [(1 + xj) / 2 for xj in x]
  atan = atan_coefficients()
  half_period = "template <int N>\nJAXEXT_HD constexpr Table<N> HalfPeriodCos();\n"
  tables = [
      "// cos(pi j / (N - 1)), j = 0..N-1: the nodes of the trapezoidal rule of 2 (N - 1)\n"
      "// steps over a period, on its half [0, pi].\n" + half_period,
      _table("N = 17: 32 steps.", "HalfPeriodCos<17>",
             [mp.cospi(mp.mpf(j) / 16) for j in range(17)], specialization=True),
      _table("N = 33: 64 steps.", "HalfPeriodCos<33>",
             [mp.cospi(mp.mpf(j) / 32) for j in range(33)], specialization=True),
      "// cos(pi (j + 1/2) / M), j = 0..M-1: the nodes of the midpoint rule of 2 M steps\n"
      "// over a period, on its half [0, pi] (no end nodes), M one of the inside rule's\n"
      "// node counts (InsideRuleNodeCount).\n"
      "template <int M>\nJAXEXT_HD constexpr Table<M> HalfPeriodMidCos();\n",
      *[_table(f"M = {m}.", f"HalfPeriodMidCos<{m}>",
               [mp.cospi((mp.mpf(j) + mp.mpf(1) / 2) / m) for j in range(m)], specialization=True)
        for m in INSIDE_RULE_NODES],
      "// The same nodes: 1 - cos(pi (j + 1/2) / M), without the cancellation of the\n"
      "// difference in double next to j = 0.\n"
      "template <int M>\nJAXEXT_HD constexpr Table<M> HalfPeriodMidOneMinusCos();\n",
      *[_table(f"M = {m}.", f"HalfPeriodMidOneMinusCos<{m}>",
               [1 - mp.cospi((mp.mpf(j) + mp.mpf(1) / 2) / m) for j in range(m)],
               specialization=True)
        for m in INSIDE_RULE_NODES],
      _table("The inside rule's node counts M, ascending.", "InsideRuleNodeCount",
             INSIDE_RULE_NODES, kind="IntTable", literal=str),
      _table(f"The largest x = 2 b r / a each count serves: the midpoint rule of 2 M steps\n"
             f"// errs by about exp(-2 M acosh(1 / x)) (law_flux.h), below {INSIDE_RULE_ERROR:g} for\n"
             f"// x <= 1 / cosh(log(1 / {INSIDE_RULE_ERROR:g}) / (2 M)).",
             "InsideRuleMaxX",
             [1 / mp.cosh(mp.log(1 / mp.mpf(INSIDE_RULE_ERROR)) / (2 * m))
              for m in INSIDE_RULE_NODES]),
      _table(f"tan^2(phi_j / 2) at the midpoint rule's nodes phi_j = pi (j + 1/2) / M in [0, pi],\n"
             f"// M = {MAPPED_INSIDE_RULE_NODES}: the mapped inside rule's (law_blocks.h).",
             "HalfPeriodMidHalfTan2",
             [mp.tan(mp.pi * (j + mp.mpf(1) / 2) / (2 * MAPPED_INSIDE_RULE_NODES)) ** 2
              for j in range(MAPPED_INSIDE_RULE_NODES)]),
      _table("32-point Gauss-Legendre on [0, pi / 2], nodes theta_j ascending: cos(theta_j).",
             "GaussHalfPiCos", [mp.cos(t) for t in theta]),
      _table("The same nodes: sin(theta_j)^2.", "GaussHalfPiSin2", [mp.sin(t) ** 2 for t in theta]),
      _table("The same rule's weights.", "GaussHalfPiWeight", [quarter_pi * wj for wj in w]),
      *graded_tables(),
      _table("32-point Gauss-Legendre on [0, 1]: nodes, ascending.", "GaussUnitNode",
             [(1 + xj) / 2 for xj in x]),
      _table("The same rule's weights.", "GaussUnitWeight", [wj / 2 for wj in w]),
  ]
  rules = [gauss_legendre(n) for n in EXPOSURE_RULE_COUNTS]
  tables += [
      _table(f"Gauss-Legendre on [0, 1] of {', '.join(map(str, EXPOSURE_RULE_COUNTS))} points"
             " (the exposure\n// quadrature's rules, transit/exposure.h): their point counts.",
             "ExposureRuleCount", EXPOSURE_RULE_COUNTS, kind="IntTable", literal=str),
      _table("Their nodes, one rule after another, each ascending.", "ExposureRuleNode",
             [(1 + xj) / 2 for xs, _ in rules for xj in xs]),
      _table("Their weights.", "ExposureRuleWeight", [wj / 2 for _, ws in rules for wj in ws]),
  ]
  tails = exponential_tails()
  tables.append(_table(
      "The exponential law's term (laws.h): d_i = sum_{n >= i} B_n / (n + 1)!, i = 0..\n"
      f"// {EXPONENTIAL_TAILS - 1}, B_n the Bernoulli numbers (B_1 = -1/2); the rest is below\n"
      "// 1e-19.", "ExponentialTermTails", tails))
  tables.append(_table(
      f"LogFromRatio's polynomial (elementary.h): log m = 2 s P(s^2), s = (m - 1) / (m +\n"
      f"// 1), m in [sqrt(1/2), sqrt(2)]; P's coefficients from the constant term up.",
      "LogRatioCoefficients", log_ratio_coefficients(), literal=repr))
  tables.append(_table(
      "Expm1OfNode's polynomial (elementary.h): e^y - 1 = y + y^2 P(y), |y| <= log(2) /\n"
      "// 2; P's coefficients from the constant term up.",
      "Expm1Coefficients", expm1_coefficients(), literal=repr))
  atan_lines = "\n".join(f"      {repr(c)}," for c in atan)
  return f"""\
// The constant tables of the ops' math. GENERATED by tools/math_tables.py
// (mpmath, {DIGITS} digits; the method is in its docstring): do not edit by
// hand. tests/math_tables_test.py checks that the script writes this file.
//
// Each table is a function that returns it, which a caller keeps in a local
// constant: host and device code both index that as an array (a table at
// namespace scope would need __device__ storage for device code to read it).
#ifndef JAXLIB_EXT_MATH_NODES_H_
#define JAXLIB_EXT_MATH_NODES_H_

#include "jaxlib_ext/host_device.h"

namespace jaxext::math {{
inline namespace JAXEXT_MATH_NAMESPACE {{

template <int N>
struct Table {{
  double v[N];
}};

template <int N>
struct IntTable {{
  int v[N];
}};

{chr(10).join(tables)}
// Atan2NonNegative's polynomial: atan(v) = v + v^3 P(v^2) for 0 <= v <=
// tan(pi / 8), P's coefficients from the constant term up.
JAXEXT_HD constexpr Table<{ATAN_DEGREE + 1}> AtanCoefficients() {{
  return {{{{
{atan_lines}
  }}}};
}}

}}  // namespace JAXEXT_MATH_NAMESPACE
}}  // namespace jaxext::math

#endif  // JAXLIB_EXT_MATH_NODES_H_
"""


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--check", action="store_true",
                      help="compare with the file instead of writing it; exit 1 if they differ")
  args = parser.parse_args()
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  path = os.path.join(root, HEADER)
  text = render()
  if args.check:
    with open(path) as f:
      same = f.read() == text
    print(f"{HEADER}: {'as generated' if same else 'DIFFERS from what the script writes'}")
    sys.exit(0 if same else 1)
  with open(path, "w") as f:
    f.write(text)
  print(f"wrote {HEADER}")


if __name__ == "__main__":
  main()
