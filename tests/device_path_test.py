"""The solver's device path, compiled for the host, against mpmath.

The CUDA kernel (jaxlib_ext/kepler_solve/kepler_solve_kernel.cu) runs kepler_solve.h with
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
  strict: -ffp-contract=off. Only the solver's explicit fma calls fuse: the
      rounding the source code spells out.
  fused:  -mfma -ffp-contract=fast. g++ may also contract any a * b + c into
      an fma, as nvcc does on the device by default (--fmad=true).
nvcc chooses its contractions itself, so neither variant rounds exactly as
the GPU does; the bounds have to hold with none and with another compiler's
choice, which is the evidence this test gives for the kernel. Division and
sqrt are correctly rounded on both sides (nvcc's default -prec-div and
-prec-sqrt); cbrt (only in the starter) is libm's here, CUDA's there.
"""

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from tests import _device_path
from tests import accuracy_cases as cases
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


if __name__ == "__main__":
  absltest.main()
