"""What the benchmarks share: inputs, the jnp Newton solver, timers, workers, reports.

The inputs (M, e), the jnp Newton solver, the timers, the RV model, the
worker subprocess and the report's output. The five timing benchmarks
(cpu_benchmark.py, limb_dark_benchmark.py, fit_benchmark.py,
devices_benchmark.py and gpu_benchmark.py, all in benchmarks/) import this
module as `bench_common` (their own folder is the first entry of sys.path,
both when run as plain scripts and under `bazel run`). It imports neither jax
nor the kepler package: the callers pass in the modules they have imported,
after they have set up the environment (JAX_PLATFORMS, XLA_FLAGS, CPU
affinity).
"""

import os
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


class BudgetTimer(Timer):
  """A Timer that keeps each case, and the whole run, within a time budget.

  Same measurement as Timer (compile, warm up, then `repeats` interleaved
  loops of calls lasting >= min_seconds, each call blocked). Besides:
  `max_case_seconds` caps the timed loops of one case: a slow case gets fewer
  repeats (never fewer than `min_repeats`); past `deadline` (a
  time.perf_counter() value) every case gets `min_repeats` loops of one call.
  Each result says how it was measured: "calls" per loop, "repeats", "min",
  "median", "max" (seconds per call) and "reduced" (True when the budget cut
  the repeats).
  """

  def __init__(self, jax, repeats, min_seconds, max_case_seconds=None, deadline=None,
               min_repeats=3):
    super().__init__(jax, repeats, min_seconds)
    self.max_case_seconds = max_case_seconds
    self.deadline = deadline
    self.min_repeats = min_repeats

  def _late(self):
    return self.deadline is not None and time.perf_counter() > self.deadline

  def __call__(self, cases):
    plan = {}
    for name, (fn, args) in cases.items():
      self._block(fn(*args))  # compiles
      late = self._late()
      number = 1
      elapsed = self._loop(fn, args, 1)  # warms up
      while not late and elapsed < self.min_seconds:
        number = max(number * 2, int(number * 1.2 * self.min_seconds / max(elapsed, 1e-9)))
        elapsed = self._loop(fn, args, number)
      repeats = self.min_repeats if late else self.repeats
      if self.max_case_seconds and repeats * elapsed > self.max_case_seconds:
        repeats = max(self.min_repeats, int(self.max_case_seconds / elapsed))
      plan[name] = (number, repeats, late or repeats < self.repeats)
    times = {name: [] for name in cases}
    for i in range(max(r for _, r, _ in plan.values()) if plan else 0):
      for name, (fn, args) in cases.items():
        number, repeats, _ = plan[name]
        if i < repeats:
          times[name].append(self._loop(fn, args, number) / number)
    return {
        name: {"min": min(t), "median": sorted(t)[len(t) // 2], "max": max(t),
               "calls": plan[name][0], "repeats": len(t), "reduced": plan[name][2]}
        for name, t in times.items()
    }


# The radial-velocity model of one Keplerian orbit, for the model-step benchmark.
# Parameters: period P, time of periastron t0, semi-amplitude K, eccentricity e,
# argument of periastron omega, offset gamma.
RV_TRUE_PARAMS = (12.3, 1.7, 35.0, 0.3, 1.1, -2.0)
RV_FIT_PARAMS = (12.31, 1.65, 34.0, 0.32, 1.05, -1.5)  # where the step is evaluated
RV_SPAN_DAYS = 1000.0
RV_NOISE = 2.0


def rv_model(jnp, true_anomaly):
  """v(t) = K (cos(omega + f) + e cos omega) + gamma, f from true_anomaly(M, e)."""

  def model(params, t):
    period, t0, amplitude, ecc, omega, gamma = (params[i] for i in range(6))
    mean_anomaly = (2 * jnp.pi / period) * (t - t0)
    sin_f, cos_f = true_anomaly(mean_anomaly, jnp.broadcast_to(ecc, mean_anomaly.shape))
    cos_w, sin_w = jnp.cos(omega), jnp.sin(omega)
    return amplitude * (cos_w * cos_f - sin_w * sin_f + ecc * cos_w) + gamma

  return model


def rv_step(jax, jnp, true_anomaly):
  """jit(value_and_grad) of the sum of squared residuals: (params, t, y) -> (loss, dloss/dparams)."""
  model = rv_model(jnp, true_anomaly)

  def loss(params, t, y):
    return jnp.sum(jnp.square(model(params, t) - y))

  return jax.jit(jax.value_and_grad(loss))


def rv_data(np, dtype, n):
  """(params to evaluate at, t, y) as host numpy arrays of `dtype`: y = the model
  at RV_TRUE_PARAMS plus Gaussian noise, computed in float64 with numpy (sin f,
  cos f from E by Newton's method to convergence), seed SEED."""
  rng = np.random.default_rng(SEED)
  t = np.sort(rng.uniform(0.0, RV_SPAN_DAYS, n))
  period, t0, amplitude, ecc, omega, gamma = RV_TRUE_PARAMS
  mean_anomaly = np.remainder(2 * np.pi / period * (t - t0), 2 * np.pi)
  ecc_anom = mean_anomaly + ecc * np.sin(mean_anomaly)
  for _ in range(50):
    ecc_anom = ecc_anom - (ecc_anom - ecc * np.sin(ecc_anom) - mean_anomaly) / (
        1 - ecc * np.cos(ecc_anom))
  true_anom = 2 * np.arctan2(np.sqrt(1 + ecc) * np.sin(ecc_anom / 2),
                             np.sqrt(1 - ecc) * np.cos(ecc_anom / 2))
  y = amplitude * (np.cos(omega + true_anom) + ecc * np.cos(omega)) + gamma
  y = y + rng.normal(0.0, RV_NOISE, n)
  return (np.asarray(RV_FIT_PARAMS, dtype), t.astype(dtype), y.astype(dtype))


def run_worker(script, args, label):
  """Runs `python script --json FILE *args` (the benchmark's worker mode) in
  a subprocess, its output on stderr, and returns the JSON it wrote to FILE.
  Exits with a message naming `label` if the worker fails."""
  import json
  import subprocess
  import sys
  import tempfile

  with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "result.json")
    print(f"running the {label} worker ...", file=sys.stderr, flush=True)
    command = [sys.executable, os.path.abspath(script), "--json", out, *args]
    code = subprocess.run(command, stdout=sys.stderr).returncode
    if code:
      sys.exit(f"{os.path.basename(script)}: the {label} worker failed (exit {code})")
    with open(out) as f:
      return json.load(f)


def modes_type(allowed):
  """An argparse `type` for a comma-separated list of threading modes from
  `allowed`: the list, or an argparse error naming the modes there are (before
  any worker starts)."""
  import argparse

  def parse(value):
    modes = [m.strip() for m in value.split(",") if m.strip()]
    unknown = [m for m in modes if m not in allowed]
    if not modes or unknown:
      raise argparse.ArgumentTypeError(
          f"{value!r}: give one or more of {', '.join(allowed)}, comma-separated")
    return modes

  return parse


def emit_report(report, output):
  """Prints the Markdown report and, if `output` is a path, writes it there."""
  print(report)
  if output:
    with open(output, "w") as f:
      f.write(report + "\n")

