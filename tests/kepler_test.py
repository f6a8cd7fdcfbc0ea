"""Tests of kepler.solve and kepler.true_anomaly through JAX.

Values are checked against an arbitrary-precision reference (mpmath, see
tests/mpmath_reference.py), derivatives against finite differences.
"""

import os
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
from jax import test_util as jtu
import numpy as np

import kepler
from tests import mpmath_reference

OPS = {
    "solve": (kepler.solve, mpmath_reference.eccentric_anomaly),
    "true_anomaly": (kepler.true_anomaly, mpmath_reference.true_anomaly),
}
# Max abs error of each output against the reference, e in [0, 0.999].
TOLERANCE = {np.float32: 2e-6, np.float64: 1e-12}
DTYPES = [("float32", np.float32), ("float64", np.float64)]


def _random_inputs(n, dtype, seed=0, e_max=0.999):
  rng = np.random.default_rng(seed)
  mean_anomaly = rng.uniform(-100, 100, n).astype(dtype)
  ecc = rng.uniform(0, e_max, n).astype(dtype)
  return mean_anomaly, ecc


def _named(params):
  return [dict(testcase_name=f"_{op}_{dname}", op=op, dtype=dtype)
          for op in OPS for dname, dtype in params]


class ValuesTest(parameterized.TestCase):
  """Outputs against mpmath, on random draws and on awkward points."""

  def _check_against_reference(self, op, dtype, mean_anomaly, ecc, tol):
    fn, reference = OPS[op]
    got = fn(mean_anomaly, ecc)
    want = reference(np.asarray(mean_anomaly, np.float64), np.asarray(ecc, np.float64))
    for name, g, w in zip(("sin", "cos"), got, want):
      self.assertEqual(g.dtype, dtype, f"{op} {name} dtype")
      self.assertEqual(g.shape, np.shape(mean_anomaly), f"{op} {name} shape")
      err = np.abs(np.asarray(g, np.float64) - w).ravel()
      worst = int(np.argmax(err))
      self.assertLessEqual(
          err[worst], tol,
          f"{op} {name} {np.dtype(dtype).name} shape {np.shape(mean_anomaly)}: error "
          f"{err[worst]:.3g} at M={np.ravel(mean_anomaly)[worst]!r}, "
          f"e={np.ravel(ecc)[worst]!r}")

  @parameterized.named_parameters(_named(DTYPES))
  def test_random(self, op, dtype):
    mean_anomaly, ecc = _random_inputs(2000, dtype)
    self._check_against_reference(op, dtype, mean_anomaly, ecc, TOLERANCE[dtype])

  @parameterized.named_parameters(_named(DTYPES))
  def test_grid_and_edges(self, op, dtype):
    specials = np.array([0.0, -0.0, 1e-300, 1e-8, np.pi, -np.pi, np.pi - 1e-9,
                         2 * np.pi, -2 * np.pi, 6 * np.pi, 1.0, -1.0, 100.0, -100.0])
    m_grid = np.concatenate([np.linspace(-100, 100, 41), specials])
    e_grid = np.array([0.0, 1e-10, 0.1, 0.5, 0.9, 0.99, 0.999])
    mean_anomaly, ecc = (a.astype(dtype) for a in np.meshgrid(m_grid, e_grid))
    self._check_against_reference(op, dtype, mean_anomaly, ecc, TOLERANCE[dtype])

  def test_circular_orbit_is_identity(self):
    # e = 0: E = f = M exactly, an independent closed form.
    m = np.linspace(-3, 3, 101)
    for fn in (kepler.solve, kepler.true_anomaly):
      s, c = fn(m, 0.0)
      np.testing.assert_allclose(s, np.sin(m), atol=1e-15)
      np.testing.assert_allclose(c, np.cos(m), atol=1e-15)


class GradTest(parameterized.TestCase):
  """Derivatives against finite differences, to second order."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_M{m}_e{e}", op=op, m=m, e=e)
      for op in OPS for m, e in [(0.3, 0.1), (2.5, 0.7), (-1.2, 0.45), (5.0, 0.02), (1.0, 0.95)])
  def test_check_grads(self, op, m, e):
    fn = OPS[op][0]
    jtu.check_grads(lambda a, b: fn(a, b)[0], (m, e), order=2, modes=["fwd", "rev"])
    jtu.check_grads(lambda a, b: fn(a, b)[1], (m, e), order=2, modes=["fwd", "rev"])

  def test_dE_dM_matches_closed_form(self):
    # dE/dM = 1 / (1 - e cos E), so d(sin E)/dM = cos E / (1 - e cos E).
    m, e = 1.1, 0.6
    s, c = kepler.solve(m, e)
    got = jax.grad(lambda x: kepler.solve(x, e)[0])(m)
    self.assertAlmostEqual(float(got), float(c / (1 - e * c)), places=12)

  def test_grad_of_batched_inputs(self):
    m, e = _random_inputs(50, np.float64, e_max=0.9)
    grads = jax.grad(lambda a, b: jnp.sum(kepler.true_anomaly(a, b)[1]), argnums=(0, 1))(m, e)
    for g in grads:
      self.assertEqual(g.shape, (50,))
      self.assertTrue(np.all(np.isfinite(g)))


class TransformTest(parameterized.TestCase):
  """jit and vmap give the same results as the plain call."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{name}", op=op, in_axes=in_axes)
      for op in OPS for name, in_axes in [
          ("both", (0, 0)), ("M_only", (0, None)), ("e_only", (None, 0)),
          ("axis1", (1, 1)), ("M_axis1_e_axis0", (1, 0))])
  def test_vmap(self, op, in_axes):
    fn = OPS[op][0]
    rng = np.random.default_rng(1)
    # The mapped axis (size 4) comes first here and is moved to in_axes.
    m = rng.uniform(-5, 5, (4, 3))
    e = rng.uniform(0, 0.9, (4, 3))
    m_arg = m[0] if in_axes[0] is None else np.moveaxis(m, 0, in_axes[0])
    e_arg = e[0] if in_axes[1] is None else np.moveaxis(e, 0, in_axes[1])
    got = jax.vmap(fn, in_axes=in_axes)(m_arg, e_arg)
    # Reference: one plain call per element of the mapped axis.
    rows = [fn(m[0] if in_axes[0] is None else m[i],
               e[0] if in_axes[1] is None else e[i]) for i in range(4)]
    for k in range(2):
      np.testing.assert_allclose(got[k], np.stack([r[k] for r in rows]), rtol=0, atol=1e-15)

  def test_vmap_of_grad(self):
    m = np.linspace(-3, 3, 7)
    e = np.linspace(0, 0.8, 7)
    got = jax.vmap(jax.grad(lambda a, b: kepler.solve(a, b)[0], argnums=(0, 1)))(m, e)
    for i in range(7):
      want = jax.grad(lambda a, b: kepler.solve(a, b)[0], argnums=(0, 1))(m[i], e[i])
      np.testing.assert_allclose([got[0][i], got[1][i]], want, rtol=1e-14)

  @parameterized.named_parameters(_named(DTYPES))
  def test_jit(self, op, dtype):
    fn = OPS[op][0]
    m, e = _random_inputs(100, dtype)
    for g, w in zip(jax.jit(fn)(m, e), fn(m, e)):
      np.testing.assert_array_equal(g, w)


class ShapeAndDtypeTest(parameterized.TestCase):
  """Broadcasting and dtype promotion follow jnp's binary-op rules."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{a}_{b}".replace(" ", ""), op=op, m_shape=a, e_shape=b)
      for op in OPS for a, b in [((), ()), ((5,), ()), ((), (5,)), ((3, 1), (4,)),
                                 ((2, 3, 4), (3, 1)), ((0,), ()), ((2, 0), (1,)),
                                 ((0,), (0,))])
  def test_broadcast(self, op, m_shape, e_shape):
    fn = OPS[op][0]
    rng = np.random.default_rng(2)
    m = rng.uniform(-4, 4, m_shape)
    e = rng.uniform(0, 0.9, e_shape)
    shape = np.broadcast_shapes(m_shape, e_shape)
    got = fn(m, e)
    mb, eb = np.broadcast_to(m, shape), np.broadcast_to(e, shape)
    want = OPS[op][1](mb, eb)
    for g, w in zip(got, want):
      self.assertEqual(g.shape, shape)
      np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)

  @parameterized.named_parameters(
      ("int32_int32", np.int32, np.int32, np.float32),
      ("int64_float32", np.int64, np.float32, np.float32),
      ("float32_float32", np.float32, np.float32, np.float32),
      ("float32_float64", np.float32, np.float64, np.float64),
      ("float16_float16", np.float16, np.float16, np.float16),
      ("bfloat16_float32", jnp.bfloat16, np.float32, np.float32),
      ("uint8_float16", np.uint8, np.float16, np.float16))
  def test_dtype_promotion_matches_jnp(self, m_dtype, e_dtype, expected):
    m = np.array([1, 2], m_dtype)
    e = np.array([0, 0], e_dtype)
    s, c = kepler.solve(m, e)
    # The same rule as jnp: e.g. jnp.sin(m + e) for these dtypes.
    self.assertEqual(s.dtype, jnp.sin(jnp.asarray(m) + jnp.asarray(e)).dtype)
    self.assertEqual(s.dtype, np.dtype(expected))
    self.assertEqual(c.dtype, np.dtype(expected))
    np.testing.assert_allclose(np.asarray(s, np.float64), np.sin([1.0, 2.0]),
                               rtol=2e-3 if np.dtype(expected).itemsize == 2 else 1e-6)

  def test_python_scalars(self):
    s, c = kepler.solve(1.0, 0.5)
    self.assertEqual(s.shape, ())
    want = mpmath_reference.eccentric_anomaly(np.array(1.0), np.array(0.5))
    self.assertAlmostEqual(float(s), float(want[0]), places=13)
    self.assertAlmostEqual(float(c), float(want[1]), places=13)


class BadInputTest(parameterized.TestCase):
  """Errors are part of the API: each case here is documented in the README."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{which}_{np.dtype(dt).name}", op=op, which=which, dtype=dt)
      for op in OPS for which in ("mean_anomaly", "eccentricity")
      for dt in (np.complex64, np.complex128, np.bool_))
  def test_non_real_dtype_is_type_error(self, op, which, dtype):
    good = np.array([0.5, 1.0])
    bad = np.ones(2, dtype)
    args = (bad, good) if which == "mean_anomaly" else (good, bad)
    fn = OPS[op][0]
    for call in (fn, jax.jit(fn)):
      with self.assertRaisesRegex(TypeError, f"{which} has dtype {np.dtype(dtype).name}"):
        call(*args)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op) for op in OPS)
  def test_shapes_that_do_not_broadcast(self, op):
    with self.assertRaisesRegex(ValueError, r"\(3,\).*\(4,\).*do not broadcast"):
      OPS[op][0](np.zeros(3), np.zeros(4))
    with self.assertRaisesRegex(ValueError, r"\(2, 3\).*\(2,\)"):
      jax.jit(OPS[op][0])(np.zeros((2, 3)), np.zeros(2))

  @parameterized.named_parameters(_named(DTYPES))
  def test_invalid_elements_are_nan_and_only_those(self, op, dtype):
    fn, reference = OPS[op]
    m = np.array([0.5, np.nan, np.inf, -np.inf, 0.5, 0.5, 0.5, 0.5, 0.5, 2.0], dtype)
    e = np.array([0.3, 0.3, 0.3, 0.3, -0.1, 1.0, 1.5, np.nan, np.inf, 0.3], dtype)
    invalid = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 0], bool)
    got = fn(m, e)
    want = reference(np.where(invalid, 0.0, m).astype(np.float64),
                     np.where(invalid, 0.0, e).astype(np.float64))
    for g, w in zip(got, want):
      g = np.asarray(g, np.float64)
      np.testing.assert_array_equal(np.isnan(g), invalid)
      np.testing.assert_allclose(g[~invalid], w[~invalid], atol=TOLERANCE[dtype], rtol=0)

  def test_handler_rejects_mismatched_buffers(self):
    # Only reachable by calling the FFI target directly: the C++ handler
    # itself must answer with an error naming the shapes, not crash.
    out = jax.ShapeDtypeStruct((3,), np.float64)
    call = jax.ffi.ffi_call("kepler_solve", (out, out))
    with self.assertRaisesRegex(Exception, r"mean_anomaly has shape \(3,\) but eccentricity has shape \(4,\)"):
      jax.block_until_ready(call(np.zeros(3), np.zeros(4), true_anomaly=False))

  def test_handler_rejects_unsupported_dtypes(self):
    out = jax.ShapeDtypeStruct((2,), np.int32)
    call = jax.ffi.ffi_call("kepler_solve", (out, out))
    with self.assertRaisesRegex(Exception, "unsupported dtype.*float32 and float64"):
      jax.block_until_ready(call(np.zeros(2, np.int32), np.zeros(2, np.int32),
                                 true_anomaly=False))

  def test_invalid_elements_have_nan_gradients(self):
    g = jax.grad(lambda e: kepler.solve(0.5, e)[0])(1.2)
    self.assertTrue(np.isnan(g))


class CpuIsaChoiceTest(absltest.TestCase):
  """KEPLER_CPU_ISA, read once per process: checked in fresh interpreters."""

  def _run(self, isa):
    code = ("import jax, kepler\n"
            "from jaxlib_ext.cpu import _kepler_cpu\n"
            "print(_kepler_cpu.supported_cpu_isas())\n"
            "print(_kepler_cpu.cpu_isa())\n"
            "print(float(kepler.solve(1.0, 0.5)[0]))\n")
    env = dict(os.environ, KEPLER_CPU_ISA=isa, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, check=False)

  def test_unknown_name_is_an_error(self):
    result = self._run("sse9")
    self.assertNotEqual(result.returncode, 0)
    self.assertIn("KEPLER_CPU_ISA='sse9' is not one of", result.stderr)

  def test_baseline_can_be_forced(self):
    result = self._run("baseline")
    self.assertEqual(result.returncode, 0, result.stderr)
    supported, active, value = result.stdout.split("\n")[:3]
    self.assertIn("baseline", supported)
    self.assertEqual(active, "baseline")
    want = mpmath_reference.eccentric_anomaly(np.array(1.0), np.array(0.5))[0]
    self.assertAlmostEqual(float(value), float(want), places=6)


if __name__ == "__main__":
  absltest.main()
