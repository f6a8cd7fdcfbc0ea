"""An independent reference for the light curve: the blocked flux by numerical
integration with mpmath, sharing nothing with the closed form under test.

The flux blocked by a disk of radius r at separation b from the centre of a
unit star is the integral over the stellar radius rho of I(rho) times the
length of the circle of radius rho inside the disk: 2 rho acos((rho^2 + b^2 -
r^2) / (2 rho b)) where that circle crosses the disk's edge, 2 pi rho where
it lies inside, 0 outside. Divided by the star's flux (the same integral of
2 pi rho I(rho)), it gives 1 - F. The integral is split where the integrand
has kinks (rho = |b - r|, b + r) and done with mpmath's tanh-sinh quadrature
at 28 digits, some 12 beyond float64's bounds; derivatives are central
differences of it at more digits (their step divides the quadrature's last
digits).
For many laws at one point, blocked_terms integrates each term (1 - mu)^n
once and flux_minus_one_from_terms sums them per law.
"""

import functools

import mpmath as mp

_DPS = 28


def _intensity(u, rho):
  mu = mp.sqrt(1 - rho * rho)
  return 1 - sum(un * (1 - mu) ** (n + 1) for n, un in enumerate(u))


def _arc(b, r, rho):
  """The length of the circle of radius rho (centred on the star) inside the
  disk of radius r at separation b, all mpf."""
  if b == 0:
    return 2 * mp.pi * rho if rho < r else mp.mpf(0)
  c = (rho * rho + b * b - r * r) / (2 * rho * b)
  if c >= 1:
    return mp.mpf(0)
  if c <= -1:
    return 2 * mp.pi * rho
  return 2 * rho * mp.acos(c)


def flux_minus_one(u, b, r, dps=_DPS):
  """F - 1 at (b, r) for the law with coefficients u (mpf or float), as mpf."""
  with mp.workdps(dps):
    u = [mp.mpf(x) for x in u]
    return _law_flux_minus_one(
        lambda mu: 1 - sum(un * (1 - mu) ** (n + 1) for n, un in enumerate(u)), b, r, dps)


def _law_flux_minus_one(intensity, b, r, dps=_DPS, kinks=(), in_theta=False):
  """F - 1 at (b, r) for the intensity profile I(mu) (a function of mpf), at
  dps digits; kinks: radii where I has a kink (the quadrature splits there).
  in_theta: integrate in theta = asin(rho) (rho = sin theta, mu = cos
  theta, drho = mu dtheta), where an intensity infinite on the limb as 1 /
  mu times drho is smooth: several times faster for such a law."""
  with mp.workdps(dps):
    b, r = abs(mp.mpf(b)), mp.mpf(r)
    kinks = [mp.mpf(x) for x in kinks]
    cuts = sorted({x for x in [abs(b - r), b + r] + kinks if 0 < x < 1})
    if in_theta:
      def blocked_at(t):
        mu = mp.cos(t)
        return intensity(mu) * _arc(b, r, mp.sin(t)) * mu

      def total_at(t):
        mu = mp.cos(t)
        return intensity(mu) * 2 * mp.pi * mp.sin(t) * mu

      ends = [0] + [mp.asin(x) for x in cuts] + [mp.pi / 2]
      total_ends = [0] + [mp.asin(x) for x in sorted(set(kinks))] + [mp.pi / 2]
    else:
      def blocked_at(x):
        return intensity(mp.sqrt(max(0, 1 - x * x))) * _arc(b, r, x)

      def total_at(x):
        return intensity(mp.sqrt(max(0, 1 - x * x))) * 2 * mp.pi * x

      ends = [0] + cuts + [1]
      total_ends = [0] + sorted(set(kinks)) + [1]
    return -mp.quad(blocked_at, ends) / mp.quad(total_at, total_ends)


# The laws by name, as kepler.limb_dark.light_curve's `law` takes them, their
# intensity I(mu) written from batman's definitions.
LAW_INTENSITY = {
    "power2": lambda u, mu: 1 - u[0] * (1 - mu ** u[1]),
    "nonlinear": lambda u, mu: 1 - sum(c * (1 - mu ** (mp.mpf(k + 1) / 2))
                                       for k, c in enumerate(u)),
    "square_root": lambda u, mu: 1 - u[0] * (1 - mu) - u[1] * (1 - mp.sqrt(mu)),
    "logarithmic": lambda u, mu: 1 - u[0] * (1 - mu) - u[1] * (mu * mp.log(mu) if mu > 0 else 0),
    # Infinite at mu = 0 (u[1] > 0), integrably (law_flux_minus_one integrates
    # it in theta = asin(rho), where it is smooth times drho); a node within
    # rounding of the limb, where mu rounds to 0, has weight 0.
    "exponential": lambda u, mu: 1 - u[0] * (1 - mu) + (u[1] / mp.expm1(mu) if mu > 0 else 0),
}


def law_flux_minus_one(law, u, b, r, dps=_DPS):
  """F - 1 at (b, r) for the named law (LAW_INTENSITY) with coefficients u."""
  with mp.workdps(dps):
    u = [mp.mpf(x) for x in u]
    return _law_flux_minus_one(lambda mu: LAW_INTENSITY[law](u, mu), b, r, dps,
                               in_theta=law == "exponential")


def law_derivative(law, u, b, r, wrt, h="1e-20"):
  """d(F - 1)/d(wrt), wrt "b", "r" or an index into u, for the named law: a
  central difference of step h (fine enough within 1e-12 of a contact,
  where F has a (b - b_contact)^(3/2) term) at 48 digits (at 40 the
  quadrature's last digits, over h, reach 1e-10 where F is near -1)."""
  dps = _DPS + 20
  with mp.workdps(dps):
    h = mp.mpf(h)
    args = [[mp.mpf(x) for x in u], mp.mpf(b), mp.mpf(r)]
    hi, lo = [list(args[0]), args[1], args[2]], [list(args[0]), args[1], args[2]]
    if wrt in ("b", "r"):
      i = 1 if wrt == "b" else 2
      hi[i] += h
      lo[i] -= h
    else:
      hi[0][wrt] += h
      lo[0][wrt] -= h
    return (law_flux_minus_one(law, *hi, dps=dps) - law_flux_minus_one(law, *lo, dps=dps)) / (2 * h)


def table_intensity(grid, values):
  """The tabulated law's I(mu) (kepler.limb_dark.light_curve, law="tabulated"):
  linear in mu between grid points, the end values beyond them; mpf."""
  grid = [mp.mpf(x) for x in grid]
  values = [mp.mpf(x) for x in values]

  def intensity(mu):
    if mu <= grid[0]:
      return values[0]
    for i in range(1, len(grid)):
      if mu <= grid[i]:
        t = (mu - grid[i - 1]) / (grid[i] - grid[i - 1])
        return values[i - 1] + t * (values[i] - values[i - 1])
    return values[-1]

  return intensity


def _table_kinks(grid):
  return [mp.sqrt(1 - mp.mpf(m) ** 2) for m in grid if 0 < m < 1]


def table_flux_minus_one(grid, values, b, r, dps=_DPS):
  """F - 1 at (b, r) for the tabulated law of that grid and intensities."""
  with mp.workdps(dps):
    return _law_flux_minus_one(table_intensity(grid, values), b, r, dps, _table_kinks(grid))


def table_gradients(grid, values, b, r):
  """(dF/db, dF/dr, [dF/dI_j]) for the tabulated law, without differences:
  the blocked flux B is linear in the intensities (dF/dI_j from the hat
  function of each grid point: dF/dI_j = -(B_j + (F - 1) N_j) / N, N the
  star's flux), and its derivatives in b and r are integrals of I times
  those of the arc length (inverse square roots where the circle of radius
  rho touches the disk's edge, which the tanh-sinh rule takes)."""
  with mp.workdps(_DPS):
    b, r = abs(mp.mpf(b)), mp.mpf(r)
    kinks = _table_kinks(grid)
    lo, hi = abs(b - r), b + r
    cuts = sorted({x for x in [lo, hi] + kinks if 0 < x < 1})

    def blocked_and_total(intensity):
      def at(rho):
        return intensity(mp.sqrt(max(0, 1 - rho * rho)))
      blocked = mp.quad(lambda x: at(x) * _arc(b, r, x), [0] + cuts + [1])
      total = mp.quad(lambda x: at(x) * 2 * mp.pi * x, [0] + sorted(kinks) + [1])
      return blocked, total

    def edge(rho, wrt):
      """d(arc length)/d(wrt) at rho, inside (lo, hi)."""
      c = (rho * rho + b * b - r * r) / (2 * rho * b)
      root = mp.sqrt(max(0, 1 - c * c))
      if root == 0:  # a node within rounding of the end: its weight is nil
        return mp.mpf(0)
      return 2 * r / (b * root) if wrt == "r" else -(b * b - rho * rho + r * r) / (b * b * root)

    intensity = table_intensity(grid, values)
    blocked, total = blocked_and_total(intensity)
    inner = sorted({x for x in [lo, min(hi, 1)] + kinks if lo <= x <= min(hi, 1)})
    d = {}
    for wrt in ("b", "r"):
      if lo >= 1 or b == 0:
        # No overlap, or hidden, or concentric: the edge is the circle rho = r.
        d[wrt] = (-2 * mp.pi * r * intensity(mp.sqrt(1 - r * r)) / total
                  if wrt == "r" and b == 0 and r < 1 else mp.mpf(0))
        continue
      d[wrt] = -mp.quad(lambda x: intensity(mp.sqrt(max(0, 1 - x * x))) * edge(x, wrt),
                        inner) / total
    f = -blocked / total
    d_values = []
    for j in range(len(values)):
      hat = [1 if i == j else 0 for i in range(len(values))]
      b_j, n_j = blocked_and_total(table_intensity(grid, hat))
      d_values.append(-(b_j + f * n_j) / total)
    return d["b"], d["r"], d_values


def blocked_terms(b, r, n_max=6):
  """The flux each basis law (1 - mu)^n, n = 0..n_max, sends through the
  disk at (b, r): the integral over rho of (1 - mu)^n times the arc length
  inside the disk (the integrand of flux_minus_one), as mpf at 28 digits.

  The light curve is linear in the law, so that these give F - 1 for every
  law of up to n_max coefficients (flux_minus_one_from_terms) without an
  integration per law.
  """
  with mp.workdps(_DPS):
    b, r = abs(mp.mpf(b)), mp.mpf(r)

    def arc(rho):
      return _arc(b, r, rho)

    # The arc vanishes below b - r and above b + r: only [lo, hi] is
    # integrated, split where the integrand has kinks.
    lo, hi = max(mp.mpf(0), b - r), min(mp.mpf(1), b + r)
    if lo >= hi:
      return [mp.mpf(0)] * (n_max + 1)
    nodes = sorted({lo, hi} | {x for x in (abs(b - r), b + r) if lo < x < hi})
    return [mp.quad(lambda x, n=n: (1 - mp.sqrt(1 - x * x)) ** n * arc(x), nodes)
            for n in range(n_max + 1)]


@functools.lru_cache(maxsize=None)
def _laplacian_powers_of_z(k_max):
  """Delta^k z for k = 0..k_max, z = sqrt(1 - x^2 - y^2), exactly: each as
  {a: c} meaning the sum of c w^a over the exponents a, w = 1 - rho^2
  (Fractions). For a radial function f(w), Delta f = 4 (1 - w) f'' - 4 f';
  on w^a that is -4 a w^(a - 1) + 4 a (a - 1) (w^(a - 2) - w^(a - 1))."""
  from fractions import Fraction

  powers = [{Fraction(1, 2): Fraction(1)}]
  for _ in range(k_max):
    nxt = {}
    for a, c in powers[-1].items():
      for exponent, factor in ((a - 1, -4 * a - 4 * a * (a - 1)), (a - 2, 4 * a * (a - 1))):
        if factor:
          nxt[exponent] = nxt.get(exponent, 0) + c * factor
    powers.append({a: c for a, c in nxt.items() if c})
  return powers


_SERIES_TERMS = 40


def blocked_terms_inside(b, r, n_max=2):
  """blocked_terms for an occultor inside the disk, n_max <= 2, by another
  method: the integrals of 1, z and z^2 = 1 - rho^2 over the occultor, with
  (1 - z)^n expanded in them. Those of 1 and z^2 are closed forms (pi r^2
  and pi r^2 (1 - b^2 - r^2 / 2)); that of z is the mean-value series of
  the disk (Pizzetti's formula), pi r^2 sum_k (r^2 / 4)^k Delta^k z(b) /
  (k! (k + 1)!), whose terms shrink as (r / (1 - b^2))^2 or faster. Raises
  ValueError where it has not converged to 1e-30 relative in _SERIES_TERMS
  terms (an occultor too near the limb)."""
  if n_max > 2:
    raise ValueError("blocked_terms_inside gives n <= 2")
  # 20 digits more: the exponents' terms of Delta^k z alternate in sign.
  with mp.workdps(_DPS + 20):
    b, r = abs(mp.mpf(b)), mp.mpf(r)
    if not b + r < 1:
      raise ValueError(f"the occultor (b={b}, r={r}) is not inside the disk")
    w = 1 - b * b
    area = mp.pi * r * r
    series, term = mp.mpf(0), mp.mpf(1)
    for k, powers in enumerate(_laplacian_powers_of_z(_SERIES_TERMS)):
      if k:
        term *= r * r / (4 * k * (k + 1))
      value = term * mp.fsum(mp.mpf(c.numerator) / c.denominator *
                             w ** (mp.mpf(a.numerator) / a.denominator)
                             for a, c in powers.items())
      series += value
      if k >= 2 and abs(value) < mp.mpf("1e-30") * abs(series):
        break
    else:
      raise ValueError(f"the mean-value series did not converge at b={b}, r={r}")
    of_z = area * series
    of_z2 = area * (1 - b * b - r * r / 2)
    terms = [area, area - of_z, area - 2 * of_z + of_z2]
    return terms[:n_max + 1]


def _term_total(n):
  """The integral of 2 pi rho (1 - mu)^n over the star, n >= 1 (mpf)."""
  return 2 * mp.pi / ((n + 1) * (n + 2))


def _total_flux(u):
  """The star's flux for the law with coefficients u (mpf): pi - sum_n u_n
  times _term_total(n)."""
  return mp.pi - mp.fsum(un * _term_total(n) for n, un in enumerate(u, start=1))


def flux_minus_one_from_terms(point_terms, laws):
  """F - 1 as floats, [law][point], for each law in laws (sequences of at
  most n_max coefficients) at each point whose blocked_terms are in
  point_terms. I = 1 - sum_n u_n (1 - mu)^n blocks terms[0] - sum_n u_n
  terms[n] of a total pi - sum_n u_n 2 pi / ((n + 1) (n + 2)) (the integral
  of 2 pi rho (1 - mu)^n over the star, with mu = sqrt(1 - rho^2)).
  """
  with mp.workdps(_DPS):
    out = []
    for u in laws:
      u = [mp.mpf(float(x)) for x in u]
      total = _total_flux(u)
      out.append([float(-(terms[0] - mp.fdot(u, terms[1:len(u) + 1])) / total)
                  for terms in point_terms])
    return out


def flux_gradient_in_u_from_terms(terms, u):
  """dF/du_1..dF/du_N as floats at the point whose blocked_terms are
  `terms`, exactly (F is a ratio of functions linear in u): with A = terms[0]
  - sum_n u_n terms[n] and the total of flux_minus_one_from_terms, F - 1 =
  -A / total, so dF/du_n = terms[n] / total - A / total^2 2 pi / ((n + 1)
  (n + 2))."""
  with mp.workdps(_DPS):
    u = [mp.mpf(float(x)) for x in u]
    total = _total_flux(u)
    blocked = terms[0] - mp.fdot(u, terms[1:len(u) + 1])
    return [float(terms[n + 1] / total - blocked / total ** 2 * _term_total(n + 1))
            for n in range(len(u))]


def derivative(u, b, r, wrt, h="1e-12"):
  """d(F - 1)/d(wrt) for wrt in ("b", "r") or an index into u, by a central
  difference of step h at 40 digits (smooth away from the contact points)."""
  dps = _DPS + 12
  with mp.workdps(dps):
    h = mp.mpf(h)
    args = {"b": mp.mpf(b), "r": mp.mpf(r)}
    u = [mp.mpf(x) for x in u]
    if wrt in ("b", "r"):
      hi, lo = dict(args), dict(args)
      hi[wrt] += h
      lo[wrt] -= h
      return (flux_minus_one(u, **hi, dps=dps) - flux_minus_one(u, **lo, dps=dps)) / (2 * h)
    up, down = list(u), list(u)
    up[wrt] += h
    down[wrt] -= h
    return (flux_minus_one(up, **args, dps=dps) - flux_minus_one(down, **args, dps=dps)) / (2 * h)
