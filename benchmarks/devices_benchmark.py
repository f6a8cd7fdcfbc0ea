"""Both ops on 1 and on 2 CPU devices, one thread each.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:devices_benchmark

Prints a Markdown table: ns per element of jax.jit(kepler.solve) and of
jax.jit(kepler.limb_dark.light_curve) (quadratic law), float64, N = 1e7,
inputs sharded over a 1-D mesh of 1 and of 2 host devices
(--xla_force_host_platform_device_count), each device one thread
(--xla_cpu_multi_thread_eigen=false, the process pinned to as many cores as
devices), with the speed-up of 2 devices over 1 and the target (>= 1.7x,
kepler/_ffi/partition.py partitions each op elementwise). One worker subprocess
per device count; needs a machine with 2 cores or more.
"""

import argparse
import datetime
import json
import os
import platform
import sys

import bench_common

N = 10_000_000
DEVICE_COUNTS = (1, 2)
TARGET = 1.7  # time on 1 device / time on 2 devices


def _worker(devices, n):
  cores = sorted(os.sched_getaffinity(0))
  if len(cores) < devices:
    sys.exit(f"devices_benchmark: {devices} devices need {devices} cores, {len(cores)} available")
  os.sched_setaffinity(0, set(cores[:devices]))
  os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                             f" --xla_force_host_platform_device_count={devices}"
                             " --xla_cpu_multi_thread_eigen=false").strip()
  os.environ.setdefault("JAX_PLATFORMS", "cpu")
  import jax

  jax.config.update("jax_enable_x64", True)
  import numpy as np
  from jax.sharding import NamedSharding
  from jax.sharding import PartitionSpec as P

  import kepler
  from kepler import limb_dark

  mesh = jax.make_mesh((devices,), ("x",))
  sharding = NamedSharding(mesh, P("x"))
  m, e = bench_common.inputs(np, np.float64, n)
  rng = np.random.default_rng(bench_common.SEED)
  b, r = rng.uniform(0, 1.2, n), rng.uniform(0.01, 0.2, n)
  ms, es, bs, rs = (jax.device_put(x, sharding) for x in (m, e, b, r))
  u = jax.device_put(np.array([0.4, 0.26]), NamedSharding(mesh, P()))
  timer = bench_common.Timer(jax, repeats=5, min_seconds=0.5)
  times = timer({"solve": (jax.jit(kepler.solve), (ms, es)),
                 "light_curve": (jax.jit(limb_dark.light_curve), (u, bs, rs))})
  return {"devices": devices, "n": n, "times": times, "jax": jax.__version__,
          "cores": cores[:devices]}


def _report(results, started):
  by = {res["devices"]: res for res in results}
  n = results[0]["n"]
  lines = [
      "# kepler-jax: 1 and 2 CPU devices", "",
      f"- date: {started}; machine: {platform.processor() or platform.machine()}, "
      f"{os.cpu_count()} cores; {platform.platform()}; Python {platform.python_version()}; "
      f"jax {results[0]['jax']}",
      f"- N = {n:,} elements, float64, sharded over a 1-D mesh; one thread per device; "
      "min of 5 repeats. Target: 2 devices >= 1.7x faster than 1.", "",
      "| op | 1 device (ns/element) | 2 devices (ns/element) | speed-up | target |",
      "|---|---|---|---|---|",
  ]
  for op in ("solve", "light_curve"):
    one, two = by[1]["times"][op]["min"], by[2]["times"][op]["min"]
    speedup = one / two
    lines.append(f"| {op} | {one * 1e9 / n:.2f} | {two * 1e9 / n:.2f} | {speedup:.2f}x | "
                 f"{'met' if speedup >= TARGET else 'MISSED'} |")
  return "\n".join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--n", type=int, default=N)
  parser.add_argument("--output")
  parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
  parser.add_argument("--json", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    with open(args.json, "w") as f:
      json.dump(_worker(args.worker, args.n), f)
    return
  started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  results = [bench_common.run_worker(__file__, ["--worker", str(d), "--n", str(args.n)],
                                     f"{d}-device") for d in DEVICE_COUNTS]
  bench_common.emit_report(_report(results, started), args.output)


if __name__ == "__main__":
  main()
