"""Accuracy of kepler.solve and kepler.true_anomaly against mpmath.

Through the public API, with float64 and float32 inputs, on a grid, random
draws and adversarial points (e close to 1, M near 0 and pi, multiples of
2 pi, subnormal M; tests/accuracy_cases.py), against tests/mpmath_reference.py:

  backward error |E' - e sin E' - M_red|: <= 2e-15 (float64; e <= 1 - 1e-6,
      |M| <= 1e3) and <= 4e-7 (float32; e <= 0.95, |M| <= 1e2);
  forward error of each output, e <= 0.5: <= 1e-15 (float64), 1e-6 (float32);
  sin^2 + cos^2 within 4 ulp of 1.
The true anomaly is measured the same way, its backward error through E'
recovered from f' (mpmath_reference.true_backward_error), with the same bounds.

KEPLER_TEST_X64 (tests/x64_mode.py) sets jax_enable_x64, on by default. With
it off, float64 inputs are computed in float32, as everywhere in JAX: the
float64 cases then check that the outputs are float32 and meet the float32
bounds on float32's domain, against the reference at the demoted inputs.

--cpu_isa=NAME (one of _kepler_cpu.cpu_isas(): baseline, avx2, avx512) runs
the whole file with that loop variant (KEPLER_CPU_ISA) on the CPU backend; on a CPU that lacks the variant
it fails, since that variant cannot be checked there.
ThreadingTest checks that a large input, split across threads by the CPU
handler, gives the same bits as small single-threaded calls.
"""

import os

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized
import jax
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
import kepler
from kepler._lib import _kepler_cpu
from tests import accuracy_cases as cases
from tests import mpmath_reference as ref

_CPU_ISA = flags.DEFINE_string(
    "cpu_isa", "auto", "Loop variant to test (sets KEPLER_CPU_ISA): auto or one of "
    "_kepler_cpu.cpu_isas().")

DTYPES = (("float64", np.float64), ("float32", np.float32))
OPS = {
    "solve": (kepler.solve, ref.eccentric_anomaly, ref.backward_error),
    "true_anomaly": (kepler.true_anomaly, ref.true_anomaly,
                     ref.true_backward_error),
}


def setUpModule():
  if _CPU_ISA.value != "auto":
    if _CPU_ISA.value not in _kepler_cpu.cpu_isas():
      raise ValueError(f"--cpu_isa={_CPU_ISA.value}: not one of {_kepler_cpu.cpu_isas()}")
    if jax.default_backend() != "cpu":
      raise ValueError("--cpu_isa only concerns the CPU backend")
    os.environ["KEPLER_CPU_ISA"] = _CPU_ISA.value
    active = _kepler_cpu.cpu_isa()
    if active != _CPU_ISA.value:
      raise RuntimeError(
          f"this CPU lacks the {_CPU_ISA.value} variant (it runs {active}), so "
          f"it cannot be tested here; exclude this target with "
          f"--test_tag_filters=-requires_{_CPU_ISA.value}")


def _inputs(dtype):
  """(M, e) of dtype within the domain of the dtype the op computes them in."""
  return cases.inputs(dtype, domain=x64_mode.canonical(dtype))


def _exact(x):
  """The inputs as the op sees them (demoted without x64), as float64."""
  return x64_mode.demote(x).astype(np.float64)


def _named():
  return [dict(testcase_name=f"_{op}_{dname}", op=op, dtype=dtype)
          for op in OPS for dname, dtype in DTYPES]


class AccuracyTest(parameterized.TestCase):

  def _assert_within(self, what, dtype, err, bound, m, e):
    """err and bound are arrays over the points; names the worst one."""
    self.assertFalse(np.any(np.isnan(err)), f"{what}: NaN error")
    ratio = err / bound
    worst = int(np.argmax(ratio))
    self.assertLessEqual(
        ratio[worst], 1.0,
        f"{np.dtype(dtype).name} {what}: {err[worst]:.3g} > bound "
        f"{np.broadcast_to(bound, err.shape)[worst]:.3g} at "
        f"M={m[worst]!r}, e={e[worst]!r} (cpu isa {_kepler_cpu.cpu_isa()})")

  def _call(self, op, m, e):
    """The op's outputs, checked to have the dtype JAX gives inputs of m.dtype."""
    got = OPS[op][0](m, e)
    for x in got:
      self.assertEqual(x.dtype, x64_mode.canonical(m.dtype),
                       f"{op} on {m.dtype.name} inputs (x64 {x64_mode.X64})")
    return got

  @parameterized.named_parameters(_named())
  def test_backward_error(self, op, dtype):
    _, _, backward = OPS[op]
    m, e = _inputs(dtype)
    s, c = (np.asarray(x, np.float64) for x in self._call(op, m, e))
    err = backward(_exact(m), _exact(e), s, c)
    computed = x64_mode.canonical(dtype)
    self._assert_within(f"{op} backward error", computed, err,
                        cases.backward_bound(computed), m, e)

  @parameterized.named_parameters(_named())
  def test_forward_error(self, op, dtype):
    _, forward, _ = OPS[op]
    m, e = _inputs(dtype)
    keep = _exact(e) <= cases.FORWARD_MAX_E
    m, e = m[keep], e[keep]
    got = self._call(op, m, e)
    want = forward(_exact(m), _exact(e))
    computed = x64_mode.canonical(dtype)
    for name, g, w in zip(("sin", "cos"), got, want):
      err = np.abs(np.asarray(g, np.float64) - w)
      self._assert_within(
          f"{op} {name} forward error (e <= {cases.FORWARD_MAX_E})", computed,
          err, cases.forward_bound(computed), m, e)

  @parameterized.named_parameters(_named())
  def test_unit_norm(self, op, dtype):
    m, e = _inputs(dtype)
    s, c = (np.asarray(x, np.longdouble) for x in self._call(op, m, e))
    err = np.abs(s * s + c * c - 1).astype(np.float64)
    computed = x64_mode.canonical(dtype)
    self._assert_within(f"{op} |sin^2 + cos^2 - 1|", computed, err,
                        cases.norm_bound(computed), m, e)


class ThreadingTest(parameterized.TestCase):
  """The handler splits inputs of >= 32k elements across the thread pool."""

  @parameterized.named_parameters(_named())
  def test_large_input_equals_small_calls(self, op, dtype):
    fn, _, _ = OPS[op]
    rng = np.random.default_rng(7)
    n, piece = 300_001, 9_999  # pieces stay below the threading threshold
    m = rng.uniform(-1e3, 1e3, n).astype(dtype)
    e = rng.uniform(0, 1, n).astype(dtype)
    e[::1001] = np.nan  # invalid elements stay NaN wherever they land
    whole = jax.jit(fn)(m, e)
    self.assertEqual(whole[0].dtype, x64_mode.canonical(dtype))
    pieces = [fn(m[i:i + piece], e[i:i + piece]) for i in range(0, n, piece)]
    for k, name in enumerate(("sin", "cos")):
      small = np.concatenate([p[k] for p in pieces])
      np.testing.assert_array_equal(
          np.asarray(whole[k]), small,
          err_msg=f"{op} {name} {np.dtype(dtype).name}: threaded result "
          "differs from single-threaded pieces")


if __name__ == "__main__":
  absltest.main()
