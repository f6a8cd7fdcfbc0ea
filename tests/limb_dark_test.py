"""kepler.limb_dark.light_curve against an independent reference (mpmath
integration, tests/limb_dark_reference.py), and its API: dtypes, shapes,
invalid input, jit, grad (to second order), vmap.

Bounds (docs/accuracy_and_speed.md): float64 absolute error of F - 1
<= 1e-15 for every quadratic law with u1 >= 0, u1 + u2 <= 1, u1 + 2 u2 >= 0,
and <= 5e-15 for every law of 1 and 3 to 6 coefficients with u_1 >= u_2 >=
... >= u_N >= 0 and sum u_n <= 1, for r from 1e-3 to 3 and b on and within
1e-12, 1e-9, 1e-6 of every special point (0, r, |1 - r|, 1, 1 + r): many laws
drawn (seeded) from each region, with its corners; <= 5e-15 also for every
law of 3 to 6 coefficients whose intensity is non-negative and
non-increasing toward the limb (drawn from [-k, k]^N, k = 1, 2, 4: large
coefficients of alternating sign) on those points, on random ones with r up
to 3 and next to where the limbs touch inside, and for six coefficients u_n
>= 0 with sum u_n <= 1 in any order (the unit laws among them) on planets
from r = 0.3 to 3; float32 <= 2e-6; with
32 coefficients, F - 1 <= 5e-15 and dF/du within 1e-5 relative. dF/du
within 1e-10 relative (plus 1e-18) where the planet blocks little.
"""

import functools
import itertools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax.test_util import check_grads
import mpmath as mp
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
from kepler import limb_dark
from tests import limb_dark_laws
from tests import limb_dark_reference as ref

FLOAT = np.dtype(x64_mode.FLOAT).type  # float32 when jax_enable_x64 is off
# The bound with jax_enable_x64 off, where every array is float32: the kernel
# still computes in float64 and rounds once (half an ulp of a flux of size up
# to 1 is 6e-8; 2.7e-8 seen), and the points are the float32-rounded ones
# (the reference is evaluated at those).
FLOAT32_BOUND = 1e-7
QUADRATIC = (0.4, 0.26)
POLY6 = (0.2, 0.1, 0.05, 0.03, 0.02, 0.01)
# The radii of the special points: these, and one drawn (seeded,
# log-uniform) from each of [1e-3, 0.1], [0.1, 1] and [1, 3].
RADII = (1e-3, 0.01, 0.1, 0.5, 1.0, 1.5, 3.0)
DRAWN_RADII = tuple(float(x) for x in np.exp(np.random.default_rng(22).uniform(
    np.log([1e-3, 0.1, 1.0]), np.log([0.1, 1.0, 3.0]))))
OFFSETS = (0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-6, -1e-6)
# Laws drawn from each region (besides its corners): quadratic, and per
# number of coefficients.
N_QUADRATIC_LAWS = 100
N_POLYNOMIAL_LAWS = 25


def _quadratic_laws():
  """Laws from u1 >= 0, u1 + u2 <= 1, u1 + 2 u2 >= 0 (the intensity is >= 0
  and non-increasing toward the limb): the triangle (0, 0), (0, 1), (2, -1).
  Its corners and edge midpoints, QUADRATIC, and N_QUADRATIC_LAWS drawn
  uniformly (seeded), shape (laws, 2)."""
  return limb_dark_laws.quadratic_laws(np.random.default_rng(20), N_QUADRATIC_LAWS,
                                       extra=[QUADRATIC])


def _polynomial_laws(order):
  """Laws of `order` coefficients with u_1 >= ... >= u_N >= 0 and sum u_n <=
  1: its corners (1/k, ..., 1/k, 0, ..., 0), POLY6 for 6, and
  N_POLYNOMIAL_LAWS drawn uniformly (seeded), shape (laws, order).

  u_j = sum_{k >= j} w_k / k maps {w >= 0, sum w <= 1} linearly onto the
  region, so uniform w (a flat Dirichlet's first N components) gives uniform
  u. A narrower region than every law with a non-negative, non-increasing
  intensity (_physical_laws).
  """
  w = np.random.default_rng(21 + order).dirichlet(np.ones(order + 1), N_POLYNOMIAL_LAWS)[:, :order]
  drawn = np.cumsum((w / np.arange(1, order + 1))[:, ::-1], axis=1)[:, ::-1]
  corners = [[1.0 / k] * k + [0.0] * (order - k) for k in range(1, order + 1)]
  extra = [POLY6] if order == 6 else []
  return np.vstack(corners + extra + [drawn])


@functools.lru_cache(maxsize=None)
def _point_terms(b, r, n_max=6):
  return ref.blocked_terms(b, r, n_max)


def _reference_terms(points, n_max=6):
  """ref.blocked_terms (up to n_max) at each (b, r) of `points`, each
  computed once."""
  return [_point_terms(b, r, n_max) for b, r in points]


def _physical_laws(order, count, seed, box=4.0):
  """limb_dark_laws.physical_laws drawn with a generator seeded by `seed`
  (for three or more coefficients the kernel takes F from the law's
  intensity on the occultor's edge, not from the Green's basis)."""
  return limb_dark_laws.physical_laws(order, count, np.random.default_rng(seed), box)


def _gradient_in_u(law, points, n_max=6):
  """dF/du of the kernel and of the reference, shape (points, coefficients),
  at the points and law as FLOAT rounds them (what the kernel sees)."""
  law = np.asarray(law, FLOAT)
  points = [(float(FLOAT(b)), float(FLOAT(r))) for b, r in points]
  b, r = (np.array(x, FLOAT) for x in zip(*points))
  grad = jax.vmap(jax.grad(limb_dark.light_curve), in_axes=(None, 0, 0))
  got = np.asarray(grad(jnp.asarray(law), b, r), np.float64)
  want = np.array([ref.flux_gradient_in_u_from_terms(_point_terms(*p, n_max), law)
                   for p in points])
  return got, want


def _special_points():
  """(b, r) on and near every special point, b >= 0."""
  return limb_dark_laws.special_points(RADII + DRAWN_RADII, OFFSETS)


def _reference(u, points):
  return np.array([float(ref.flux_minus_one(u, b, r)) for b, r in points])


class AccuracyTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("quadratic", 2, 1e-15), ("linear", 1, 5e-15), ("order3", 3, 5e-15),
      ("order4", 4, 5e-15), ("order5", 5, 5e-15), ("order6", 6, 5e-15))
  def test_special_points(self, order, bound):
    laws = _quadratic_laws() if order == 2 else _polynomial_laws(order)
    self._check_laws(laws, _special_points(), bound)

  def _check_laws(self, laws, points, bound, terms=_reference_terms):
    """Every law (a row of laws) at every point within bound. The reference
    is F - 1 from the per-term integrals, exact for the rounded inputs:
    terms(points, n_max) gives them (by default the quadrature's)."""
    if FLOAT == np.float32:
      points = [(float(np.float32(b)), float(np.float32(r))) for b, r in points]
      laws = laws.astype(np.float32).astype(np.float64)
      bound = FLOAT32_BOUND
    b, r = (np.array(x) for x in zip(*points))
    got = np.asarray(jax.vmap(lambda u: limb_dark.light_curve(u, b, r))(jnp.asarray(laws, FLOAT)),
                     np.float64)
    n_max = max(6, laws.shape[1])
    want = np.array(ref.flux_minus_one_from_terms(terms(tuple(points), n_max), laws))
    err = np.abs(got - want)
    law, point = np.unravel_index(np.argmax(err), err.shape)
    self.assertLessEqual(
        err[law, point], bound,
        f"u={laws[law].tolist()!r} at b={b[point]!r}, r={r[point]!r}: "
        f"{got[law, point]!r} vs {want[law, point]!r}")

  @parameterized.named_parameters(("uniform", 0), ("linear", 1), ("quadratic", 2))
  def test_random_points(self, order):
    # Laws of up to two coefficients take the vectorised CPU path for generic
    # points (jaxlib_ext/limb_dark/limb_dark.h, LowOrderLightCurvePoint): random
    # points in and around the transit, planets up to half the star.
    rng = np.random.default_rng(3)
    points = list(zip(rng.uniform(0, 1.3, 60), rng.uniform(0.005, 0.5, 60)))
    laws = {0: np.zeros((1, 0)), 1: _polynomial_laws(1), 2: _quadratic_laws()}[order]
    self._check_laws(laws, points, 1e-15)

  def test_quadratic_laws_small_planets(self):
    # Where the quadratic bound is nearest (docs/accuracy_and_speed.md): small
    # planets inside the disk, whose s_1 - 2 pi / 3 (about -pi r^2) the
    # kernel forms from terms of order 1, up to ~5 ulps of 1 off. 1500
    # random points, r log-uniform in [1e-3, 0.06] and b in [0, 2.5 r] (over
    # the centre and off it), every law of _quadratic_laws (the corner (0,
    # 1) weighs that deficit most). The reference is the mean-value series
    # of the occultor (ref.blocked_terms_inside), a method of its own,
    # checked against the quadrature on some of the points first.
    rng = np.random.default_rng(60)
    r = np.exp(rng.uniform(np.log(1e-3), np.log(0.06), 1500))
    points = list(zip(rng.uniform(0, 2.5, 1500) * r, r))
    if FLOAT == np.float32:
      points = [(float(np.float32(b)), float(np.float32(r))) for b, r in points]
    for b, r in points[:4]:
      series, quadrature = ref.blocked_terms_inside(b, r), ref.blocked_terms(b, r, 2)
      for x, y in zip(series, quadrature):
        self.assertLess(abs(x - y), 1e-22 * r * r, (b, r))

    def series_terms(points, n_max):
      del n_max  # quadratic laws: terms 0 to 2
      return [ref.blocked_terms_inside(b, r) for b, r in points]

    # On a GPU the device code (FMA contraction, CUDA's libm) measured
    # 1.1e-15 here (H200, 2026-11-27): docs/accuracy_and_speed.md.
    bound = 1e-15 if jax.default_backend() == "cpu" else 1.5e-15
    self._check_laws(_quadratic_laws(), points, bound, series_terms)

  @parameterized.named_parameters(("order3", 3), ("order4", 4), ("order5", 5), ("order6", 6))
  def test_steep_laws(self, order):
    # Every law whose intensity is non-negative and non-increasing toward the
    # limb, drawn from [-k, k]^N (k = 1, 2, 4; large coefficients of
    # alternating sign for k = 4): their Green's coefficients reach ~35 times
    # the normalisation, which multiplied the closed forms' rounding past
    # 1e-14 (docs/accuracy_and_speed.md); the kernel takes F from the law's
    # intensity on the occultor's edge (edge_rules.h: CrossingEdgeFlux,
    # InsideEdgeIntegrals, InsideEdgeFlux, ContactEdgeFlux). On the special
    # points of every radius, random points in and around the transit with
    # r log-uniform in [0.005, 3], and points within 1e-12 r to 0.1 r of the
    # inner contact b = 1 - r (where ContactEdgeFlux serves). The same points
    # for every order (their reference terms are computed once).
    rng = np.random.default_rng(40)
    r = np.exp(rng.uniform(np.log(0.005), np.log(3.0), 40))
    points = list(zip(rng.uniform(np.maximum(0, r - 1), 1 + r), r))
    r = np.exp(rng.uniform(np.log(0.01), np.log(0.9), 20))
    offset = rng.choice([-1, 1], 20) * 10 ** rng.uniform(-12, -1, 20) * r
    points += list(zip(np.abs(1 - r + offset), r))
    points += _special_points()
    laws = np.vstack([_physical_laws(order, 8, 30 + order),
                      _physical_laws(order, 4, 60 + order, box=2.0),
                      _physical_laws(order, 4, 70 + order, box=1.0)])
    self._check_laws(laws, points, 5e-15)

  def test_non_negative_laws_large_planets(self):
    # Six coefficients u_n >= 0 with sum u_n <= 1 in any order (the
    # intensity is then non-negative and non-increasing toward the limb),
    # the unit laws u_n = 1 among them: all weight on (1 - mu)^6 has Green's
    # coefficients ~16 times the normalisation, which multiply the rounding
    # of s_0 - pi and s_1 - 2 pi / 3 where the planet is large, were F
    # summed in that basis (the kernel takes F from the edge rules there).
    # Random points across the limb and inside the disk for r from 0.3 to 3,
    # and the two worst of 1762 random points for the paper's Lambda (7.0e-15
    # and 5.8e-15 with it).
    rng = np.random.default_rng(50)
    laws = np.vstack([np.eye(6), rng.dirichlet(np.ones(7), 30)[:, :6]])
    r = np.exp(rng.uniform(np.log(0.3), np.log(3.0), 60))
    b = np.abs(r + rng.uniform(-1, 1, 60))
    points = [(x, y) for x, y in zip(b, r) if y - 1 < x < 1 + y]
    points += [(1.1305251507763376, 1.1857081705161396), (3.225763620248201, 2.9967603657376842)]
    self._check_laws(laws, points, 5e-15)

  def test_physical_laws_across_the_limb(self):
    # Six coefficients from [-1, 1]^6 whose intensity is non-negative and
    # non-increasing toward the limb, planets across the limb with k^2 from
    # 0.5 to 0.95 (where the paper's Lambda is up to ~3 ulps off in s_1 -
    # 2 pi / 3; CrossingEdgeFlux serves), r from 0.05 to 3; with them the
    # point and the two laws below (rounded from the worst of 3000 such laws
    # there: 5.4e-15 and 5.6e-15 with the Green's basis and Lambda).
    laws = np.vstack([[0.17, 0.34, -0.78, -0.63, 0.96, 0.89],
                      [0.706, -0.248, -0.265, -0.984, 0.994, 0.734],
                      _physical_laws(6, 14, 51, box=1.0)])
    rng = np.random.default_rng(52)
    points = [(0.6023105502455968, 0.4911150307212268)]
    while len(points) < 30:
      r = np.exp(rng.uniform(np.log(0.05), np.log(3.0)))
      b = rng.uniform(abs(1 - r), 1 + r)
      if 0.5 <= (1 - (b - r) ** 2) / (4 * b * r) < 0.95:
        points.append((b, r))
    self._check_laws(laws, points, 5e-15)

  def test_float32(self):
    points = [(b, r) for b, r in _special_points()[::5]]
    b, r = (np.array(x, np.float32) for x in zip(*points))
    got = limb_dark.light_curve(np.array(QUADRATIC, np.float32), b, r)
    self.assertEqual(got.dtype, np.float32)
    want = _reference(QUADRATIC, [(float(x), float(y)) for x, y in zip(b, r)])
    np.testing.assert_array_less(np.abs(np.asarray(got, np.float64) - want), 2e-6)

  def test_order_ten(self):
    u = np.array([0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02, 0.02, 0.01, 0.01])
    points = [(0.3, 0.1), (0.95, 0.1), (1.05, 0.1), (0.5, 0.5), (1.5, 2.0)]
    b, r = (np.array(x, FLOAT) for x in zip(*points))
    got = np.asarray(limb_dark.light_curve(u.astype(FLOAT), b, r), np.float64)
    bound = 5e-15 if FLOAT == np.float64 else 2e-6
    np.testing.assert_allclose(got, _reference(u, points), rtol=0, atol=bound)

  def test_order_32(self):
    # MAX_ORDER coefficients: the Green's coefficients grow and alternate in
    # sign with the order (the paper, sec. 9), and so do the binomials of
    # the transpose that gives dF/du; F comes from the edge rules, which do
    # not use them. Two laws: u_n = 0.9 / 2^n (F within 1.1e-16, dF/du
    # 2.4e-6 relative to its largest) and u_n = 1/32 (F within 2.2e-16,
    # dF/du 2.9e-6), measured on 8 points (docs/accuracy_and_speed.md, "Many
    # coefficients"); here four of them.
    n = limb_dark.MAX_ORDER
    laws = np.array([0.9 * 0.5 ** np.arange(1, n + 1), np.full(n, 1.0 / n)])
    points = [(0.3, 0.1), (1.05, 0.1), (0.7, 0.7), (2.5, 3.0)]
    self._check_laws(laws, points, 5e-15)
    for law in laws:
      got, want = _gradient_in_u(law, points, n)
      err = np.max(np.abs(got - want), axis=1) / np.max(np.abs(want), axis=1)
      self.assertLess(err.max(), 1e-5, f"u_1 = {law[0]}: dF/du off by {err.max():.2e} relative")

  def test_uniform_disk_and_limits(self):
    empty = np.zeros((0,), FLOAT)
    # Uniform disk, planet inside: -r^2; no overlap: 0; full occultation: -1.
    got = limb_dark.light_curve(empty, np.array([0.3, 2.0, 0.1], FLOAT), np.array([0.1, 0.5, 2.0], FLOAT))
    np.testing.assert_allclose(got, [-0.01, 0.0, -1.0], atol=1e-15 if FLOAT == np.float64 else 1e-7)

  def test_b_sign_is_ignored(self):
    u = np.array(QUADRATIC, FLOAT)
    b = np.array([0.3, 0.95, 1.05], FLOAT)
    np.testing.assert_array_equal(limb_dark.light_curve(u, b, 0.1), limb_dark.light_curve(u, -b, 0.1))


class DerivativeTest(parameterized.TestCase):
  """Derivatives in b, r and u against central differences of the reference."""

  POINTS = ((0.0, 0.1), (0.3, 0.1), (0.95, 0.1), (1.05, 0.1), (0.2, 0.5), (1.5, 2.0), (0.7, 0.7))

  def test_first_derivatives_poly6(self):
    # In b and r, where the values of s_n for r > 1 come from other forms
    # than the derivatives (solution_vector.h, SolutionVector): large planets next
    # to b = r and across the disk; in u through the general path's
    # transpose of the Green's basis (polynomial_law.h, GreensTranspose).
    grad = jax.jit(jax.grad(limb_dark.light_curve, argnums=(0, 1, 2)))
    rtol, atol = (1e-9, 1e-13) if FLOAT == np.float64 else (1e-6, 1e-12)
    for b, r in self.POINTS + ((3.001, 3.0), (2.5, 3.0), (1.2, 1.5)):
      b, r = float(FLOAT(b)), float(FLOAT(r))  # the point the kernel sees
      du, db, dr = grad(jnp.asarray(POLY6, FLOAT), FLOAT(b), FLOAT(r))
      with mp.workdps(40):
        want = [float(ref.derivative(POLY6, b, r, "b")), float(ref.derivative(POLY6, b, r, "r"))]
        want_u = [float(ref.derivative(POLY6, b, r, j)) for j in range(len(POLY6))]
      np.testing.assert_allclose([db, dr], want, rtol=rtol, atol=atol, err_msg=f"b={b}, r={r}")
      np.testing.assert_allclose(du, want_u, rtol=rtol, atol=atol, err_msg=f"b={b}, r={r}")

  def test_first_derivatives(self):
    u = np.array(QUADRATIC)
    grad = jax.jit(jax.grad(limb_dark.light_curve, argnums=(0, 1, 2)))
    for b, r in self.POINTS:
      b, r = float(FLOAT(b)), float(FLOAT(r))  # the point the kernel sees
      du, db, dr = grad(u, b, r)
      with mp.workdps(40):
        want = [float(ref.derivative(QUADRATIC, b, r, "b")), float(ref.derivative(QUADRATIC, b, r, "r"))]
        want_u = [float(ref.derivative(QUADRATIC, b, r, j)) for j in range(2)]
      # float32: every derivative (in u too) is the kernel's float64 value
      # at the float32-rounded b and r, rounded once.
      rtol, atol = (1e-9, 1e-13) if FLOAT == np.float64 else (1e-6, 1e-12)
      np.testing.assert_allclose([db, dr], want, rtol=rtol, atol=atol, err_msg=f"b={b}, r={r}")
      np.testing.assert_allclose(du, want_u, rtol=rtol, atol=atol, err_msg=f"b={b}, r={r}")

  def test_u_gradient_shallow_and_deep(self):
    # dF/du where the planet blocks little: next to last contact (b = 1 + r
    # - d) and small planets inside the disk. dF/dg_0 and dF/dg_1 are
    # formed from the deficits s_k - s0_k (polynomial_law.h, FluxGradientInU):
    # formed from s_k and F they would round to ulps of pi over the norm,
    # 1e-16 to 2e-15 absolute whatever the size of dF/du (1e-8 relative for
    # the quadratic law at r = 0.1, b = 1 + r - 1e-5, 3e-6 for POLY6 at r =
    # 0.01, b = 1 + r - 1e-6). Bound: 1e-10 relative plus 1e-18 (a
    # millionth of an ulp of the flux): next to contact the s_n of the
    # thin lens set 6e-9 relative at r = 0.01, b = 1 + r - 1e-6, 4e-19
    # absolute. Exact reference: F is a ratio of functions linear in u
    # (ref.flux_gradient_in_u_from_terms).
    points = [(1 + r - d * r, r) for r in (0.01, 0.1, 0.5) for d in (1e-4, 1e-3, 1e-2, 0.1)]
    points += [(0.3, 0.1), (0.5, 0.05), (0.0, 0.02)]
    for law in (QUADRATIC, POLY6):
      got, want = _gradient_in_u(law, points)
      rtol, atol = (1e-10, 1e-18) if FLOAT == np.float64 else (1e-6, 0)
      np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"u={law}")

  def test_negative_b(self):
    # F is even in b: the gradient in b flips its sign with b (the kernel
    # returns dF/db in b itself), those in r and u do not; and at negative b
    # it is the slope of F there (central differences of F, float64). Both
    # paths: the quadratic law (vectorised) and POLY6 (scalar).
    rng = np.random.default_rng(7)
    b = rng.uniform(0.02, 1.3, 64)
    r = rng.uniform(0.01, 0.5, 64)
    grad = jax.jit(jax.vmap(jax.grad(limb_dark.light_curve, argnums=(0, 1, 2)), in_axes=(None, 0, 0)))
    for law in (QUADRATIC, POLY6):
      u = jnp.asarray(law, FLOAT)
      du_p, db_p, dr_p = grad(u, jnp.asarray(b, FLOAT), jnp.asarray(r, FLOAT))
      du_m, db_m, dr_m = grad(u, jnp.asarray(-b, FLOAT), jnp.asarray(r, FLOAT))
      np.testing.assert_array_equal(db_m, -db_p)
      np.testing.assert_array_equal(dr_m, dr_p)
      np.testing.assert_array_equal(du_m, du_p)
      if FLOAT == np.float64:
        h = 1e-6
        fd = (limb_dark.light_curve(u, -b + h, r) - limb_dark.light_curve(u, -b - h, r)) / (2 * h)
        far = (np.abs(b - np.abs(1 - r)) > 1e-3) & (np.abs(b - (1 + r)) > 1e-3)
        np.testing.assert_allclose(np.asarray(db_m)[far], np.asarray(fd)[far], rtol=1e-5, atol=1e-9)

  def test_small_b(self):
    # Where the 1/b form of dP/db cancels as b goes to 0 (by how much:
    # docs/accuracy_and_speed.md): the paper's small-b form takes over.
    u = np.array(POLY6)
    grad_b = jax.jit(jax.grad(limb_dark.light_curve, argnums=1))
    for b in (1e-4, 1e-6, 1e-8):
      want = float(ref.derivative(POLY6, b, 0.1, "b", h="1e-15"))
      np.testing.assert_allclose(grad_b(u, b, 0.1), want, rtol=1e-7, atol=1e-17, err_msg=f"b={b}")

  def test_second_order(self):
    u = jnp.asarray(QUADRATIC, FLOAT)
    f = lambda u, b, r: limb_dark.light_curve(u, b, r)
    for b, r in self.POINTS:
      check_grads(f, (u, FLOAT(b), FLOAT(r)), order=2, modes=("fwd", "rev"),
                                atol=1e-4 if FLOAT == np.float64 else 5e-2,
                                rtol=1e-4 if FLOAT == np.float64 else 5e-2)


class ApiTest(absltest.TestCase):

  def test_shapes_broadcast(self):
    u = jnp.asarray(QUADRATIC, FLOAT)
    out = limb_dark.light_curve(u, jnp.zeros((3, 1), FLOAT), jnp.full((4,), 0.1, FLOAT))
    self.assertEqual(out.shape, (3, 4))
    self.assertEqual(limb_dark.light_curve(u, FLOAT(0.5), FLOAT(0.1)).shape, ())
    self.assertEqual(limb_dark.light_curve(u, jnp.zeros((0,), FLOAT), FLOAT(0.1)).shape, (0,))

  def test_dtypes(self):
    u = np.array([0.4, 0.26], np.float32)
    self.assertEqual(limb_dark.light_curve(u, np.float32(0.5), np.float32(0.1)).dtype, np.float32)
    self.assertEqual(limb_dark.light_curve(np.array([0.4, 0.26], FLOAT), 0, 0).dtype, FLOAT)
    with self.assertRaisesRegex(TypeError, "b has dtype complex"):
      limb_dark.light_curve(u, np.complex64(0.5), 0.1)
    with self.assertRaisesRegex(TypeError, "u has dtype bool"):
      limb_dark.light_curve(np.array([True]), 0.5, 0.1)

  def test_bad_shapes(self):
    u = np.array(QUADRATIC, FLOAT)
    with self.assertRaisesRegex(ValueError, r"\(3,\) \(b\) and \(4,\) \(r\) do not broadcast"):
      limb_dark.light_curve(u, np.zeros(3), np.zeros(4))
    with self.assertRaisesRegex(ValueError, "u must be 1-D"):
      limb_dark.light_curve(np.zeros((2, 2)), 0.5, 0.1)
    with self.assertRaisesRegex(ValueError, "at most 32"):
      limb_dark.light_curve(np.zeros(33), 0.5, 0.1)

  def test_invalid_values_give_nan_for_that_element(self):
    u = np.array(QUADRATIC, FLOAT)
    b = np.array([np.nan, 0.5, np.inf, 0.5, 0.5], FLOAT)
    r = np.array([0.1, -0.1, 0.1, np.nan, 0.1], FLOAT)
    out = np.asarray(limb_dark.light_curve(u, b, r))
    self.assertTrue(np.all(np.isnan(out[:4])), out)
    self.assertTrue(np.isfinite(out[4]), out)
    self.assertTrue(np.all(np.isnan(limb_dark.light_curve(np.array([np.nan, 0.1], FLOAT), b[4:], r[4:]))))

  def test_order_is_ignored(self):
    u = np.array(QUADRATIC, FLOAT)
    np.testing.assert_array_equal(limb_dark.light_curve(u, 0.5, 0.1, order=20),
                                  limb_dark.light_curve(u, 0.5, 0.1))

  def test_vmap_over_u_and_b(self):
    us = jnp.asarray([[0.4, 0.26], [0.1, 0.5], [0.0, 0.0]], FLOAT)
    b = jnp.linspace(0, 1.2, 5, dtype=FLOAT)
    batched = jax.vmap(lambda u: limb_dark.light_curve(u, b, FLOAT(0.1)))(us)
    looped = jnp.stack([limb_dark.light_curve(u, b, FLOAT(0.1)) for u in us])
    np.testing.assert_array_equal(batched, looped)
    over_b = jax.vmap(lambda x: limb_dark.light_curve(us[0], x, FLOAT(0.1)))(b)
    np.testing.assert_array_equal(over_b, looped[0])
    # Gradients in u under vmap (a batch of stars).
    g = jax.vmap(jax.grad(lambda u: limb_dark.light_curve(u, FLOAT(0.5), FLOAT(0.1))))(us)
    g_loop = jnp.stack([jax.grad(lambda u: limb_dark.light_curve(u, FLOAT(0.5), FLOAT(0.1)))(u) for u in us])
    np.testing.assert_allclose(g, g_loop, rtol=1e-12 if FLOAT == np.float64 else 1e-5)


def _law_region(law, rng, count):
  """Coefficients of `law` drawn (seeded) from its physical region (the
  intensity non-negative on [0, 1]), with the region's corners."""
  corners = {
      "power2": [(0.0, 0.5), (1.0, 0.05), (1.0, 3.0), (-1.0, 1.0)],
      "nonlinear": [(0.0, 0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)],
      "square_root": [(0.0, 1.0), (1.0, 0.0), (-1.0, 2.0)],
      "logarithmic": [(1.0, 0.0), (0.0, 0.0), (0.6, 0.4)],
      "exponential": [(1.0, 0.0), (0.0, 1.0), (0.6, 0.3)],
  }[law]
  draw = {
      "power2": lambda: (rng.uniform(-1, 1), np.exp(rng.uniform(np.log(0.05), np.log(3)))),
      "nonlinear": lambda: tuple(rng.uniform(-2, 2, 4)),
      "square_root": lambda: tuple(rng.uniform(-1, 2, 2)),
      "logarithmic": lambda: tuple(rng.uniform(-1, 2, 2)),
      "exponential": lambda: (rng.uniform(-1, 2), rng.uniform(0, 1)),
  }[law]
  mu = np.linspace(1e-6, 1, 401)
  laws = list(corners)
  while len(laws) < count:
    u = draw()
    if np.all(_intensity(law, u, mu) >= 0):
      laws.append(u)
  return np.array(laws, np.float64)


def _intensity(law, u, mu):
  """I(mu) in float64, for drawing laws (the reference has its own)."""
  mu_log_mu = mu * np.log(mu)
  return {
      "power2": lambda: 1 - u[0] * (1 - mu ** u[1]),
      "nonlinear": lambda: 1 - sum(c * (1 - mu ** ((k + 1) / 2)) for k, c in enumerate(u)),
      "square_root": lambda: 1 - u[0] * (1 - mu) - u[1] * (1 - np.sqrt(mu)),
      "logarithmic": lambda: 1 - u[0] * (1 - mu) - u[1] * mu_log_mu,
      "exponential": lambda: 1 - u[0] * (1 - mu) + u[1] / np.expm1(mu),
  }[law]()


NON_POLYNOMIAL = ("power2", "nonlinear", "square_root", "logarithmic", "exponential")
# Those whose every term is a power of mu (the CPU's blocks, law_blocks.h).
POWER_LAWS = ("power2", "nonlinear", "square_root")
# F - 1 against the quadrature of the law itself (issue bound 1e-13; seen
# 5e-15); float32: relative to the transit's depth at that radius.
LAW_BOUND = 1e-13
LAW_FLOAT32_DEPTH_BOUND = 1e-7


def _assert_within_law_bound(test, got, b, r, reference, what):
  """F - 1 `got` at the points (b, r) within LAW_BOUND of reference(b, r)
  (mpf), or in float32 LAW_FLOAT32_DEPTH_BOUND of the depth: at least F - 1
  at the centre and at the point itself (limb-brightened laws block most
  off centre)."""
  got = np.asarray(got, np.float64)
  want = np.array([float(reference(bi, ri)) for bi, ri in zip(b, r)])
  if FLOAT == np.float32:
    depth = np.array([-float(reference(0.0, ri)) for ri in r])
    bound = LAW_FLOAT32_DEPTH_BOUND * np.maximum(depth, np.abs(want))
  else:
    bound = LAW_BOUND
  err = np.abs(got - want)
  i = int(np.argmax(err - bound))
  test.assertTrue(np.all(err <= bound),
                  f"{what} b={b[i]!r} r={r[i]!r}: {got[i]!r} vs {want[i]!r}")


class LawsTest(parameterized.TestCase):
  """The laws other than the polynomial (law=...), against an mpmath
  quadrature of each law's own intensity (tests/limb_dark_reference.py)."""

  @parameterized.parameters(*NON_POLYNOMIAL)
  def test_against_quadrature(self, law):
    rng = np.random.default_rng(NON_POLYNOMIAL.index(law) + 41)
    laws = _law_region(law, rng, 10)
    special = _special_points()
    # Every law on a share of the special points and on random ones, planets
    # from 1e-3 to 3.
    points = []
    for i in range(len(laws)):
      picked = rng.choice(len(special), 12, replace=False)
      points.append([special[j] for j in picked] + [
          (rng.uniform(0, 1 + r), r) for r in np.exp(rng.uniform(np.log(1e-3), np.log(3), 4))])
    for u, pts in zip(laws, points):
      if FLOAT == np.float32:
        u = u.astype(np.float32).astype(np.float64)
        pts = [(float(np.float32(b)), float(np.float32(r))) for b, r in pts]
      b, r = (np.array(x) for x in zip(*pts))
      got = limb_dark.light_curve(jnp.asarray(u, FLOAT), jnp.asarray(b, FLOAT),
                                  jnp.asarray(r, FLOAT), law=law)
      _assert_within_law_bound(self, got, b, r,
                               lambda bi, ri: ref.law_flux_minus_one(law, u, bi, ri),
                               f"{law} u={u.tolist()}")

  @parameterized.parameters(*NON_POLYNOMIAL)
  def test_gradients(self, law):
    # dF/db, dF/dr and dF/du (power2's alpha included) from one call, against
    # central differences of the quadrature, on every rule's ground: inside
    # (b = 0, b = r), crossing, and next to both contacts; next to the inner
    # contact also, for the power laws, where the CPU's blocks take their
    # rules of 64 nodes and the one-point path the contact rule (x = 0.99
    # inside, k^2 = 0.995 crossing: law_blocks.h), F there too.
    # 1e-10 relative, or 1e-14 absolute where a derivative is small by
    # cancellation (dF/dc_k = (B_k + 2 pi Psi_k(0) (F - 1)) / norm: terms of
    # the flux's size, each with its rounding). float32: the same
    # derivatives rounded once (the inputs rounded first).
    rtol, atol = (1e-10, 1e-14) if FLOAT == np.float64 else (1e-6, 1e-9)
    rng = np.random.default_rng(NON_POLYNOMIAL.index(law) + 7)
    # A drawn law, and for power-2 a small alpha, the hardest for the maps.
    laws = _law_region(law, rng, 6)[-1:]
    if law == "power2":
      laws = np.vstack([laws, [(0.7, 0.1)]])
    r = 0.1
    next_to_contact = [(0.8991, r), (0.9009, r)] if law in POWER_LAWS else []
    points = [(0.0, r), (r, r), (1.0, r), (1 - r - 1e-9, r), (1 - r + 1e-7, r), *next_to_contact,
              (1 + r - 1e-9, r), (0.3, 1.2), (float(rng.uniform(0, 1)), float(rng.uniform(0.01, 0.5)))]
    grad = jax.jit(jax.value_and_grad(lambda u, b, r: limb_dark.light_curve(u, b, r, law=law),
                                      argnums=(0, 1, 2)))
    for u in laws:
      u = jnp.asarray(u, FLOAT)
      for point in points:
        b, r = FLOAT(point[0]), FLOAT(point[1])
        value, grads = grad(u, b, r)
        if point in next_to_contact:
          _assert_within_law_bound(
              self, [float(value)], [float(b)], [float(r)],
              lambda bi, ri: ref.law_flux_minus_one(law, [float(x) for x in u], bi, ri), law)
        got = [float(grads[1]), float(grads[2])] + [float(x) for x in grads[0]]
        for wrt, g in zip(["b", "r"] + list(range(len(u))), got):
          want = float(ref.law_derivative(law, [float(x) for x in u], float(b), float(r), wrt))
          self.assertAlmostEqual(g, want, delta=rtol * abs(want) + atol,
                                 msg=f"{law} u={u.tolist()} b={b} r={r}: d/d{wrt}")

  @parameterized.parameters(
      # (law, its coefficients, the polynomial law of the same intensity)
      ("power2", (0.7, 1.0), (0.7,)),
      ("power2", (0.3, 2.0), (0.6, -0.3)),
      ("nonlinear", (0.0, 0.5, 0.0, 0.2), (0.9, -0.2)),
      ("square_root", (0.4, 0.0), (0.4,)),
      ("logarithmic", (0.55, 0.0), (0.55,)),
      ("exponential", (0.35, 0.0), (0.35,)),
  )
  def test_polynomial_cases_match_the_closed_form(self, law, u, poly):
    # Where a law is a polynomial in 1 - mu it must agree with the closed
    # form of the polynomial path (a different algorithm), everywhere.
    rng = np.random.default_rng(5)
    b = np.concatenate([rng.uniform(0, 1.5, 200), [0.0, 0.1, 0.9, 0.9 + 1e-12, 1.1]])
    r = np.concatenate([np.exp(rng.uniform(np.log(1e-3), np.log(3), 200)),
                        [0.1, 0.1, 0.1, 0.1, 0.1]])
    got = limb_dark.light_curve(jnp.asarray(u, FLOAT), b.astype(FLOAT), r.astype(FLOAT), law=law)
    want = limb_dark.light_curve(jnp.asarray(poly, FLOAT), b.astype(FLOAT), r.astype(FLOAT))
    # Both within a few 1e-15 of exact (seen 2.3e-15 apart).
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14 if FLOAT == np.float64 else 1e-7)

  def test_errors_and_invalid_values(self):
    b, r = FLOAT(0.5), FLOAT(0.1)
    with self.assertRaisesRegex(ValueError, "unknown law 'quadratic'.*'power2'"):
      limb_dark.light_curve([0.1, 0.2], b, r, law="quadratic")
    with self.assertRaisesRegex(ValueError, "'nonlinear' takes 4 coefficients, got 2"):
      limb_dark.light_curve([0.1, 0.2], b, r, law="nonlinear")
    with self.assertRaisesRegex(ValueError, "u must be 1-D"):
      limb_dark.light_curve(jnp.zeros((2, 2), FLOAT), b, r, law="power2")
    points = jnp.asarray([0.0, 0.5, 0.95, 1.05, 3.0], FLOAT)
    for law, u in (("power2", (0.5, 0.0)), ("power2", (0.5, -1.0)), ("power2", (0.5, np.nan)),
                   ("power2", (np.inf, 0.5)), ("nonlinear", (0.1, np.nan, 0.1, 0.1)),
                   ("square_root", (-np.inf, 0.1)), ("power2", (3.0, 1.0))):
      out = limb_dark.light_curve(jnp.asarray(u, FLOAT), points, r, law=law)
      self.assertTrue(np.all(np.isnan(out)), f"{law} {u}: {out}")
    # Out of the physical region but with a positive total flux: the formula.
    out = limb_dark.light_curve(jnp.asarray((1.5, 0.5), FLOAT), points, r, law="power2")
    self.assertTrue(np.all(np.isfinite(out)), out)
    # Bad points: NaN there alone.
    out = limb_dark.light_curve(jnp.asarray((0.6, 0.6), FLOAT),
                                jnp.asarray([np.nan, 0.5, 0.5], FLOAT),
                                jnp.asarray([0.1, -0.1, 0.1], FLOAT), law="power2")
    np.testing.assert_array_equal(np.isnan(out), [True, True, False])
    # Empty and 0-d.
    self.assertEqual(limb_dark.light_curve((0.6, 0.6), jnp.zeros((0,), FLOAT), r,
                                           law="power2").shape, (0,))
    self.assertEqual(limb_dark.light_curve((0.6, 0.6), b, r, law="power2").shape, ())

  def test_transforms(self):
    # jit, vmap over u (a batch of stars) and over b, value and gradients.
    us = jnp.asarray([[0.6, 0.6], [0.8, 0.3], [0.2, 1.5]], FLOAT)
    b = jnp.linspace(0, 1.2, 7, dtype=FLOAT)
    f = jax.jit(lambda u, b: limb_dark.light_curve(u, b, FLOAT(0.1), law="power2"))
    batched = jax.vmap(f, in_axes=(0, None))(us, b)
    looped = jnp.stack([f(u, b) for u in us])
    np.testing.assert_array_equal(batched, looped)
    grad = jax.grad(lambda u, b: jnp.sum(f(u, b)))
    g = jax.vmap(grad, in_axes=(0, None))(us, b)
    g_loop = jnp.stack([grad(u, b) for u in us])
    np.testing.assert_allclose(g, g_loop, rtol=1e-12 if FLOAT == np.float64 else 1e-5)
    if FLOAT == np.float64:
      # Second order by central differences of the first (to ~1e-8).
      check_grads(lambda u: limb_dark.light_curve(u, 0.4, 0.1, law="nonlinear"),
                  (jnp.asarray([0.5, 0.1, 0.2, -0.1]),), order=2, modes=["fwd", "rev"],
                  atol=1e-5, rtol=1e-5)


def _tables(rng, count):
  """Tabulated laws (grid, intensities) as tables give them: grids of 2 to
  12 points (at least 0.02 apart; ending at 0 and 1 or not), intensities of
  a power-2 law drawn from its physical region at the grid points, each
  times 1 +- 2%; with a 17-point grid of the Kurucz models' kind."""
  kurucz = np.array([0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.4,
                     0.5, 0.6, 0.7, 0.8, 1.0])
  tables = [(kurucz, 1 - 0.6 * (1 - kurucz ** 0.6))]
  while len(tables) < count:
    size = int(rng.choice([2, 3, 5, 8, 12]))
    grid = np.sort(rng.uniform(0, 1, size))
    if rng.uniform() < 0.5:
      grid[0], grid[-1] = 0.0, 1.0
    if np.any(np.diff(grid) < 0.02):
      continue
    c, alpha = rng.uniform(0, 1), np.exp(rng.uniform(np.log(0.1), np.log(2)))
    values = (1 - c * (1 - grid ** alpha)) * (1 + rng.uniform(-0.02, 0.02, size))
    tables.append((grid, values))
  return tables


def _table_points(grid, rng, count):
  """Points on a share of the special points, next to where the occultor's
  edge touches a knot's circle (|rho_k +- r|, within 1e-9 and 1e-6) and at
  random, planets from 1e-3 to 3."""
  special = _special_points()
  points = [special[j] for j in rng.choice(len(special), count, replace=False)]
  knots = [np.sqrt(1 - m * m) for m in grid if 0 < m < 1]
  for rho in rng.choice(knots, min(2, len(knots)), replace=False) if knots else []:
    r = float(np.exp(rng.uniform(np.log(1e-2), np.log(1))))
    for b in (abs(rho - r), rho + r):
      points += [(b + d, r) for d in (1e-9, -1e-6) if b + d >= 0]
  points += [(rng.uniform(0, 1 + r), r)
             for r in np.exp(rng.uniform(np.log(1e-3), np.log(3), 3))]
  return points


class TabulatedTest(parameterized.TestCase):
  """law="tabulated": an intensity table on a grid of mu, linear in mu
  between its points, against an mpmath quadrature of that interpolant
  (tests/limb_dark_reference.py, table_*)."""

  def _as_float(self, grid, values):
    # The op rounds both to the dtype; the reference is of the rounded table.
    return (np.asarray(grid, FLOAT).astype(np.float64),
            np.asarray(values, FLOAT).astype(np.float64))

  def test_against_quadrature(self):
    rng = np.random.default_rng(61)
    for grid, values in _tables(rng, 7):
      grid, values = self._as_float(grid, values)
      pts = _table_points(grid, rng, 8)
      if FLOAT == np.float32:
        pts = [(float(np.float32(b)), float(np.float32(r))) for b, r in pts]
      b, r = (np.array(x) for x in zip(*pts))
      got = limb_dark.light_curve(values.astype(FLOAT), b.astype(FLOAT), r.astype(FLOAT),
                                  law="tabulated", mu=grid)
      _assert_within_law_bound(self, got, b, r,
                               lambda bi, ri: ref.table_flux_minus_one(grid, values, bi, ri),
                               f"grid={grid.tolist()} I={values.tolist()}")

  def test_many_points(self):
    # A grid of 78 points, dense toward the limb as model atmospheres' are:
    # every grid point's circle a rule of its own where the edge crosses it.
    grid = np.unique(np.round(np.sin(0.5 * np.pi * np.linspace(0, 1, 78)) ** 2, 12))
    self.assertLen(grid, 78)
    grid, values = self._as_float(grid, 1 - 0.6 * (1 - grid ** 0.6))
    b, r = np.array([0.95, 0.9 - 1e-9, 0.5]), np.array([0.1, 0.1, 1.2])
    if FLOAT == np.float32:
      b, r = b.astype(np.float32).astype(np.float64), r.astype(np.float32).astype(np.float64)
    got = limb_dark.light_curve(values.astype(FLOAT), b.astype(FLOAT), r.astype(FLOAT),
                                law="tabulated", mu=grid)
    _assert_within_law_bound(self, got, b, r,
                             lambda bi, ri: ref.table_flux_minus_one(grid, values, bi, ri),
                             "78 points")

  def test_gradients(self):
    # dF/db, dF/dr and dF/dI_j from one call against the reference's
    # (table_gradients: no differences), on every rule's ground: inside,
    # b = 0, b = r, crossing, next to both contacts, a large planet.
    rtol, atol = (1e-10, 1e-14) if FLOAT == np.float64 else (1e-6, 1e-9)
    rng = np.random.default_rng(62)
    grad = jax.jit(jax.value_and_grad(
        lambda u, b, r, grid: limb_dark.light_curve(u, b, r, law="tabulated", mu=grid),
        argnums=(0, 1, 2)), static_argnums=3)
    points = [(0.0, 0.1), (0.1, 0.1), (0.45, 0.1), (1.0, 0.1), (0.9 - 1e-9, 0.1),
              (0.9 + 1e-7, 0.1), (1.1 - 1e-9, 0.1), (0.3, 1.2)]
    for grid, values in _tables(rng, 3)[1:]:
      grid, values = self._as_float(grid, values)
      for b, r in points + [(float(rng.uniform(0, 1)), float(rng.uniform(0.01, 0.5)))]:
        b, r = float(FLOAT(b)), float(FLOAT(r))
        _, g = grad(jnp.asarray(values, FLOAT), FLOAT(b), FLOAT(r), tuple(grid.tolist()))
        d_b, d_r, d_values = ref.table_gradients(grid, values, b, r)
        for name, got, want in [("b", g[1], d_b), ("r", g[2], d_r)] + [
            (f"I_{j}", g[0][j], w) for j, w in enumerate(d_values)]:
          self.assertAlmostEqual(float(got), float(want), delta=rtol * abs(float(want)) + atol,
                                 msg=f"grid={grid.tolist()} b={b} r={r}: d/d{name}")

  def test_linear_tables_are_the_linear_law_and_order_is_free(self):
    # A table of the linear law on a grid from 0 to 1 is that law (the
    # closed form of the polynomial path, another algorithm), whatever its
    # inner points; so is a table of two points inside (0, 1) extended by
    # its end values where the law is constant there.
    rng = np.random.default_rng(63)
    b = np.concatenate([rng.uniform(0, 1.5, 100), [0.0, 0.1, 0.9, 0.9 + 1e-12, 1.1]])
    r = np.concatenate([np.exp(rng.uniform(np.log(1e-3), np.log(3), 100)), [0.1] * 5])
    want = limb_dark.light_curve(jnp.asarray([0.6], FLOAT), b.astype(FLOAT), r.astype(FLOAT))
    for grid in ([0.0, 1.0], [0.0, 0.3, 0.31, 0.7, 1.0]):
      grid = np.asarray(grid)
      got = limb_dark.light_curve(jnp.asarray(1 - 0.6 * (1 - grid), FLOAT), b.astype(FLOAT),
                                  r.astype(FLOAT), law="tabulated", mu=grid)
      np.testing.assert_allclose(got, want, rtol=0, atol=1e-14 if FLOAT == np.float64 else 1e-7)
    # A grid listed from the centre (as the Kurucz models list mu) is the same
    # table.
    grid = np.array([0.0, 0.2, 0.45, 1.0])
    values = jnp.asarray([0.3, 0.6, 0.8, 1.0], FLOAT)
    np.testing.assert_array_equal(
        limb_dark.light_curve(values[::-1], b.astype(FLOAT), r.astype(FLOAT), law="tabulated",
                              mu=grid[::-1]),
        limb_dark.light_curve(values, b.astype(FLOAT), r.astype(FLOAT), law="tabulated",
                              mu=grid))
    uniform = limb_dark.light_curve(jnp.asarray([0.5, 0.5], FLOAT), b.astype(FLOAT),
                                    r.astype(FLOAT), law="tabulated", mu=[0.2, 0.9])
    np.testing.assert_allclose(uniform, limb_dark.light_curve(jnp.zeros((0,), FLOAT),
                                                              b.astype(FLOAT), r.astype(FLOAT)),
                               rtol=0, atol=1e-14 if FLOAT == np.float64 else 1e-7)

  def test_errors_and_invalid_values(self):
    b, r = FLOAT(0.5), FLOAT(0.1)
    values = jnp.asarray([0.4, 0.8, 1.0], FLOAT)
    for mu, message in ((None, "needs its grid, mu="), ([0.0, 1.0], r"shape \(2,\); u has 3"),
                        ([0.0, 0.5, 0.5], "strictly monotonic"),
                        ([0.0, 0.6, 0.5], "strictly monotonic"),
                        ([0.0, 0.5, 1.5], "strictly monotonic"),
                        ([-0.1, 0.5, 1.0], "strictly monotonic"),
                        ([0.0, np.nan, 1.0], "strictly monotonic"),
                        ([[0.0, 0.5, 1.0]], "shape")):
      with self.assertRaisesRegex(ValueError, message):
        limb_dark.light_curve(values, b, r, law="tabulated", mu=mu)
    with self.assertRaisesRegex(ValueError, "takes at least 2 points, got 1"):
      limb_dark.light_curve([1.0], b, r, law="tabulated", mu=[0.5])
    with self.assertRaisesRegex(ValueError, "129 coefficients; at most 128 .* 'tabulated'"):
      limb_dark.light_curve(np.ones(129), b, r, law="tabulated", mu=np.linspace(0, 1, 129))
    with self.assertRaisesRegex(ValueError, "law 'power2' takes none"):
      limb_dark.light_curve([0.5, 0.5], b, r, law="power2", mu=[0.0, 1.0])
    with self.assertRaisesRegex(ValueError, "must be concrete"):
      jax.jit(lambda mu: limb_dark.light_curve(values, b, r, law="tabulated", mu=mu))(
          jnp.asarray([0.0, 0.5, 1.0]))
    with self.assertRaisesRegex(ValueError, "must be concrete"):
      jax.grad(lambda m: limb_dark.light_curve(values, b, r, law="tabulated",
                                               mu=[0.0, m, 1.0]))(0.5)
    # NaN or inf in the intensities, or no positive flux: NaN everywhere.
    points = jnp.asarray([0.0, 0.5, 0.95, 1.05, 3.0], FLOAT)
    for bad in ((0.4, np.nan, 1.0), (0.4, 0.8, np.inf), (-1.0, -1.0, -1.0)):
      out = limb_dark.light_curve(jnp.asarray(bad, FLOAT), points, r, law="tabulated",
                                  mu=[0.0, 0.5, 1.0])
      self.assertTrue(np.all(np.isnan(out)), f"{bad}: {out}")
    # Bad points: NaN there alone; empty and 0-d.
    out = limb_dark.light_curve(values, jnp.asarray([np.nan, 0.5, 0.5], FLOAT),
                                jnp.asarray([0.1, -0.1, 0.1], FLOAT), law="tabulated",
                                mu=[0.0, 0.5, 1.0])
    np.testing.assert_array_equal(np.isnan(out), [True, True, False])
    self.assertEqual(limb_dark.light_curve(values, jnp.zeros((0,), FLOAT), r, law="tabulated",
                                           mu=[0.0, 0.5, 1.0]).shape, (0,))
    self.assertEqual(limb_dark.light_curve(values, b, r, law="tabulated",
                                           mu=(0.0, 0.5, 1.0)).shape, ())

  def test_transforms(self):
    # jit (the grid closed over), vmap over the intensities (a batch of
    # passbands on one grid) and over b, value and gradients.
    grid = np.array([0.0, 0.1, 0.3, 0.6, 1.0])
    tables = jnp.asarray([[0.3, 0.5, 0.7, 0.9, 1.0], [0.1, 0.4, 0.6, 0.85, 1.0],
                          [0.5, 0.6, 0.8, 0.9, 1.0]], FLOAT)
    b = jnp.linspace(0, 1.2, 7, dtype=FLOAT)
    f = jax.jit(lambda u, b: limb_dark.light_curve(u, b, FLOAT(0.1), law="tabulated", mu=grid))
    batched = jax.vmap(f, in_axes=(0, None))(tables, b)
    np.testing.assert_array_equal(batched, jnp.stack([f(u, b) for u in tables]))
    grad = jax.grad(lambda u, b: jnp.sum(f(u, b)))
    g = jax.vmap(grad, in_axes=(0, None))(tables, b)
    np.testing.assert_allclose(g, jnp.stack([grad(u, b) for u in tables]),
                               rtol=1e-12 if FLOAT == np.float64 else 1e-5)
    if FLOAT == np.float64:
      check_grads(lambda u: limb_dark.light_curve(u, 0.4, 0.1, law="tabulated", mu=grid),
                  (tables[0],), order=2, modes=["fwd", "rev"], atol=1e-5, rtol=1e-5)


if __name__ == "__main__":
  absltest.main()
