"""CPU benchmark of kepler.limb_dark.light_curve against its peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:limb_dark_benchmark

Prints one Markdown report: ns per point, float64, N = 2e5 points (b uniform
in [0, 1.2], r uniform in [0.01, 0.2], one seed), one thread and all threads,
for the value and for the value with its gradient in (b, r) (jax.grad of the
sum), with a quadratic law against exoplanet-core 0.4's
`quad_solution_vector` dotted with the law's coefficients and jaxoplanet
0.2's `core.limb_dark.light_curve`, and with 10 coefficients against
jaxoplanet; with one thread also the value against batman 2.5, PyTransit
2.10's exact model and its RoadRunner model (light_curve_peers.py; batman
and RoadRunner at r = 0.1 for every point, with ours and exoplanet-core on
the same inputs); the targets (TARGETS) marked met or missed; the agreement
of the columns. One worker subprocess per threading mode, as
cpu_benchmark.py; each row says how many CPUs its worker could use (the
one-thread worker is pinned to one, with XLA's intra-op pool off and numba's
one thread).
"""

import argparse
import datetime
import json
import os
import platform

import bench_common

N = 200_000
U_QUADRATIC = (0.4, 0.26)
U_TEN = (0.2, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02, 0.01, 0.01)
# The peer's time / ours, one thread, quadratic law: (peer, what, inputs, limit).
TARGETS = (
    ("exoplanet_core", "value", "per-point r", 4.0),
    ("exoplanet_core", "value_and_grad", "per-point r", 4.0),
    ("batman", "value", "r = 0.1", 4.0),
    ("roadrunner", "value", "r = 0.1", 2.0),
)
FIXED_R = 0.1  # batman and RoadRunner take one radius per call
MODES = ("one", "all")


def _inputs(np, n):
  rng = np.random.default_rng(bench_common.SEED)
  return rng.uniform(0, 1.2, n), rng.uniform(0.01, 0.2, n)


def _cases(jax, jnp):
  from exoplanet_core.jax import ops as exoplanet_ops
  from jaxoplanet.core import limb_dark as jaxoplanet_ld

  from kepler import limb_dark

  def exoplanet_quadratic(u, b, r):
    # Agol et al.'s normalisation of the quadratic law in the Green's basis.
    u1, u2 = u[0], u[1]
    c = jnp.stack([1 - u1 - 1.5 * u2, u1 + 2 * u2, -0.25 * u2])
    c = c / (jnp.pi * (c[0] + c[1] / 1.5))
    return exoplanet_ops.quad_solution_vector(b, r) @ c - 1

  return {
      "ours": limb_dark.light_curve,
      "exoplanet_core": exoplanet_quadratic,
      "jaxoplanet": jaxoplanet_ld.light_curve,
  }


def _worker(mode, quick):
  if mode == "one":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba is imported
  os.environ.setdefault("JAX_PLATFORMS", "cpu")
  import jax

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp
  import numpy as np

  n = 20_000 if quick else N
  b, r = (jax.device_put(x) for x in _inputs(np, n))
  impls = _cases(jax, jnp)
  timer = bench_common.Timer(jax, repeats=3 if quick else 7, min_seconds=0.02 if quick else 0.1)
  cases = {}
  for law, u in (("quadratic", U_QUADRATIC), ("ten", U_TEN)):
    u = jnp.asarray(u)
    for key, fn in impls.items():
      if key == "exoplanet_core" and law != "quadratic":
        continue
      value = jax.jit(lambda u, b, r, fn=fn: fn(u, b, r))
      grad = jax.jit(lambda u, b, r, fn=fn: jax.value_and_grad(
          lambda b, r: jnp.sum(fn(u, b, r)), argnums=(0, 1))(b, r))
      cases[f"{law}/{key}/value"] = (value, (u, b, r))
      cases[f"{law}/{key}/value_and_grad"] = (grad, (u, b, r))
  if mode == "one":  # the numpy peers: one thread only
    cases.update(_numpy_peer_cases(jax, jnp, np, impls, b, r))
  # Each case timed on its own: interleaved with the others (Timer's default),
  # the value-only calls of ours and of jaxoplanet run 2x to 3x slower than
  # alone in the pinned one-thread worker (benchmarks/BENCHMARKS.md).
  times = {}
  for name, case in cases.items():
    times.update(timer({name: case}))
  agreement = {}
  for law, u in (("quadratic", U_QUADRATIC), ("ten", U_TEN)):
    u = jnp.asarray(u)
    ours = impls["ours"](u, b, r)
    for key in ("exoplanet_core", "jaxoplanet"):
      if key == "exoplanet_core" and law != "quadratic":
        continue
      agreement[f"{law}/{key}"] = float(jnp.max(jnp.abs(impls[key](u, b, r) - ours)))
  if mode == "one":
    agreement.update(_numpy_peer_agreement(jnp, np, b, impls["ours"]))
  from importlib import metadata
  return {
      "mode": mode, "n": n, "times": times, "agreement": agreement,
      "cpus_visible": len(os.sched_getaffinity(0)),
      "numba_threads": _numba_threads() if mode == "one" else None,
      "versions": {p: metadata.version(p) for p in (
          "jax", "jaxlib", "jaxoplanet", "exoplanet-core", "batman-package", "pytransit", "numba")},
  }


def _numba_threads():
  import numba
  return numba.get_num_threads()


def _numpy_peer_cases(jax, jnp, np, impls, b, r):
  """Value-only cases of batman and PyTransit (light_curve_peers.py), with
  ours and exoplanet-core on the same inputs: every point at r = FIXED_R for
  batman and RoadRunner, which take one radius per call, and PyTransit's
  exact model with a radius per point."""
  import light_curve_peers as peers

  u = jnp.asarray(U_QUADRATIC)
  u_np = np.asarray(U_QUADRATIC)
  b_np, r_np = np.asarray(b), np.asarray(r)
  fixed = jax.device_put(np.full(b_np.shape, FIXED_R))
  fixed_np = np.asarray(fixed)
  roadrunner = peers.RoadRunner()
  cases = {
      "quadratic/pytransit_exact/value": (peers.pytransit_exact, (b_np, r_np, u_np)),
      "fixed_r/ours/value": (jax.jit(impls["ours"]), (u, b, fixed)),
      "fixed_r/exoplanet_core/value": (jax.jit(impls["exoplanet_core"]), (u, b, fixed)),
      "fixed_r/batman/value": (peers.batman_quadratic, (b_np, fixed_np, u_np)),
      "fixed_r/pytransit_exact/value": (peers.pytransit_exact, (b_np, fixed_np, u_np)),
      "fixed_r/roadrunner/value": (roadrunner, (b_np, fixed_np, u_np)),
  }
  return cases


def _numpy_peer_agreement(jnp, np, b, ours):
  import light_curve_peers as peers

  u = np.asarray(U_QUADRATIC)
  b_np = np.asarray(b)
  fixed = np.full(b_np.shape, FIXED_R)
  want = np.asarray(ours(jnp.asarray(u), b, jnp.asarray(fixed)))
  return {f"r = {FIXED_R}/{name}": float(np.max(np.abs(fn(b_np, fixed, u) - want)))
          for name, fn in (("batman", peers.batman_quadratic),
                           ("pytransit_exact", peers.pytransit_exact),
                           ("roadrunner", peers.RoadRunner()))}


def _report(results, started):
  lines = [
      "# kepler-jax limb-darkening benchmark", "",
      f"- date: {started}; machine: {platform.processor() or platform.machine()}, "
      f"{os.cpu_count()} cores; {platform.platform()}; Python {platform.python_version()}",
      "- versions: " + ", ".join(f"{k} {v}" for k, v in results[0]["versions"].items()),
      f"- N = {results[0]['n']:,} points, float64, b uniform in [0, 1.2], r in [0.01, 0.2]; "
      "min of the repeats; value_and_grad: jax.value_and_grad of the sum in (b, r). "
      "Ratio: the peer's time / ours (> 1: ours is faster).",
      "", "| threads | law | what | ours | exoplanet-core (ratio) | jaxoplanet (ratio) |",
      "|---|---|---|---|---|---|",
  ]
  for res in results:
    t = res["times"]
    n = res["n"]
    for law in ("quadratic", "ten"):
      for what in ("value", "value_and_grad"):
        ours = t[f"{law}/ours/{what}"]["min"]
        cells = [f"{ours * 1e9 / n:.1f}"]
        for key in ("exoplanet_core", "jaxoplanet"):
          other = t.get(f"{law}/{key}/{what}")
          cells.append("n/a" if other is None else
                       f"{other['min'] * 1e9 / n:.1f} ({other['min'] / ours:.2f}x)")
        lines.append(f"| {res['mode']} ({res['cpus_visible']} CPU) | {law} | {what} | "
                     + " | ".join(cells) + " |")
  one = {r["mode"]: r for r in results}.get("one")
  if one:
    t, n = one["times"], one["n"]
    lines += ["", f"## One thread, quadratic, value: every peer (numba threads: {one['numba_threads']})", "",
              "| inputs | ours | exoplanet-core | batman | PyTransit exact | PyTransit RoadRunner |",
              "|---|---|---|---|---|---|"]
    for label, prefix in (("per-point r", "quadratic"), (f"r = {FIXED_R}", "fixed_r")):
      ours = t[f"{prefix}/ours/value"]["min"]
      cells = [f"{ours * 1e9 / n:.1f}"]
      for key in ("exoplanet_core", "batman", "pytransit_exact", "roadrunner"):
        other = t.get(f"{prefix}/{key}/value")
        cells.append("n/a" if other is None else
                     f"{other['min'] * 1e9 / n:.1f} ({other['min'] / ours:.2f}x)")
      lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "batman and RoadRunner take one radius per call: their row is r = "
              f"{FIXED_R} for every point. RoadRunner takes times, not separations: its "
              "time includes its orbit arithmetic (a circular edge-on orbit whose "
              "separations are b) and its per-radius set-up."]
    lines += ["", "## Targets (one thread, quadratic)", "",
              "| target | measured | status |", "|---|---|---|"]
    for peer, what, inputs, limit in TARGETS:
      prefix = "quadratic" if inputs == "per-point r" else "fixed_r"
      ratio = t[f"{prefix}/{peer}/{what}"]["min"] / t[f"{prefix}/ours/{what}"]["min"]
      lines.append(f"| {what}, {inputs}: >= {limit:.0f}x faster than {peer} | {ratio:.2f}x | "
                   f"{'met' if ratio >= limit else 'MISSED'} |")
  lines += ["", "Agreement with ours (max |difference| over the points): " + "; ".join(
      f"{k} {v:.1e}" for k, v in results[0]["agreement"].items())]
  return "\n".join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--quick", action="store_true", help="fewer points and repeats (a smoke run)")
  parser.add_argument("--modes", type=bench_common.modes_type(MODES), default=list(MODES),
                      help="threading modes, comma-separated: one (one pinned thread), all")
  parser.add_argument("--output", help="also write the report to this file")
  parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
  parser.add_argument("--json", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    with open(args.json, "w") as f:
      json.dump(_worker(args.worker, args.quick), f)
    return
  started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  results = [bench_common.run_worker(__file__, ["--worker", mode] + (["--quick"] if args.quick else []),
                                     f"{mode}-thread") for mode in args.modes]
  bench_common.emit_report(_report(results, started), args.output)


if __name__ == "__main__":
  main()
