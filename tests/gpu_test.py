"""GPU tests of kepler.solve and kepler.true_anomaly: the CUDA path, run on a GPU.

Run with a GPU visible to JAX (tools/gpu_check.py does it with
JAX_PLATFORMS=cuda and the installed wheels). The file FAILS (setUpModule
raises) when JAX sees no GPU: it never skips its way to a pass.

What it checks, on the GPU, against independent references:
  * kepler runs with its own CUDA plugin (kepler_jax_cuda_plugin, of kepler's
    version; with tools/gpu_check.py, both from the folder it installed the
    wheels in, $KEPLER_SITE); without the plugin, GPU arrays give kepler's
    error naming the plugin to install, and CPU arrays still work;
  * the work runs there: the outputs live on the GPU, and the compiled HLO
    calls the op's custom-call target (kepler_jax_kepler_solve) (no host callback);
  * values against mpmath (tests/mpmath_reference.py), float32 and float64:
    forward error <= 2e-6 / 1e-12 (e <= 0.999, |M| up to 1e12 in float64 and
    3.3e7 in float32), backward error <= 4e-7 / 2e-15 on the domain of
    docs/accuracy_and_speed.md for e near 1, and no worse than 1.5x the
    CPU's beyond it;
  * against the CPU backend's result: |GPU - CPU| <= 8 eps (1 + cond), cond
    the sensitivity of the angle to M (1 / (1 - e cos E) for E), and the same
    NaN pattern;
  * jit, second-order grad and vmap on the GPU; a jitted run with CUDA graphs
    (XLA command buffers) enabled, in a subprocess, against the CPU and
    against the same run without graphs;
  * bad input: e < 0, e >= 1, NaN/inf M or e give NaN outputs, as on the CPU;
    empty and 0-d arrays; the handler's own errors; sizes at both kernels'
    block, tile and group edges and past 2**31 elements.

The CPU backend is needed as a reference, so a JAX_PLATFORMS without "cpu"
(e.g. JAX_PLATFORMS=cuda) gets ",cpu" appended here, before JAX starts; the
default device stays the GPU.

Knobs (environment):
  KEPLER_GPU_TEST_SANITIZER=1  for the run under compute-sanitizer: skips
      the two tests that do not fit it (CUDA graphs in subprocesses, the 2**31
      element input), reported as skipped with the reason. tools/gpu_check.py
      also names the classes to run there: SANITIZER_CLASSES below.
  KEPLER_SITE  set by tools/gpu_check.py: the folder kepler and its plugin
      must be imported from.
  KEPLER_GPU_TEST_ON_CPU=1  SMOKE TEST ONLY, NOT A GPU CHECK: runs the same
      logic with the CPU standing in for the GPU, to check the file itself on
      a machine without one.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ON_CPU = os.environ.get("KEPLER_GPU_TEST_ON_CPU", "") == "1"
SANITIZER = os.environ.get("KEPLER_GPU_TEST_SANITIZER", "") == "1"


def _platforms():
  if ON_CPU:
    return "cpu"
  wanted = [p for p in os.environ.get("JAX_PLATFORMS", "").split(",") if p] or ["cuda"]
  if "cpu" not in wanted:
    wanted.append("cpu")
  return ",".join(wanted)


os.environ["JAX_PLATFORMS"] = _platforms()
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from absl.testing import absltest  # pylint: disable=g-import-not-at-top
from absl.testing import parameterized  # pylint: disable=g-import-not-at-top
import jax  # pylint: disable=g-import-not-at-top

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
from jax import test_util as jtu  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top

import kepler  # pylint: disable=g-import-not-at-top
from kepler import _ffi  # pylint: disable=g-import-not-at-top
from kepler import _version  # pylint: disable=g-import-not-at-top
from tests import mpmath_reference  # pylint: disable=g-import-not-at-top
from tests import vmap_cases  # pylint: disable=g-import-not-at-top

OPS = {
    "solve": (kepler.solve, mpmath_reference.eccentric_anomaly,
              mpmath_reference.backward_error),
    "true_anomaly": (kepler.true_anomaly, mpmath_reference.true_anomaly,
                     mpmath_reference.true_backward_error),
}
DTYPES = [("float32", np.float32), ("float64", np.float64)]
# Forward error against mpmath, e <= 0.999 (the bound of tests/kepler_test.py).
FORWARD = {np.float32: 2e-6, np.float64: 1e-12}
# Backward error |E' - e sin E' - M| against mpmath on the domain of
# docs/accuracy_and_speed.md:
# (bound, max |M|, max e), as tests/accuracy_test.py.
BACKWARD = {np.float64: (2e-15, 1e3, 1 - 1e-6), np.float32: (4e-7, 1e2, 0.95)}
# Beyond that domain: no worse than this factor times the CPU's backward error.
BACKWARD_VS_CPU = 1.5
# |GPU - CPU| <= AGREE_ULPS * eps * (1 + cond): the CPU itself is within
# 1.1 eps (1 + cond) of mpmath on these inputs (measured, AVX-512 CPU).
AGREE_ULPS = 8
NORM_ULPS = 4
CALLBACK_TARGET = re.compile(r'custom_call_target="[^"]*(callback|host)[^"]*"', re.I)
SOLVE_TARGET = _ffi.target("kepler_solve")  # the FFI target name (jaxlib_ext/ops.bzl)
KEPLER_TARGET = f'custom_call_target="{SOLVE_TARGET}"'

# The classes tools/gpu_check.py runs under compute-sanitizer (memcheck and
# racecheck): every shape, size and bad input the kernels are launched with,
# the light curve's laws and gradients and the transit model; not the numerical-gradient and
# transform tests, whose many small launches memcheck makes slow.
SANITIZER_CLASSES = ("PlacementTest", "AgreementTest", "BadInputTest", "SizeTest", "LimbDarkTest",
                     "TransitTest")

DEVICE = None  # the GPU (the CPU in the smoke test), set by setUpModule
CPU = None


def setUpModule():
  global DEVICE, CPU
  try:
    devices = jax.devices()
  except RuntimeError as err:
    raise AssertionError(
        f"JAX could not start its backends (JAX_PLATFORMS={os.environ['JAX_PLATFORMS']}): "
        f"{err}. This file checks the GPU and needs one.") from err
  if ON_CPU:
    print("\n*** KEPLER_GPU_TEST_ON_CPU=1: SMOKE TEST on the CPU, NOT A GPU CHECK ***\n",
          file=sys.stderr)
    DEVICE = jax.devices("cpu")[0]
  else:
    gpus = [d for d in devices if d.platform == "gpu"]
    if not gpus or devices[0].platform != "gpu":
      raise AssertionError(
          f"no GPU is JAX's default device (devices: {devices}): this file checks the "
          "GPU and fails without one (KEPLER_GPU_TEST_ON_CPU=1 is a CPU smoke test only)")
    DEVICE = gpus[0]
    if kepler.cuda_version is None:
      raise AssertionError("kepler.cuda_version is None: no CUDA plugin is loaded")
    if kepler.cuda_status() is not None:
      raise AssertionError(f"a GPU is there but kepler.cuda_status() says: {kepler.cuda_status()}")
  CPU = jax.devices("cpu")[0]
  print(f"gpu_test: device {DEVICE} ({getattr(DEVICE, 'device_kind', '')}), "
        f"kepler {kepler.__version__} from {os.path.dirname(kepler.__file__)}, "
        f"cuda_version {kepler.cuda_version}, jax {jax.__version__}, "
        f"sanitizer subset: {SANITIZER}", file=sys.stderr)


def _named(ops=tuple(OPS), dtypes=DTYPES):
  return [dict(testcase_name=f"_{op}_{dname}", op=op, dtype=dtype)
          for op in ops for dname, dtype in dtypes]


def _put(x, device):
  return jax.device_put(np.asarray(x), device)


def _run(fn, device, *args, jit=False):
  """fn on `device`; returns (outputs as float64 numpy, the devices they live on)."""
  f = jax.jit(fn) if jit else fn
  outs = f(*(_put(a, device) for a in args))
  where = {d for o in outs for d in o.devices()}
  return [np.asarray(o).astype(np.float64) for o in outs], where


def _child_env():
  """The environment of a Python subprocess: these JAX platforms and this sys.path."""
  return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p and os.path.isdir(p)))


def _condition(op, m, e, cos_ref):
  """|d angle / dM| from the reference: how much an input rounding is amplified."""
  del m
  with np.errstate(invalid="ignore", divide="ignore"):
    if op == "solve":
      return 1 / (1 - e * cos_ref)
    return (1 + e * cos_ref) ** 2 / (1 - e * e) ** 1.5


# ---------------------------------------------------------------------------
# Inputs: the adversarial points of the CPU tests.


def _forward_set(dtype):
  """Random draws, a grid with awkward M (0, subnormal, +-pi, 2 pi k, huge)."""
  rng = np.random.default_rng(20261123)
  fi = np.finfo(dtype)
  pi = np.pi
  rand_m = rng.uniform(-100, 100, 1200)
  rand_e = rng.uniform(0, 0.999, 1200)
  k = np.array([1, 2, 7, 50])
  special_m = np.concatenate([
      [0.0, -0.0, float(fi.smallest_subnormal), float(fi.tiny), 1e-30, 1e-8, 1e-3, pi, -pi,
       float(np.nextafter(dtype(pi), dtype(0))), pi - 1e-6, pi + 1e-6, 3 * pi],
      2 * pi * k, -2 * pi * k])
  if dtype == np.float64:
    huge = np.array([1e3, 12345.678, 1e6, 3.3e7, 1e9, 123456789012.5, 1e12, 2.0**45 + 0.5])
  else:
    huge = np.array([1e3, 12345.678, 1e5, 1e6, 1e7, 3.3e7])
  grid_m = np.concatenate([np.linspace(-10, 10, 21), special_m, huge, -huge])
  grid_e = np.array([0.0, 1e-10, 0.1, 0.5, 0.9, 0.99, 0.999])
  gm, ge = (a.ravel() for a in np.meshgrid(grid_m, grid_e))
  m = np.concatenate([rand_m, gm]).astype(dtype)
  e = np.minimum(np.concatenate([rand_e, ge]).astype(dtype), dtype(0.999))
  return m, e


def _near_one_set(dtype):
  """e close to 1 (inside the backward-error domain and beyond), small M."""
  _, _, e_max = BACKWARD[dtype]
  one_below = float(np.nextafter(dtype(1), dtype(0)))
  if dtype == np.float64:
    e_values = [0.999, 1 - 1e-4, 1 - 1e-5, 1 - 1e-6, 1 - 1e-7, one_below]
  else:
    e_values = [0.9, 0.95, 0.999, 1 - 1e-4, 1 - 1e-5, 1 - 1e-6, one_below]
  pi = np.pi
  small = 10.0 ** np.linspace(-12, 0.5, 40)
  m_values = np.concatenate([
      np.linspace(-3.2, 3.2, 41), small, -small, [0.0, pi, -pi, 2 * pi, 14 * pi, 999.0]])
  m, e = (a.ravel() for a in np.meshgrid(m_values, e_values))
  return m.astype(dtype), e.astype(dtype)


def _invalid_set(dtype):
  """(M, e, invalid mask): each invalid kind, next to valid neighbours."""
  nan, inf = np.nan, np.inf
  one_below = float(np.nextafter(dtype(1), dtype(0)))
  one_above = float(np.nextafter(dtype(1), dtype(2)))
  big = float(np.finfo(dtype).max) / 2
  rows = [  # (M, e, invalid)
      (0.5, 0.3, False), (nan, 0.3, True), (inf, 0.3, True), (-inf, 0.3, True),
      (0.5, -0.1, True), (0.5, -0.0, False), (0.5, 1.0, True), (0.5, one_above, True), (0.5, 1.5, True),
      (0.5, nan, True), (0.5, inf, True), (0.5, -inf, True), (nan, nan, True),
      (2.0, one_below, False), (-3.0, 0.0, False), (nan, -1.0, True), (inf, 2.0, True),
      (big, 0.5, False), (-big, 0.3, False), (2.0, 0.3, False),
  ]
  m = np.array([r[0] for r in rows], dtype)
  e = np.array([r[1] for r in rows], dtype)
  invalid = np.array([r[2] for r in rows])
  return m, e, invalid


_REFERENCE = {}


def _reference(op, which, dtype):
  """mpmath's (sin, cos) for an input set, computed once per process."""
  key = (op, which, np.dtype(dtype).name)
  if key not in _REFERENCE:
    m, e = {"forward": _forward_set, "near_one": _near_one_set}[which](dtype)
    _REFERENCE[key] = OPS[op][1](m.astype(np.float64), e.astype(np.float64))
  return _REFERENCE[key]


def _worst(err, bound, m, e):
  ratio = err / bound
  i = int(np.nanargmax(ratio))
  return ratio[i], f"{err[i]:.3g} > {np.broadcast_to(bound, err.shape)[i]:.3g} at M={m[i]!r}, e={e[i]!r}"


class PlacementTest(parameterized.TestCase):
  """The work runs on the GPU: the outputs live there, and the op is the custom call."""

  def _check_on_device(self, outs, what):
    for out in outs:
      self.assertEqual(out.devices(), {DEVICE}, f"{what}: output on {out.devices()}")
      kind = getattr(out.sharding, "memory_kind", None)
      self.assertNotIn("host", str(kind or ""), f"{what}: output in memory kind {kind}")

  @parameterized.named_parameters(_named())
  def test_outputs_live_on_the_gpu(self, op, dtype):
    fn = OPS[op][0]
    m, e = _forward_set(dtype)
    m_dev, e_dev = _put(m, DEVICE), _put(e, DEVICE)
    self._check_on_device(fn(m_dev, e_dev), f"{op} eager")
    self._check_on_device(jax.jit(fn)(m_dev, e_dev), f"{op} jit")
    # NumPy inputs go to the default device, which is the GPU here.
    self._check_on_device(fn(m, e), f"{op} numpy inputs")
    if not ON_CPU:
      self.assertEqual(DEVICE.platform, "gpu")

  @parameterized.named_parameters(_named())
  def test_compiled_hlo_calls_the_custom_call(self, op, dtype):
    fn = OPS[op][0]
    m, e = _forward_set(dtype)
    lowered = jax.jit(fn).lower(_put(m, DEVICE), _put(e, DEVICE))
    compiled = lowered.compile()
    hlo = compiled.as_text()
    self.assertEqual(hlo.count(KEPLER_TARGET), 1, hlo)
    self.assertIsNone(CALLBACK_TARGET.search(hlo), f"a host callback in the HLO:\n{hlo}")
    self.assertIn(f"custom_call @{SOLVE_TARGET}", lowered.as_text())
    outs = compiled(_put(m, DEVICE), _put(e, DEVICE))
    self._check_on_device(outs, f"{op} compiled")

  @parameterized.named_parameters(_named(dtypes=DTYPES[1:]))
  def test_second_order_grad_runs_the_custom_call_on_the_gpu(self, op, dtype):
    fn = OPS[op][0]
    hess = jax.jit(jax.hessian(lambda m, e: jnp.sum(fn(m, e)[0] * fn(m, e)[1] + fn(m, e)[0]),
                               argnums=(0, 1)))
    m, e = (_put(np.array([0.3, 2.5, -1.2], dtype), DEVICE),
            _put(np.array([0.1, 0.7, 0.95], dtype), DEVICE))
    hlo = hess.lower(m, e).compile().as_text()
    self.assertIn(KEPLER_TARGET, hlo)
    self.assertIsNone(CALLBACK_TARGET.search(hlo))
    self._check_on_device(jax.tree.leaves(hess(m, e)), f"{op} hessian")


class AgreementTest(parameterized.TestCase):
  """GPU values against mpmath and against the CPU backend."""

  @parameterized.named_parameters(_named())
  def test_forward_error_against_mpmath_and_the_cpu(self, op, dtype):
    fn = OPS[op][0]
    m, e = _forward_set(dtype)
    want = _reference(op, "forward", dtype)
    gpu, _ = _run(fn, DEVICE, m, e, jit=True)
    cpu, _ = _run(fn, CPU, m, e, jit=True)
    eps = float(np.finfo(dtype).eps)
    cond = _condition(op, m.astype(np.float64), e.astype(np.float64), want[1])
    for k, name in enumerate(("sin", "cos")):
      self.assertFalse(np.any(np.isnan(gpu[k])), f"{op} {name}: NaN for valid input")
      err = np.abs(gpu[k] - want[k])
      ratio, where = _worst(err, FORWARD[dtype], m, e)
      self.assertLessEqual(ratio, 1.0, f"{op} {name} {np.dtype(dtype).name} GPU vs mpmath: {where}")
      diff = np.abs(gpu[k] - cpu[k])
      ratio, where = _worst(diff, AGREE_ULPS * eps * (1 + cond), m, e)
      self.assertLessEqual(ratio, 1.0, f"{op} {name} {np.dtype(dtype).name} GPU vs CPU: {where}")
    norm = np.abs(gpu[0] ** 2 + gpu[1] ** 2 - 1)
    ratio, where = _worst(norm, NORM_ULPS * eps, m, e)
    self.assertLessEqual(ratio, 1.0, f"{op} |sin^2 + cos^2 - 1| on the GPU: {where}")

  @parameterized.named_parameters(_named())
  def test_e_near_one_backward_error_against_mpmath_and_the_cpu(self, op, dtype):
    fn, _, backward = OPS[op]
    m, e = _near_one_set(dtype)
    m64, e64 = m.astype(np.float64), e.astype(np.float64)
    gpu, _ = _run(fn, DEVICE, m, e, jit=True)
    cpu, _ = _run(fn, CPU, m, e, jit=True)
    err_gpu = backward(m64, e64, gpu[0], gpu[1])
    err_cpu = backward(m64, e64, cpu[0], cpu[1])
    self.assertFalse(np.any(np.isnan(err_gpu)), f"{op}: NaN backward error on the GPU")
    bound, m_max, e_max = BACKWARD[dtype]
    in_domain = (np.abs(m64) <= m_max) & (e64 <= e_max)
    self.assertGreater(in_domain.sum(), 100)
    self.assertGreater((~in_domain).sum(), 100)
    limit = np.where(in_domain, bound, np.maximum(bound, BACKWARD_VS_CPU * err_cpu))
    ratio, where = _worst(err_gpu, limit, m, e)
    self.assertLessEqual(ratio, 1.0, f"{op} {np.dtype(dtype).name} backward error on the GPU: {where}")
    # And the values themselves, against the CPU's, scaled by the conditioning.
    want = _reference(op, "near_one", dtype)
    cond = _condition(op, m64, e64, want[1])
    eps = float(np.finfo(dtype).eps)
    for k, name in enumerate(("sin", "cos")):
      ratio, where = _worst(np.abs(gpu[k] - cpu[k]), AGREE_ULPS * eps * (1 + cond), m, e)
      self.assertLessEqual(ratio, 1.0, f"{op} {name} {np.dtype(dtype).name} GPU vs CPU: {where}")

  @parameterized.named_parameters(_named())
  def test_invalid_elements_are_nan_as_on_the_cpu(self, op, dtype):
    fn, reference, _ = OPS[op]
    m, e, invalid = _invalid_set(dtype)
    for jit in (False, True):
      gpu, _ = _run(fn, DEVICE, m, e, jit=jit)
      cpu, _ = _run(fn, CPU, m, e, jit=jit)
      want = reference(np.where(invalid, 0.0, m).astype(np.float64),
                       np.where(invalid, 0.0, e).astype(np.float64))
      for k, name in enumerate(("sin", "cos")):
        np.testing.assert_array_equal(np.isnan(gpu[k]), invalid,
                                      err_msg=f"{op} {name} NaN pattern on the GPU (jit={jit})")
        np.testing.assert_array_equal(np.isnan(cpu[k]), invalid,
                                      err_msg=f"{op} {name} NaN pattern on the CPU (jit={jit})")
        # Valid elements, |M| up to half the dtype's max included: finite,
        # and (where mpmath can say) right.
        self.assertTrue(np.all(np.abs(gpu[k][~invalid]) <= 1), f"{op} {name}: {gpu[k]}")
        moderate = ~invalid & (np.abs(m.astype(np.float64)) < 1e3)
        np.testing.assert_allclose(gpu[k][moderate], want[k][moderate], rtol=0,
                                   atol=FORWARD[dtype], err_msg=f"{op} {name}")

  @parameterized.named_parameters(_named(ops=("solve",)))
  def test_report_negative_subnormal_eccentricity(self, op, dtype):
    # Informational, not asserted: e = -(smallest subnormal) is < 0, so NaN by
    # docs/api.md's rule, but XLA's CPU backend flushes denormal inputs to zero
    # (then e = -0.0, valid), and a GPU build with -ftz would do the same in
    # float32. The log says what each backend gives.
    e = np.array([-np.finfo(dtype).smallest_subnormal], dtype)
    m = np.array([0.5], dtype)
    gpu, _ = _run(OPS[op][0], DEVICE, m, e)
    cpu, _ = _run(OPS[op][0], CPU, m, e)
    print(f"\ngpu_test: {op} {np.dtype(dtype).name} e = {e[0]!r}: GPU gives "
          f"{'NaN' if np.isnan(gpu[0][0]) else gpu[0][0]}, CPU gives "
          f"{'NaN' if np.isnan(cpu[0][0]) else cpu[0][0]}", file=sys.stderr)
    self.assertTrue(np.isnan(gpu[0][0]) or abs(gpu[0][0] - np.sin(0.5)) < 1e-6)


class TransformTest(parameterized.TestCase):
  """jit, grad (to second order) and vmap with the inputs on the GPU."""

  @parameterized.named_parameters(_named())
  def test_jit_equals_eager(self, op, dtype):
    fn = OPS[op][0]
    m, e = _forward_set(dtype)
    eager, _ = _run(fn, DEVICE, m, e)
    jitted, where = _run(fn, DEVICE, m, e, jit=True)
    self.assertEqual(where, {DEVICE})
    for g, w in zip(jitted, eager):
      np.testing.assert_array_equal(g, w)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_M{m}_e{e}", op=op, m=m, e=e)
      for op in OPS for m, e in [(0.3, 0.1), (2.5, 0.7), (-1.2, 0.95)])
  def test_check_grads_second_order(self, op, m, e):
    fn = OPS[op][0]
    m_dev, e_dev = _put(np.float64(m), DEVICE), _put(np.float64(e), DEVICE)
    for k in range(2):
      jtu.check_grads(lambda a, b, k=k: fn(a, b)[k], (m_dev, e_dev), order=2,
                      modes=["fwd", "rev"])

  @parameterized.named_parameters(_named(dtypes=DTYPES[1:]))
  def test_grad_and_hessian_agree_with_the_cpu(self, op, dtype):
    fn = OPS[op][0]
    rng = np.random.default_rng(3)
    m = rng.uniform(-10, 10, 64).astype(dtype)
    e = rng.uniform(0, 0.9, 64).astype(dtype)
    loss = lambda a, b: jnp.sum(fn(a, b)[0] * 0.7 + fn(a, b)[1] ** 2)  # pylint: disable=unnecessary-lambda-assignment
    grad = jax.jit(jax.grad(loss, argnums=(0, 1)))
    hvp = jax.jit(lambda a, b: jax.jvp(jax.grad(loss, argnums=(0, 1)), (a, b),
                                       (jnp.ones_like(a), jnp.ones_like(b)))[1])
    for f in (grad, hvp):
      on_gpu = f(_put(m, DEVICE), _put(e, DEVICE))
      on_cpu = f(_put(m, CPU), _put(e, CPU))
      for g, c in zip(on_gpu, on_cpu):
        self.assertEqual(g.devices(), {DEVICE})
        np.testing.assert_allclose(np.asarray(g), np.asarray(c), rtol=1e-11, atol=1e-11)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{name}", op=op, in_axes=in_axes)
      for op in OPS for name, in_axes in vmap_cases.IN_AXES)
  def test_vmap(self, op, in_axes):
    fn = OPS[op][0]
    m, e, m_arg, e_arg = vmap_cases.rows_and_args(in_axes)
    got = jax.jit(jax.vmap(fn, in_axes=in_axes))(_put(m_arg, DEVICE), _put(e_arg, DEVICE))
    for g in got:
      self.assertEqual(g.devices(), {DEVICE})
    rows = [fn(_put(vmap_cases.row(m, in_axes[0], i), DEVICE),
               _put(vmap_cases.row(e, in_axes[1], i), DEVICE)) for i in range(vmap_cases.MAPPED)]
    want = mpmath_reference.eccentric_anomaly if op == "solve" else mpmath_reference.true_anomaly
    full = want(m if in_axes[0] is not None else np.broadcast_to(m[0], m.shape),
                e if in_axes[1] is not None else np.broadcast_to(e[0], e.shape))
    for k in range(2):
      np.testing.assert_array_equal(np.asarray(got[k]), np.stack([np.asarray(r[k]) for r in rows]))
      np.testing.assert_allclose(np.asarray(got[k]), full[k], rtol=0, atol=1e-12)

  def test_vmap_of_grad(self):
    m = np.linspace(-3, 3, 7)
    e = np.linspace(0, 0.8, 7)
    g = jax.grad(lambda a, b: kepler.solve(a, b)[0], argnums=(0, 1))
    got = jax.jit(jax.vmap(g))(_put(m, DEVICE), _put(e, DEVICE))
    for i in range(7):
      want = g(_put(m[i], CPU), _put(e[i], CPU))
      np.testing.assert_allclose([got[0][i], got[1][i]], want, rtol=1e-13)
    # The closed form: d(sin E)/dM = cos E / (1 - e cos E).
    _, cos_e = mpmath_reference.eccentric_anomaly(m, e)
    np.testing.assert_allclose(np.asarray(got[0]), cos_e / (1 - e * cos_e), rtol=1e-12)


class BadInputTest(parameterized.TestCase):
  """Bad input on the GPU: NaN where the CPU gives NaN, errors, no crash or hang."""

  @parameterized.named_parameters(
      dict(testcase_name=f"_{op}_{dname}_{i}", op=op, dtype=dtype, m_shape=a, e_shape=b)
      for op in OPS for dname, dtype in DTYPES
      for i, (a, b) in enumerate([((), ()), ((0,), ()), ((), (0,)), ((2, 0), (1,)),
                                  ((0,), (0,)), ((3, 1), (4,))]))
  def test_empty_and_0d(self, op, dtype, m_shape, e_shape):
    fn, reference, _ = OPS[op]
    rng = np.random.default_rng(2)
    m = rng.uniform(-4, 4, m_shape).astype(dtype)
    e = rng.uniform(0, 0.9, e_shape).astype(dtype)
    shape = np.broadcast_shapes(m_shape, e_shape)
    want = reference(np.broadcast_to(m, shape).astype(np.float64),
                     np.broadcast_to(e, shape).astype(np.float64))
    for call in (fn, jax.jit(fn)):
      got = call(_put(m, DEVICE), _put(e, DEVICE))
      for g, w in zip(got, want):
        self.assertEqual(g.shape, shape)
        self.assertEqual(g.dtype, np.dtype(dtype))
        self.assertEqual(g.devices(), {DEVICE})
        np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=0, atol=FORWARD[dtype])

  def test_handler_rejects_mismatched_buffers(self):
    out = jax.ShapeDtypeStruct((3,), np.float64)
    call = jax.ffi.ffi_call(SOLVE_TARGET, (out, out))
    with self.assertRaisesRegex(Exception, r"\(3,\).*\(4,\)"):
      jax.block_until_ready(call(_put(np.zeros(3), DEVICE), _put(np.zeros(4), DEVICE),
                                 true_anomaly=False))
    self._still_works()

  def test_handler_rejects_unsupported_dtypes(self):
    out = jax.ShapeDtypeStruct((2,), np.int32)
    call = jax.ffi.ffi_call(SOLVE_TARGET, (out, out))
    with self.assertRaisesRegex(Exception, "unsupported dtype"):
      jax.block_until_ready(call(_put(np.zeros(2, np.int32), DEVICE),
                                 _put(np.zeros(2, np.int32), DEVICE), true_anomaly=False))
    self._still_works()

  def _still_works(self):
    # The GPU context survived: the next call gives the right answer.
    s, c = kepler.solve(_put(np.array([1.0]), DEVICE), _put(np.array([0.5]), DEVICE))
    want = mpmath_reference.eccentric_anomaly(np.array([1.0]), np.array([0.5]))
    np.testing.assert_allclose([float(s[0]), float(c[0])], [want[0][0], want[1][0]], atol=1e-15)

  @parameterized.named_parameters(_named())
  def test_all_invalid_large_input(self, op, dtype):
    # A fixed amount of work per element, also when every element is bad.
    fn = OPS[op][0]
    n = 1 << 20
    m = jnp.full((n,), 0.5, dtype, device=DEVICE)
    for bad_e in (np.nan, 1.0, -0.5, np.inf):
      e = jnp.full((n,), bad_e, dtype, device=DEVICE)
      s, c = jax.jit(fn)(m, e)
      self.assertTrue(bool(jnp.all(jnp.isnan(s))) and bool(jnp.all(jnp.isnan(c))), bad_e)

  def test_invalid_elements_have_nan_gradients(self):
    g = jax.grad(lambda e: kepler.solve(_put(0.5, DEVICE), e)[0])(_put(1.2, DEVICE))
    self.assertTrue(np.isnan(g))


# The kernels' launch shapes (kBlockSize, kPerThread in
# jaxlib_ext/<op>/<op>_kernel.cu): Kepler's
# equation runs tiles of SOLVE_BLOCK threads x SOLVE_PER_THREAD elements, the
# light curve blocks of LIGHT_CURVE_BLOCK threads with one point each, the
# points of a law's group (vmap over u) contiguous; both loop over the grid
# beyond its limit, with 64-bit indices.
SOLVE_BLOCK, SOLVE_PER_THREAD = 256, 4
LIGHT_CURVE_BLOCK = 128


def _edges(unit, multiples=(1, 2, 3)):
  """The sizes next to each multiple of `unit`: k unit - 1, k unit, k unit + 1."""
  return sorted({n for k in multiples for n in (k * unit - 1, k * unit, k * unit + 1)})


class SizeTest(parameterized.TestCase):
  """Sizes at the kernels' block and tile edges, and past 2**31 elements."""

  @parameterized.named_parameters(_named(ops=("solve",)))
  def test_solve_sizes_at_block_and_tile_edges(self, op, dtype):
    fn = OPS[op][0]
    tile = SOLVE_BLOCK * SOLVE_PER_THREAD
    # Every lane of a partial tile (k * SOLVE_BLOCK +- 1 past a tile), whole
    # and partial tiles, and a size that is none of these.
    sizes = [1, 2] + _edges(SOLVE_BLOCK, range(1, SOLVE_PER_THREAD + 1)) + _edges(tile, (2, 3))
    if not SANITIZER:  # memcheck's time: the edges only
      sizes += [3 * tile + 300, 1_000_003]
    for n in sizes:
      i = np.arange(n)
      m = (i % 2039).astype(dtype) * dtype(0.05) - dtype(51)
      e = (i % 97).astype(dtype) * dtype(0.0103)
      s, c = jax.jit(fn)(_put(m, DEVICE), _put(e, DEVICE))
      self.assertEqual(s.shape, (n,))
      self.assertEqual(s.devices(), {DEVICE})
      cpu_s, cpu_c = jax.jit(fn)(_put(m, CPU), _put(e, CPU))
      self._agree(op, dtype, m, e, (s, c), (cpu_s, cpu_c), f"n={n}")

  @parameterized.named_parameters(("_float64", np.float64), ("_float32", np.float32))
  def test_light_curve_sizes_at_block_and_group_edges(self, dtype):
    laws = np.asarray([[0.4, 0.26], [0.1, 0.5], [0.7, -0.1]], dtype)
    value_and_grad = jax.jit(jax.vmap(
        lambda u, b, r: (kepler.limb_dark.light_curve(u, b, r),
                         jax.grad(lambda bb: jnp.sum(kepler.limb_dark.light_curve(u, bb, r)))(b)),
        in_axes=(0, None, None)))
    for n in [1, 2] + _edges(LIGHT_CURVE_BLOCK) + [100_003] * (not SANITIZER):
      i = np.arange(n)
      b = ((i % 1013) * 1.2 / 1013).astype(dtype)
      r = (0.02 + (i % 89) * 0.004).astype(dtype)
      # One call of the kernel with three laws: groups of n points each, so
      # that group boundaries fall inside blocks for every n here.
      got = value_and_grad(*(_put(x, DEVICE) for x in (laws, b, r)))
      want = value_and_grad(*(_put(x, CPU) for x in (laws, b, r)))
      for name, g, w in zip(("F - 1", "dF/db"), got, want):
        self.assertEqual(g.shape, (3, n))
        self.assertEqual(g.devices(), {DEVICE})
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        # LimbDarkTest's bounds: both compute in float64 inside the kernel.
        tol = 1e-12 if dtype == np.float64 else 4 * np.finfo(np.float32).eps
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(w)))),
                                   err_msg=f"{name}, n={n}")

  def _agree(self, op, dtype, m, e, got, want, what):
    m, e = np.asarray(m, np.float64), np.asarray(e, np.float64)
    got = [np.asarray(x, np.float64) for x in got]
    want = [np.asarray(x, np.float64) for x in want]
    cond = _condition(op, m, e, want[1])
    eps = float(np.finfo(dtype).eps)
    for k in range(2):
      self.assertFalse(np.any(np.isnan(got[k])), f"{what}: NaN in the GPU output")
      ratio, where = _worst(np.abs(got[k] - want[k]), AGREE_ULPS * eps * (1 + cond), m, e)
      self.assertLessEqual(ratio, 1.0, f"{what}: GPU vs CPU {where}")

  def test_more_than_2_31_elements(self):
    # float32, 2**31 + 4099 elements (34 GB of inputs and outputs on the GPU):
    # int32 index arithmetic in the kernel would corrupt the elements past 2**31.
    def solve(i):
      m = (i % 2039).astype(np.float32) * np.float32(0.05) - np.float32(51)
      e = (i % 97).astype(np.float32) * np.float32(0.0103)
      return (m, e, *kepler.solve(m, e))

    n, (m, e, s, c) = _past_2_31(solve, "34 GB")
    cpu_s, cpu_c = kepler.solve(jax.device_put(m, CPU), jax.device_put(e, CPU))
    self._agree("solve", np.float32, m, e, (s, c), (cpu_s, cpu_c), f"n={n}")

  def test_light_curve_more_than_2_31_elements(self):
    # float32, 2**31 + 4099 points (26 GB): as above, for the light curve's kernel.
    u = np.asarray([0.4, 0.26], np.float32)

    def light_curve(i):
      b = (i % 1013).astype(np.float32) * np.float32(1.2 / 1013)
      r = np.float32(0.02) + (i % 89).astype(np.float32) * np.float32(0.004)
      return b, r, kepler.limb_dark.light_curve(jnp.asarray(u), b, r)

    n, (b, r, flux) = _past_2_31(light_curve, "26 GB")
    cpu = kepler.limb_dark.light_curve(*(jax.device_put(x, CPU) for x in (u, b, r)))
    np.testing.assert_allclose(np.asarray(flux, np.float64), np.asarray(cpu, np.float64), rtol=0,
                               atol=4 * np.finfo(np.float32).eps, err_msg=f"n={n}")


def _past_2_31(compute, size):
  """compute(i) for i = 0 .. 2**31 + 4098 under jit on the default device (the GPU).

  Returns n and compute's outputs at the first, the middle (around 2**31)
  and the last 1024 indices, on the host. Skips under the sanitizer, which
  does not fit `size` in its time; the CPU smoke test uses 2**20 + 3.
  """
  if SANITIZER:
    raise absltest.SkipTest(f"KEPLER_GPU_TEST_SANITIZER=1: {size} under memcheck does not fit its time")
  n = (1 << 20) + 3 if ON_CPU else (1 << 31) + 4099
  mid = n // 2 if ON_CPU else 1 << 31

  @jax.jit
  def run():
    outs = compute(jnp.arange(n, dtype=jnp.int64))
    return [jnp.concatenate([x[:1024], x[mid - 1024:mid + 1024], x[-1024:]]) for x in outs]

  return n, jax.device_get(run())


# The CUDA-graph run, in a fresh interpreter (XLA reads XLA_FLAGS once).
_GRAPH_SCRIPT = r"""
import json, os, sys
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import numpy as np
import kepler

out_dir, platform = sys.argv[1], sys.argv[2]
device = jax.devices()[0]
cpu = jax.devices("cpu")[0]
if device.platform != platform:
  sys.exit("the default device is %s, not a %s device" % (device, platform))


def model(m, e):
  # Fusions before and after two custom calls, so that a graph holds several commands.
  s, c = kepler.solve(m * 0.5 + 1.0, e)
  sf, cf = kepler.true_anomaly(m, e * 0.5)
  return s, c, sf, cf, s * cf - c * sf


report = {}
for dtype in ("float32", "float64"):
  fn = jax.jit(model)
  rng = np.random.default_rng(11)
  for call in range(4):  # new buffers each call: the graph is replayed and updated
    m = rng.uniform(-50, 50, 10007).astype(dtype)
    e = rng.uniform(0, 0.999, 10007).astype(dtype)
    e[::101] = np.nan
    m[::103] = np.inf
    e[5::107] = 1.0
    outs = fn(jax.device_put(m, device), jax.device_put(e, device))
    where = sorted({str(d) for o in outs for d in o.devices()})
    ref = fn(jax.device_put(m, cpu), jax.device_put(e, cpu))
    np.savez(os.path.join(out_dir, "%s_%d.npz" % (dtype, call)), m=m, e=e,
             **{"dev%d" % k: np.asarray(o) for k, o in enumerate(outs)},
             **{"cpu%d" % k: np.asarray(o) for k, o in enumerate(ref)})
  hlo = fn.lower(jax.device_put(m, device), jax.device_put(e, device)).compile().as_text()
  report[dtype] = {"where": where, "kepler_calls": hlo.count('custom_call_target="%s"' % kepler._ffi.target("kepler_solve")),
                   "command_buffer_in_hlo": "command_buffer" in hlo}
report["xla_flags"] = os.environ.get("XLA_FLAGS", "")
print("GRAPH_REPORT " + json.dumps(report))
"""

GRAPHS_ON = "--xla_gpu_enable_command_buffer=CUSTOM_CALL,FUSION --xla_gpu_graph_min_graph_size=1"
GRAPHS_OFF = "--xla_gpu_enable_command_buffer="
# XLA sources that log command buffers (for TF_CPP_VMODULE).
COMMAND_BUFFER_SOURCES = ("command_buffer_thunk", "command_buffer_cmd", "command_buffer_conversion_pass",
                          "command_buffer_scheduling", "gpu_command_buffer", "cuda_command_buffer")


class CudaGraphTest(absltest.TestCase):
  """jax.jit with XLA's command buffers (CUDA graphs) on: results still agree."""

  def _run_script(self, flags, out_dir, dump_dir=None):
    """Runs _GRAPH_SCRIPT with these XLA flags: (its report, XLA's command-buffer log lines)."""
    env = _child_env()
    extra = flags + (f" --xla_dump_to={dump_dir} --xla_dump_hlo_as_text" if dump_dir else "")
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + extra).strip()
    # XLA's own log of command buffers (informational; the file names vary by version).
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    env["TF_CPP_VMODULE"] = ",".join(f"{name}=2" for name in COMMAND_BUFFER_SOURCES)
    result = subprocess.run([sys.executable, "-c", _GRAPH_SCRIPT, out_dir,
                             DEVICE.platform], env=env, capture_output=True, text=True,
                            timeout=240, check=False)
    self.assertEqual(result.returncode, 0, f"XLA_FLAGS={env['XLA_FLAGS']}\n{result.stderr[-6000:]}")
    line = [l for l in result.stdout.splitlines() if l.startswith("GRAPH_REPORT ")]
    self.assertLen(line, 1, result.stdout)
    logged = [l for l in result.stderr.splitlines()
              if any(f"{name}.cc" in l for name in COMMAND_BUFFER_SOURCES)]
    return json.loads(line[0][len("GRAPH_REPORT "):]), logged

  def test_jit_with_cuda_graphs_agrees_with_the_cpu_and_without_graphs(self):
    if SANITIZER:
      self.skipTest("KEPLER_GPU_TEST_SANITIZER=1: subprocesses are left out of the memcheck run")
    with tempfile.TemporaryDirectory() as tmp:
      on_dir, off_dir, dump_dir = (os.path.join(tmp, x) for x in ("on", "off", "dump"))
      for d in (on_dir, off_dir, dump_dir):
        os.makedirs(d)
      report_on, logged_on = self._run_script(GRAPHS_ON, on_dir, dump_dir)
      _, logged_off = self._run_script(GRAPHS_OFF, off_dir)
      evidence, dumped = [], []
      for root, _, files in os.walk(dump_dir):
        for name in files:
          dumped.append(name)
          if "options" in name:  # these only repeat the flags
            continue
          with open(os.path.join(root, name), errors="replace") as f:
            if re.search(r"command.?buffer", f.read(), re.I):
              evidence.append(name)
      # Informational: whether XLA's log and dump show command buffers (their
      # format varies between versions); the asserts below do not depend on it.
      print(f"\ngpu_test: CUDA graphs: XLA log lines from its command-buffer sources: "
            f"{len(logged_on)} with graphs on, {len(logged_off)} with graphs off; dump files "
            f"mentioning command buffers: {sorted(evidence)[:10] or 'none'}; first log lines: "
            f"{[l[-160:] for l in logged_on[:6]]}; report {report_on}; {len(dumped)} files "
            f"dumped: {sorted(dumped)[:40]}", file=sys.stderr)
      for dtype in ("float32", "float64"):
        self.assertEqual(report_on[dtype]["where"], [str(DEVICE)])
        self.assertEqual(report_on[dtype]["kepler_calls"], 2)
        eps = float(np.finfo(dtype).eps)
        for call in range(4):
          on = np.load(os.path.join(on_dir, f"{dtype}_{call}.npz"))
          off = np.load(os.path.join(off_dir, f"{dtype}_{call}.npz"))
          m, e = on["m"].astype(np.float64), on["e"].astype(np.float64)
          args = {"solve": (m * 0.5 + 1.0, e), "true_anomaly": (m, e * 0.5)}
          invalid = {op: ~np.isfinite(a) | ~np.isfinite(b) | (b < 0) | (b >= 1)
                     for op, (a, b) in args.items()}
          self.assertGreater(invalid["solve"].sum(), 100)
          self.assertGreater(invalid["true_anomaly"].sum(), 100)
          for k in range(4):
            what = f"{dtype} call {call} output {k}"
            # The same kernels with and without graphs: the same bits.
            np.testing.assert_array_equal(on[f"dev{k}"], off[f"dev{k}"], err_msg=what)
            got, want = on[f"dev{k}"].astype(np.float64), on[f"cpu{k}"].astype(np.float64)
            op = "solve" if k < 2 else "true_anomaly"
            bad = invalid[op]
            np.testing.assert_array_equal(np.isnan(got), bad, err_msg=what)
            cos_ref = on["cpu1" if op == "solve" else "cpu3"].astype(np.float64)
            cond = _condition(op, *args[op], cos_ref)
            ok = ~bad
            ratio, where = _worst(np.abs(got - want)[ok], (AGREE_ULPS * eps * (1 + cond))[ok],
                                  m[ok], e[ok])
            self.assertLessEqual(ratio, 1.0, f"{what}, graphs on, vs CPU: {where}")
          invalid = invalid["solve"] | invalid["true_anomaly"]
          # The fusion after the custom calls read this call's outputs.
          s, c, sf, cf, mix = (on[f"dev{k}"].astype(np.float64) for k in range(5))
          np.testing.assert_allclose(mix[~invalid], (s * cf - c * sf)[~invalid], rtol=0,
                                     atol=4 * eps, err_msg=f"{dtype} call {call} fused output")


# kepler without its CUDA plugin, in a fresh interpreter: as if only the main wheel were installed.
_NO_PLUGIN_SCRIPT = r"""
import sys
sys.modules["kepler_jax_cuda_plugin"] = None  # `import kepler_jax_cuda_plugin` raises ImportError
import jax
import numpy as np
import kepler

print("CUDA", kepler.cuda_version)
device = jax.devices()[0]
try:
  out = kepler.solve(jax.device_put(np.float32(1.0), device), jax.device_put(np.float32(0.5), device))
  print("NO-ERROR on", device.platform, jax.block_until_ready(out))
except Exception as err:  # pylint: disable=broad-except
  print("ERROR", type(err).__name__, err)
cpu = jax.devices("cpu")[0]
print("CPU", float(kepler.solve(jax.device_put(np.float32(1.0), cpu), jax.device_put(np.float32(0.0), cpu))[0]))
"""


class PluginTest(absltest.TestCase):
  """kepler runs with its own CUDA plugin; without it, GPU arrays give kepler's error."""

  def test_kepler_runs_with_its_cuda_plugin(self):
    import kepler_jax_cuda_plugin  # pylint: disable=g-import-not-at-top,import-outside-toplevel
    self.assertEqual(kepler_jax_cuda_plugin.__version__, kepler.__version__)
    self.assertEqual(kepler.cuda_version, kepler_jax_cuda_plugin.cuda_version)
    site = os.environ.get("KEPLER_SITE")
    if site:  # tools/gpu_check.py: the installed wheels, not a source tree
      for module in (kepler, kepler_jax_cuda_plugin):
        self.assertTrue(os.path.realpath(module.__file__).startswith(os.path.realpath(site) + os.sep),
                        f"{module.__name__} imported from {module.__file__}, not from {site}")

  def test_without_the_plugin_gpu_arrays_give_kepler_error_and_the_cpu_works(self):
    result = subprocess.run([sys.executable, "-c", _NO_PLUGIN_SCRIPT], env=_child_env(),
                            capture_output=True, text=True, timeout=240, check=False)
    self.assertEqual(result.returncode, 0, result.stderr[-6000:])
    print(f"\ngpu_test: without the plugin: {result.stdout[-600:]!r}", file=sys.stderr)
    self.assertIn("CUDA None", result.stdout)
    if ON_CPU:  # the CPU stands in for the GPU: no error to see
      self.assertIn("NO-ERROR on cpu", result.stdout)
    else:
      self.assertNotIn("NO-ERROR", result.stdout)
      self.assertIn(f"kepler-jax[{_version.CUDA_EXTRA}]=={kepler.__version__}", result.stdout)
    self.assertIn("CPU 0.84147", result.stdout)


class LimbDarkTest(parameterized.TestCase):
  """kepler.limb_dark.light_curve on the GPU against the CPU backend: each of
  the four kernels (limb_dark_kernel.cu's families: the polynomial laws of
  one or two coefficients, those of more, the tabulated law, the other
  laws)."""

  # case: (light_curve's law, u, mu)
  LAWS = {"linear": ("polynomial", (0.6,), None),
          "quadratic": ("polynomial", (0.4, 0.26), None),
          "ten": ("polynomial", (0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02, 0.02, 0.01, 0.01), None),
          "power2": ("power2", (0.7, 0.6), None),
          "nonlinear": ("nonlinear", (0.5, -0.2, 0.6, -0.2), None),
          "tabulated": ("tabulated", (1.0, 0.9, 0.75, 0.45), (1.0, 0.7, 0.35, 0.0))}

  def _points(self, dtype, n=4000):
    rng = np.random.default_rng(11)
    b = np.concatenate([rng.uniform(0, 1.3, n), [0.0, 0.5, 0.9, 1.1, np.nan, 0.3]])
    r = np.concatenate([rng.uniform(1e-3, 0.5, n), [0.1, 0.5, 0.1, 0.1, 0.1, -0.1]])
    return b.astype(dtype), r.astype(dtype)

  @staticmethod
  def _curve(law):
    name, _, mu = LimbDarkTest.LAWS[law]
    return lambda u, b, r: kepler.limb_dark.light_curve(u, b, r, law=name, mu=mu)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{law}_{dname}", law=law, dtype=dtype)
      for law in LAWS for dname, dtype in DTYPES)
  def test_gpu_agrees_with_cpu(self, law, dtype):
    b, r = self._points(dtype)
    u = np.asarray(self.LAWS[law][1], dtype)
    curve = self._curve(law)
    fn = lambda u, b, r: (curve(u, b, r),)
    (gpu,), where = _run(fn, DEVICE, u, b, r, jit=True)
    (cpu,), _ = _run(fn, CPU, u, b, r, jit=True)
    self.assertEqual(where, {DEVICE})
    np.testing.assert_array_equal(np.isnan(gpu), np.isnan(cpu))
    self.assertTrue(np.isnan(gpu[-2]) and np.isnan(gpu[-1]), "NaN b and r < 0 give NaN")
    # Both compute in float64 inside the kernel: float32 differs by its rounding only.
    atol = 1e-14 if dtype == np.float64 else 2 * np.finfo(np.float32).eps
    np.testing.assert_allclose(gpu, cpu, rtol=0, atol=atol)

  @parameterized.named_parameters(
      dict(testcase_name=f"_{law}_{dname}", law=law, dtype=dtype)
      for law in ("quadratic", "power2", "tabulated") for dname, dtype in DTYPES)
  def test_gradients_and_vmap(self, law, dtype):
    b, r = self._points(dtype, n=500)
    u0 = np.asarray(self.LAWS[law][1], np.float64)
    us = np.stack([u0, u0 * 0.9]).astype(dtype)
    curve = self._curve(law)
    grad = jax.jit(jax.vmap(jax.grad(lambda u, b, r: jnp.sum(curve(u, b, r)), argnums=(0, 1, 2)),
                            in_axes=(0, None, None)))
    on_gpu = [np.asarray(g, np.float64) for g in grad(*(_put(x, DEVICE) for x in (us, b, r)))]
    on_cpu = [np.asarray(g, np.float64) for g in grad(*(_put(x, CPU) for x in (us, b, r)))]
    rtol = 1e-12 if dtype == np.float64 else 1e-4
    for name, g, c in zip(("u", "b", "r"), on_gpu, on_cpu):
      np.testing.assert_allclose(g, c, rtol=rtol, atol=rtol * np.nanmax(np.abs(c)),
                                 err_msg=f"d/d{name}")


class TransitTest(parameterized.TestCase):
  """kepler.transit.light_curve on the GPU against the CPU backend: values
  and gradients, circular and eccentric orbits, with and without exposures,
  a batch of parameter sets under vmap (one launch), NaN rules."""

  # Three parameter sets: a circular hot Jupiter, an eccentric grazing
  # planet, an eccentric planet on an inclined orbit given by b.
  PARAMS = dict(period=np.array([3.1, 11.7, 27.3]), t0=np.array([0.2, -1.3, 4.0]),
                a=np.array([8.5, 21.0, 40.0]), b=np.array([0.3, 1.02, 0.7]),
                r=np.array([0.11, 0.06, 0.02]), ecc=np.array([0.0, 0.45, 0.8]),
                omega=np.array([0.0, 2.1, -0.7]))

  def _times(self, dtype):
    rng = np.random.default_rng(5)
    # Times through each transit and far from it, a NaN at the end.
    t = np.concatenate([rng.uniform(-0.3, 0.3, 600), rng.uniform(-30, 30, 200), [np.nan]])
    return t.astype(dtype)

  def _model(self, exposure, law="polynomial", u=(0.4, 0.26), mu=None):
    def fn(params, t):
      return jax.vmap(lambda p: kepler.transit.light_curve(
          t + p["t0"], u=jnp.asarray(u, t.dtype), law=law, mu=mu, exposure_time=exposure,
          **p))(params)
    return fn

  @parameterized.named_parameters(
      dict(testcase_name=f"_{kind}_{dname}", exposure=exposure, law=law, u=u, mu=mu, dtype=dtype)
      for kind, exposure, law, u, mu in (
          ("instant", 0.0, "polynomial", (0.4, 0.26), None),
          ("exposure", 0.0204, "polynomial", (0.4, 0.26), None),
          ("exposure_power2", 0.0204, "power2", (0.7, 0.6), None),
          ("exposure_tabulated", 0.0204, "tabulated", (1.0, 0.9, 0.75, 0.45),
           (1.0, 0.7, 0.35, 0.0)))
      for dname, dtype in DTYPES)
  def test_values_and_gradients(self, exposure, law, u, mu, dtype):
    t = self._times(dtype)
    params = {k: v.astype(dtype) for k, v in self.PARAMS.items()}
    model = self._model(exposure, law, u, mu)
    flux = jax.jit(model)
    grad = jax.jit(jax.grad(lambda p, t: jnp.sum(model(p, t)[:, :-1])))
    got = {}
    for device in (DEVICE, CPU):
      p, x = jax.device_put((params, t), device)
      f = flux(p, x)
      self.assertEqual(f.devices(), {device})
      got[device] = (np.asarray(f, np.float64),
                     {k: np.asarray(v, np.float64) for k, v in grad(p, x).items()})
    (f_gpu, g_gpu), (f_cpu, g_cpu) = got[DEVICE], got[CPU]
    self.assertTrue(np.all(np.isnan(f_gpu[:, -1])), "a NaN time gives NaN")
    self.assertTrue(np.all(f_gpu[:, :-1] < 1e-300) and np.any(f_gpu < -1e-3), "a transit is seen")
    # The kernel computes in float64 for both dtypes: float32 differs by rounding.
    atol = 1e-13 if dtype == np.float64 else 2 * np.finfo(np.float32).eps
    np.testing.assert_array_equal(np.isnan(f_gpu), np.isnan(f_cpu))
    np.testing.assert_allclose(f_gpu, f_cpu, rtol=0, atol=atol)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    for k in params:
      np.testing.assert_allclose(g_gpu[k], g_cpu[k], rtol=rtol, atol=rtol * np.max(np.abs(g_cpu[k])),
                                 err_msg=f"d/d{k}")

  def test_batch_is_one_launch(self):
    t = self._times(np.float64)
    hlo = jax.jit(self._model(0.0204)).lower(
        jax.device_put(self.PARAMS, DEVICE), _put(t, DEVICE)).compile().as_text()
    self.assertEqual(hlo.count(f'custom_call_target="{_ffi.target("transit")}"'), 1)


if __name__ == "__main__":
  absltest.main()
