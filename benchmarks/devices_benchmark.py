"""Both ops on 1 and on 2 CPU devices, one thread each.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:devices_benchmark

Prints a Markdown table: ns per element of jax.jit(kepler.solve) and of
jax.jit(kepler.limb_dark.light_curve) (quadratic law), float64, N = 1e7,
inputs sharded over a 1-D mesh of 1 and of 2 host devices
(--xla_force_host_platform_device_count), each device one thread
(--xla_cpu_multi_thread_eigen=false, the process pinned to as many cores as
devices), with the speed-up of 2 devices over 1 and the target (>= 1.7x,
kepler/_ffi/partition.py partitions each op elementwise). One worker subprocess
per device count (bench_common.run_worker); needs a machine with 2 cores or more.
"""

import bench_common

N = 10_000_000
DEVICE_COUNTS = (1, 2)
TARGET = 1.7  # time on 1 device / time on 2 devices
REPEATS = 5


def measure_devices(devices, n):
  """One device count, in a worker of its own: {"devices", "n", "times", ...}."""
  threads = bench_common.cpu_worker(cpus=devices, host_devices=devices)
  jax, _, np = bench_common.import_jax()
  from jax.sharding import NamedSharding  # pylint: disable=g-import-not-at-top
  from jax.sharding import PartitionSpec as P  # pylint: disable=g-import-not-at-top

  import kepler  # pylint: disable=g-import-not-at-top
  from kepler import limb_dark  # pylint: disable=g-import-not-at-top

  mesh = jax.make_mesh((devices,), ("x",))
  sharding = NamedSharding(mesh, P("x"))
  m, e = bench_common.inputs(np, np.float64, n)
  b, r = bench_common.light_curve_inputs(np, n)
  ms, es, bs, rs = (jax.device_put(x, sharding) for x in (m, e, b, r))
  u = jax.device_put(np.array(bench_common.LAWS["quadratic"]), NamedSharding(mesh, P()))
  timer = bench_common.Timer(jax, repeats=REPEATS, min_seconds=0.5)
  times = timer({"solve": (jax.jit(kepler.solve), (ms, es)),
                 "light_curve": (jax.jit(limb_dark.light_curve), (u, bs, rs))})
  return dict(threads, devices=devices, n=n, times=times, jax=jax.__version__)


def measure(args):
  started, n = bench_common.now(), args.n or (1_000_000 if args.quick else N)
  return {"started": started, "machine": bench_common.machine(), "results": [
      bench_common.run_worker(__file__, {"devices": d, "n": n}, f"{d}-device")
      for d in DEVICE_COUNTS]}


def report(data):
  by = {res["devices"]: res for res in data["results"]}
  n = by[1]["n"]
  out = bench_common.Report("kepler-jax: 1 and 2 CPU devices")
  out.host(data["started"], data["machine"], extra=[
      f"jax {by[1]['jax']}; worker CPUs: "
      + ", ".join(f"{d} device(s) pinned to {r['pinned']}" for d, r in by.items()),
      f"N = {n:,} elements, float64, sharded over a 1-D mesh; one thread per device; min of "
      f"{REPEATS} repeats (bench_common.Timer). Target: 2 devices >= {TARGET}x faster than 1."])
  rows = []
  for op in ("solve", "light_curve"):
    one, two = by[1]["times"][op]["min"], by[2]["times"][op]["min"]
    rows.append([op, f"{one * 1e9 / n:.2f}", f"{two * 1e9 / n:.2f}", f"{one / two:.2f}x",
                 "met" if one / two >= TARGET else "MISSED"])
  out.table(["op", "1 device (ns/element)", "2 devices (ns/element)", "speed-up", "target"], rows)
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_devices, options=[
      (["--n"], dict(type=int, help=f"elements (default {N:,}; quick: 1e6)"))])


if __name__ == "__main__":
  main()
