"""What the CPU and GPU benchmarks share: the inputs, the jnp Newton solver, the timer.

benchmarks/cpu_benchmark.py and benchmarks/gpu_benchmark.py import this module
as `bench_common` (their own folder is the first entry of sys.path, both when
run as plain scripts and under `bazel run`). It imports neither jax nor the
kepler package: the callers pass in the modules they have imported, after
they have set up the environment (JAX_PLATFORMS, XLA_FLAGS, CPU affinity).
"""

import time

# Inputs: M uniform in [0, 2 pi), e uniform in [0, E_MAX), one fixed seed.
E_MAX = 0.95
SEED = 0

# Newton iterations of the jnp reference solver per dtype: the fewest that
# reach the dtype's precision for every e < E_MAX from Danby's starter (checked
# against kepler.solve in float64 on 2e5 random points plus M near 0 and 2 pi).
NEWTON_ITERATIONS = {"float32": 5, "float64": 7}


def inputs(np, dtype, n):
  """(M, e) as host numpy arrays of `dtype`, n elements each (seed SEED)."""
  rng = np.random.default_rng(SEED)
  m = rng.uniform(0.0, 2 * np.pi, n).astype(dtype)
  e = rng.uniform(0.0, E_MAX, n).astype(dtype)
  return m, e


def newton_solver(jax, jnp):
  """The pure-jnp reference: a function (M, e) -> (sin E, cos E), unjitted."""

  def newton(m, e):
    # Newton's method on E - e sin E = M for a fixed number of steps, with no
    # test of convergence. M is reduced to [-pi, pi] and the start is Danby's
    # E0 = M + 0.85 e sign(M), from which Newton converges without the wild
    # first steps that E0 = M gives at high e.
    iterations = NEWTON_ITERATIONS[m.dtype.name]
    two_pi = 2 * jnp.pi
    m = m - two_pi * jnp.round(m / two_pi)
    ecc_anom = m + 0.85 * e * jnp.sign(m)

    def step(_, x):
      return x - (x - e * jnp.sin(x) - m) / (1 - e * jnp.cos(x))

    ecc_anom = jax.lax.fori_loop(0, iterations, step, ecc_anom, unroll=True)
    return jnp.sin(ecc_anom), jnp.cos(ecc_anom)

  return newton


class Timer:
  """Times jitted functions: compile, warm up, then repeats of a loop of calls.

  Each call is followed by jax.block_until_ready, and the loop is timed with
  the wall clock. The repeats of the functions timed together are
  interleaved, so that a change of the machine's load during the run weighs
  on all of them alike.
  """

  def __init__(self, jax, repeats, min_seconds):
    self._block = jax.block_until_ready
    self.repeats = repeats
    self.min_seconds = min_seconds

  def _loop(self, fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
      self._block(fn(*args))
    return time.perf_counter() - start

  def __call__(self, cases):
    """{name: (fn, args)} -> {name: {"min", "median": seconds per call, "calls"}}."""
    numbers = {}
    for name, (fn, args) in cases.items():
      self._block(fn(*args))  # compiles
      number = 1
      while True:  # warms up and finds how many calls take min_seconds
        elapsed = self._loop(fn, args, number)
        if elapsed >= self.min_seconds:
          break
        number = max(number * 2, int(number * 1.2 * self.min_seconds / max(elapsed, 1e-9)))
      numbers[name] = number
    times = {name: [] for name in cases}
    for _ in range(self.repeats):
      for name, (fn, args) in cases.items():
        times[name].append(self._loop(fn, args, numbers[name]) / numbers[name])
    return {
        name: {"min": min(t), "median": sorted(t)[len(t) // 2], "calls": numbers[name]}
        for name, t in times.items()
    }
