"""CPU benchmark of kepler.solve and kepler.true_anomaly against their peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:cpu_benchmark

Prints one Markdown report: the machine, the versions, a table of ns per solve
(float32 and float64; N = 1, 1e3, 1e6; one thread and all threads) with the
ratio of each peer's time to ours, and the speed targets marked met or
missed. One worker subprocess per threading mode (bench_common.run_worker);
the one-thread worker is pinned to one CPU with XLA's intra-op pool off.
See benchmarks/BENCHMARKS.md.
"""

import os
import sys
import time

import bench_common

SUPPORTED_PYTHON = (3, 12)

SIZES = (1, 1_000, 1_000_000)
DTYPES = ("float32", "float64")
MODES = ("one", "all")
MODE_TITLES = {"one": "one thread", "all": "all threads"}

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


def _implementations(jax, jnp, kepler, ours_only):
  """{key: (function of (M, e) -> (sin, cos), dtypes it supports)}, unjitted."""
  impls = {"solve": (kepler.solve, DTYPES), "true_anomaly": (kepler.true_anomaly, DTYPES)}
  if ours_only:
    return impls
  from exoplanet_core.jax import ops as exoplanet_ops  # pylint: disable=g-import-not-at-top
  from jaxoplanet.core import kepler as jaxoplanet_kepler  # pylint: disable=g-import-not-at-top

  return dict(
      impls,
      jaxoplanet=(jaxoplanet_kepler, DTYPES),
      # Documented as returning (cos f, sin f); it returns (sin f, cos f)
      # (checked against kepler.true_anomaly in the report). float64 only.
      exoplanet_core=(exoplanet_ops.kepler, ("float64",)),
      newton=(bench_common.newton_solver(jax, jnp), DTYPES),
      sincos=(lambda m, e: (jnp.sin(m), jnp.cos(m)), DTYPES),
  )


def measure_mode(mode, quick, pin, ours_only=False):
  """One threading mode, in a worker of its own: {"times", "extra", "agreement", ...}."""
  threads = bench_common.cpu_worker(cpus=1 if mode == "one" else None, pin=pin)
  jax, jnp, np = bench_common.import_jax()
  import kepler  # pylint: disable=g-import-not-at-top

  impls = _implementations(jax, jnp, kepler, ours_only)
  timer = bench_common.Timer(jax, repeats=3 if quick else 9, min_seconds=0.01 if quick else 0.08)
  sizes = SIZES[:2] if quick else SIZES
  result = dict(threads, mode=mode, times={}, extra={}, agreement={},
                kepler_module=os.path.dirname(kepler.__file__))
  put = lambda dtype, n: tuple(jax.device_put(x) for x in bench_common.inputs(np, dtype, n))
  for dtype in DTYPES:
    for n in sizes:
      args = put(dtype, n)
      result["times"].update(timer({f"{dtype}/{n}/{key}": (jax.jit(fn), args)
                                    for key, (fn, dtypes) in impls.items() if dtype in dtypes}))
      print(f"  [{MODE_TITLES[mode]}] {dtype} N={n}", file=sys.stderr, flush=True)
    if ours_only:
      continue
    # The JVP of solve (both tangents) vs the forward call, at the largest N;
    # the call of one element through jit(solve) vs through jit(jnp.sin).
    m, e = put(dtype, sizes[-1])
    jvp = jax.jit(lambda m, e, dm, de: jax.jvp(kepler.solve, (m, e), (dm, de)))
    result["extra"].update(timer({
        f"{dtype}/jvp": (jvp, (m, e, jnp.ones_like(m), jnp.full_like(e, 0.5))),
        f"{dtype}/forward": (jax.jit(kepler.solve), (m, e)),
    }))
    m1, e1 = put(dtype, 1)
    result["extra"].update(timer({
        f"{dtype}/dispatch_solve": (jax.jit(kepler.solve), (m1, e1)),
        f"{dtype}/dispatch_sin": (jax.jit(jnp.sin), (m1,)),
        # Two outputs instead of one: how much of the gap is not the op's.
        f"{dtype}/dispatch_sincos": (jax.jit(lambda m: (jnp.sin(m), jnp.cos(m))), (m1,)),
    }))
    print(f"  [{MODE_TITLES[mode]}] {dtype} JVP and dispatch", file=sys.stderr, flush=True)
    # How far each implementation is from the op its ratio divides by (N =
    # 1000): shows that the columns compute the same thing.
    m, e = (jnp.asarray(x) for x in bench_common.inputs(np, dtype, 1000))
    for key, _, ours in COLUMNS:
      if ours and key != "sincos" and dtype in impls[key][1]:
        got, want = impls[key][0](m, e), impls[ours][0](m, e)
        result["agreement"][f"{dtype}/{key}"] = max(
            float(jnp.max(jnp.abs(g.astype(jnp.float64) - w.astype(jnp.float64))))
            for g, w in zip(got, want))
  result["versions"] = bench_common.versions(
      ("jax", "jaxlib", "numpy", "jaxoplanet", "exoplanet-core", "equinox"),
      **{"kepler-jax": kepler.__version__})
  return result


def measure(args):
  """Every threading mode, each in a worker (and, with --compare_with, each
  followed by a worker on the other build): plain data for `report`."""
  if args.compare_with and not os.path.isdir(os.path.join(args.compare_with, "kepler")):
    sys.exit(f"cpu_benchmark: --compare_with {args.compare_with} holds no kepler/ package")
  started, start = bench_common.now(), time.perf_counter()
  data = {"started": started, "machine": bench_common.machine(), "results": [], "others": [],
          "other_label": args.compare_label, "stat": args.stat}
  for mode in args.modes:
    config = {"mode": mode, "quick": args.quick, "pin": args.pin}
    data["results"].append(bench_common.run_worker(__file__, config, MODE_TITLES[mode]))
    if args.compare_with:
      # That build's kepler/ first on the path: it shadows this build's.
      other = os.path.abspath(args.compare_with)
      env = dict(os.environ, PYTHONPATH=os.pathsep.join(
          [other] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
      data["others"].append(bench_common.run_worker(
          __file__, dict(config, ours_only=True), f"{MODE_TITLES[mode]} on {other}", env))
  data["wall"] = time.perf_counter() - start
  return data


def _status(value, limit):
  factor = value / limit
  return ("met (%#.3gx of the limit)" if factor <= 1 else "MISSED (%#.3gx the limit)") % factor


def report(data):
  """The Markdown report of `measure`'s data: its "stat" ("min" or "median") of the repeats."""
  results, others, stat = data["results"], data["others"], data["stat"]
  out = bench_common.Report("kepler-jax CPU benchmark")
  out.host(data["started"], data["machine"], data["wall"], [
      "versions: " + ", ".join("%s %s" % kv for kv in results[0]["versions"].items()),
      *(f"{MODE_TITLES[r['mode']]} worker: {r['cpus_visible']} CPU(s) visible"
        + (f" (pinned to CPU {r['pinned'][0]})" if r["pinned"] else "")
        + f"; XLA_FLAGS=`{r['xla_flags']}`" for r in results),
      f"method: each function jitted, compiled, warmed up; then the {stat} of repeated loops of "
      "calls (bench_common.Timer), each call followed by block_until_ready; ns/solve = time per "
      f"call / N. Inputs: M uniform in [0, 2 pi), e uniform in [0, {bench_common.E_MAX:.2f}). "
      "A peer's ratio is its time divided by that of the op of ours named in its column "
      "(> 1: ours is faster)."])
  out.section("ns per solve (ratio peer / ours)")
  rows = []
  for r in results:
    t = {k: v[stat] for k, v in r["times"].items()}
    for dtype in DTYPES:
      for n in SIZES:
        cells = []
        for key, _, ours in COLUMNS:
          mine = t.get(f"{dtype}/{n}/{key}")
          cells.append("n/a" if mine is None else bench_common.ns(mine, n) + (
              " (%.2fx)" % (mine / t[f"{dtype}/{n}/{ours}"]) if ours else ""))
        if any(c != "n/a" for c in cells):
          rows.append([MODE_TITLES[r["mode"]], dtype, f"{n:,}", *cells])
  out.table(["threads", "dtype", "N"] + [c[1] for c in COLUMNS], rows)
  out.para("N = 1 rows are the whole call (dispatch included) per element.")
  out.section("Targets")
  rows = []
  one = {r["mode"]: r for r in results}.get("one")
  big = max(int(k.split("/")[1]) for k in results[0]["times"])
  for dtype in ("float64", "float32") if one else ():
    t = one["times"][f"{dtype}/{big}/solve"][stat] * 1e9 / big
    rows.append([f"`kepler.solve`, one thread, N = {big:,}, {dtype}", "%#.3g ns/solve" % t,
                 "<= %g ns" % TARGET_NS[dtype], _status(t, TARGET_NS[dtype])])
  for dtype in ("float64", "float32") if one else ():
    ratio = one["extra"][f"{dtype}/jvp"][stat] / one["extra"][f"{dtype}/forward"][stat]
    limit = 1 + TARGET_JVP_OVERHEAD
    rows.append([f"`jax.jvp` of solve vs solve, one thread, N = {big:,}, {dtype}",
                 "%.2fx (%+.0f%%)" % (ratio, 100 * (ratio - 1)), "<= %.2fx" % limit,
                 _status(ratio, limit)])
  for r in results:
    for dtype in ("float64", "float32"):
      solve_t, sin_t, sincos_t = (r["extra"][f"{dtype}/dispatch_{k}"][stat]
                                  for k in ("solve", "sin", "sincos"))
      rows.append([f"jit(solve) vs jit(jnp.sin), N = 1, {MODE_TITLES[r['mode']]}, {dtype}",
                   "%.2fx (%.1f vs %.1f us; jit(jnp.sin, jnp.cos): %.1f us)" % (
                       solve_t / sin_t, solve_t * 1e6, sin_t * 1e6, sincos_t * 1e6),
                   "<= %.1fx" % TARGET_DISPATCH, _status(solve_t / sin_t, TARGET_DISPATCH)])
  out.table(["target", "measured", "limit", "status"], rows)
  if others:
    out.section("This build of ours against another (--compare_with)")
    out.para(f"The other build: {data['other_label']}, kepler loaded from "
             f"`{others[0]['kepler_module']}`; this build's from `{results[0]['kepler_module']}`. "
             "Ratio: the other build's time / this build's (> 1: this build is faster).")
    rows = []
    for r, o in zip(results, others):
      for dtype in DTYPES:
        for n in SIZES:
          for key in OURS:
            name = f"{dtype}/{n}/{key}"
            if name in r["times"] and name in o["times"]:
              mine, theirs = r["times"][name][stat], o["times"][name][stat]
              rows.append([MODE_TITLES[r["mode"]], dtype, f"{n:,}", f"`kepler.{key}`",
                           bench_common.ns(mine, n), bench_common.ns(theirs, n),
                           "%.2fx" % (theirs / mine)])
    out.table(["threads", "dtype", "N", "op", "this build", "other build", "ratio"], rows)
  out.para("Agreement (N = 1,000, max |difference| of sin and cos from the op in the ratio): "
           + "; ".join("%s %s %.1e" % (key.split("/")[1], key.split("/")[0], v)
                       for key, v in sorted(results[0]["agreement"].items())))
  return out.text()


def main():
  if sys.version_info[:2] != SUPPORTED_PYTHON:
    sys.exit("cpu_benchmark supports Python %d.%d only (exoplanet-core 0.4 requires it), and "
             "this is Python %d.%d. Run it with HERMETIC_PYTHON_VERSION=%d.%d bazel run "
             "//benchmarks:cpu_benchmark" % (SUPPORTED_PYTHON + sys.version_info[:2]
                                             + SUPPORTED_PYTHON))
  bench_common.main(__doc__, measure, report, worker=measure_mode, options=[
      (["--stat"], dict(choices=("min", "median"), default="min",
                        help="statistic of the repeats reported (default: min)")),
      (["--modes"], dict(type=bench_common.modes_type(MODES), default=list(MODES),
                         help="threading modes, comma-separated: one (one pinned thread), all")),
      (["--no-pin"], dict(dest="pin", action="store_false",
                          help="one thread: only XLA_FLAGS, without pinning the worker to one CPU")),
      (["--compare_with"], dict(metavar="DIR", help=(
          "a folder holding another build's kepler/ package (an unpacked wheel): its ops are "
          "timed by workers of their own, interleaved with ours, and reported side by side "
          "(benchmarks/compare_toolchains.sh)"))),
      (["--compare_label"], dict(default="another build",
                                 help="what to call the --compare_with build in the report")),
  ])


if __name__ == "__main__":
  main()
