"""What the benchmarks share: inputs, workers, the timer, the report writer.

Every benchmark of this folder imports this module as `bench_common` (its own
folder is the first entry of sys.path, both as a plain script and under
`bazel run`). It imports neither jax nor kepler: callers pass in the modules
they imported, after the environment is set (JAX_PLATFORMS, XLA_FLAGS, CPU
affinity: `cpu_worker`). Each benchmark measures in one function that returns
plain data (dicts and lists, JSON-serialisable) and reports in another that
turns that data into Markdown with `Report`.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import timeit

SEED = 0

# Kepler's equation: M uniform in [0, 2 pi), e uniform in [0, E_MAX).
E_MAX = 0.95
# Newton iterations of the jnp reference solver per dtype: the fewest that
# reach the dtype's precision for every e < E_MAX from Danby's starter (checked
# against kepler.solve in float64 on 2e5 random points plus M near 0 and 2 pi).
NEWTON_ITERATIONS = {"float32": 5, "float64": 7}

# Light curves: b uniform in [0, B_MAX], r uniform in R_RANGE; the laws timed.
B_MAX = 1.2
R_RANGE = (0.01, 0.2)
LAWS = {
    "quadratic": (0.4, 0.26),
    "ten": (0.2, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02, 0.01, 0.01),
}


def inputs(np, dtype, n):
  """(M, e) as host numpy arrays of `dtype`, n elements each (seed SEED)."""
  rng = np.random.default_rng(SEED)
  m = rng.uniform(0.0, 2 * np.pi, n).astype(dtype)
  e = rng.uniform(0.0, E_MAX, n).astype(dtype)
  return m, e


def light_curve_inputs(np, n):
  """(b, r) as host float64 numpy arrays, n elements each (seed SEED)."""
  rng = np.random.default_rng(SEED)
  return rng.uniform(0, B_MAX, n), rng.uniform(*R_RANGE, n)


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


def example_model():
  """examples/transit_rv_model.py, the transit + RV model of the example.

  Under Bazel it is a dependency (//examples:transit_rv_model); run as a
  plain script, it is found in the examples/ folder next to this one.
  """
  try:
    import transit_rv_model  # pylint: disable=g-import-not-at-top
  except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    import transit_rv_model  # pylint: disable=g-import-not-at-top
  return transit_rv_model


# ---------------------------------------------------------------------------
# Workers: XLA fixes its CPU threading when its backend starts, so each
# threading mode (or device count) is measured by a subprocess of its own.


def in_loop(jax, jnp, fn, calls):
  """fn(*args) evaluated `calls` times inside one jitted lax.fori_loop.

  The returned function takes fn's arguments and a zero (an argument, so
  that XLA cannot fold it) and returns the last evaluation's outputs. Each
  evaluation adds zero times the sum of the first element of every output
  of the one before to the first element of every argument (an in-place
  update of one element each), so that no work that depends on an argument
  can be hoisted out of the loop (in a fit every argument changes from one
  step to the next), and the outputs are carried through the loop, so that
  none of them can be dropped or computed in part.
  """

  def run(*args_and_zero):
    *args, zero = args_and_zero
    outs = jax.eval_shape(fn, *args)
    outs = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), outs)

    def body(_, carry):
      args, _ = carry
      outs = fn(*args)
      touch = zero * sum(jnp.ravel(x)[0] for x in jax.tree_util.tree_leaves(outs))
      args = tuple(a.at[(0,) * a.ndim].add(touch.astype(a.dtype)) if a.size else a for a in args)
      return args, outs

    return jax.lax.fori_loop(0, calls, body, (tuple(args), outs))[1]

  return jax.jit(run)


def per_evaluation(times, calls):
  """A Timer's results with the compiled loops' ("loop/..." cases, in_loop
  of `calls` evaluations) per evaluation."""
  return {name: {k: v / calls if k in ("min", "median", "max") else v for k, v in entry.items()}
          if name.startswith("loop/") else entry for name, entry in times.items()}


def run_worker(script, config, label, env=None):
  """Runs `script` as a worker (`python script --worker CONFIG_JSON OUT`),
  its output on stderr, and returns what its measuring function returned.
  Exits with a message naming `label` if the worker fails."""
  with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "result.json")
    print(f"running the {label} worker ...", file=sys.stderr, flush=True)
    command = [sys.executable, os.path.abspath(script), "--worker", json.dumps(config), out]
    code = subprocess.run(command, stdout=sys.stderr, env=env, check=False).returncode
    if code:
      sys.exit(f"{os.path.basename(script)}: the {label} worker failed (exit {code}); "
               "its output is above")
    with open(out) as f:
      return json.load(f)


def serve_worker(measure):
  """In a worker (see run_worker): calls measure(**config), writes its
  result as JSON and returns True; in the driver, returns False."""
  if sys.argv[1:2] != ["--worker"]:
    return False
  config, out = json.loads(sys.argv[2]), sys.argv[3]
  result = measure(**config)
  with open(out, "w") as f:
    json.dump(result, f)
  return True


def modes_type(allowed):
  """An argparse `type` for a comma-separated list of modes from `allowed`:
  the list, or an argparse error naming the modes there are (before any
  worker starts)."""

  def parse(value):
    modes = [m.strip() for m in value.split(",") if m.strip()]
    if not modes or set(modes) - set(allowed):
      raise argparse.ArgumentTypeError(
          f"{value!r}: give one or more of {', '.join(allowed)}, comma-separated")
    return modes

  return parse


def cpu_worker(cpus=None, pin=True, host_devices=None):
  """Sets this process's CPU threading; call it before importing jax.

  cpus=None: JAX's default (every CPU, XLA's intra-op thread pool on).
  cpus=k: XLA's intra-op pool off (--xla_cpu_multi_thread_eigen=false, so
  each device runs one thread), numba's pool of k threads, and, with `pin`,
  the process pinned to the first k CPUs it may use (as `taskset` would):
  XLA then sees k CPUs. host_devices: that many CPU devices
  (--xla_force_host_platform_device_count). Sets JAX_PLATFORMS=cpu unless set.
  Returns {"pinned": the CPUs or None, "cpus_visible", "xla_flags"}.
  """
  pinned = None
  flags = [os.environ.get("XLA_FLAGS", "")]
  if host_devices:
    flags.append(f"--xla_force_host_platform_device_count={host_devices}")
  if cpus:
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < cpus:
      sys.exit(f"{cpus} CPUs needed, {len(usable)} usable")
    if pin:
      pinned = usable[:cpus]
      os.sched_setaffinity(0, set(pinned))
    flags.append("--xla_cpu_multi_thread_eigen=false")
    os.environ["NUMBA_NUM_THREADS"] = str(cpus)
  os.environ["XLA_FLAGS"] = " ".join(f for f in flags if f)
  os.environ.setdefault("JAX_PLATFORMS", "cpu")
  return {"pinned": pinned, "cpus_visible": len(os.sched_getaffinity(0)),
          "xla_flags": os.environ["XLA_FLAGS"]}


def import_jax():
  """(jax, jax.numpy, numpy), with jax_enable_x64 on."""
  import jax  # pylint: disable=g-import-not-at-top

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  return jax, jnp, np


def versions(names, **extra):
  """{distribution: version} of those of `names` that are installed, then `extra`."""
  from importlib import metadata  # pylint: disable=g-import-not-at-top

  found = {}
  for name in names:
    try:
      found[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
      pass
  return dict(found, **extra)


# ---------------------------------------------------------------------------
# The timer.


class Timer:
  """Times jitted functions with timeit, as timeit.Timer.autorange does.

  Per case (a function and its arguments; every call is followed by
  jax.block_until_ready): one call, which compiles; loops of 1, 2, 5, 10,
  20, ... calls until one lasts >= `min_seconds` (autorange's 0.2 s made a
  parameter), which warms it up and sets the calls per loop; then `repeats`
  loops of that many calls, the garbage collector on (as in the loops the
  benchmarks timed before). The repeats of the cases of one call are
  interleaved, so that a change of load weighs on all alike; with
  interleave=False each case is timed alone. Budgets: `max_case_seconds`
  caps one case's loops (fewer repeats, never fewer than `min_repeats`);
  past `deadline` (a time.perf_counter() value) a case gets `min_repeats`
  loops of one call; past `stop` none is run. With keep_going, a case that
  raises is reported with the error instead of ending the run.

  Returns {name: {"min", "median", "max": seconds per call, "calls" per
  loop, "repeats", "reduced": whether a budget cut the repeats}}, or {name:
  {"error": why}}. Each benchmark reports the statistic it documents.
  """

  def __init__(self, jax, repeats, min_seconds, max_case_seconds=None, deadline=None,
               stop=None, min_repeats=3, keep_going=False):
    self._block = jax.block_until_ready
    self.repeats = repeats
    self.min_seconds = min_seconds
    self.max_case_seconds = max_case_seconds
    self.deadline = deadline
    self.stop = stop
    self.min_repeats = min_repeats
    self.keep_going = keep_going

  def _past(self, when):
    return when is not None and time.perf_counter() > when

  def _plan(self, fn, args):
    """(timeit.Timer, calls per loop, repeats, reduced) for one case."""
    block = self._block
    timer = timeit.Timer(lambda: block(fn(*args)), setup="gc.enable()")
    block(fn(*args))  # compiles
    late = self._past(self.deadline)
    number, elapsed = 1, timer.timeit(1)
    scale = 1
    while not late and elapsed < self.min_seconds:
      for step in (2, 5, 10):
        number = step * scale
        elapsed = timer.timeit(number)
        if elapsed >= self.min_seconds:
          break
      scale *= 10
    repeats = self.min_repeats if late else self.repeats
    if self.max_case_seconds and repeats * elapsed > self.max_case_seconds:
      repeats = max(self.min_repeats, int(self.max_case_seconds / elapsed))
    return timer, number, repeats, late or repeats < self.repeats

  def __call__(self, cases, interleave=True):
    if not interleave:
      return {k: v for name, case in cases.items() for k, v in self({name: case}).items()}
    plans, results = {}, {}
    for name, (fn, args) in cases.items():
      if self._past(self.stop):
        results[name] = {"error": "not run: past the time budget"}
        continue
      try:
        plans[name] = self._plan(fn, args)
      except Exception as err:  # pylint: disable=broad-except
        if not self.keep_going:
          raise
        why = (str(err).splitlines() or [""])[0][:200]
        results[name] = {"error": f"{type(err).__name__}: {why}"}
    times = {name: [] for name in plans}
    for i in range(max((p[2] for p in plans.values()), default=0)):
      for name, (timer, number, repeats, _) in plans.items():
        if i < repeats:
          times[name].append(timer.timeit(number) / number)
    for name, t in times.items():
      t.sort()
      results[name] = {"min": t[0], "median": t[len(t) // 2], "max": t[-1],
                       "calls": plans[name][1], "repeats": len(t), "reduced": plans[name][3]}
    return {name: results[name] for name in cases}


def main(doc, measure, report, options=(), worker=None):
  """A benchmark's command line. In a worker (see run_worker) runs `worker`;
  else parses --quick, --output and `options` ((flags, argparse keywords)
  pairs) and prints report(measure(args)), also into --output's file."""
  if worker and serve_worker(worker):
    return
  parser = argparse.ArgumentParser(description=doc.split("\n")[0])
  parser.add_argument("--quick", action="store_true", help="a smoke run: fewer sizes and repeats")
  parser.add_argument("--output", help="also write the report to this file")
  for flags, keywords in options:
    parser.add_argument(*flags, **keywords)
  args = parser.parse_args()
  emit(report(measure(args)), args.output)


# ---------------------------------------------------------------------------
# Reports.


def now():
  """The time of day in UTC, as the reports print it."""
  return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def machine():
  """The host: CPU model, its cores, the ones this process may use, its
  vector ISA, the OS, the load average and Python."""
  model, flags = platform.processor() or platform.machine(), set()
  try:
    with open("/proc/cpuinfo") as f:
      for line in f:
        key, _, value = line.partition(":")
        if key.strip() == "model name":
          model = value.strip()
        elif key.strip() == "flags":
          flags = set(value.split())
  except OSError:
    pass
  avx512 = sorted(f for f in flags if f.startswith("avx512"))
  isa = ", ".join(f"{f} {'yes' if f in flags else 'no'}" for f in ("avx2", "fma", "avx512f"))
  return {
      "cpu": model, "cores": os.cpu_count(), "cpus_usable": len(os.sched_getaffinity(0)),
      "isa": isa + (f" (all: {' '.join(avx512)})" if avx512 else ""),
      "os": platform.platform(), "load": os.getloadavg(), "python": platform.python_version(),
  }


def ns(seconds, n):
  """Nanoseconds per element, 3 significant digits (no decimals from 100 up)."""
  value = seconds * 1e9 / n
  return f"{value:#.3g}" if value < 100 else f"{value:.0f}"


class Report:
  """A Markdown report: a title, then lines, sections and tables, in order."""

  def __init__(self, title):
    self.lines = [f"# {title}", ""]

  def para(self, text):
    self.lines += [text, ""]

  def bullets(self, items):
    self.lines += [f"- {item}" for item in items] + [""]

  def section(self, title, level=2):
    self.lines += ["#" * level + " " + title, ""]

  def table(self, header, rows):
    self.lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    self.lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows] + [""]

  def host(self, started, mach, wall=None, extra=()):
    """The bullets every report starts with: when, where, what else."""
    took = f" (took {wall:.0f} s)" if wall is not None else ""
    self.bullets([
        f"date: {started}{took}",
        f"machine: {mach['cpu']}; {mach['cores']} cores ({mach['cpus_usable']} usable); {mach['isa']}",
        f"{mach['os']}; Python {mach['python']}; load average at the start "
        + " ".join(f"{x:.2f}" for x in mach["load"]),
        *extra])

  def text(self):
    return "\n".join(self.lines).rstrip() + "\n"


def emit(report, output):
  """Prints the Markdown report and, if `output` is a path, writes it there."""
  print(report, end="")
  if output:
    with open(output, "w") as f:
      f.write(report)
