"""Accuracy of kepler.solve and kepler.true_anomaly against mpmath.

Through the public API (float64 with jax x64 enabled, and float32), on a grid,
random draws and adversarial points (e close to 1, M near 0 and pi, multiples
of 2 pi, subnormal M), against tests/mpmath_reference.py:

  backward error |E' - e sin E' - M_red|: <= 2e-15 (float64; e <= 1 - 1e-6,
      |M| <= 1e3) and <= 4e-7 (float32; e <= 0.95, |M| <= 1e2);
  forward error of each output, e <= 0.5: <= 1e-15 (float64), 1e-6 (float32);
  sin^2 + cos^2 within 4 ulp of 1.
The true anomaly is measured the same way, its backward error through E'
recovered from f' (mpmath_reference.true_backward_error), with the same bounds.

--cpu_isa=baseline|avx2|avx512 runs the whole file with that solve-loop
variant (KEPLER_CPU_ISA) on the CPU backend; on a CPU that lacks the variant
it fails, since that variant cannot be checked there.
ThreadingTest checks that a large input, split across threads by the CPU
handler, gives the same bits as small single-threaded calls.
"""

import os

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized
import jax

jax.config.update("jax_enable_x64", True)

import numpy as np  # pylint: disable=g-import-not-at-top

import kepler
from jaxlib_ext.cpu import _kepler_cpu
from tests import mpmath_reference as ref

_CPU_ISA = flags.DEFINE_enum(
    "cpu_isa", "auto", ["auto", "baseline", "avx2", "avx512"],
    "Solve-loop variant to test (sets KEPLER_CPU_ISA).")

# dtype -> (backward bound, max |M|, max e) and forward bound (e <= 0.5).
BACKWARD = {np.float64: (2e-15, 1e3, 1 - 1e-6), np.float32: (4e-7, 1e2, 0.95)}
FORWARD = {np.float64: 1e-15, np.float32: 1e-6}
FORWARD_MAX_E = 0.5
NORM_ULPS = 4
DTYPES = (("float64", np.float64), ("float32", np.float32))
OPS = {
    "solve": (kepler.solve, ref.eccentric_anomaly, ref.backward_error),
    "true_anomaly": (kepler.true_anomaly, ref.true_anomaly,
                     ref.true_backward_error),
}


def setUpModule():
  if _CPU_ISA.value != "auto":
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
  """(M, e) points of one dtype within its backward-error domain."""
  _, m_max, e_max = BACKWARD[dtype]
  tiny = np.finfo(dtype).smallest_subnormal
  eps = np.finfo(dtype).eps
  pi = np.pi
  # Grid.
  m_grid = np.concatenate([np.linspace(-m_max, m_max, 21),
                           np.linspace(-pi, pi, 13)])
  e_grid = np.array([0.0, 1e-10, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99, 0.999,
                     1 - 1e-4, 1 - 1e-5, e_max])
  e_grid = e_grid[e_grid <= e_max]
  grid_m, grid_e = (a.ravel() for a in np.meshgrid(m_grid, e_grid))
  # Random draws: e uniform, and e crowding towards e_max.
  rng = np.random.default_rng(1234)
  n = 1500
  rand_m = rng.uniform(-m_max, m_max, 2 * n)
  rand_e = np.concatenate([
      rng.uniform(0, e_max, n),
      1 - (1 - e_max) * 10 ** rng.uniform(0, np.log10(1 / (1 - e_max)), n)])
  # Adversarial: M near 0 (down to subnormal), near +-pi, at multiples of
  # 2 pi (and their neighbours), with e near 1 and small.
  two_pi_k = (2 * pi * np.arange(1, int(m_max / (2 * pi)) + 1, 7)).astype(dtype)
  adv_m = np.concatenate([
      [0.0, -0.0, tiny, -tiny, 64 * tiny, np.finfo(dtype).tiny, 1e-30, 1e-15,
       1e-10, 1e-6, 1e-4, 1e-2, -1e-3],
      [pi, -pi, np.nextafter(dtype(pi), dtype(0)), pi * (1 - eps), pi - 1e-6,
       pi + 1e-6, 3 * pi, -3 * pi],
      two_pi_k, -two_pi_k,
      np.nextafter(two_pi_k, dtype(np.inf)), np.nextafter(two_pi_k, dtype(0)),
  ]).astype(dtype)
  adv_e = np.array([0.0, 0.5, 0.9, 0.99, 1 - 1e-3, 1 - 1e-4, 1 - 1e-5, e_max])
  adv_e = adv_e[adv_e <= e_max]
  adv_m, adv_e = (a.ravel() for a in np.meshgrid(adv_m, adv_e))
  m = np.concatenate([grid_m, rand_m, adv_m]).astype(dtype)
  e = np.concatenate([grid_e, rand_e, adv_e]).astype(dtype)
  e = np.minimum(e, dtype(e_max))  # stay inside the domain after rounding
  return m, e


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

  @parameterized.named_parameters(_named())
  def test_backward_error(self, op, dtype):
    fn, _, backward = OPS[op]
    m, e = _inputs(dtype)
    s, c = (np.asarray(x, np.float64) for x in fn(m, e))
    err = backward(m.astype(np.float64), e.astype(np.float64), s, c)
    self._assert_within(f"{op} backward error", dtype, err, BACKWARD[dtype][0],
                        m, e)

  @parameterized.named_parameters(_named())
  def test_forward_error(self, op, dtype):
    fn, forward, _ = OPS[op]
    m, e = _inputs(dtype)
    keep = e <= FORWARD_MAX_E
    m, e = m[keep], e[keep]
    got = fn(m, e)
    want = forward(m.astype(np.float64), e.astype(np.float64))
    for name, g, w in zip(("sin", "cos"), got, want):
      err = np.abs(np.asarray(g, np.float64) - w)
      self._assert_within(f"{op} {name} forward error (e <= {FORWARD_MAX_E})",
                          dtype, err, FORWARD[dtype], m, e)

  @parameterized.named_parameters(_named())
  def test_unit_norm(self, op, dtype):
    fn, _, _ = OPS[op]
    m, e = _inputs(dtype)
    s, c = (np.asarray(x, np.longdouble) for x in fn(m, e))
    err = np.abs(s * s + c * c - 1).astype(np.float64)
    self._assert_within(f"{op} |sin^2 + cos^2 - 1|", dtype, err,
                        NORM_ULPS * np.finfo(dtype).eps, m, e)


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
    pieces = [fn(m[i:i + piece], e[i:i + piece]) for i in range(0, n, piece)]
    for k, name in enumerate(("sin", "cos")):
      small = np.concatenate([p[k] for p in pieces])
      np.testing.assert_array_equal(
          np.asarray(whole[k]), small,
          err_msg=f"{op} {name} {np.dtype(dtype).name}: threaded result "
          "differs from single-threaded pieces")


if __name__ == "__main__":
  absltest.main()
