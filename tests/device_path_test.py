"""The CUDA kernels' device path, compiled for the host, against mpmath.

Kepler's solver: the CUDA kernel
(jaxlib_ext/kepler_solve/kepler_solve_kernel.cu) runs kepler_solve.h with
JAXEXT_DEVICE_PATH=1: the C math functions (fma, rint, sqrt, cbrt, fabs) and
plain selects, where the host path has its own bit-level sqrt, cube root and
rounding. Without a GPU that code would go unchecked; here the same
per-element calls are compiled for the host (tests/device_path_loops.cc,
the module tests/_device_path) and held to the bounds the kernel must meet,
those of docs/accuracy_and_speed.md and tests/accuracy_test.py
(tests/accuracy_cases.py), on the same points:

  backward error: <= 2e-15 (float64; e <= 1 - 1e-6, |M| <= 1e3), <= 4e-7
      (float32; e <= 0.95, |M| <= 1e2);
  forward error of sin and cos, e <= 0.5: <= 1e-15 (float64), 1e-6 (float32);
  sin^2 + cos^2 within 4 ulp of 1;
and to its NaN policy: e < 0, e >= 1, a NaN or infinite M or e give NaN in
both outputs, and every other element is computed as usual.

--variant picks the compilation (tests/BUILD.bazel):
  strict: -ffp-contract=off. Only the headers' explicit fma calls fuse: the
      rounding the source code spells out.
  fused:  -mfma -ffp-contract=fast. The compiler may also contract any a * b + c into
      an fma, as nvcc does on the device by default (--fmad=true).
nvcc chooses its contractions itself, so neither variant rounds exactly as
the GPU does; the bounds have to hold with none and with another compiler's
choice, which is the evidence this test gives for the kernel. Division and
sqrt are correctly rounded on both sides (nvcc's default -prec-div and
-prec-sqrt); cbrt (only in the starter) is libm's here, CUDA's there.

The light curve: the CUDA kernel (jaxlib_ext/limb_dark/limb_dark_kernel.cu)
runs limb_dark.h's CurveElement, for the polynomial laws LightCurveElement,
once per element (for laws of at most two coefficients two passes:
LowOrderFastElement, then LeftLightCurveElement on the points it left), with
JAXEXT_DEVICE_PATH=1 (the global C math functions, CUDA's on the device);
here the same functions run over every element (the module's light_curve),
for laws of one or two coefficients also at the points where the CPU's
vectorised loop (LowOrderLightCurvePoint) takes another path. Held to the
bounds of tests/limb_dark_test.py (docs/accuracy_and_speed.md) for laws of 0
to 6 coefficients drawn as there (tests/limb_dark_laws.py), at points in
each region where limb_dark.h takes another rule (for three or more
coefficients: CrossingEdgeFlux, InsideEdgeIntegrals, InsideEdgeFlux,
ContactEdgeFlux; for fewer, the Green's basis) and on and next to the
special separations (b = 0, r, |1 - r|, 1, 1 + r: the closed forms' special
cases), and for 32 coefficients on four points:

  F - 1 against the per-term mpmath integrals of
      tests/limb_dark_reference.py: float64 <= 1e-15 (quadratic laws, the
      uniform disk), <= 5e-15 (laws of 1 and 3 to 32 coefficients); float32
      inputs <= 1e-7 (the float64 computation at the float32 points, rounded
      once);
  dF/du against the reference's exact gradient (F is a ratio of functions
      linear in u), within 1e-9 of the largest dF/du_j at the point plus
      1e-13 (float32: 1e-6 plus 1e-12; 32 coefficients: 1e-5), the bounds
      of limb_dark_test's first derivatives;
  dF/db and dF/dr against the CPU op's (kepler.limb_dark.light_curve under
      jax.grad, itself checked against mpmath) within 1e-9 relative plus
      1e-13 (float32: 1e-6 plus 1e-12), and, away from the contact points,
      against central differences of the device path's own F;
and to its NaN policy. acos, asin, sin, cos, expm1, asinh and acosh are
libm's here, CUDA's on the device (both within an ulp or two).

The other laws (power-2, nonlinear, square root, logarithmic, exponential: the kernel's
CurveElement takes LawCurveElement for them): against the CPU op with the
same law (itself held to mpmath quadratures of each law by
tests/limb_dark_test.py) at every region's points, F - 1 within 1e-15 and
every derivative within 1e-12 relative plus 1e-15; float32 within 1e-7
relative; refused laws NaN; wrong calls ValueError.

The transit model: the CUDA kernels (jaxlib_ext/transit/transit_kernel.cu)
make each element's planet ready and find its contacts per element
(TransitElement with no shared contacts), where the CPU op does both once
per row, and run the laws of at most two coefficients in passes (a window
pass over every time, then the times it marked, without and with an
exposure); here those passes run over 300 times around transits,
a third with exposures, for the polynomial, power-2, nonlinear and
tabulated laws on circular and eccentric orbits, and over whole orbits
with the windows' edges and refused inputs, against the CPU op:
F - 1 within 1e-14 and every derivative (the orbit's, u's, T's) within
1e-12 of the largest of that derivative's values (at least 1e-12). tests/extreme_inputs_test.cc runs the same device path
on extreme inputs under a watchdog and the sanitizers.
"""

import functools

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
from tests import _device_path
import jax
import jax.numpy as jnp
from kepler import limb_dark
from kepler import transit
from tests import accuracy_cases as cases
from tests import limb_dark_laws
from tests import limb_dark_reference as ld_ref
from tests import mpmath_reference as ref

_VARIANT = flags.DEFINE_enum(
    "variant", "strict", ["strict", "fused"],
    "Which compilation of the device path to test (see the module docstring).")

DTYPES = (("float64", np.float64), ("float32", np.float32))
KINDS = {
    "eccentric": (ref.eccentric_anomaly, ref.backward_error),
    "true": (ref.true_anomaly, ref.true_backward_error),
}


def setUpModule():
  if _VARIANT.value == "fused":
    if not _device_path.cpu_has_fma():
      raise RuntimeError(
          "this CPU has no FMA, so the fused variant cannot run here; exclude "
          "this target with --test_tag_filters=-requires_fma")
    # The fused variant must really round differently from the strict one,
    # or it checks nothing the strict one does not.
    m, e = cases.inputs(np.float64)
    fused = _device_path.solve("fused", "eccentric", m, e)
    strict = _device_path.solve("strict", "eccentric", m, e)
    if np.array_equal(fused[0], strict[0]) and np.array_equal(fused[1], strict[1]):
      raise RuntimeError(
          "the fused variant gives the strict variant's bits on every point: "
          "it was not compiled with contraction (see tests/BUILD.bazel)")


def _solve(kind, m, e):
  return _device_path.solve(_VARIANT.value, kind, m, e)


def _named():
  return [dict(testcase_name=f"_{kind}_{dname}", kind=kind, dtype=dtype)
          for kind in KINDS for dname, dtype in DTYPES]


class AccuracyTest(parameterized.TestCase):

  def _assert_within(self, what, dtype, err, bound, m, e):
    """err over the points, a scalar bound; the message names the worst point."""
    self.assertFalse(np.any(np.isnan(err)), f"{what}: NaN error")
    worst = int(np.argmax(err))
    self.assertLessEqual(
        err[worst], bound,
        f"{np.dtype(dtype).name} {what} ({_VARIANT.value} device path): "
        f"{err[worst]:.3g} > {bound:.3g} at M={m[worst]!r}, e={e[worst]!r}")

  def _outputs(self, kind, m, e):
    s, c = _solve(kind, m, e)
    for x in (s, c):
      self.assertEqual(x.dtype, m.dtype)
      self.assertEqual(x.shape, m.shape)
    return s, c

  @parameterized.named_parameters(_named())
  def test_backward_error(self, kind, dtype):
    _, backward = KINDS[kind]
    m, e = cases.inputs(dtype)
    s, c = self._outputs(kind, m, e)
    err = backward(m.astype(np.float64), e.astype(np.float64),
                   s.astype(np.float64), c.astype(np.float64))
    self._assert_within(f"{kind} backward error", dtype, err,
                        cases.backward_bound(dtype), m, e)

  @parameterized.named_parameters(_named())
  def test_forward_error(self, kind, dtype):
    forward, _ = KINDS[kind]
    m, e = cases.inputs(dtype)
    keep = e <= cases.FORWARD_MAX_E
    m, e = m[keep], e[keep]
    got = self._outputs(kind, m, e)
    want = forward(m.astype(np.float64), e.astype(np.float64))
    for name, g, w in zip(("sin", "cos"), got, want):
      err = np.abs(g.astype(np.float64) - w)
      self._assert_within(
          f"{kind} {name} forward error (e <= {cases.FORWARD_MAX_E})", dtype,
          err, cases.forward_bound(dtype), m, e)

  @parameterized.named_parameters(_named())
  def test_unit_norm(self, kind, dtype):
    m, e = cases.inputs(dtype)
    s, c = (x.astype(np.longdouble) for x in self._outputs(kind, m, e))
    err = np.abs(s * s + c * c - 1).astype(np.float64)
    self._assert_within(f"{kind} |sin^2 + cos^2 - 1|", dtype, err,
                        cases.norm_bound(dtype), m, e)

  @parameterized.named_parameters(_named())
  def test_circular_orbit_is_identity(self, kind, dtype):
    # e = 0: E = f = M, an independent closed form.
    m = np.linspace(-10, 10, 201).astype(dtype)
    s, c = self._outputs(kind, m, np.zeros_like(m))
    exact = m.astype(np.float64)
    bound = cases.forward_bound(dtype)
    self._assert_within(f"{kind} sin M at e = 0", dtype,
                        np.abs(s - np.sin(exact)), bound, m, m * 0)
    self._assert_within(f"{kind} cos M at e = 0", dtype,
                        np.abs(c - np.cos(exact)), bound, m, m * 0)


class NanPolicyTest(parameterized.TestCase):
  """Invalid elements give NaN in both outputs; the others are unaffected."""

  @parameterized.named_parameters(_named())
  def test_invalid_elements_are_nan_and_only_those(self, kind, dtype):
    finfo = np.finfo(dtype)
    below_one = np.nextafter(dtype(1), dtype(0))
    # (M, e, invalid)
    cases_ = [
        (0.5, 0.3, False),
        (np.nan, 0.3, True), (np.inf, 0.3, True), (-np.inf, 0.3, True),
        (0.5, -0.1, True), (0.5, -finfo.smallest_subnormal, True),
        (0.5, 1.0, True), (0.5, 1.5, True), (0.5, np.nan, True),
        (0.5, np.inf, True), (0.5, -np.inf, True), (np.nan, np.nan, True),
        (2.0, 0.3, False), (0.5, -0.0, False), (0.5, 0.0, False),
        (-3.0, 0.9, False), (finfo.max, 0.5, False), (-finfo.max, 0.5, False),
        (1.0, below_one, False), (finfo.smallest_subnormal, 0.99, False),
    ]
    m = np.array([c[0] for c in cases_], dtype)
    e = np.array([c[1] for c in cases_], dtype)
    invalid = np.array([c[2] for c in cases_])
    s, c = _solve(kind, m, e)
    for name, x in (("sin", s), ("cos", c)):
      np.testing.assert_array_equal(
          np.isnan(x), invalid,
          err_msg=f"{kind} {name} {np.dtype(dtype).name}: NaN exactly where "
          f"the input is invalid (M={m}, e={e})")
    # Valid elements are unit vectors...
    norm = s[~invalid].astype(np.float64) ** 2 + c[~invalid].astype(np.float64) ** 2
    np.testing.assert_allclose(norm, 1, rtol=0, atol=cases.norm_bound(dtype) * 2)
    # ... and, where the forward bound applies (|M| <= 1e2, e <= 0.5), the
    # values of a call without the invalid elements around them.
    inside = ~invalid & (np.abs(m) <= 1e2) & (e <= cases.FORWARD_MAX_E)
    alone = _solve(kind, m[inside], e[inside])
    want = KINDS[kind][0](m[inside].astype(np.float64), e[inside].astype(np.float64))
    for g, a, w in zip((s, c), alone, want):
      np.testing.assert_array_equal(g[inside], a)
      np.testing.assert_allclose(g[inside], w, rtol=0, atol=cases.forward_bound(dtype) * 2)

  def test_shapes_and_dtypes(self):
    m = np.linspace(-4, 4, 12).reshape(3, 4)
    e = np.full((3, 4), 0.4)
    for dtype in (np.float32, np.float64):
      s, c = _solve("true", m.astype(dtype), e.astype(dtype))
      self.assertEqual(s.shape, (3, 4))
      self.assertEqual(s.dtype, dtype)
      self.assertEqual(c.dtype, dtype)
    with self.assertRaisesRegex(ValueError, "differ in dtype"):
      _solve("true", m.astype(np.float32), e)
    with self.assertRaisesRegex(ValueError, "differ in shape"):
      _solve("true", m, e[:2])


# The light curve.

# The bounds of F - 1 (tests/limb_dark_test.py): float64, by number of
# coefficients (the uniform disk is a corner of the quadratic region);
# float32 inputs.
LD_BOUND = {0: 1e-15, 1: 5e-15, 2: 1e-15, 3: 5e-15, 4: 5e-15, 5: 5e-15, 6: 5e-15}
LD_BOUND_FLOAT32 = 1e-7
# The float32-in-float32 path (Float32MathTest): F - 1 within this many
# times the transit depth min(r^2, 1), and absolute; the derivatives
# within this of the float64 path's, relative to each (to the largest dF/du
# of the point, at least 1e-3 of the largest of the case).
FLOAT32_MATH_DEPTH_BOUND = 5e-3
FLOAT32_MATH_BOUND = 3e-7
FLOAT32_MATH_DERIVATIVE_BOUND = 2e-3
LD_ORDERS = tuple(LD_BOUND)
# The radii of the special points, and the offsets from each special
# separation: like limb_dark_test's (1e-3 to 3; 1e-12, 1e-6), but dyadic, so
# that every special separation is a float32 and the float32 special points
# are some of the float64 ones (offsets of 2^-40 round away in float32): one
# mpmath reference serves both dtypes. 146 points (96 in float32).
LD_RADII = (2.0 ** -7, 0.125, 0.5, 0.8125, 1.0, 1.5, 3.0)
LD_OFFSETS = (0.0, 2.0 ** -40, -2.0 ** -40, 2.0 ** -20, -2.0 ** -20)
# Random points per region (float32 values, shared by both dtypes). With the
# special points, 226 mpmath references (~0.1 s each).
LD_RANDOM_POINTS = {"crossing": 24, "inside_x_to_half": 16, "inside_x_half_to_085": 16,
                    "near_contact": 24}
LD_REGIONS = tuple(LD_RANDOM_POINTS) + ("special",)
LD_QUADRATIC = (0.4, 0.26)


def _ld_rule(b, r):
  """The rule solution_vector.h (SolutionVector) takes at (b, r), b >= 0, for a law
  of three or more coefficients: "out", "hidden", or the region names of
  LD_RANDOM_POINTS (by the edge rule: CrossingEdgeFlux for k^2 < 0.95,
  InsideEdgeIntegrals for x = 2 b r / (1 - b^2 - r^2) <= 1/2, InsideEdgeFlux
  for x <= 0.85, else ContactEdgeFlux)."""
  if r == 0 or b >= 1 + r:
    return "out"
  if b <= r - 1:
    return "hidden"
  if b + r <= 1:
    a = (1 - r) * (1 + r) - b * b
    return ("inside_x_to_half" if 2 * b * r <= 0.5 * a else
            "inside_x_half_to_085" if 2 * b * r <= 0.85 * a else "near_contact")
  k2 = (1 - (b - r) ** 2) / (4 * b * r)
  return "crossing" if k2 < 0.95 else "near_contact"


def _ld_draw(region, rng):
  """One (b, r) drawn for `region`, not yet rounded: r log-uniform (up to 3
  crossing, 0.9 inside and next to contact) and b uniform over the region
  (inside: over its x; next to contact: b = 1 - r plus or minus 1e-7 r to
  0.1 r, log-uniform)."""
  if region == "crossing":
    r = np.exp(rng.uniform(np.log(0.005), np.log(3.0)))
    return rng.uniform(abs(1 - r), 1 + r), r
  r = np.exp(rng.uniform(np.log(0.005), np.log(0.9)))
  if region == "near_contact":
    return abs(1 - r + rng.choice([-1, 1]) * 10 ** rng.uniform(-7, -1) * r), r
  x = rng.uniform(0, 0.5) if region == "inside_x_to_half" else rng.uniform(0.5, 0.85)
  # 2 b r = x (1 - b^2 - r^2) for b.
  return (np.sqrt(r * r + x * x * (1 - r * r)) - r) / x if x > 0 else 0.0, r


@functools.lru_cache(maxsize=None)
def _ld_points(region):
  """The (b, r) of `region` (b >= 0), float64 values, sorted: seeded random
  points rounded to float32 and kept where _ld_rule names the region, or
  "special": limb_dark_laws.special_points of LD_RADII and LD_OFFSETS."""
  if region == "special":
    return tuple(limb_dark_laws.special_points(LD_RADII, LD_OFFSETS))
  rng = np.random.default_rng(80 + LD_REGIONS.index(region))
  points = set()
  while len(points) < LD_RANDOM_POINTS[region]:
    b, r = (float(np.float32(x)) for x in _ld_draw(region, rng))
    if _ld_rule(b, r) == region:
      points.add((b, r))
  return tuple(sorted(points))


def _ld_points_as(region, dtype):
  """_ld_points(region) as `dtype` rounds them (float32: fewer points, the
  special ones with offsets below float32's resolution merged), float64."""
  points = _ld_points(region)
  if dtype == np.float32:
    points = sorted({(float(np.float32(b)), float(np.float32(r))) for b, r in points})
  return np.array(points)


@functools.lru_cache(maxsize=None)
def _ld_laws(order):
  """The laws of `order` coefficients, shape (laws, order), drawn (seeded) as
  tests/limb_dark_test.py draws them: none (the uniform disk); the linear
  laws u_1 in [0, 1]; the quadratic region (limb_dark_laws.quadratic_laws);
  for three or more, the region u_1 >= ... >= u_N >= 0, sum u <= 1 (its
  corners and drawn laws) and laws with a non-negative, non-increasing
  intensity from [-k, k]^N (k = 4, 2, 1: large coefficients of alternating
  sign, whose Green's coefficients are tens of times the normalisation),
  for six also the unit laws u_n = 1."""
  rng = np.random.default_rng(90 + order)
  if order == 0:
    return np.zeros((1, 0))
  if order == 2:
    return limb_dark_laws.quadratic_laws(rng, 12, extra=[LD_QUADRATIC])
  # u_j = sum_{k >= j} w_k / k maps {w >= 0, sum w <= 1} onto the region.
  w = rng.dirichlet(np.ones(order + 1), 6)[:, :order]
  drawn = np.cumsum((w / np.arange(1, order + 1))[:, ::-1], axis=1)[:, ::-1]
  corners = [[1.0 / k] * k + [0.0] * (order - k) for k in range(1, order + 1)]
  laws = [np.array(corners), drawn]
  if order >= 3:
    laws += [limb_dark_laws.physical_laws(order, count, rng, box)
             for count, box in ((6, 4.0), (3, 2.0), (3, 1.0))]
  if order == 6:
    laws.append(np.eye(6))
  return np.vstack(laws)


@functools.lru_cache(maxsize=None)
def _ld_terms(b, r, n_max=6):
  """ld_ref.blocked_terms at (b, r) up to term n_max (mpmath: once per point
  in the process)."""
  return ld_ref.blocked_terms(b, r, n_max)


def _ld_case(order, region, dtype):
  """(laws, b, r) as `dtype`, laws (laws, order), b and r (points,)."""
  points = _ld_points_as(region, dtype)
  return (_ld_laws(order).astype(dtype), points[:, 0].astype(dtype),
          points[:, 1].astype(dtype))


def _ld_device(laws, b, r, derivatives=False):
  """The device path at every law (rows) and point (columns): F - 1, or with
  derivatives (F - 1, dF/db, dF/dr, dF/du) each (laws, points) and dF/du
  (laws, points, order)."""
  shape = (laws.shape[0], b.shape[0])
  out = _device_path.light_curve(
      _VARIANT.value, laws, np.ascontiguousarray(np.broadcast_to(b, shape)),
      np.ascontiguousarray(np.broadcast_to(r, shape)), derivatives)
  if not derivatives:
    return out
  flux, d_db, d_dr, d_du = out
  return flux, d_db, d_dr, np.moveaxis(d_du, 0, -1)


def _ld_reference(laws, b, r):
  """F - 1 by mpmath at every law (rows) and point (columns), float64."""
  terms = [_ld_terms(float(x), float(y)) for x, y in zip(b, r)]
  return np.array(ld_ref.flux_minus_one_from_terms(terms, laws.astype(np.float64)))


def _ld_reference_gradient_in_u(laws, b, r):
  """dF/du, exact, (laws, points, order) float64."""
  terms = [_ld_terms(float(x), float(y)) for x, y in zip(b, r)]
  return np.array([[ld_ref.flux_gradient_in_u_from_terms(t, law) for t in terms]
                   for law in laws.astype(np.float64)]).reshape(
                       laws.shape[0], len(terms), laws.shape[1])


@functools.lru_cache(maxsize=None)
def _ld_cpu_gradient_fn():
  """dF/db and dF/dr of the CPU op at every law (rows) and point (columns)."""
  grad = jax.grad(limb_dark.light_curve, argnums=(1, 2))
  return jax.jit(jax.vmap(jax.vmap(grad, in_axes=(None, 0, 0)), in_axes=(0, None, None)))


def _ld_cpu_gradient_in_b_r(laws, b, r):
  """dF/db, dF/dr of the CPU op, each (laws, points), float64."""
  d_db, d_dr = _ld_cpu_gradient_fn()(laws, b, r)
  return np.asarray(d_db, np.float64), np.asarray(d_dr, np.float64)


def _ld_named():
  return [dict(testcase_name=f"_order{order}_{region}_{dname}", order=order, region=region,
               dtype=dtype)
          for order in LD_ORDERS for region in LD_REGIONS for dname, dtype in DTYPES]


class LightCurveTest(parameterized.TestCase):
  """F - 1 and its derivatives, per number of coefficients, region and dtype."""

  def _assert_within(self, what, dtype, err, bound, laws, b, r, got, want):
    """err and bound (laws, points[, coefficients]): the message names the
    worst law and point."""
    self.assertFalse(np.any(np.isnan(err)), f"{what}: NaN error")
    worst = np.unravel_index(int(np.argmax(err - bound)), err.shape)
    law, point = worst[:2]
    which = f" (coefficient {worst[2] + 1})" if len(worst) == 3 else ""
    self.assertLessEqual(
        err[worst], bound[worst],
        f"{np.dtype(dtype).name} {what}{which} ({_VARIANT.value} device path): "
        f"{got[worst]!r} vs {want[worst]!r}, off by {err[worst]:.3g} > "
        f"{bound[worst]:.3g}, at u={laws[law].tolist()!r}, b={b[point]!r}, r={r[point]!r}")

  @parameterized.named_parameters(_ld_named())
  def test_value(self, order, region, dtype):
    laws, b, r = _ld_case(order, region, dtype)
    got = _ld_device(laws, b, r)
    self.assertEqual(got.dtype, dtype)
    got = got.astype(np.float64)
    want = _ld_reference(laws, b, r)
    bound = LD_BOUND[order] if dtype == np.float64 else LD_BOUND_FLOAT32
    self._assert_within("F - 1", dtype, np.abs(got - want), np.full(got.shape, bound),
                        laws, b, r, got, want)

  @parameterized.named_parameters(_ld_named())
  def test_gradient_in_u(self, order, region, dtype):
    # Against the reference's exact gradient, relative to the largest
    # dF/du_j at the point, within limb_dark_test's bounds of the first
    # derivatives (float32: the float64 values rounded once).
    laws, b, r = _ld_case(order, region, dtype)
    flux, _, _, du = _ld_device(laws, b, r, derivatives=True)
    # The value is the same with the derivatives as without.
    np.testing.assert_array_equal(flux, _ld_device(laws, b, r))
    if order == 0:
      self.assertEqual(du.shape, flux.shape + (0,))
      return
    got = du.astype(np.float64)
    want = _ld_reference_gradient_in_u(laws, b, r)
    rtol, atol = (1e-9, 1e-13) if dtype == np.float64 else (1e-6, 1e-12)
    scale = np.max(np.abs(want), axis=-1, keepdims=True)
    bound = np.broadcast_to(rtol * scale + atol, want.shape)
    self._assert_within("dF/du", dtype, np.abs(got - want), bound, laws, b, r, got, want)

  @parameterized.named_parameters(_ld_named())
  def test_gradient_in_b_and_r(self, order, region, dtype):
    # Against the CPU op's (jax.grad of kepler.limb_dark.light_curve) within
    # limb_dark_test's bounds of the first derivatives against mpmath, and,
    # float64 away from the contact points, against central differences of
    # the device path's own F (step 1e-6: ~5e-10 off measured).
    laws, b, r = _ld_case(order, region, dtype)
    _, d_db, d_dr, _ = (x.astype(np.float64) for x in _ld_device(laws, b, r, True))
    cpu_db, cpu_dr = _ld_cpu_gradient_in_b_r(laws, b, r)
    rtol, atol = (1e-9, 1e-13) if dtype == np.float64 else (1e-6, 1e-12)
    for name, got, want in (("dF/db", d_db, cpu_db), ("dF/dr", d_dr, cpu_dr)):
      self._assert_within(f"{name} against the CPU op's", dtype, np.abs(got - want),
                          rtol * np.abs(want) + atol, laws, b, r, got, want)
    if dtype != np.float64 or region in ("special", "near_contact"):
      return
    h = 1e-6
    fd_db = (_ld_device(laws, b + h, r) - _ld_device(laws, b - h, r)) / (2 * h)
    fd_dr = (_ld_device(laws, b, r + h) - _ld_device(laws, b, r - h)) / (2 * h)
    for name, got, want in (("dF/db", d_db, fd_db), ("dF/dr", d_dr, fd_dr)):
      self._assert_within(f"{name} against central differences", dtype, np.abs(got - want),
                          1e-7 * np.abs(want) + 1e-8, laws, b, r, got, want)

  @parameterized.named_parameters(("float64", np.float64), ("float32", np.float32))
  def test_order_32(self, dtype):
    # limb_dark.MAX_ORDER coefficients (kMaxOrder: every per-element array
    # of LightCurveElement full): the two laws and bounds of
    # limb_dark_test's test_order_32 (F - 1 within 5e-15, dF/du within 1e-5
    # of its largest; float32 as above), on four points (float32 values).
    n = limb_dark.MAX_ORDER
    laws = np.array([0.9 * 0.5 ** np.arange(1, n + 1), np.full(n, 1.0 / n)]).astype(dtype)
    points = ((0.3125, 0.125), (1.0625, 0.125), (0.6875, 0.625), (2.5, 3.0))
    b, r = (np.array(x, dtype) for x in zip(*points))
    flux, _, _, du = (x.astype(np.float64) for x in _ld_device(laws, b, r, True))
    terms = [_ld_terms(x, y, n) for x, y in points]
    want = np.array(ld_ref.flux_minus_one_from_terms(terms, laws.astype(np.float64)))
    bound = 5e-15 if dtype == np.float64 else LD_BOUND_FLOAT32
    self._assert_within("F - 1", dtype, np.abs(flux - want), np.full(flux.shape, bound),
                        laws, b, r, flux, want)
    want_du = np.array([[ld_ref.flux_gradient_in_u_from_terms(t, law) for t in terms]
                        for law in laws.astype(np.float64)])
    scale = np.max(np.abs(want_du), axis=-1, keepdims=True)
    self._assert_within("dF/du", dtype, np.abs(du - want_du),
                        np.broadcast_to(1e-5 * scale, want_du.shape), laws, b, r, du, want_du)


class LightCurveNanPolicyTest(parameterized.TestCase):
  """limb_dark.h's NaN policy and symmetry, and the kernel's indexing."""

  @parameterized.named_parameters(("float64", np.float64), ("float32", np.float32))
  def test_invalid_elements_are_nan_and_only_those(self, dtype):
    inf, nan = np.inf, np.nan
    # (b, r, invalid): r < 0, NaN or inf anywhere, and occultors larger
    # than kMaxCrossingRadius (1e6) whose limb crosses the disk; not those
    # that miss it or hide it.
    cases_ = [(0.3, 0.1, False), (nan, 0.1, True), (inf, 0.1, True), (-inf, 0.1, True),
              (0.3, nan, True), (0.3, inf, True), (0.3, -0.1, True), (0.3, -0.0, False),
              (2e6, 2e6, True), (0.0, 2e6, False), (3e6, 2e6, False), (0.9, 0.1, False),
              (-0.9, 0.1, False), (1.5, 0.1, False), (0.0, 0.0, False)]
    b = np.array([c[0] for c in cases_], dtype)
    r = np.array([c[1] for c in cases_], dtype)
    invalid = np.array([c[2] for c in cases_])
    for order in (2, 6):
      laws = _ld_laws(order)[-1:].astype(dtype)
      outputs = _ld_device(laws, b, r, derivatives=True)
      for name, x in zip(("F - 1", "dF/db", "dF/dr"), outputs[:3]):
        np.testing.assert_array_equal(
            np.isnan(x[0]), invalid,
            err_msg=f"{name}, {order} coefficients, {np.dtype(dtype).name}: NaN exactly "
            f"where the input is invalid (b={b}, r={r})")
      np.testing.assert_array_equal(np.isnan(outputs[3][0]).any(axis=-1), invalid)
      # The valid elements are those of a call without the invalid ones.
      alone = _ld_device(laws, b[~invalid], r[~invalid], derivatives=True)
      for x, y in zip(outputs, alone):
        np.testing.assert_array_equal(x[:, ~invalid], y)
    # A law with NaN in it: NaN everywhere, out of transit too (two
    # coefficients: the first pass leaves every point to the second,
    # limb_dark.h's LowOrderFastElement; three: the general path).
    for law in ([[0.4, nan]], [[nan]], [[0.4, nan, 0.1]]):
      got = _ld_device(np.array(law, dtype), b[~invalid], r[~invalid])
      self.assertTrue(np.all(np.isnan(got)), msg=f"law {law}: {got}")

  @parameterized.named_parameters(("float64", np.float64), ("float32", np.float32))
  def test_limits(self, dtype):
    # Out of transit: exactly 0 (and 0 derivatives); the disk hidden:
    # exactly -1; the uniform disk inside: -r^2.
    for order in (0, 2, 3, 6):
      laws = _ld_laws(order).astype(dtype)
      b = np.array([1.5, 2.0, 0.0, 1.0, 0.5], dtype)
      r = np.array([0.25, 0.5, 1.5, 2.5, 0.0], dtype)
      flux, d_db, d_dr, d_du = _ld_device(laws, b, r, derivatives=True)
      want = np.broadcast_to(np.array([0, 0, -1, -1, 0], dtype), flux.shape)
      np.testing.assert_array_equal(flux, want, err_msg=f"{order} coefficients")
      for x in (d_db, d_dr, d_du):
        np.testing.assert_array_equal(x, np.zeros_like(x), err_msg=f"{order} coefficients")
    got = _ld_device(np.zeros((1, 0), dtype), np.array([0.25], dtype), np.array([0.125], dtype))
    np.testing.assert_allclose(got, [[-0.125 ** 2]], rtol=0, atol=np.finfo(dtype).eps / 8)

  @parameterized.named_parameters(("float64", np.float64), ("float32", np.float32))
  def test_negative_b(self, dtype):
    # F is even in b; dF/db is in b itself (of b's sign), the others not.
    rng = np.random.default_rng(7)
    b = rng.uniform(0.0, 1.3, 40).astype(dtype)
    r = rng.uniform(0.01, 0.5, 40).astype(dtype)
    for order in (1, 2, 6):
      laws = _ld_laws(order).astype(dtype)
      plus = _ld_device(laws, b, r, derivatives=True)
      minus = _ld_device(laws, -b, r, derivatives=True)
      for name, x, y, sign in zip(("F - 1", "dF/db", "dF/dr", "dF/du"), plus, minus,
                                  (1, -1, 1, 1)):
        np.testing.assert_array_equal(y, sign * x, err_msg=f"{name}, {order} coefficients")

  def test_laws_in_one_call(self):
    # u (laws, order), group_size elements per law (the kernel's i /
    # group_size): each law's results are those of a call with it alone.
    laws = _ld_laws(4)
    rng = np.random.default_rng(8)
    b = rng.uniform(0, 1.2, (laws.shape[0], 7))
    r = rng.uniform(0.01, 0.5, (laws.shape[0], 7))
    together = _device_path.light_curve(_VARIANT.value, laws, b, r, True)
    for k in range(laws.shape[0]):
      alone = _device_path.light_curve(_VARIANT.value, laws[k], b[k], r[k], True)
      for x, y in zip(together[:3], alone[:3]):
        np.testing.assert_array_equal(x[k], y)
      np.testing.assert_array_equal(together[3][:, k], alone[3])

  def test_shapes_and_dtypes(self):
    u = np.array([0.4, 0.26])
    b = np.linspace(0, 1.2, 12).reshape(3, 4)
    r = np.full((3, 4), 0.1)
    for dtype in (np.float32, np.float64):
      flux, d_db, d_dr, d_du = _device_path.light_curve(
          _VARIANT.value, u.astype(dtype), b.astype(dtype), r.astype(dtype), True)
      for x in (flux, d_db, d_dr):
        self.assertEqual(x.shape, (3, 4))
        self.assertEqual(x.dtype, dtype)
      self.assertEqual(d_du.shape, (2, 3, 4))
      self.assertEqual(d_du.dtype, dtype)
    with self.assertRaisesRegex(ValueError, "differ in dtype"):
      _device_path.light_curve(_VARIANT.value, u.astype(np.float32), b, r)
    with self.assertRaisesRegex(ValueError, "differ in shape"):
      _device_path.light_curve(_VARIANT.value, u, b, r[:2])
    with self.assertRaisesRegex(ValueError, "more than 32"):
      _device_path.light_curve(_VARIANT.value, np.zeros(33), b, r)
    with self.assertRaisesRegex(ValueError, r"\(laws, \.\.\.\)"):
      _device_path.light_curve(_VARIANT.value, np.zeros((2, 2)), b, r)


class Float32MathTest(parameterized.TestCase):
  """The float32-in-float32 path of the laws of at most two coefficients
  (limb_dark.h's LowOrderCurveElementIn<float>: every step of a point in
  float) on every region's float32 points, the special ones included: F - 1
  against mpmath within FLOAT32_MATH_DEPTH_BOUND of the transit depth
  (min(r^2, 1)) and within FLOAT32_MATH_BOUND absolute (the float64 path's
  float32 bound is LD_BOUND_FLOAT32, its rounding alone), the derivatives
  against the float64 path's. The numbers are docs/gpu.md's."""

  def _case(self, order):
    points = np.vstack([_ld_points_as(region, np.float32) for region in LD_REGIONS])
    laws = _ld_laws(order).astype(np.float32)
    return laws, points[:, 0].astype(np.float32), points[:, 1].astype(np.float32)

  def _run(self, laws, b, r, derivatives=False):
    shape = (laws.shape[0], b.shape[0])
    return _device_path.light_curve(
        _VARIANT.value, laws, np.ascontiguousarray(np.broadcast_to(b, shape)),
        np.ascontiguousarray(np.broadcast_to(r, shape)), derivatives, 0, True)

  @parameterized.parameters(0, 1, 2)
  def test_value(self, order):
    laws, b, r = self._case(order)
    got = self._run(laws, b, r)
    self.assertEqual(got.dtype, np.float32)
    got = got.astype(np.float64)
    want = _ld_reference(laws, b, r)
    err = np.abs(got - want)
    depth = np.minimum(r.astype(np.float64) ** 2, 1.0)
    relative = err / np.maximum(depth, 1e-300)
    worst = np.unravel_index(int(np.argmax(relative)), relative.shape)[1]
    print(f"float32 math, {order} coefficients, {b.size} points x {laws.shape[0]} laws: "
          f"max |error| {err.max():.3g}, max |error| / depth {relative.max():.3g} "
          f"({relative.max() / np.finfo(np.float32).eps:.3g} float32 eps; at b={b[worst]}, "
          f"r={r[worst]}), beyond LD_BOUND_FLOAT32 at {np.mean(err > LD_BOUND_FLOAT32):.2%} "
          "of the points")
    self.assertFalse(np.any(np.isnan(err)))
    self._assert_below("F - 1 / depth", relative, FLOAT32_MATH_DEPTH_BOUND, laws, b, r)
    self._assert_below("|F - 1 error|", err, FLOAT32_MATH_BOUND, laws, b, r)

  @parameterized.parameters(1, 2)
  def test_derivatives(self, order):
    laws, b, r = self._case(order)
    got = self._run(laws, b, r, True)
    want = _ld_device(laws.astype(np.float64), b.astype(np.float64), r.astype(np.float64),
                      True)
    # The value is the same with the derivatives as without.
    np.testing.assert_array_equal(got[0], self._run(laws, b, r))
    for name, x, y in (("dF/db", got[1], want[1]), ("dF/dr", got[2], want[2]),
                       ("dF/du", np.moveaxis(got[3], 0, -1), want[3])):
      x = x.astype(np.float64)
      scale = np.max(np.abs(y), axis=-1, keepdims=True) if name == "dF/du" else np.abs(y)
      relative = np.abs(x - y) / np.maximum(scale, np.max(np.abs(y)) * 1e-3)
      print(f"float32 math, {order} coefficients, {name}: max error {relative.max():.3g} "
            "relative")
      self._assert_below(name, relative, FLOAT32_MATH_DERIVATIVE_BOUND, laws, b, r)

  def _assert_below(self, what, err, bound, laws, b, r):
    worst = np.unravel_index(int(np.argmax(err)), err.shape)
    self.assertLessEqual(
        err[worst], bound,
        f"float32 math, {what} ({_VARIANT.value}): {err[worst]:.3g} > {bound:.3g} at "
        f"u={laws[worst[0]].tolist()!r}, b={b[worst[1]]!r}, r={r[worst[1]]!r}")

  def test_refusals(self):
    b = r = np.full(3, 0.1, np.float32)
    for u in (np.zeros(3, np.float32), np.zeros(2, np.float64)):
      with self.assertRaisesRegex(ValueError, "float32_math"):
        _device_path.light_curve(_VARIANT.value, u, b.astype(u.dtype), r.astype(u.dtype),
                                 False, 0, True)


# The laws other than the polynomial and the tabulated (limb_dark.light_curve's
# law=, which have cases of their own), by the number the op's `law`
# attribute carries (their place in limb_dark.LAWS): a law of each with a
# positive intensity. test_every_law_has_a_case holds this to LAWS.
_LAW_CASES = {
    "power2": (0.6, 0.5),
    "nonlinear": (0.5, 0.1, 0.1, -0.1),
    "square_root": (0.3, 0.4),
    "logarithmic": (0.6, 0.2),
    "exponential": (0.5, 0.2),
}
DEVICE_LAWS = {list(limb_dark.LAWS).index(name): (name, u) for name, u in _LAW_CASES.items()}


class LawsTest(parameterized.TestCase):
  """The laws other than the polynomial on the device path, against the CPU
  op (which tests/limb_dark_test.py holds to mpmath quadratures of each
  law): every region's points, the value and every derivative. The device
  path calls libm's log and expm1 where the CPU loops call their own
  (elementary.h): a few ulps apart."""

  def test_every_law_has_a_case(self):
    self.assertEqual(sorted(_LAW_CASES), sorted(set(limb_dark.LAWS) - {"polynomial", "tabulated"}))
    for name, u in _LAW_CASES.items():
      self.assertEqual(len(u), limb_dark.LAWS[name], name)

  @parameterized.parameters(*DEVICE_LAWS)
  def test_against_the_cpu_op(self, law):
    name, u = DEVICE_LAWS[law]
    u = np.array(u)
    points = np.vstack([_ld_points_as(region, np.float64) for region in LD_REGIONS])
    b, r = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
    flux, d_db, d_dr, d_du = _device_path.light_curve(_VARIANT.value, u, b, r, True, law)
    want = np.asarray(limb_dark.light_curve(u, b, r, law=name))
    np.testing.assert_allclose(flux, want, rtol=0, atol=1e-15)
    grad = jax.jit(jax.vmap(jax.grad(
        lambda u, b, r: limb_dark.light_curve(u, b, r, law=name), argnums=(0, 1, 2)),
                            in_axes=(None, 0, 0)))
    g_u, g_b, g_r = (np.asarray(x) for x in grad(u, b, r))
    for what, got, expected in (("d_db", d_db, g_b), ("d_dr", d_dr, g_r),
                                ("d_du", np.moveaxis(d_du, 0, -1), g_u)):
      np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15, err_msg=what)

  def test_float32_and_refusals(self):
    u = np.array((0.6, 0.5), np.float32)
    b = np.array([0.0, 0.5, 0.95, 1.05, np.nan], np.float32)
    r = np.full(5, 0.1, np.float32)
    flux = _device_path.light_curve(_VARIANT.value, u, b, r, False, 1)
    self.assertEqual(flux.dtype, np.float32)
    want = np.asarray(limb_dark.light_curve(u.astype(np.float64), b.astype(np.float64),
                                            r.astype(np.float64), law="power2"))
    np.testing.assert_allclose(flux, want, rtol=1e-7, atol=1e-12)
    # alpha <= 0: NaN everywhere; a wrong number of coefficients, or no
    # such law: ValueError before anything runs.
    bad = _device_path.light_curve(_VARIANT.value, np.array((0.6, 0.0)), b.astype(np.float64),
                                   r.astype(np.float64), False, 1)
    self.assertTrue(np.all(np.isnan(bad)))
    with self.assertRaisesRegex(ValueError, "takes 4 coefficients"):
      _device_path.light_curve(_VARIANT.value, np.zeros(2), b, r, False, 2)
    with self.assertRaisesRegex(ValueError, "no law 7"):
      _device_path.light_curve(_VARIANT.value, np.zeros(2), b, r, False, 7)
    with self.assertRaisesRegex(ValueError, "a grid and its intensities"):
      _device_path.light_curve(_VARIANT.value, np.zeros(3, np.float32), b, r, False, 6)

  @parameterized.named_parameters(
      ("grid_from_0_to_1", np.array([0.0, 0.05, 0.2, 0.45, 0.7, 1.0])),
      # A model atmosphere's grid of 40 points inside (0, 1): every point a
      # knot, the profile flat below the first and above the last.
      ("grid_inside", np.linspace(0.02, 0.98, 40)
       + np.random.default_rng(12).uniform(-0.008, 0.008, 40)))
  def test_tabulated_against_the_cpu_op(self, grid):
    # The tabulated law (the device path reads the table from its row a
    # point at a time): u the grid then the intensities, dF/du those in the
    # intensities; every region's points.
    values = 1 - 0.6 * (1 - grid ** 0.7)
    points = np.vstack([_ld_points_as(region, np.float64) for region in LD_REGIONS])
    b, r = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
    flux, d_db, d_dr, d_du = _device_path.light_curve(
        _VARIANT.value, np.concatenate([grid, values]), b, r, True, 6)
    want = np.asarray(limb_dark.light_curve(values, b, r, law="tabulated", mu=grid))
    np.testing.assert_allclose(flux, want, rtol=0, atol=1e-15)
    # A refused table (a grid not increasing, or NaN in it): NaN everywhere.
    for bad_grid in (grid[::-1], np.where(np.arange(grid.size) == 2, np.nan, grid)):
      bad = _device_path.light_curve(_VARIANT.value, np.concatenate([bad_grid, values]), b, r,
                                     True, 6)
      self.assertTrue(all(np.all(np.isnan(x)) for x in bad))
    grad = jax.jit(jax.vmap(jax.grad(
        lambda u, b, r: limb_dark.light_curve(u, b, r, law="tabulated", mu=grid),
        argnums=(0, 1, 2)), in_axes=(None, 0, 0)))
    g_u, g_b, g_r = (np.asarray(x) for x in grad(values, b, r))
    for what, got, expected in (("d_db", d_db, g_b), ("d_dr", d_dr, g_r),
                                ("d_du", np.moveaxis(d_du, 0, -1), g_u)):
      # dF/dI_j: differences of the ramps' integrals over the grid's
      # spacing (0.05: 20 times their rounding; the bound grows as the
      # spacing shrinks).
      atol = 2e-14 * max(1.0, 0.05 / np.diff(grid).min())
      np.testing.assert_allclose(got, expected, rtol=1e-12, atol=atol, err_msg=what)


class TransitTest(parameterized.TestCase):
  """The transit kernels' per-element code (Element: the planet made ready
  and the contacts found per element) against the CPU op, which makes both
  ready once per row: every output, with and without exposures, for each
  family's kernels (transit.h's TransitPlan: the polynomial laws of at most
  two coefficients and of more, the laws of laws.h, the tabulated law),
  circular and eccentric orbits."""

  @parameterized.parameters(
      ("polynomial", (0.4, 0.26), None, (3.0, 0.2, 8.0, 0.3, 0.1, 0.0, 0.0)),
      ("polynomial", (0.3, 0.2, 0.1, 0.05), None, (3.0, 0.1, 9.0, 0.7, 0.15, 0.4, 1.0)),
      ("power2", (0.7, 0.6), None, (5.0, -0.3, 12.0, 0.5, 0.08, 0.6, 2.0)),
      ("nonlinear", (0.5, -0.2, 0.6, -0.2), None, (4.0, 0.0, 10.0, 1.05, 0.12, 0.2, -1.0)),
      ("tabulated", (1.0, 0.9, 0.75, 0.45), (0.0, 0.35, 0.7, 1.0),
       (3.0, 0.0, 8.0, 0.2, 0.1, 0.3, 1.0)))
  def test_against_the_cpu_op(self, law, u, mu, orbit):
    period, t0, a, b, r, ecc, omega = orbit
    rng = np.random.default_rng(31)
    half = period / (np.pi * a) * (1 + r) * 2
    t = t0 + rng.integers(-2, 3, 300) * period + rng.uniform(-half, half, 300)
    exposure = np.where(np.arange(300) % 3 == 0, rng.uniform(0, 2 * half, 300), 0.0)
    params = dict(period=period, t0=t0, a=a, b=b, r=r, ecc=ecc, omega=omega)
    law_index = list(limb_dark.LAWS).index(law)
    coefficients = np.asarray(u, np.float64) if mu is None else np.concatenate([mu, u])
    row = np.concatenate([[period, t0, a, b, r, ecc, omega], coefficients])
    got = _device_path.transit(_VARIANT.value, row, law_index, 0, t, exposure, True)

    def model(q, uu, x):
      return transit.light_curve(t, u=uu, law=law, mu=mu, exposure_time=x, **q)

    args = {k: jnp.float64(v) for k, v in params.items()}
    want = np.asarray(model(args, jnp.asarray(u), jnp.asarray(exposure)))
    np.testing.assert_allclose(got[0], want, rtol=0, atol=1e-14)
    jac, jac_u, jac_x = jax.jacfwd(model, argnums=(0, 1, 2))(args, jnp.asarray(u),
                                                             jnp.asarray(exposure))
    names = ("period", "t0", "a", "b", "r", "ecc", "omega")
    expected = [np.asarray(jac[k]) for k in names] + [np.diagonal(np.asarray(jac_x))]
    expected += list(np.moveaxis(np.asarray(jac_u), -1, 0))
    for k, (g, e) in enumerate(zip(got[1:], expected)):
      scale = max(1.0, float(np.max(np.abs(e))))
      np.testing.assert_allclose(g, e, rtol=0, atol=1e-12 * scale, err_msg=f"result {k + 1}")

  @parameterized.parameters(("polynomial", (0.4, 0.26), 0.0, 0.0),
                            ("polynomial", (0.6,), 0.45, 2.2), ("polynomial", (), 0.2, 4.0),
                            ("power2", (0.7, 0.6), 0.3, 1.0),
                            ("nonlinear", (0.5, -0.2, 0.6, -0.2), 0.0, 0.0),
                            ("logarithmic", (0.5, 0.2), 0.2, 1.0),
                            ("polynomial", (0.3, 0.2, 0.1), 0.1, -1.0),
                            ("polynomial", (0.2, 0.1, -0.1, 0.05, 0.02), 0.6, 0.5),
                            ("tabulated", (1.0, 0.8, 0.55, 0.3), 0.3, 2.0, (0.0, 0.3, 0.8, 1.0)))
  def test_window_pass_against_the_cpu_op(self, law, u, ecc, omega, mu=None):
    # Rows without the planet's light run in passes on the device: the
    # window pass writes the times between the transit's windows; for the
    # laws of at most two coefficients and those of laws.h the next the
    # instants, the last the exposed times in batches (the laws of laws.h a
    # point's rule's code at a time, the logarithmic law's by the edge
    # moments, the power laws' by their own sums); for the other polynomial
    # laws and the tabulated law (whose window pass holds the table's
    # verdict alone) the next every time it marked. Against the CPU op,
    # whose blocks take the window for every law: times over whole orbits,
    # next to the windows' edges, NaN and +-inf; exposures of 0, short,
    # longer than the gap between windows, negative and NaN; times beyond
    # 2^52 orbits.
    period, t0, a, b, r = 3.0, 0.2, 8.0, 0.5, 0.1
    rng = np.random.default_rng(34)
    half = period / (np.pi * a) * (1 + r)
    t = np.concatenate([t0 + rng.uniform(-3, 3, 150) * period,
                        t0 + rng.integers(-2, 3, 150) * period + rng.uniform(-3, 3, 150) * half,
                        [np.nan, np.inf, -np.inf, 1e17 * period, t0 + 0.5 * period]])
    n = t.size
    exposure = rng.choice([0.0, 0.02, 0.3, 2.9, 7.0], n)
    exposure[rng.integers(0, n, 8)] = -0.1
    exposure[rng.integers(0, n, 8)] = np.nan
    params = dict(period=period, t0=t0, a=a, b=b, r=r, ecc=ecc, omega=omega)
    coefficients = u if mu is None else np.concatenate([mu, u])
    row = np.concatenate([[period, t0, a, b, r, ecc, omega], coefficients])
    got = _device_path.transit(_VARIANT.value, row, list(limb_dark.LAWS).index(law), 0, t,
                               exposure, True)

    def model(q, uu, x):
      return transit.light_curve(t, u=uu, law=law, mu=mu, exposure_time=x, **q)

    args = {k: jnp.float64(v) for k, v in params.items()}
    uu = jnp.asarray(u, jnp.float64)
    want = np.asarray(model(args, uu, jnp.asarray(exposure)))
    np.testing.assert_allclose(got[0], want, rtol=0, atol=1e-14)
    self.assertGreater(np.sum(got[0] < 0), 40, "times in transit")
    self.assertGreater(np.sum(got[0] == 0), 100, "times between the windows")
    jac, jac_u, jac_x = jax.jacfwd(model, argnums=(0, 1, 2))(args, uu, jnp.asarray(exposure))
    names = ("period", "t0", "a", "b", "r", "ecc", "omega")
    expected = [np.asarray(jac[k]) for k in names] + [np.diagonal(np.asarray(jac_x))]
    expected += list(np.moveaxis(np.asarray(jac_u), -1, 0))
    self.assertEqual(len(got), 1 + len(expected))
    for k, (g, e) in enumerate(zip(got[1:], expected)):
      scale = max(1.0, float(np.nanmax(np.abs(e))))
      np.testing.assert_allclose(g, e, rtol=0, atol=1e-12 * scale, err_msg=f"result {k + 1}")

  @parameterized.parameters(
      ("polynomial", (0.3, 0.2, 0.1), None, [(0.3, np.nan, 0.1), (np.inf, 0.2, 0.1),
                                             (1e300, -1e300, 1e300)]),
      ("tabulated", (1.0, 0.8, 0.55, 0.3), (0.0, 0.3, 0.8, 1.0),
       [(1.0, 0.8, np.nan, 0.3), (-1.0, -0.8, -0.55, -0.3), (1.0, 0.8, np.inf, 0.3)]))
  def test_refused_rows_against_the_cpu_op(self, law, u, mu, bad_laws):
    # The planet's verdict (every output NaN, or the row accepted) as the
    # window pass reaches it without the light curve's code (the polynomial
    # row's CurveAwayFromStar, the tabulated law's TableVerdictRow), against
    # the CPU op's: refused coefficients, a grid out of order, radii that
    # are negative, NaN, infinite, 0, past kMaxCrossingRadius and so large
    # that r + 2 rounds to r; the accepted rows' values too.
    period, t0, a, b = 3.0, 0.2, 8.0, 0.3
    rng = np.random.default_rng(35)
    t = t0 + rng.integers(-1, 2, 60) * period + rng.uniform(-0.05, 0.05, 60)
    t[:20] = t0 + rng.uniform(0.3, 2.7, 20)  # between the windows
    exposure = np.where(np.arange(60) % 2 == 0, 0.01, 0.0)
    grids = [mu] if mu is None else [mu, (0.0, 0.8, 0.3, 1.0)]
    cases = [(r, u, grid) for r in (0.1, 0.0, -0.1, np.nan, np.inf, 2e6, 1e17)
             for grid in grids[:1]]
    cases += [(0.1, bad, grids[0]) for bad in bad_laws] + [(0.1, u, grid) for grid in grids[1:]]
    for r, coefficients, grid in cases:
      with self.subTest(r=r, u=coefficients, mu=grid):
        row = np.concatenate([[period, t0, a, b, r, 0.2, 1.0],
                              coefficients if grid is None else np.concatenate([grid,
                                                                                coefficients])])
        got = _device_path.transit(_VARIANT.value, row, list(limb_dark.LAWS).index(law), 0, t,
                                   exposure, True)
        if grid is None or np.all(np.diff(grid) > 0):
          want = transit.light_curve(t, period=period, t0=t0, a=a, b=b, r=r, ecc=0.2,
                                     omega=1.0, u=jnp.asarray(coefficients), law=law,
                                     mu=None if grid is None else jnp.asarray(grid),
                                     exposure_time=exposure)
        else:  # kepler.transit refuses the grid (ValueError); the op gives NaN
          want = np.full(t.shape, np.nan)
        np.testing.assert_allclose(got[0], np.asarray(want), rtol=0, atol=1e-14)
        refused = bool(np.all(np.isnan(got[0])))
        self.assertEqual(refused, bool(np.all(np.isnan(want))))
        for k, g in enumerate(got[1:]):
          self.assertEqual(bool(np.all(np.isnan(g))), refused, f"result {k + 1}")
        if not refused and r <= 0.1:
          self.assertGreater(np.sum(got[0] == 0), 15, "times between the windows")

  def test_transit_times_against_the_cpu_op(self):
    # A row with the variations of four epochs: the values of the CPU op
    # with transit_times, and every result of the row without them at the
    # times shifted by their epochs' variations (each computed here).
    period, t0, a, b, r, ecc, omega = 3.0, 0.2, 8.0, 0.3, 0.1, 0.2, 1.0
    u = (0.4, 0.26)
    rng = np.random.default_rng(33)
    times = t0 + period * np.arange(4) + rng.uniform(-0.03, 0.03, 4)
    t = t0 + rng.integers(-1, 5, 200) * period + rng.uniform(-0.3, 0.3, 200)
    t[:8] = t0 + (np.arange(-2, 6) + 0.5) * period  # halves: the epoch rounds to even
    exposure = np.where(np.arange(200) % 3 == 0, rng.uniform(0, 0.05, 200), 0.0)
    variations = times - t0 - np.arange(4) * period
    orbit = [period, t0, a, b, r, ecc, omega]
    got = _device_path.transit(_VARIANT.value, np.concatenate([orbit, variations, u]), 0, 0,
                               t, exposure, True, epochs=4)
    want = transit.light_curve(t, period=period, t0=t0, a=a, b=b, r=r, ecc=ecc, omega=omega,
                               u=u, exposure_time=exposure, transit_times=times)
    np.testing.assert_allclose(got[0], want, rtol=0, atol=1e-14)
    epoch = np.clip(np.round((t - t0) / period), 0, 3).astype(int)
    plain = _device_path.transit(_VARIANT.value, np.concatenate([orbit, u]), 0, 0,
                                 t - variations[epoch], exposure, True)
    np.testing.assert_array_equal(got, plain)
    self.assertTrue(np.any(got[0] < 0), "some times in transit")

  @parameterized.parameters(
      ("polynomial", (0.4, 0.26), None, (3.0, 0.2, 8.0, 0.3, 0.1, 0.0, 0.0)),
      ("nonlinear", (0.5, -0.2, 0.6, -0.2), None, (4.0, 0.0, 6.0, 0.9, 0.12, 0.4, -1.0)),
      ("polynomial", (0.3, 0.2, 0.1, 0.05), None, (3.0, 0.1, 7.0, 0.5, 0.1, 0.3, 2.0)),
      ("tabulated", (1.0, 0.85, 0.6, 0.35), (0.0, 0.4, 0.75, 1.0),
       (3.5, 0.0, 9.0, 0.2, 0.09, 0.1, 0.5)))
  def test_the_planets_light_against_the_cpu_op(self, law, u, mu, orbit):
    # Times over whole orbits (transits, eclipses, phases between), a third
    # with exposures (up to a tenth of the period: the orbit's breakpoints
    # found per element; a few of 2.5 orbits, of 1e12 (the orbit average),
    # negative and NaN); the planet's light and the star's modulation on.
    period, t0, a, b, r, ecc, omega = orbit
    glow = (2e-3, 4e-4, 0.3, 2e-5, 5e-5)
    names = ("planet_flux", "night_flux", "phase_offset", "beaming", "ellipsoidal")
    rng = np.random.default_rng(32)
    t = t0 + rng.uniform(-2, 2, 300) * period
    exposure = np.where(np.arange(300) % 3 == 0, rng.uniform(0, 0.1 * period, 300), 0.0)
    exposure[[3, 33, 63]] = 2.5 * period
    exposure[[6, 36]] = 1e12 * period
    exposure[9], exposure[39] = -0.1, np.nan
    law_index = list(limb_dark.LAWS).index(law)
    coefficients = u if mu is None else np.concatenate([mu, u])
    row = np.concatenate([[period, t0, a, b, r, ecc, omega], glow, coefficients])
    got = _device_path.transit(_VARIANT.value, row, law_index, 0, t, exposure, True, True)

    def model(q, uu, x):
      return transit.light_curve(t, u=uu, law=law, mu=mu, exposure_time=x, **q)

    params = dict(period=period, t0=t0, a=a, b=b, r=r, ecc=ecc, omega=omega,
                  **dict(zip(names, glow)))
    args = {k: jnp.float64(v) for k, v in params.items()}
    want = np.asarray(model(args, jnp.asarray(u), jnp.asarray(exposure)))
    np.testing.assert_allclose(got[0], want, rtol=0, atol=1e-14)
    jac, jac_u, jac_x = jax.jacfwd(model, argnums=(0, 1, 2))(args, jnp.asarray(u),
                                                             jnp.asarray(exposure))
    orbit_names = ("period", "t0", "a", "b", "r", "ecc", "omega")
    expected = [np.asarray(jac[k]) for k in orbit_names] + [np.diagonal(np.asarray(jac_x))]
    expected += [np.asarray(jac[k]) for k in names]
    expected += list(np.moveaxis(np.asarray(jac_u), -1, 0))
    self.assertEqual(len(got), 1 + len(expected))
    for k, (g, e) in enumerate(zip(got[1:], expected)):
      scale = max(1.0, float(np.max(np.abs(e))))
      np.testing.assert_allclose(g, e, rtol=0, atol=1e-12 * scale, err_msg=f"result {k + 1}")


if __name__ == "__main__":
  absltest.main()
