"""CPU benchmark of kepler.solve and kepler.true_anomaly against their peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:cpu_benchmark

Prints one Markdown report: the machine, the versions, a table of ns per solve
(float32 and float64; N = 1, 1e3, 1e6; one thread and all threads) with the
ratio of each peer's time to ours, and the speed targets marked met or
missed. See benchmarks/BENCHMARKS.md.

XLA fixes its CPU threading when the backend starts, so this process runs one
worker subprocess per threading mode (this same file with --worker) and
prints their results together. The one-thread worker pins itself to one CPU
(as `taskset -c <cpu>` would) and turns off Eigen's multi-threading in XLA.
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

import bench_common
from bench_common import E_MAX

SUPPORTED_PYTHON = (3, 12)

SIZES = (1, 1_000, 1_000_000)
DTYPES = ("float32", "float64")
MODES = ("one", "all")
MODE_TITLES = {"one": "one thread", "all": "all threads"}

# The inputs (M uniform in [0, 2 pi), e uniform in [0, E_MAX), one seed), the
# jnp Newton solver and the timer are shared with gpu_benchmark.py: see
# bench_common.py.

# The speed targets (docs/accuracy_and_speed.md, benchmarks/BENCHMARKS.md).
TARGET_NS = {"float64": 10.0, "float32": 5.0}  # one thread, N = 1e6, solve
TARGET_JVP_OVERHEAD = 0.20  # jax.jvp of solve vs solve, one thread, N = 1e6
TARGET_DISPATCH = 1.2  # jit(solve) vs jit(jnp.sin), N = 1

# Our ops: all that a worker for another build of ours times (--compare_with).
OURS = ("solve", "true_anomaly")

# The columns of the table: (key, header, our op that the ratio divides by).
COLUMNS = (
    ("solve", "ours: `kepler.solve` (E)", None),
    ("true_anomaly", "ours: `kepler.true_anomaly` (f)", None),
    ("jaxoplanet", "jaxoplanet `core.kepler` (f) / true_anomaly", "true_anomaly"),
    ("exoplanet_core", "exoplanet-core `jax.ops.kepler` (f) / true_anomaly", "true_anomaly"),
    ("newton", "jnp Newton (E) / solve", "solve"),
    ("sincos", "floor `jnp.sin`+`jnp.cos` of M / solve", "solve"),
)


def _check_python():
  if sys.version_info[:2] != SUPPORTED_PYTHON:
    sys.exit(
        "cpu_benchmark supports Python %d.%d only (exoplanet-core 0.4 requires "
        "it), and this is Python %d.%d. Run it with "
        "HERMETIC_PYTHON_VERSION=%d.%d bazel run //benchmarks:cpu_benchmark"
        % (SUPPORTED_PYTHON + sys.version_info[:2] + SUPPORTED_PYTHON))


# ---------------------------------------------------------------------------
# The worker: one threading mode, in a process of its own.


def _one_thread(pin):
  cpu = None
  if pin:  # as `taskset -c <cpu>`: XLA and every thread pool then see one CPU
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
  flags = os.environ.get("XLA_FLAGS", "")
  os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()
  return cpu


def _implementations(jax, jnp, kepler):
  """{key: (function of (M, e) -> (sin, cos), dtypes it supports)}, unjitted."""
  from exoplanet_core.jax import ops as exoplanet_ops
  from jaxoplanet.core import kepler as jaxoplanet_kepler

  newton = bench_common.newton_solver(jax, jnp)

  def sincos(m, e):
    del e
    return jnp.sin(m), jnp.cos(m)

  return {
      "solve": (kepler.solve, DTYPES),
      "true_anomaly": (kepler.true_anomaly, DTYPES),
      "jaxoplanet": (jaxoplanet_kepler, DTYPES),
      # Documented as returning (cos f, sin f); it returns (sin f, cos f)
      # (checked against kepler.true_anomaly in the report). float64 only.
      "exoplanet_core": (exoplanet_ops.kepler, ("float64",)),
      "newton": (newton, DTYPES),
      "sincos": (sincos, DTYPES),
  }


_Timer = bench_common.Timer
_inputs = bench_common.inputs


def _worker(mode, quick, pin, ours_only=False):
  cpu = _one_thread(pin) if mode == "one" else None
  os.environ.setdefault("JAX_PLATFORMS", "cpu")
  import jax

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp
  import numpy as np

  import kepler

  impls = _implementations(jax, jnp, kepler)
  if ours_only:  # another build of ours (--compare_with): our ops alone
    impls = {key: impls[key] for key in OURS}
  timer = _Timer(jax, repeats=3 if quick else 9, min_seconds=0.01 if quick else 0.08)
  sizes = SIZES[:2] if quick else SIZES
  big = sizes[-1]
  result = {
      "mode": mode,
      "pinned_cpu": cpu,
      "xla_flags": os.environ.get("XLA_FLAGS", ""),
      "cpus_visible": len(os.sched_getaffinity(0)),
      "times": {},
      "extra": {},
      "agreement": {},
  }
  result["kepler_module"] = os.path.dirname(kepler.__file__)
  for dtype in DTYPES:
    for n in sizes:
      args = tuple(jax.device_put(x) for x in _inputs(np, dtype, n))
      cases = {
          "%s/%d/%s" % (dtype, n, key): (jax.jit(fn), args)
          for key, (fn, dtypes) in impls.items()
          if dtype in dtypes
      }
      result["times"].update(timer(cases))
      print("  [%s] %s N=%d" % (MODE_TITLES[mode], dtype, n), file=sys.stderr, flush=True)
    if ours_only:
      continue

    # The JVP of solve (both tangents) vs the forward call, at the largest N;
    # the call of one element through jit(solve) vs through jit(jnp.sin).
    m, e = (jax.device_put(x) for x in _inputs(np, dtype, big))
    tangents = (jnp.ones_like(m), jnp.full_like(e, 0.5))
    jvp = jax.jit(lambda m, e, dm, de: jax.jvp(kepler.solve, (m, e), (dm, de)))
    m1, e1 = (jax.device_put(x) for x in _inputs(np, dtype, 1))
    result["extra"].update(timer({
        "%s/jvp" % dtype: (jvp, (m, e) + tangents),
        "%s/forward" % dtype: (jax.jit(kepler.solve), (m, e)),
    }))
    result["extra"].update(timer({
        "%s/dispatch_solve" % dtype: (jax.jit(kepler.solve), (m1, e1)),
        "%s/dispatch_sin" % dtype: (jax.jit(jnp.sin), (m1,)),
        # Two outputs instead of one: how much of the gap is not the op's.
        "%s/dispatch_sincos" % dtype: (jax.jit(lambda m: (jnp.sin(m), jnp.cos(m))), (m1,)),
    }))
    print("  [%s] %s JVP and dispatch" % (MODE_TITLES[mode], dtype), file=sys.stderr, flush=True)

  # How far each implementation is from the op its ratio divides by (N = 1000):
  # shows that the columns compute the same thing.
  for dtype in DTYPES if not ours_only else ():
    m, e = _inputs(np, dtype, 1000)
    for key, header, ours in COLUMNS:
      fn, dtypes = impls[key]
      if ours and key != "sincos" and dtype in dtypes:
        got = fn(jnp.asarray(m), jnp.asarray(e))
        want = impls[ours][0](jnp.asarray(m), jnp.asarray(e))
        result["agreement"]["%s/%s" % (dtype, key)] = max(
            float(jnp.max(jnp.abs(g.astype(jnp.float64) - w.astype(jnp.float64))))
            for g, w in zip(got, want))

  from importlib import metadata

  result["versions"] = {
      name: metadata.version(name)
      for name in ("jax", "jaxlib", "numpy", "jaxoplanet", "exoplanet-core", "equinox")
  }
  result["versions"]["kepler-jax"] = kepler.__version__
  result["devices"] = [str(d) for d in jax.devices()]
  return result


# ---------------------------------------------------------------------------
# The driver: the machine, the workers, the report.


def _machine():
  model, flags = platform.processor() or "unknown", set()
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
  isa = ["avx2"] + sorted(f for f in flags if f.startswith("avx512"))
  return {
      "cpu": model,
      "cores": os.cpu_count(),
      "cpus_usable": len(os.sched_getaffinity(0)),
      "isa": ", ".join("%s %s" % (f, "yes" if f in flags else "no") for f in ["avx2", "fma", "avx512f"])
             + (" (all: %s)" % " ".join(isa[1:]) if len(isa) > 1 else ""),
      "os": platform.platform(),
      "load": os.getloadavg(),
      "python": platform.python_version(),
  }


def _run_worker(mode, quick, pin, other_build=None):
  with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "result.json")
    command = [sys.executable, os.path.abspath(__file__), "--worker", mode, "--json", out]
    env = None
    if quick:
      command.append("--quick")
    if not pin:
      command.append("--no-pin")
    if other_build:
      # That build's kepler/ first on the path: it shadows this build's.
      command.append("--ours-only")
      env = dict(os.environ, PYTHONPATH=os.pathsep.join(
          [other_build] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    print("running the %s worker%s ..." % (
        MODE_TITLES[mode], " on " + other_build if other_build else ""), file=sys.stderr, flush=True)
    code = subprocess.run(command, stdout=sys.stderr, env=env).returncode
    if code:
      sys.exit("cpu_benchmark: the %s worker failed (exit %d); its output is above"
               % (MODE_TITLES[mode], code))
    with open(out) as f:
      return json.load(f)


def _ns(seconds, n):
  ns = seconds * 1e9 / n
  return "%#.3g" % ns if ns < 100 else "%.0f" % ns


def _status(value, limit):
  factor = value / limit
  return ("met (%#.3gx of the limit)" if factor <= 1 else "MISSED (%#.3gx the limit)") % factor


def _report(machine, results, stat, started, wall, others=(), other_label=""):
  lines = []
  say = lines.append
  versions = results[0]["versions"]
  say("# kepler-jax CPU benchmark")
  say("")
  say("- date: %s (took %.0f s)" % (started, wall))
  say("- machine: %s; %d cores (%d usable); %s" % (machine["cpu"], machine["cores"], machine["cpus_usable"], machine["isa"]))
  say("- %s; Python %s; load average at the start %s" % (
      machine["os"], machine["python"], " ".join("%.2f" % x for x in machine["load"])))
  say("- versions: " + ", ".join("%s %s" % kv for kv in versions.items()))
  for r in results:
    say("- %s worker: %d CPU(s) visible%s; XLA_FLAGS=`%s`" % (
        MODE_TITLES[r["mode"]], r["cpus_visible"],
        " (pinned to CPU %d)" % r["pinned_cpu"] if r["pinned_cpu"] is not None else "",
        r["xla_flags"]))
  say("- method: each function jitted, compiled, warmed up; then %s of repeated loops of calls, "
      "each call followed by block_until_ready; ns/solve = time per call / N. Inputs: M uniform "
      "in [0, 2 pi), e uniform in [0, %.2f). A peer's ratio is its time divided by that of the "
      "op of ours named in its column (> 1: ours is faster)." % (
          "the %s" % stat, E_MAX))
  say("")
  say("## ns per solve (ratio peer / ours)")
  say("")
  say("| threads | dtype | N | " + " | ".join(c[1] for c in COLUMNS) + " |")
  say("|" + "---|" * (3 + len(COLUMNS)))
  for r in results:
    times = r["times"]
    for dtype in DTYPES:
      for n in SIZES:
        cells = []
        for key, _, ours in COLUMNS:
          t = times.get("%s/%d/%s" % (dtype, n, key))
          if t is None:
            cells.append("n/a")
            continue
          cell = _ns(t[stat], n)
          if ours:
            cell += " (%.2fx)" % (t[stat] / times["%s/%d/%s" % (dtype, n, ours)][stat])
          cells.append(cell)
        if any(c != "n/a" for c in cells):
          say("| %s | %s | %s | %s |" % (MODE_TITLES[r["mode"]], dtype, "{:,}".format(n), " | ".join(cells)))
  say("")
  say("N = 1 rows are the whole call (dispatch included) per element.")
  say("")
  say("## Targets")
  say("")
  say("| target | measured | limit | status |")
  say("|---|---|---|---|")
  one = {r["mode"]: r for r in results}.get("one")
  big = max(int(k.split("/")[1]) for k in results[0]["times"])
  for dtype in ("float64", "float32") if one else ():
    t = one["times"]["%s/%d/solve" % (dtype, big)][stat] * 1e9 / big
    say("| `kepler.solve`, one thread, N = %s, %s | %#.3g ns/solve | <= %g ns | %s |" % (
        "{:,}".format(big), dtype, t, TARGET_NS[dtype], _status(t, TARGET_NS[dtype])))
  for dtype in ("float64", "float32") if one else ():
    e = one["extra"]
    ratio = e["%s/jvp" % dtype][stat] / e["%s/forward" % dtype][stat]
    say("| `jax.jvp` of solve vs solve, one thread, N = %s, %s | %.2fx (%+.0f%%) | <= %.2fx | %s |" % (
        "{:,}".format(big), dtype, ratio, 100 * (ratio - 1), 1 + TARGET_JVP_OVERHEAD,
        _status(ratio, 1 + TARGET_JVP_OVERHEAD)))
  for r in results:
    for dtype in ("float64", "float32"):
      e = r["extra"]
      solve_t, sin_t = e["%s/dispatch_solve" % dtype][stat], e["%s/dispatch_sin" % dtype][stat]
      sincos_t = e["%s/dispatch_sincos" % dtype][stat]
      say("| jit(solve) vs jit(jnp.sin), N = 1, %s, %s | %.2fx (%.1f vs %.1f us; "
          "jit(jnp.sin, jnp.cos): %.1f us) | <= %.1fx | %s |" % (
              MODE_TITLES[r["mode"]], dtype, solve_t / sin_t, solve_t * 1e6, sin_t * 1e6,
              sincos_t * 1e6, TARGET_DISPATCH, _status(solve_t / sin_t, TARGET_DISPATCH)))
  if others:
    say("")
    say("## This build of ours against another (--compare_with)")
    say("")
    say("The other build: %s, kepler loaded from `%s`; this build's from `%s`. Ratio: "
        "the other build's time / this build's (> 1: this build is faster)." % (
            other_label, others[0]["kepler_module"], results[0]["kepler_module"]))
    say("")
    say("| threads | dtype | N | op | this build | other build | ratio |")
    say("|---|---|---|---|---|---|---|")
    for r, o in zip(results, others):
      for dtype in DTYPES:
        for n in SIZES:
          for key in OURS:
            name = "%s/%d/%s" % (dtype, n, key)
            if name in r["times"] and name in o["times"]:
              mine, theirs = r["times"][name][stat], o["times"][name][stat]
              say("| %s | %s | %s | `kepler.%s` | %s | %s | %.2fx |" % (
                  MODE_TITLES[r["mode"]], dtype, "{:,}".format(n), key,
                  _ns(mine, n), _ns(theirs, n), theirs / mine))
  say("")
  say("Agreement (N = 1,000, max |difference| of sin and cos from the op in the ratio): " + "; ".join(
      "%s %s %.1e" % (key.split("/")[1], key.split("/")[0], v)
      for key, v in sorted(results[0]["agreement"].items())))
  return "\n".join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats (a smoke run)")
  parser.add_argument("--stat", choices=("min", "median"), default="min",
                      help="statistic of the repeats reported (default: min)")
  parser.add_argument("--modes", type=bench_common.modes_type(MODES), default=list(MODES),
                      help="threading modes, comma-separated: one (one pinned thread), all")
  parser.add_argument("--no-pin", dest="pin", action="store_false",
                      help="one thread: only XLA_FLAGS, without pinning the worker to one CPU")
  parser.add_argument("--output", help="also write the report to this file")
  parser.add_argument("--compare_with", metavar="DIR",
                      help="a folder holding another build's kepler/ package (an unpacked wheel): "
                           "its ops are timed by workers of their own, interleaved with ours, and "
                           "reported side by side (benchmarks/compare_toolchains.sh)")
  parser.add_argument("--compare_label", default="another build",
                      help="what to call the --compare_with build in the report")
  parser.add_argument("--ours-only", dest="ours_only", action="store_true", help=argparse.SUPPRESS)
  parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
  parser.add_argument("--json", help=argparse.SUPPRESS)
  args = parser.parse_args()
  _check_python()

  if args.worker:
    result = _worker(args.worker, args.quick, args.pin, args.ours_only)
    with open(args.json, "w") as f:
      json.dump(result, f)
    return

  started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  start = time.perf_counter()
  machine = _machine()
  if args.compare_with and not os.path.isdir(os.path.join(args.compare_with, "kepler")):
    sys.exit("cpu_benchmark: --compare_with %s holds no kepler/ package" % args.compare_with)
  results, others = [], []
  for mode in args.modes:
    results.append(_run_worker(mode, args.quick, args.pin))
    if args.compare_with:
      others.append(_run_worker(mode, args.quick, args.pin, os.path.abspath(args.compare_with)))
  report = _report(machine, results, args.stat, started, time.perf_counter() - start,
                   others, args.compare_label)
  bench_common.emit_report(report, args.output)


if __name__ == "__main__":
  main()
