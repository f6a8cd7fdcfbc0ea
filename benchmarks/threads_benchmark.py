"""Each op on one thread and on all of the host's, N = 1e2 to 1e6.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:threads_benchmark [-- --quick]

Times jax.jit calls of kepler.solve, kepler.limb_dark.light_curve (the
quadratic law) and kepler.transit.light_curve (a hot Jupiter, the times over
four transit durations: its value, jax.grad of its sum in every orbital
parameter, with Kepler's long-cadence exposures, with the planet's light),
float64, and a pure-JAX control (the sum of sin t), in four workers: pinned
to one CPU with XLA's intra-op pool off (one thread) or with JAX's defaults
(every CPU, the pool on), each with JAX's asynchronous dispatch (its
default) and with synchronous dispatch (`jax_cpu_enable_async_dispatch`
off). Each op's CPU handler splits a call across the pool only where its
own threshold says the work pays for it (jaxlib_ext/*/..._cpu.cc). Target:
for every op and N, all threads not slower than one, within SPREAD (this
kind of host's run-to-run spread), in both dispatch modes; where only the
asynchronous mode misses, and the control with it, the cost is JAX's
dispatch, not the op's (the report says which). Needs 2 CPUs or more. See
benchmarks/BENCHMARKS.md.
"""

import bench_common

SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (100, 1_000, 10_000, 100_000)
THREADS = ("one thread", "all threads")
# JAX's CPU client runs a program whose HLO cost analysis counts fewer than
# 1,000 flops (a custom call counts none) on the calling thread, any other
# on a worker thread while the caller waits, unless asynchronous dispatch
# is off: a cross-core hand-off per call that the op does not decide.
DISPATCH = ("asynchronous", "synchronous")
CONTROL = "jax.numpy: sum(sin t)"
# The ratio all / one above which a row counts as slower: the spread of
# repeated runs of the same case on a 2-core VM (2026-11-29).
SPREAD = 1.10
PERIOD, A, B, R, U = 3.0, 8.75, 0.3, 0.1, (0.4, 0.26)
EXPOSURE = 29.4 / 1440


def measure_worker(threads_mode, dispatch, sizes):
  threads = bench_common.cpu_worker(cpus=1 if threads_mode == THREADS[0] else None)
  jax, jnp, np = bench_common.import_jax()
  jax.config.update("jax_cpu_enable_async_dispatch", dispatch == DISPATCH[0])
  import kepler  # pylint: disable=g-import-not-at-top
  from kepler import limb_dark  # pylint: disable=g-import-not-at-top
  from kepler import transit  # pylint: disable=g-import-not-at-top

  orbit = {"period": PERIOD, "t0": 0.0, "a": A, "b": B, "r": R}
  u = jnp.asarray(U)
  duration = PERIOD / (np.pi * A) * (1 + R)

  def model(q, t, **extra):
    return transit.light_curve(t, u=u, **q, **extra)

  timer = bench_common.Timer(jax, repeats=7, min_seconds=0.05)
  times = {}
  for n in sizes:
    m, e = (jax.device_put(x) for x in bench_common.inputs(np, np.float64, n))
    b, r = (jax.device_put(x) for x in bench_common.light_curve_inputs(np, n))
    t = jax.device_put(np.linspace(-2 * duration, 2 * duration, n))
    cases = {
        "kepler.solve": (jax.jit(kepler.solve), (m, e)),
        "limb_dark.light_curve": (jax.jit(lambda b, r: limb_dark.light_curve(u, b, r)), (b, r)),
        "transit: value": (jax.jit(lambda t: model(orbit, t)), (t,)),
        "transit: grad": (jax.jit(jax.grad(lambda q, t: jnp.sum(model(q, t)))), (orbit, t)),
        "transit, exposures: value": (
            jax.jit(lambda t: model(orbit, t, exposure_time=EXPOSURE)), (t,)),
        "transit, planet's light: value": (
            jax.jit(lambda t: model(orbit, t, planet_flux=1e-3)), (t,)),
        CONTROL: (jax.jit(lambda t: jnp.sum(jnp.sin(t))), (t,)),
    }
    times[str(n)] = timer(cases, interleave=False)
  return dict(threads, times=times, jax=jax.__version__)


def measure(args):
  started = bench_common.now()
  sizes = QUICK_SIZES if args.quick else SIZES
  return {"started": started, "machine": bench_common.machine(), "results": {
      f"{mode}, {dispatch}": bench_common.run_worker(
          __file__, {"threads_mode": mode, "dispatch": dispatch, "sizes": sizes},
          f"{mode}, {dispatch} dispatch")
      for dispatch in DISPATCH for mode in THREADS}}


def report(data):
  res = data["results"]
  one, every = (res[f"{mode}, {DISPATCH[0]}"] for mode in THREADS)
  out = bench_common.Report("kepler-jax: one thread and all threads")
  out.host(data["started"], data["machine"], extra=[
      f"jax {one['jax']}; one thread: pinned to {one['pinned']}, XLA_FLAGS=`{one['xla_flags']}`; "
      f"all threads: {every['cpus_visible']} CPUs, JAX's defaults; each with JAX's "
      "asynchronous dispatch (its default) and synchronous (`jax_cpu_enable_async_dispatch` off)",
      "float64; us per call, min of the repeats (bench_common.Timer); ratio: all threads / one, "
      f"in each dispatch mode. Target: every ratio <= {SPREAD:.2f} (not slower, within the "
      f"host's spread). `{CONTROL}` is no kepler op: it shows JAX's own dispatch."])
  rows, slower = [], {d: [] for d in DISPATCH}
  for n, cases in one["times"].items():
    for case in cases:
      row = [f"{int(n):,}", case]
      for dispatch in DISPATCH:
        a, b = (res[f"{mode}, {dispatch}"]["times"][n][case]["min"] for mode in THREADS)
        row += [f"{a * 1e6:.1f}", f"{b * 1e6:.1f}", f"{b / a:.2f}x"]
        if b / a > SPREAD and case != CONTROL:
          slower[dispatch].append(f"{case} at N = {int(n):,} ({b / a:.2f}x)")
      rows.append(row)
  headers = ["N", "call"]
  for dispatch in DISPATCH:
    headers += [f"{mode} ({dispatch[:5]}.)" for mode in THREADS] + [f"ratio ({dispatch[:5]}.)"]
  out.table(headers, rows)
  out.section("Target")
  for dispatch in DISPATCH:
    out.para(f"All threads not slower than one, {dispatch} dispatch (ratio <= {SPREAD:.2f}): "
             + ("met." if not slower[dispatch] else
                "MISSED: " + "; ".join(slower[dispatch]) + "."))
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_worker)


if __name__ == "__main__":
  main()
