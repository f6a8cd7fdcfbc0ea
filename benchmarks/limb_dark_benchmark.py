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
inputs), and so for the power-2 and nonlinear laws against batman and
RoadRunner (PEER_LAWS), ours also with every gradient, in (u, b, r), and
ours alone for a 17-point tabulated profile (TABULATED); the
targets (TARGETS) marked met or missed; the agreement of the columns. See
benchmarks/BENCHMARKS.md.
"""

import functools

import bench_common

N = 200_000
# One thread: (case, reference case, relation, limit). ">=": time(reference) /
# time(case) >= limit (the case that many times faster); "<=": time(case) /
# time(reference) <= limit.
TARGETS = (
    ("quadratic/ours/value", "quadratic/exoplanet_core/value", ">=", 4.0),
    ("quadratic/ours/value_and_grad", "quadratic/exoplanet_core/value_and_grad", ">=", 4.0),
    ("fixed_r/quadratic/ours/value", "fixed_r/quadratic/batman/value", ">=", 4.0),
    ("fixed_r/quadratic/ours/value", "fixed_r/quadratic/roadrunner/value", ">=", 2.0),
    ("fixed_r/power2/ours/value", "fixed_r/power2/batman/value", ">=", 10.0),
    ("fixed_r/power2/ours/value", "fixed_r/power2/roadrunner/value", "<=", 1.5),
    ("fixed_r/power2/ours/value_and_grad", "fixed_r/power2/ours/value", "<=", 2.0),
    ("fixed_r/nonlinear/ours/value", "fixed_r/nonlinear/batman/value", ">=", 10.0),
    ("fixed_r/nonlinear/ours/value", "fixed_r/nonlinear/roadrunner/value", "<=", 1.5),
    ("fixed_r/nonlinear/ours/value_and_grad", "fixed_r/nonlinear/ours/value", "<=", 2.0),
)
FIXED_R = 0.1  # batman and RoadRunner take one radius per call
# The laws timed against batman and RoadRunner at r = FIXED_R (light_curve_peers.LAWS):
# name -> (kepler.limb_dark.light_curve's law, u in batman's order).
PEER_LAWS = {
    "quadratic": ("polynomial", bench_common.LAWS["quadratic"]),
    "power2": ("power2", (0.6, 0.6)),
    "nonlinear": ("nonlinear", (0.5, 0.1, 0.1, -0.1)),  # I(mu) rises from I(0) = 0.4
}
# The tabulated law, which no peer evaluates exactly: ours alone at r = FIXED_R,
# a 17-point grid of the Kurucz models' kind with a power-2 profile on it.
TABULATED_GRID = (0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.4, 0.5,
                  0.6, 0.7, 0.8, 1.0)
TABULATED = tuple(1 - 0.6 * (1 - m ** 0.6) for m in TABULATED_GRID)
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


def _value_and_grad(jax, jnp, fn, argnums):
  """jit of (u, b, r) -> jax.value_and_grad of sum(fn(u, b, r)) in the arguments
  `argnums` (0: u, 1: b, 2: r)."""
  return jax.jit(jax.value_and_grad(lambda u, b, r: jnp.sum(fn(u, b, r)), argnums=argnums))


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
      cases[f"{law}/{key}/value_and_grad"] = (_value_and_grad(jax, jnp, fn, (1, 2)), (u, b, r))
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
  only, with ours on the same inputs: every point at r = FIXED_R for batman
  and RoadRunner, which take one radius per call, for each law of PEER_LAWS
  (ours also with every gradient, in (u, b, r); exoplanet-core and
  PyTransit's exact model for the quadratic law), and PyTransit's exact model
  with a radius per point."""
  import light_curve_peers as peers  # pylint: disable=g-import-not-at-top

  b_np, r_np = np.asarray(b), np.asarray(r)
  fixed = jax.device_put(np.full(b_np.shape, FIXED_R))
  fixed_np = np.asarray(fixed)
  cases = {"quadratic/pytransit_exact/value": (
      peers.pytransit_exact, (b_np, r_np, np.asarray(PEER_LAWS["quadratic"][1])))}
  agreement = {}
  for law, (ours_law, u_np) in PEER_LAWS.items():
    u_np = np.asarray(u_np)
    u = jnp.asarray(u_np)
    ours = functools.partial(impls["ours"], law=ours_law)
    jax_fns = {"ours": ours}
    fns = {"batman": functools.partial(peers.batman_light_curve, law=law),
           "roadrunner": peers.RoadRunner(law)}
    if law == "quadratic":
      jax_fns["exoplanet_core"] = impls["exoplanet_core"]
      fns["pytransit_exact"] = peers.pytransit_exact
    prefix = f"fixed_r/{law}"
    cases.update({f"{prefix}/{name}/value": (jax.jit(fn), (u, b, fixed))
                  for name, fn in jax_fns.items()})
    cases[f"{prefix}/ours/value_and_grad"] = (_value_and_grad(jax, jnp, ours, (0, 1, 2)),
                                              (u, b, fixed))
    cases.update({f"{prefix}/{name}/value": (fn, (b_np, fixed_np, u_np))
                  for name, fn in fns.items()})
    want = np.asarray(ours(u, b, fixed))
    agreement.update({f"{law}, r = {FIXED_R}/{name}": float(np.max(np.abs(
        fn(b_np, fixed_np, u_np) - want))) for name, fn in fns.items()})
  tabulated = functools.partial(impls["ours"], law="tabulated", mu=TABULATED_GRID)
  values = jnp.asarray(TABULATED)
  cases["fixed_r/tabulated/ours/value"] = (jax.jit(tabulated), (values, b, fixed))
  cases["fixed_r/tabulated/ours/value_and_grad"] = (
      _value_and_grad(jax, jnp, tabulated, (0, 1, 2)), (values, b, fixed))
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


def _case_name(case):
  """('power2, r = 0.1', 'ours', 'value') for case 'fixed_r/power2/ours/value'."""
  *fixed, law, key, what = case.split("/")
  return f"{law}, " + (f"r = {FIXED_R}" if fixed else "per-point r"), key, what


def report(data):
  results = data["results"]
  out = bench_common.Report("kepler-jax limb-darkening benchmark")
  out.host(data["started"], data["machine"], extra=[
      "versions: " + ", ".join(f"{k} {v}" for k, v in results[0]["versions"].items()),
      f"N = {results[0]['n']:,} points, float64, b uniform in [0, 1.2], r in [0.01, 0.2]; "
      "min of the repeats, each case timed alone (bench_common.Timer); value_and_grad: "
      "jax.value_and_grad of the sum in (b, r) (in (u, b, r) at r = 0.1). Ratio: the peer's "
      "time / ours (> 1: ours is faster)."])
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
    out.section(f"One thread, value: every peer (numba threads: {one['numba_threads']})")
    rows = []
    for law, inputs, prefix in ([("quadratic", "per-point r", "quadratic")]
                                + [(law, f"r = {FIXED_R}", f"fixed_r/{law}")
                                   for law in (*PEER_LAWS, "tabulated")]):
      ours, grad = f"{prefix}/ours/value", f"{prefix}/ours/value_and_grad"
      rows.append([law, inputs, _per_point(t, n, ours),
                   _per_point(t, n, grad, ours) if prefix != "quadratic" else "n/a"]
                  + [_per_point(t, n, f"{prefix}/{key}/value", ours)
                     for key in ("exoplanet_core", "batman", "pytransit_exact", "roadrunner")])
    out.table(["law", "inputs", "ours", "ours: value + gradients in (u, b, r) (ratio to value)",
               "exoplanet-core", "batman", "PyTransit exact", "PyTransit RoadRunner"], rows)
    out.para(f"batman and RoadRunner take one radius per call: their rows are r = {FIXED_R} for "
             "every point. batman runs at its default max_err (1 ppm): the integration step its "
             "TransitModel picks for the law, radius and coefficients. RoadRunner takes times, not "
             "separations: its time includes its orbit arithmetic (a circular edge-on orbit whose "
             "separations are b) and its per-radius set-up. The laws' coefficients: "
             + "; ".join(f"{law} {u}" for law, (_, u) in PEER_LAWS.items())
             + f"; tabulated: {len(TABULATED_GRID)} points, I = 1 - 0.6 (1 - mu^0.6) at mu = "
             f"{TABULATED_GRID} (no peer evaluates a table exactly).")
    out.section("Targets (one thread)")
    rows = []
    for case, reference, relation, limit in TARGETS:
      where, _, what = _case_name(case)
      _, peer, peer_what = _case_name(reference)
      peer = peer if peer_what == what else f"{peer} {peer_what}"
      num, den = (reference, case) if relation == ">=" else (case, reference)
      ratio = t[num]["min"] / t[den]["min"]
      rows.append([f"{where}: {what} >= {limit:g}x faster than {peer}" if relation == ">=" else
                   f"{where}: {what} <= {limit:g}x the time of {peer}",
                   f"{ratio:.2f}x ({_per_point(t, n, num)} / {_per_point(t, n, den)})",
                   "met" if (ratio >= limit if relation == ">=" else ratio <= limit) else "MISSED"])
    out.table(["target", "measured (ns per point)", "status"], rows)
  out.para("Agreement with ours (max |difference| over the points): " + "; ".join(
      f"{k} {v:.1e}" for k, v in results[0]["agreement"].items()))
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_mode, options=[
      (["--modes"], dict(type=bench_common.modes_type(MODES), default=list(MODES),
                         help="threading modes, comma-separated: one (one pinned thread), all"))])


if __name__ == "__main__":
  main()
