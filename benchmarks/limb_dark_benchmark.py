"""CPU benchmark of kepler.limb_dark.light_curve against its peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:limb_dark_benchmark

Prints one Markdown report: ns per point, float64, N = 2e5 points (b uniform
in [0, 1.2], r uniform in [0.01, 0.2], one seed), one thread and all threads,
for the value and for the value with its gradient in (b, r) (jax.grad of the
sum), with a quadratic law against exoplanet-core 0.4's
`quad_solution_vector` dotted with the law's coefficients and jaxoplanet
0.2's `core.limb_dark.light_curve`, and with 10 coefficients against
jaxoplanet; the targets (forward >= 3x faster than exoplanet-core, value and
gradient >= 2x, one thread) marked met or missed; the agreement of the
columns. One worker subprocess per threading mode, as cpu_benchmark.py.
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
TARGETS = {"value": 3.0, "value_and_grad": 2.0}  # exoplanet-core time / ours, one thread
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
  from importlib import metadata
  return {
      "mode": mode, "n": n, "times": times, "agreement": agreement,
      "cpus_visible": len(os.sched_getaffinity(0)),
      "versions": {p: metadata.version(p) for p in ("jax", "jaxlib", "jaxoplanet", "exoplanet-core")},
  }


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
        lines.append(f"| {res['mode']} | {law} | {what} | " + " | ".join(cells) + " |")
  lines += ["", "## Targets (one thread, quadratic, against exoplanet-core)", "",
            "| target | measured | status |", "|---|---|---|"]
  one = {r["mode"]: r for r in results}.get("one")
  for what, limit in TARGETS.items() if one else ():
    ratio = one["times"][f"quadratic/exoplanet_core/{what}"]["min"] / one["times"][f"quadratic/ours/{what}"]["min"]
    lines.append(f"| {what}: >= {limit:.0f}x faster | {ratio:.2f}x | "
                 f"{'met' if ratio >= limit else 'MISSED'} |")
  lines += ["", "Agreement with ours (max |difference| over the points): " + "; ".join(
      f"{k} {v:.1e}" for k, v in results[0]["agreement"].items())]
  return "\n".join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--quick", action="store_true")
  parser.add_argument("--modes", default=",".join(MODES))
  parser.add_argument("--output")
  parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
  parser.add_argument("--json", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    with open(args.json, "w") as f:
      json.dump(_worker(args.worker, args.quick), f)
    return
  started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  results = [bench_common.run_worker(__file__, ["--worker", mode] + (["--quick"] if args.quick else []),
                                     f"{mode}-thread") for mode in args.modes.split(",")]
  bench_common.emit_report(_report(results, started), args.output)


if __name__ == "__main__":
  main()
