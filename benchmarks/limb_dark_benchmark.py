"""CPU benchmark of kepler.limb_dark.light_curve against its peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:limb_dark_benchmark

ns per point, float64, N = 2e5 points (bench_common.light_curve_inputs), one
thread and all threads (a worker each), the value and the value with its
gradient in (b, r): the quadratic law against exoplanet-core 0.4's
`quad_solution_vector` dotted with the law's coefficients and jaxoplanet
0.2's `core.limb_dark.light_curve`, ten coefficients against jaxoplanet;
with one thread also the value against batman 2.5, PyTransit 2.10's exact
model and its RoadRunner model (light_curve_peers.py; batman and RoadRunner
at r = 0.1 for every point, with ours and exoplanet-core on the same
inputs); the targets (TARGETS) marked met or missed; the agreement of the
columns. See benchmarks/BENCHMARKS.md.
"""

import bench_common

N = 200_000
# The peer's time / ours, one thread, quadratic law: (peer, what, inputs, limit).
TARGETS = (
    ("exoplanet_core", "value", "per-point r", 4.0),
    ("exoplanet_core", "value_and_grad", "per-point r", 4.0),
    ("batman", "value", "r = 0.1", 4.0),
    ("roadrunner", "value", "r = 0.1", 2.0),
)
FIXED_R = 0.1  # batman and RoadRunner take one radius per call
MODES = ("one", "all")
WHATS = ("value", "value_and_grad")


def _implementations(jnp):
  from exoplanet_core.jax import ops as exoplanet_ops  # pylint: disable=g-import-not-at-top
  from jaxoplanet.core import limb_dark as jaxoplanet_ld  # pylint: disable=g-import-not-at-top

  from kepler import limb_dark  # pylint: disable=g-import-not-at-top

  def exoplanet_quadratic(u, b, r):
    # Agol et al.'s normalisation of the quadratic law in the Green's basis.
    u1, u2 = u[0], u[1]
    c = jnp.stack([1 - u1 - 1.5 * u2, u1 + 2 * u2, -0.25 * u2])
    c = c / (jnp.pi * (c[0] + c[1] / 1.5))
    return exoplanet_ops.quad_solution_vector(b, r) @ c - 1

  return {"ours": limb_dark.light_curve, "exoplanet_core": exoplanet_quadratic,
          "jaxoplanet": jaxoplanet_ld.light_curve}


def measure_mode(mode, quick):
  """One threading mode, in a worker of its own: {"times", "agreement", ...}."""
  threads = bench_common.cpu_worker(cpus=1 if mode == "one" else None)
  jax, jnp, np = bench_common.import_jax()
  n = 20_000 if quick else N
  b, r = (jax.device_put(x) for x in bench_common.light_curve_inputs(np, n))
  impls = _implementations(jnp)
  timer = bench_common.Timer(jax, repeats=3 if quick else 7, min_seconds=0.02 if quick else 0.1)
  cases, agreement = {}, {}
  for law, u in bench_common.LAWS.items():
    u = jnp.asarray(u)
    for key, fn in impls.items():
      if key == "exoplanet_core" and law != "quadratic":
        continue
      cases[f"{law}/{key}/value"] = (jax.jit(fn), (u, b, r))
      cases[f"{law}/{key}/value_and_grad"] = (jax.jit(lambda u, b, r, fn=fn: jax.value_and_grad(
          lambda b, r: jnp.sum(fn(u, b, r)), argnums=(0, 1))(b, r)), (u, b, r))
      if key != "ours":
        agreement[f"{law}/{key}"] = float(jnp.max(jnp.abs(fn(u, b, r) - impls["ours"](u, b, r))))
  if mode == "one":  # the numpy peers: one thread only
    peer_cases, peer_agreement = _numpy_peers(jax, jnp, np, impls, b, r)
    cases.update(peer_cases)
    agreement.update(peer_agreement)
  # Each case timed on its own: interleaved with the others, the value-only
  # calls of ours and of jaxoplanet run 2x to 3x slower than alone in the
  # pinned one-thread worker (benchmarks/BENCHMARKS.md).
  times = timer(cases, interleave=False)
  numba_threads = None
  if mode == "one":
    import numba  # pylint: disable=g-import-not-at-top
    numba_threads = numba.get_num_threads()
  return dict(threads, mode=mode, n=n, times=times, agreement=agreement,
              numba_threads=numba_threads, versions=bench_common.versions((
                  "jax", "jaxlib", "jaxoplanet", "exoplanet-core", "batman-package",
                  "pytransit", "numba")))


def _numpy_peers(jax, jnp, np, impls, b, r):
  """(cases, agreement) of batman and PyTransit (light_curve_peers.py), value
  only, with ours and exoplanet-core on the same inputs: every point at r =
  FIXED_R for batman and RoadRunner, which take one radius per call, and
  PyTransit's exact model with a radius per point."""
  import light_curve_peers as peers  # pylint: disable=g-import-not-at-top

  u_np = np.asarray(bench_common.LAWS["quadratic"])
  u = jnp.asarray(u_np)
  b_np, r_np = np.asarray(b), np.asarray(r)
  fixed = jax.device_put(np.full(b_np.shape, FIXED_R))
  fixed_np = np.asarray(fixed)
  fns = {"batman": peers.batman_quadratic, "pytransit_exact": peers.pytransit_exact,
         "roadrunner": peers.RoadRunner()}
  cases = {
      "quadratic/pytransit_exact/value": (fns["pytransit_exact"], (b_np, r_np, u_np)),
      "fixed_r/ours/value": (jax.jit(impls["ours"]), (u, b, fixed)),
      "fixed_r/exoplanet_core/value": (jax.jit(impls["exoplanet_core"]), (u, b, fixed)),
  }
  cases.update({f"fixed_r/{name}/value": (fn, (b_np, fixed_np, u_np)) for name, fn in fns.items()})
  want = np.asarray(impls["ours"](u, b, fixed))
  agreement = {f"r = {FIXED_R}/{name}": float(np.max(np.abs(fn(b_np, fixed_np, u_np) - want)))
               for name, fn in fns.items()}
  return cases, agreement


def measure(args):
  started = bench_common.now()
  return {"started": started, "machine": bench_common.machine(), "results": [
      bench_common.run_worker(__file__, {"mode": mode, "quick": args.quick}, f"{mode}-thread")
      for mode in args.modes]}


def _per_point(t, n, name, ours=None):
  """ns per point of case `name` (min of the repeats), with its time / ours."""
  if name not in t:
    return "n/a"
  mine = t[name]["min"]
  return f"{mine * 1e9 / n:.1f}" + (f" ({mine / t[ours]['min']:.2f}x)" if ours else "")


def report(data):
  results = data["results"]
  out = bench_common.Report("kepler-jax limb-darkening benchmark")
  out.host(data["started"], data["machine"], extra=[
      "versions: " + ", ".join(f"{k} {v}" for k, v in results[0]["versions"].items()),
      f"N = {results[0]['n']:,} points, float64, b uniform in [0, 1.2], r in [0.01, 0.2]; "
      "min of the repeats, each case timed alone (bench_common.Timer); value_and_grad: "
      "jax.value_and_grad of the sum in (b, r). Ratio: the peer's time / ours (> 1: ours is "
      "faster)."])
  rows = []
  for res in results:
    t, n = res["times"], res["n"]
    for law in bench_common.LAWS:
      for what in WHATS:
        ours = f"{law}/ours/{what}"
        rows.append([f"{res['mode']} ({res['cpus_visible']} CPU)", law, what, _per_point(t, n, ours)]
                    + [_per_point(t, n, f"{law}/{key}/{what}", ours)
                       for key in ("exoplanet_core", "jaxoplanet")])
  out.table(["threads", "law", "what", "ours", "exoplanet-core (ratio)", "jaxoplanet (ratio)"], rows)
  one = {r["mode"]: r for r in results}.get("one")
  if one:
    t, n = one["times"], one["n"]
    out.section(f"One thread, quadratic, value: every peer (numba threads: {one['numba_threads']})")
    out.table(["inputs", "ours", "exoplanet-core", "batman", "PyTransit exact",
               "PyTransit RoadRunner"],
              [[label, _per_point(t, n, f"{prefix}/ours/value")]
               + [_per_point(t, n, f"{prefix}/{key}/value", f"{prefix}/ours/value")
                  for key in ("exoplanet_core", "batman", "pytransit_exact", "roadrunner")]
               for label, prefix in (("per-point r", "quadratic"), (f"r = {FIXED_R}", "fixed_r"))])
    out.para(f"batman and RoadRunner take one radius per call: their row is r = {FIXED_R} for "
             "every point. RoadRunner takes times, not separations: its time includes its orbit "
             "arithmetic (a circular edge-on orbit whose separations are b) and its per-radius "
             "set-up.")
    out.section("Targets (one thread, quadratic)")
    rows = []
    for peer, what, inputs, limit in TARGETS:
      prefix = "quadratic" if inputs == "per-point r" else "fixed_r"
      ratio = t[f"{prefix}/{peer}/{what}"]["min"] / t[f"{prefix}/ours/{what}"]["min"]
      rows.append([f"{what}, {inputs}: >= {limit:.0f}x faster than {peer}", f"{ratio:.2f}x",
                   "met" if ratio >= limit else "MISSED"])
    out.table(["target", "measured", "status"], rows)
  out.para("Agreement with ours (max |difference| over the points): " + "; ".join(
      f"{k} {v:.1e}" for k, v in results[0]["agreement"].items()))
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_mode, options=[
      (["--modes"], dict(type=bench_common.modes_type(MODES), default=list(MODES),
                         help="threading modes, comma-separated: one (one pinned thread), all"))])


if __name__ == "__main__":
  main()
