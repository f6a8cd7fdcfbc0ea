"""Tests of kepler.solve and kepler.true_anomaly through JAX.

Values are checked against an arbitrary-precision reference (mpmath, see
tests/mpmath_reference.py), derivatives against finite differences and, near
e = 1, against mpmath's numerical derivatives.

KEPLER_TEST_X64 (tests/x64_mode.py) sets jax_enable_x64, on by default. With
it off, float64 inputs are demoted to float32 as everywhere in JAX: the same
tests then expect float32 outputs, float32 accuracy against the reference at
the demoted inputs, and errors that name the demoted dtypes.
"""

import os
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax import test_util as jtu
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
import kepler
from kepler import _ffi
from kepler._lib import _kepler_cpu
from tests import mpmath_reference
from tests import vmap_cases

_TARGET = _ffi.target("kepler_solve")  # its XLA FFI target name

OPS = {
    "solve": (kepler.solve, mpmath_reference.eccentric_anomaly),
    "true_anomaly": (kepler.true_anomaly, mpmath_reference.true_anomaly),
}
# Max abs error of each output against the reference, e in [0, 0.999], by
# the dtype the op computes in.
TOLERANCE = {"float32": 2e-6, "float64": 1e-12}
DTYPES = [("float32", np.float32), ("float64", np.float64)]
# The widest float of the mode: what Python floats and float64 arrays become.
FLOAT = x64_mode.FLOAT


def _tol(dtype):
  """TOLERANCE for inputs of dtype: float64 ones are computed in float32 without x64."""
  return TOLERANCE[x64_mode.canonical(dtype).name]


def _exact(x):
  """The values the op computes on (demoted without x64), as float64."""
  return x64_mode.demote(x).astype(np.float64)


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
    want = reference(_exact(mean_anomaly), _exact(ecc))
    for name, g, w in zip(("sin", "cos"), got, want):
      # float64 arrays give float64 with x64, else float32 (as jnp would).
      self.assertEqual(g.dtype, x64_mode.canonical(dtype), f"{op} {name} dtype")
      self.assertEqual(g.dtype, jnp.result_type(mean_anomaly, ecc))
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
    self._check_against_reference(op, dtype, mean_anomaly, ecc, _tol(dtype))

  @parameterized.named_parameters(_named(DTYPES))
  def test_grid_and_edges(self, op, dtype):
    specials = np.array([0.0, -0.0, 1e-300, 1e-8, np.pi, -np.pi, np.pi - 1e-9,
                         2 * np.pi, -2 * np.pi, 6 * np.pi, 1.0, -1.0, 100.0, -100.0])
    m_grid = np.concatenate([np.linspace(-100, 100, 41), specials])
    e_grid = np.array([0.0, 1e-10, 0.1, 0.5, 0.9, 0.99, 0.999])
    mean_anomaly, ecc = (a.astype(dtype) for a in np.meshgrid(m_grid, e_grid))
    self._check_against_reference(op, dtype, mean_anomaly, ecc, _tol(dtype))

  def test_circular_orbit_is_identity(self):
    # e = 0: E = f = M exactly, an independent closed form.
    m = np.linspace(-3, 3, 101)
    atol = {"float64": 1e-15, "float32": 1e-6}[FLOAT.name]
    for fn in (kepler.solve, kepler.true_anomaly):
      s, c = fn(m, 0.0)
      self.assertEqual(s.dtype, FLOAT)
      np.testing.assert_allclose(s, np.sin(_exact(m)), atol=atol, rtol=0)
      np.testing.assert_allclose(c, np.cos(_exact(m)), atol=atol, rtol=0)

  def test_float64_inputs_follow_the_x64_mode(self):
    # With x64 the op computes in float64; without, on the float32 values
    # JAX demotes float64 arrays to: the same bits as a float32 call.
    m, e = _random_inputs(200, np.float64)
    got = kepler.true_anomaly(m, e)
    self.assertEqual(got[0].dtype, jnp.sin(m).dtype)
    self.assertEqual(got[0].dtype, np.float64 if x64_mode.X64 else np.float32)
    if not x64_mode.X64:
      demoted = kepler.true_anomaly(m.astype(np.float32), e.astype(np.float32))
      for g, w in zip(got, demoted):
        np.testing.assert_array_equal(g, w)
    else:
      # float64 results, more accurate than float32 can be.
      want = mpmath_reference.true_anomaly(m, e)
      err = np.abs(np.asarray(got[0]) - want[0]).max()
      self.assertLess(err, 1e-12)


class GradTest(parameterized.TestCase):
  """Derivatives against finite differences, to second order."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_M{m}_e{e}", op=op, m=m, e=e)
      for op in OPS for m, e in [(0.3, 0.1), (2.5, 0.7), (-1.2, 0.45), (5.0, 0.02), (1.0, 0.95)])
  def test_check_grads(self, op, m, e):
    fn = OPS[op][0]
    # In float32 (x64 off) jax's default step (1e-4) leaves second-order
    # differences dominated by rounding (~1e-7 / 1e-4 per level; seen failing by
    # 1% on a GPU): a step of 3e-3 balances rounding against truncation (1e-2
    # is too coarse at e = 0.95).
    step = {} if x64_mode.X64 else {"eps": 3e-3}
    jtu.check_grads(lambda a, b: fn(a, b)[0], (m, e), order=2, modes=["fwd", "rev"], **step)
    jtu.check_grads(lambda a, b: fn(a, b)[1], (m, e), order=2, modes=["fwd", "rev"], **step)

  def test_dE_dM_matches_closed_form(self):
    # dE/dM = 1 / (1 - e cos E), so d(sin E)/dM = cos E / (1 - e cos E).
    m, e = 1.1, 0.6
    # The reference at the values the op computes on (float32 without x64).
    s, c = mpmath_reference.eccentric_anomaly(FLOAT.type(m), FLOAT.type(e))
    e = float(FLOAT.type(e))
    got = jax.grad(lambda x: kepler.solve(x, e)[0])(m)
    self.assertEqual(got.dtype, FLOAT)
    rtol = {"float64": 1e-12, "float32": 1e-6}[FLOAT.name]
    self.assertLess(abs(float(got) / float(c / (1 - e * c)) - 1), rtol)

  def test_grad_of_batched_inputs(self):
    m, e = _random_inputs(50, np.float64, e_max=0.9)
    grads = jax.grad(lambda a, b: jnp.sum(kepler.true_anomaly(a, b)[1]), argnums=(0, 1))(m, e)
    # d(cos f)/dM = -sin f df/dM, df/dM = (1 + e cos f)^2 / (1 - e^2)^(3/2).
    sin_f, cos_f = mpmath_reference.true_anomaly(_exact(m), _exact(e))
    e64 = _exact(e)
    want_dm = -sin_f * (1 + e64 * cos_f) ** 2 / (1 - e64 * e64) ** 1.5
    for g in grads:
      self.assertEqual(g.shape, (50,))
      self.assertEqual(g.dtype, FLOAT)
      self.assertTrue(np.all(np.isfinite(g)))
    rtol = {"float64": 1e-10, "float32": 2e-5}[FLOAT.name]
    np.testing.assert_allclose(grads[0], want_dm, rtol=0,
                               atol=rtol * np.abs(want_dm).max())


class NearParabolicDerivativeTest(parameterized.TestCase):
  """Derivatives at e -> 1 against mpmath's, where the JVPs could cancel.

  The JVPs divide by 1 - e^2, 1 - e cos E and 1 + e cos f. Formed naively
  (1 - e*e, ...) these lose ~eps / (1 - e) relative: 5e-10 in float64 at
  e = 1 - 1e-9. The reference is mpmath_reference's numerical derivatives
  (mpmath.diff of the 50-digit solution), not the JVP formulas.
  """

  # e near 1 in the widest float of the mode, and the bound on each
  # derivative's error relative to |d(sin, cos)/dM| or |d(sin, cos)/de|
  # (the rate of the angle, which does not vanish where sin or cos does).
  E_NEAR_ONE = {"float64": 1 - 1e-9, "float32": 1 - 2.0**-16}
  BOUND = {"float64": 1e-12, "float32": 4e-6}
  # From periapsis, through f ~ +-90 degrees (M ~ 6e-14 in float64), to
  # apoapsis; M ~ 1e-14 to 1e-10 is where e cos E ~ 1, M >~ 1e-3 where
  # e cos f ~ -1.
  M_VALUES = {
      "float64": [1e-14, 6e-14, 1e-13, 1e-12, 1e-10, 1e-6, 1e-3, 0.1, 0.5, 1.0,
                  2.0, 3.0, np.pi - 1e-3, -0.7, -1e-12],
      "float32": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 3.0, -0.7,
                  -1e-4],
  }

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op, derivatives=derivatives)
      for op, derivatives in [
          ("solve", mpmath_reference.eccentric_anomaly_derivatives),
          ("true_anomaly", mpmath_reference.true_anomaly_derivatives)])
  def test_jvp_and_vjp_against_mpmath(self, op, derivatives):
    fn = OPS[op][0]
    m = np.array(self.M_VALUES[FLOAT.name], FLOAT)
    e = np.full(m.shape, self.E_NEAR_ONE[FLOAT.name], FLOAT)
    self.assertLess(float(e[0]), 1.0)
    want = derivatives(m.astype(np.float64), e.astype(np.float64))
    ones, zeros = np.ones_like(m), np.zeros_like(m)
    # Forward mode: tangent (1, 0) gives d/dM, (0, 1) gives d/de.
    d_dm = jax.jvp(fn, (m, e), (ones, zeros))[1]
    d_de = jax.jvp(fn, (m, e), (zeros, ones))[1]
    # Reverse mode: cotangent (1, 0) gives d(sin)/d(M, e), (0, 1) d(cos).
    _, vjp = jax.vjp(fn, m, e)
    d_sin, d_cos = vjp((ones, zeros)), vjp((zeros, ones))
    scale_m = np.hypot(want[0], want[1])
    scale_e = np.hypot(want[2], want[3])
    for mode, got in [("jvp", (d_dm[0], d_dm[1], d_de[0], d_de[1])),
                      ("vjp", (d_sin[0], d_cos[0], d_sin[1], d_cos[1]))]:
      for name, g, w, scale in zip(("dsin/dM", "dcos/dM", "dsin/de", "dcos/de"),
                                   got, want, (scale_m, scale_m, scale_e, scale_e)):
        self.assertEqual(g.dtype, FLOAT)
        err = np.abs(np.asarray(g, np.float64) - w) / scale
        worst = int(np.argmax(err))
        self.assertLessEqual(
            err[worst], self.BOUND[FLOAT.name],
            f"{op} {mode} {name} ({FLOAT.name}): relative error {err[worst]:.3g} at "
            f"M={m[worst]!r}, e={e[worst]!r} (got {float(g[worst])!r}, mpmath "
            f"{w[worst]!r})")


class FusedJvpTest(parameterized.TestCase):
  """The handler's JVP form (kepler/_ffi/jvp.py) under every transformation.

  Forward mode runs one handler call that returns values and tangents;
  reverse mode, checkpointing, control flow and higher orders split it into
  the plain call and jnp tangent arithmetic. Each path is checked against
  mpmath's derivatives (random points over the whole valid region) or
  against another path, and the fused call's values against the plain call.
  """

  def _points(self, n=40, seed=3):
    rng = np.random.default_rng(seed)
    m = rng.uniform(-20, 20, n).astype(FLOAT)
    # e over [0, 1): uniform, and 1 - 10^-k near 1 (k up to 5 in float64).
    k = 5 if x64_mode.X64 else 3
    e = np.where(np.arange(n) % 2 == 0, rng.uniform(0, 1, n),
                 1 - 10.0 ** -rng.uniform(1, k, n)).astype(FLOAT)
    dm = rng.normal(size=n).astype(FLOAT)
    de = rng.normal(size=n).astype(FLOAT)
    return m, e, dm, de

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op, derivatives=derivatives)
      for op, derivatives in [
          ("solve", mpmath_reference.eccentric_anomaly_derivatives),
          ("true_anomaly", mpmath_reference.true_anomaly_derivatives)])
  def test_forward_and_reverse_against_mpmath(self, op, derivatives):
    fn = OPS[op][0]
    m, e, dm, de = self._points()
    d_sin_dm, d_cos_dm, d_sin_de, d_cos_de = derivatives(_exact(m), _exact(e))
    want = (d_sin_dm * dm + d_sin_de * de, d_cos_dm * dm + d_cos_de * de)
    scale = np.hypot(np.hypot(d_sin_dm, d_cos_dm) * dm, np.hypot(d_sin_de, d_cos_de) * de) + 1
    bound = {"float64": 2e-13, "float32": 2e-5}[FLOAT.name]
    values, fused = jax.jit(lambda *a: jax.jvp(fn, a[:2], a[2:]))(m, e, dm, de)
    plain = fn(m, e)
    for k in range(2):
      np.testing.assert_array_equal(values[k], plain[k])  # the same kernel, bitwise
    _, vjp = jax.vjp(fn, m, e)
    rev = [vjp((dm * 0 + (k == 0), dm * 0 + (k == 1))) for k in range(2)]
    reverse = [rev[k][0] * dm + rev[k][1] * de for k in range(2)]
    for mode, got in (("jvp", fused), ("vjp", reverse)):
      for k in range(2):
        err = np.abs(np.asarray(got[k], np.float64) - want[k]) / scale
        worst = int(np.argmax(err))
        self.assertLessEqual(err[worst], bound,
                             f"{op} {mode} output {k}: {err[worst]:.3g} at M={m[worst]!r}, "
                             f"e={e[worst]!r}")

  def test_forward_mode_is_one_handler_call(self):
    m, e, dm, de = self._points(8)
    for fn in (kepler.solve, kepler.true_anomaly):
      # Lowered for the CPU, whatever the default backend (a GPU: the plain call).
      traced = jax.jit(lambda *a, fn=fn: jax.jvp(fn, a[:2], a[2:])).trace(m, e, dm, de)
      hlo = traced.lower(lowering_platforms=("cpu",)).as_text()
      calls = [line for line in hlo.splitlines() if f"custom_call @{_TARGET}(" in line]
      self.assertLen(calls, 1, hlo)
      # Four operands: the values' and the tangents'.
      self.assertRegex(calls[0], rf"@{_TARGET}\((%[\w#]+, ){{3}}%[\w#]+\)")

  def test_gpu_lowering_keeps_the_plain_call(self):
    # The JVP form is the CPU handler's: lowered for CUDA (no GPU needed),
    # the JVP is the two-operand call plus XLA arithmetic.
    m, e, dm, de = self._points(8)
    for fn in (kepler.solve, kepler.true_anomaly):
      traced = jax.jit(lambda *a, fn=fn: jax.jvp(fn, a[:2], a[2:])).trace(m, e, dm, de)
      calls = [line for line in traced.lower(lowering_platforms=("cuda",)).as_text().splitlines()
               if f"custom_call @{_TARGET}(" in line]
      self.assertLen(calls, 1)
      self.assertRegex(calls[0], rf"@{_TARGET}\(%[\w#]+, %[\w#]+\)")

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op) for op in OPS)
  def test_every_path_agrees(self, op):
    fn = OPS[op][0]
    m, e, dm, de = self._points(12)
    m, e, dm, de = (jnp.asarray(a) for a in (m, e, dm, de))
    _, (ds, dc) = jax.jvp(fn, (m, e), (dm, de))
    rtol = {"float64": 1e-13, "float32": 1e-5}[FLOAT.name]

    def check(name, got, want):
      np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * float(jnp.max(jnp.abs(want))),
                                 err_msg=name)

    # d/dM of sum(sin * w), by each path, against the fused JVP.
    w = jnp.linspace(0.5, 1.5, m.shape[0], dtype=FLOAT)
    loss = lambda a, b: jnp.sum(fn(a, b)[0] * w)
    _, d_sin_dm = jax.jvp(lambda a: fn(a, e)[0], (m,), (jnp.ones_like(m),))
    want = d_sin_dm * w
    check("grad", jax.grad(loss)(m, e), want)
    check("jit(grad)", jax.jit(jax.grad(loss))(m, e), want)
    for policy in (None, jax.checkpoint_policies.nothing_saveable,
                   jax.checkpoint_policies.everything_saveable):
      check(f"checkpoint {policy}", jax.grad(jax.checkpoint(loss, policy=policy))(m, e), want)
    scanned = lambda a: jax.lax.scan(lambda c, x: (c + fn(x[0], x[1])[0] * x[2], None), 0.0,
                                     (a, e, w))[0]
    check("scan", jax.grad(scanned)(m), want)
    check("linearize", jax.linearize(lambda a: fn(a, e)[0], m)[1](jnp.ones_like(m)), d_sin_dm)
    check("jacfwd", jnp.diag(jax.jacfwd(lambda a: fn(a, e)[0])(m)), d_sin_dm)
    check("jacrev", jnp.diag(jax.jacrev(lambda a: fn(a, e)[0])(m)), d_sin_dm)
    # vmap of the JVP call: values and tangents batched, and tangents only.
    both = jax.vmap(lambda a, b, da, db: jax.jvp(fn, (a, b), (da, db))[1])(
        jnp.stack([m, m]), jnp.stack([e, e]), jnp.stack([dm, dm]), jnp.stack([de, de]))
    check("vmap", both[0][1], ds)
    only = jax.vmap(lambda da, db: jax.jvp(fn, (m, e), (da, db))[1], in_axes=(0, None))(
        jnp.stack([dm, 2 * dm]), de)
    check("vmap of tangents", only[0][0], ds)
    check("vmap of tangents, second", only[0][1], ds + jax.jvp(fn, (m, e), (dm, 0 * de))[1][0])
    # Second order: forward over forward, forward over reverse, reverse
    # over reverse agree; and equal central differences of the JVP.
    hess_ff = jax.jvp(lambda a: jax.jvp(lambda b: fn(b, e)[0], (a,), (dm,))[1], (m,), (dm,))[1]
    hess_fr = jax.jvp(lambda a: jax.grad(lambda b: jnp.sum(fn(b, e)[0]))(a), (m,), (dm,))[1] * dm
    hess_rr = jax.grad(lambda a: jnp.sum(jax.grad(lambda b: jnp.sum(fn(b, e)[0]))(a) * dm))(m) * dm
    check("forward over reverse", hess_fr, hess_ff)
    check("reverse over reverse", hess_rr, hess_ff)
    h = {"float64": 1e-5, "float32": 1e-2}[FLOAT.name]
    diff = (jax.jvp(lambda b: fn(b, e)[0], (m + h * dm,), (dm,))[1]
            - jax.jvp(lambda b: fn(b, e)[0], (m - h * dm,), (dm,))[1]) / (2 * h)
    fd_tol = {"float64": 1e-6, "float32": 5e-2}[FLOAT.name]
    np.testing.assert_allclose(hess_ff, diff, rtol=0,
                               atol=fd_tol * (1 + float(jnp.max(jnp.abs(hess_ff)))))

  def test_invalid_elements_have_nan_tangents(self):
    m = np.array([0.5, 0.5, 0.5, np.nan, np.inf, 0.5], FLOAT)
    e = np.array([0.3, 1.0, -0.1, 0.3, 0.3, np.nan], FLOAT)
    for fn in (kepler.solve, kepler.true_anomaly):
      for call in (jax.jvp, jax.jit(jax.jvp, static_argnums=0)):
        (s, c), (ds, dc) = call(fn, (m, e), (np.ones_like(m), np.ones_like(e)))
        for x in (s, c, ds, dc):
          np.testing.assert_array_equal(np.isnan(x), [False, True, True, True, True, True])


class TransformTest(parameterized.TestCase):
  """jit and vmap give the same results as the plain call."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{name}", op=op, in_axes=in_axes)
      for op in OPS for name, in_axes in vmap_cases.IN_AXES)
  def test_vmap(self, op, in_axes):
    fn = OPS[op][0]
    m, e, m_arg, e_arg = vmap_cases.rows_and_args(in_axes)
    got = jax.vmap(fn, in_axes=in_axes)(m_arg, e_arg)
    # Reference: one plain call per element of the mapped axis.
    rows = [fn(vmap_cases.row(m, in_axes[0], i), vmap_cases.row(e, in_axes[1], i))
            for i in range(vmap_cases.MAPPED)]
    for k in range(2):
      self.assertEqual(got[k].dtype, FLOAT)
      np.testing.assert_allclose(got[k], np.stack([r[k] for r in rows]), rtol=0, atol=1e-15)

  def test_vmap_of_grad(self):
    m = np.linspace(-3, 3, 7)
    e = np.linspace(0, 0.8, 7)
    got = jax.vmap(jax.grad(lambda a, b: kepler.solve(a, b)[0], argnums=(0, 1)))(m, e)
    self.assertEqual(got[0].dtype, FLOAT)
    rtol = {"float64": 1e-14, "float32": 1e-6}[FLOAT.name]
    for i in range(7):
      want = jax.grad(lambda a, b: kepler.solve(a, b)[0], argnums=(0, 1))(m[i], e[i])
      np.testing.assert_allclose([got[0][i], got[1][i]], want, rtol=rtol)

  @parameterized.named_parameters(_named(DTYPES))
  def test_jit(self, op, dtype):
    fn = OPS[op][0]
    m, e = _random_inputs(100, dtype)
    for g, w in zip(jax.jit(fn)(m, e), fn(m, e)):
      self.assertEqual(g.dtype, x64_mode.canonical(dtype))
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
    mb, eb = np.broadcast_to(_exact(m), shape), np.broadcast_to(_exact(e), shape)
    want = OPS[op][1](mb, eb)
    for g, w in zip(got, want):
      self.assertEqual(g.shape, shape)
      self.assertEqual(g.dtype, FLOAT)
      np.testing.assert_allclose(g, w, rtol=0, atol=_tol(np.float64))

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
    # `expected` is the x64 answer; without x64 JAX demotes it (float64 ->
    # float32; int64 inputs are int32 already).
    expected = x64_mode.canonical(expected)
    self.assertEqual(s.dtype, expected)
    self.assertEqual(c.dtype, expected)
    np.testing.assert_allclose(np.asarray(s, np.float64), np.sin([1.0, 2.0]),
                               rtol=2e-3 if np.dtype(expected).itemsize == 2 else 1e-6)

  def test_python_scalars(self):
    # Python floats are weakly typed: float64 with x64, float32 without.
    s, c = kepler.solve(1.0, 0.5)
    self.assertEqual(s.shape, ())
    self.assertEqual(s.dtype, FLOAT)
    want = mpmath_reference.eccentric_anomaly(np.array(1.0), np.array(0.5))
    delta = {"float64": 5e-14, "float32": 1e-6}[FLOAT.name]
    self.assertAlmostEqual(float(s), float(want[0]), delta=delta)
    self.assertAlmostEqual(float(c), float(want[1]), delta=delta)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op) for op in OPS)
  def test_array_likes(self, op):
    # Lists and tuples (of numbers, numpy scalars, arrays or tracers) give what
    # the same values as an array give, eagerly, under jit and under grad.
    fn = OPS[op][0]
    m, e = _random_inputs(5, np.float64, seed=4)
    want = fn(jnp.asarray(m), jnp.asarray(e))
    for m_like, e_like in ((list(m), tuple(e)), (tuple(m), list(map(np.float64, e))),
                           (m, [float(x) for x in e])):
      for got in (fn(m_like, e_like), jax.jit(fn)(m_like, e_like)):
        for g, w in zip(got, want):
          np.testing.assert_array_equal(g, w)
    # A tuple of tracers, as a model inside jit writes it.
    grad = jax.grad(lambda m0, m1: jnp.sum(fn((m0, m1), e[:2])[0]), argnums=(0, 1))(m[0], m[1])
    want_grad = jax.grad(lambda mm: jnp.sum(fn(mm, jnp.asarray(e[:2]))[0]))(jnp.asarray(m[:2]))
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


class BadInputTest(parameterized.TestCase):
  """Errors are part of the API: each case here is documented in docs/api.md."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{which}_{np.dtype(dt).name}", op=op, which=which, dtype=dt)
      for op in OPS for which in ("mean_anomaly", "eccentricity")
      for dt in (np.complex64, np.complex128, np.bool_))
  def test_non_real_dtype_is_type_error(self, op, which, dtype):
    good = np.array([0.5, 1.0])
    bad = np.ones(2, dtype)
    args = (bad, good) if which == "mean_anomaly" else (good, bad)
    fn = OPS[op][0]
    # The error names the dtype JAX sees: complex128 is complex64 without x64.
    name = x64_mode.canonical(dtype).name
    for call in (fn, jax.jit(fn)):
      with self.assertRaisesRegex(TypeError, f"{which} has dtype {name};"):
        call(*args)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op) for op in OPS)
  def test_shapes_that_do_not_broadcast(self, op):
    with self.assertRaisesRegex(ValueError, r"\(3,\).*\(4,\).*do not broadcast"):
      OPS[op][0](np.zeros(3), np.zeros(4))
    with self.assertRaisesRegex(ValueError, r"\(2, 3\).*\(2,\)"):
      jax.jit(OPS[op][0])(np.zeros((2, 3)), np.zeros(2))

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}", op=op) for op in OPS)
  def test_not_an_array_is_type_error(self, op):
    fn = OPS[op][0]
    with self.assertRaisesRegex(TypeError, "mean_anomaly is not an array of numbers"):
      fn([1.0, [2.0, 3.0]], 0.5)
    with self.assertRaisesRegex(TypeError, "eccentricity has type str"):
      fn(1.0, "0.5")
    with self.assertRaisesRegex(TypeError, "eccentricity has type dict"):
      fn(1.0, {"e": 0.5})

  @parameterized.named_parameters(_named(DTYPES))
  def test_invalid_elements_are_nan_and_only_those(self, op, dtype):
    fn, reference = OPS[op]
    m = np.array([0.5, np.nan, np.inf, -np.inf, 0.5, 0.5, 0.5, 0.5, 0.5, 2.0], dtype)
    e = np.array([0.3, 0.3, 0.3, 0.3, -0.1, 1.0, 1.5, np.nan, np.inf, 0.3], dtype)
    invalid = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 0], bool)
    got = fn(m, e)
    want = reference(_exact(np.where(invalid, 0.0, m).astype(dtype)),
                     _exact(np.where(invalid, 0.0, e).astype(dtype)))
    for g, w in zip(got, want):
      self.assertEqual(g.dtype, x64_mode.canonical(dtype))
      g = np.asarray(g, np.float64)
      np.testing.assert_array_equal(np.isnan(g), invalid)
      np.testing.assert_allclose(g[~invalid], w[~invalid], atol=_tol(dtype), rtol=0)

  def test_handler_rejects_mismatched_buffers(self):
    # Only reachable by calling the FFI target directly: the C++ handler
    # itself must answer with an error naming the shapes, not crash.
    out = jax.ShapeDtypeStruct((3,), FLOAT)
    call = jax.ffi.ffi_call(_TARGET, (out, out))
    with self.assertRaisesRegex(Exception, r"mean_anomaly has shape \(3,\) but eccentricity has shape \(4,\)"):
      jax.block_until_ready(call(np.zeros(3, FLOAT), np.zeros(4, FLOAT), true_anomaly=False))

  def test_handler_rejects_unsupported_dtypes(self):
    out = jax.ShapeDtypeStruct((2,), np.int32)
    call = jax.ffi.ffi_call(_TARGET, (out, out))
    with self.assertRaisesRegex(Exception, "unsupported dtype.*float32 and float64"):
      jax.block_until_ready(call(np.zeros(2, np.int32), np.zeros(2, np.int32),
                                 true_anomaly=False))

  def test_invalid_elements_have_nan_gradients(self):
    for fn in (kepler.solve, kepler.true_anomaly):
      for e in (1.2, -0.1, 1.0, np.nan):
        g = jax.grad(lambda x, fn=fn: fn(0.5, x)[0])(e)
        self.assertEqual(g.dtype, FLOAT)
        self.assertTrue(np.isnan(g), f"{fn.__name__} at e={e}: {g}")


class CpuIsaChoiceTest(absltest.TestCase):
  """KEPLER_CPU_ISA, read once per process: checked in fresh interpreters."""

  def _run(self, isa):
    code = ("import jax, kepler\n"
            "from kepler._lib import _kepler_cpu\n"
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

  def test_every_supported_variant_can_be_forced(self):
    # The architecture's variants (x86-64: baseline, avx2, avx512; aarch64:
    # neon, sve); the first runs on every CPU of the architecture.
    want = mpmath_reference.eccentric_anomaly(np.array(1.0), np.array(0.5))[0]
    supported = _kepler_cpu.supported_cpu_isas()
    self.assertEqual(supported[0], _kepler_cpu.cpu_isas()[0])
    for isa in supported:
      result = self._run(isa)
      self.assertEqual(result.returncode, 0, result.stderr)
      listed, active, value = result.stdout.split("\n")[:3]
      self.assertIn(isa, listed)
      self.assertEqual(active, isa)
      self.assertAlmostEqual(float(value), float(want), places=6, msg=isa)

  def test_a_variant_the_cpu_lacks_falls_back_with_a_warning(self):
    lacking = [isa for isa in _kepler_cpu.cpu_isas() if isa not in _kepler_cpu.supported_cpu_isas()]
    for isa in lacking:  # none on a CPU that has every variant
      result = self._run(isa)
      self.assertEqual(result.returncode, 0, result.stderr)
      self.assertIn(f"KEPLER_CPU_ISA={isa} but this CPU lacks", result.stderr)
      self.assertEqual(result.stdout.split("\n")[1], _kepler_cpu.supported_cpu_isas()[-1])


if __name__ == "__main__":
  absltest.main()
