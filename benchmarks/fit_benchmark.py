"""The step of a transit + radial-velocity fit, on kepler's ops and on jaxoplanet's.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:fit_benchmark [-- --quick]

The example's model (examples/transit_rv_model.py's `predict`, what
examples/transit_rv_fit.py fits): its chi-square under jax.value_and_grad
in all 11 parameters at the example's observations (489 Kepler long
cadences around 20 transits, 40 radial velocities), on kepler.transit and
on jaxoplanet's System light curve, with the exposures (exact; jaxoplanet's
`integrate` at the fewest samples within 1 ppm of the exact mean) and
without; the targets DEMO_TARGETS.

The same model without exposures written on the two lower ops
(`predict_on_ops`), its chi-square under
jax.value_and_grad in all 11 parameters, N = 1e3 and 1e5 light-curve points
(around four transits) and as many radial velocities, float64, in a worker
pinned to one CPU with XLA's intra-op pool off; and each op on the inputs
the model gives it: the light curve's weighted sum against its value and
gradient in (b, r, u); the true anomaly's outputs against jax.jvp, and its
weighted sum against its value and gradient in (M, e); jnp functions of 2
and 4 arrays in and out (x + 1 each) for what the JVP's extra arrays cost.
Each case is timed alone (bench_common.Timer, interleave=False), called
alone from Python and in a compiled loop (`bench_common.in_loop`, as a fit
runs the op); the targets (TARGETS) are judged in the loop. See
benchmarks/BENCHMARKS.md.
"""

import sys

import bench_common

SIZES = (1_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
# Evaluations per compiled loop (bench_common.in_loop), per N: a loop lasts
# about 1 to 10 ms.
LOOP_CALLS = {1_000: 200, 10_000: 50, 100_000: 10}
# The example's model: (case, reference case, what, limit):
# time(case) / time(reference) >= limit.
DEMO_TARGETS = (
    ("demo/jaxoplanet, no exposures", "demo/kepler, no exposures", "without exposures", 10.0),
    ("demo/jaxoplanet, integrated", "demo/kepler", "with the exposures (1 ppm)", 30.0),
)
PPM = 1e-6
DEMO_LOOP_CALLS = 20
# The noise of the data the chi-squares weigh: light curve, radial velocity.
LC_SIGMA, RV_SIGMA = 150e-6, 4.0
# The lower ops: (case, reference case, what, limit):
# time(case) / time(reference) <= limit.
TARGETS = (
    ("lc/ours/value_and_grad", "lc/ours/value", "light curve: value + gradients in (b, r, u)", 1.5),
    ("kepler/ours/jvp", "kepler/ours/forward", "true anomaly: jax.jvp", 1.2),
    ("kepler/ours/value_and_grad", "kepler/ours/value", "true anomaly: jax.value_and_grad", 1.3),
)


def _model_inputs(np, jnp, model, n):
  """(the evaluation point, t_lc, t_rv, the data) for N = n: n light-curve
  times around the transits of epochs -2..1, n radial-velocity times over 60
  days, the data the model at its true parameters plus noise."""
  rng = np.random.default_rng(bench_common.SEED)
  truth = model.TRUTH
  per_transit = -(-n // 4)
  t_lc = np.concatenate([truth["t0"] + k * truth["period"] + np.linspace(-0.2, 0.2, per_transit)
                         for k in (-2, -1, 0, 1)])[:n]
  t_rv = np.sort(rng.uniform(0.0, 60.0, n))
  true_params = {k: jnp.asarray(v) for k, v in truth.items()}
  flux, rv = model.predict_on_ops(true_params, jnp.asarray(t_lc), jnp.asarray(t_rv))
  y_lc = np.asarray(flux) + rng.normal(0, LC_SIGMA, n)
  y_rv = np.asarray(rv) + rng.normal(0, RV_SIGMA, n)
  # Evaluated a little off the truth, as a fit's steps are.
  params = {k: jnp.asarray(v * (1 + 1e-3)) for k, v in truth.items()}
  return params, jnp.asarray(t_lc), jnp.asarray(t_rv), (jnp.asarray(y_lc), jnp.asarray(y_rv))


def _op_inputs(model, params, t_lc, t_rv):
  """The arguments `predict` gives each op at `params`: ((M, e), (u, b, r))."""
  seen = {}

  def true_anomaly(m, e):
    seen["kepler"] = (m, e)
    return model.OURS.true_anomaly(m, e)

  def light_curve(u, b, r):
    seen["lc"] = (u, b, r)
    return model.OURS.light_curve(u, b, r)

  model.predict_on_ops(params, t_lc, t_rv, model.Ops("recording", true_anomaly, light_curve))
  return seen["kepler"], seen["lc"]


def _cases(jax, jnp, np, model, n):
  params, t_lc, t_rv, (y_lc, y_rv) = _model_inputs(np, jnp, model, n)
  (m, e), (u, b, r) = _op_inputs(model, params, t_lc, t_rv)
  rng = np.random.default_rng(bench_common.SEED + 1)
  # Weights of the sums differentiated in reverse mode, tangents of the JVP.
  w = [jnp.asarray(rng.normal(size=b.shape))] + [jnp.asarray(rng.normal(size=m.shape))
                                                  for _ in range(2)]
  cases = {}
  for ops in (model.OURS, model.jaxoplanet_ops()):
    key = "ours" if ops is model.OURS else "jaxoplanet"

    def chi2(p, ops=ops):
      return _chi2(jnp, model.predict_on_ops(p, t_lc, t_rv, ops), (y_lc, y_rv))

    cases[f"model/{key}/value"] = (jax.jit(chi2), (params,))
    cases[f"model/{key}/value_and_grad"] = (jax.jit(jax.value_and_grad(chi2)), (params,))
    # Each op: its value (a weighted sum of its outputs, the scalar a fit
    # differentiates) against jax.value_and_grad of that sum in every input;
    # the true anomaly's outputs as arrays against jax.jvp.
    lc = ops.light_curve
    lc_sum = lambda u, b, r, lc=lc: jnp.vdot(w[0], lc(u, b, r))
    cases[f"lc/{key}/value"] = (jax.jit(lc_sum), (u, b, r))
    cases[f"lc/{key}/value_and_grad"] = (jax.jit(jax.value_and_grad(lc_sum, argnums=(0, 1, 2))),
                                         (u, b, r))
    f = ops.true_anomaly
    f_sum = lambda m, e, f=f: jnp.vdot(w[1], f(m, e)[0]) + jnp.vdot(w[2], f(m, e)[1])
    cases[f"kepler/{key}/forward"] = (jax.jit(f), (m, e))
    cases[f"kepler/{key}/jvp"] = (jax.jit(lambda m, e, dm, de, f=f: jax.jvp(f, (m, e), (dm, de))),
                                  (m, e, w[1], w[2]))
    cases[f"kepler/{key}/value"] = (jax.jit(f_sum), (m, e))
    cases[f"kepler/{key}/value_and_grad"] = (jax.jit(jax.value_and_grad(f_sum, argnums=(0, 1))),
                                             (m, e))
  # What two more arrays in and out cost whatever the op (the JVP has four
  # of each, the forward two): jnp functions of as many arrays, x + 1 each.
  cases["dispatch/2"] = (jax.jit(lambda a, b: (a + 1, b + 1)), (m, e))
  cases["dispatch/4"] = (jax.jit(lambda a, b, c, d: (a + 1, b + 1, c + 1, d + 1)),
                         (m, e, w[1], w[2]))
  # The targets' cases, as a fit runs them: inside a compiled loop, per call.
  zero = jnp.zeros((), jnp.float64)
  calls = LOOP_CALLS[n]
  for case, reference, _, _ in TARGETS:
    for name in (case, reference):
      fn, args = cases[name]
      cases[f"loop/{name}"] = (bench_common.in_loop(jax, jnp, fn, calls), args + (zero,))
  # The two implementations agree (the same model, value and gradient).
  ours = cases["model/ours/value_and_grad"][0](params)
  theirs = cases["model/jaxoplanet/value_and_grad"][0](params)
  agreement = {
      "chi2": float(abs(ours[0] - theirs[0]) / abs(ours[0])),
      "gradient": max(float(abs(ours[1][k] - theirs[1][k]) / (abs(ours[1][k]) + 1e-300))
                      for k in ours[1]),
  }
  return cases, agreement


def _chi2(jnp, predicted, observed):
  """The chi-square of the model's (flux, rv) against the data's."""
  (flux, rv), (y_lc, y_rv) = predicted, observed
  return jnp.sum(jnp.square((flux - y_lc) / LC_SIGMA)) + jnp.sum(jnp.square((rv - y_rv) / RV_SIGMA))


def _demo_cases(jax, jnp, np, model):
  """The example's model: ({case: (jit(value_and_grad(chi2)), (params,))},
  {"samples": jaxoplanet's, "error": its distance from the exact mean,
  "points": (light-curve, RV)})."""
  t_lc, t_rv = (jnp.asarray(x) for x in model.observation_times(model.TRUTH, 7))
  truth = {k: jnp.asarray(v) for k, v in model.TRUTH.items()}
  rng = np.random.default_rng(bench_common.SEED)
  flux, rv = model.predict(truth, t_lc, t_rv)
  y_lc = flux + rng.normal(0, LC_SIGMA, flux.shape)
  y_rv = rv + rng.normal(0, RV_SIGMA, rv.shape)
  names = list(model.TRUTH)
  params = {k: jnp.asarray(v * (1 + 1e-3)) for k, v in model.TRUTH.items()}
  z = jnp.stack([params[k] for k in names])  # one array: what in_loop perturbs
  samples, error = model.fewest_samples(params, t_lc, PPM, most=4097)
  if samples is None:
    raise RuntimeError(f"jaxoplanet's integrate not within {PPM} at 4097 samples ({error:.1e})")
  cases = {}
  for key, backend in (("kepler", model.KEPLER),
                       ("jaxoplanet, integrated", model.jaxoplanet_backend(model.EXPOSURE, samples)),
                       ("kepler, no exposures", model.kepler_backend(0.0)),
                       ("jaxoplanet, no exposures", model.jaxoplanet_backend(0.0))):

    def chi2(z, backend=backend):
      return _chi2(jnp, model.predict(dict(zip(names, z)), t_lc, t_rv, backend), (y_lc, y_rv))

    fn = jax.jit(jax.value_and_grad(chi2))
    cases[f"demo/{key}"] = (fn, (z,))
    cases[f"loop/demo/{key}"] = (bench_common.in_loop(jax, jnp, fn, DEMO_LOOP_CALLS),
                                 (z, jnp.zeros((), jnp.float64)))
  return cases, {"samples": samples, "error": error, "points": (int(t_lc.size), int(t_rv.size))}


def _dispatch_extra(t):
  """What two more arrays in and out cost a jitted function (s per call)."""
  return t["dispatch/4"]["min"] - t["dispatch/2"]["min"]


def _dispatch_floor(t):
  """What the JVP would cost relative to the forward call if its tangents
  were free: the forward call plus _dispatch_extra."""
  forward = t["kepler/ours/forward"]["min"]
  return (forward + _dispatch_extra(t)) / forward


def measure_worker(quick):
  """In a worker pinned to one CPU: {"results": {N: {"times", "agreement", "size"}}, ...}."""
  threads = bench_common.cpu_worker(cpus=1)
  jax, jnp, np = bench_common.import_jax()
  model = bench_common.example_model()
  import kepler  # pylint: disable=g-import-not-at-top

  timer = bench_common.Timer(jax, repeats=3 if quick else 7, min_seconds=0.02 if quick else 0.1)
  print("  the example's model", file=sys.stderr, flush=True)
  cases, demo = _demo_cases(jax, jnp, np, model)
  demo["times"] = bench_common.per_evaluation(timer(cases, interleave=False), DEMO_LOOP_CALLS)
  results = {}
  for n in (QUICK_SIZES if quick else SIZES):
    print(f"  N = {n:,}", file=sys.stderr, flush=True)
    cases, agreement = _cases(jax, jnp, np, model, n)
    times = bench_common.per_evaluation(timer(cases, interleave=False), LOOP_CALLS[n])
    # Per point: of the light curve (N) for the model and the light curve,
    # of the true anomaly's input (2N: light-curve and RV times) for it.
    size = {"model": n, "lc": n, "kepler": int(cases["kepler/ours/forward"][1][0].size)}
    results[str(n)] = {"times": times, "agreement": agreement, "size": size}
  return dict(threads, results=results, demo=demo, versions=bench_common.versions(
      ("jax", "jaxlib", "jaxoplanet"), kepler=kepler.__version__))


def measure(args):
  started = bench_common.now()
  return {"started": started, "machine": bench_common.machine(),
          "result": bench_common.run_worker(__file__, {"quick": args.quick}, "one-thread")}


def report(data):
  res = data["result"]
  out = bench_common.Report("kepler-jax fit benchmark")
  out.host(data["started"], data["machine"], extra=[
      f"worker: {res['cpus_visible']} CPU(s) visible (pinned to {res['pinned']}); "
      f"XLA_FLAGS=`{res['xla_flags']}`",
      "versions: " + ", ".join(f"{k} {v}" for k, v in res["versions"].items()),
      "float64; min of the repeats, each case timed on its own (bench_common.Timer). ns per "
      "point: per light-curve point for the model (N light-curve and N RV points) and the light "
      "curve, per solve for the true anomaly (2N: every time of the model)."])
  demo = res["demo"]
  out.section("The example's model")
  out.para("jax.value_and_grad of the chi-square of examples/transit_rv_model.py's `predict` (the "
           "example's log likelihood; its priors add the same to every row) in its 11 parameters, "
           "%d light-curve points (Kepler long cadences around 20 transits) and %d radial "
           "velocities, 1e-3 off the truth; jaxoplanet's `integrate` at %d samples, within %.1e of "
           "the exact exposure mean. us per evaluation (min of the repeats), in a compiled loop "
           "(%d evaluations in one jitted lax.fori_loop, as a sampler runs them; the targets are "
           "judged here) and called alone from Python." % (
               *demo["points"], demo["samples"], demo["error"], DEMO_LOOP_CALLS))
  t = demo["times"]
  out.table(["backend", "value + gradient, in a loop", "called alone"],
            [[k.split("/", 1)[1], "%.1f us" % (t["loop/" + k]["min"] * 1e6),
              "%.1f us" % (v["min"] * 1e6)] for k, v in t.items() if not k.startswith("loop/")])
  ratio = lambda case, reference, prefix: t[prefix + case]["min"] / t[prefix + reference]["min"]
  out.table(["target: jaxoplanet's time / kepler's", "in a loop", "called alone", "status"], [
      [f"{what} >= {limit:.0f}x", "%.1fx" % ratio(case, reference, "loop/"),
       "%.1fx" % ratio(case, reference, ""),
       "met" if ratio(case, reference, "loop/") >= limit else "MISSED"]
      for case, reference, what, limit in DEMO_TARGETS])
  out.section("The model on the two lower ops (no exposures)")
  rows = []
  for n, r in res["results"].items():
    t, size = r["times"], r["size"]
    for what in ("model/{}/value", "model/{}/value_and_grad", "lc/{}/value",
                 "lc/{}/value_and_grad", "kepler/{}/forward", "kepler/{}/jvp",
                 "kepler/{}/value", "kepler/{}/value_and_grad"):
      ours, theirs = t[what.format("ours")]["min"], t[what.format("jaxoplanet")]["min"]
      label = what.format("op").replace("/op/", ": ").replace("lc:", "light curve:")
      per = size[what.split("/")[0]]
      rows.append([f"{int(n):,}", label, f"{ours * 1e9 / per:.1f}",
                   f"{theirs * 1e9 / per:.1f} ({theirs / ours:.2f}x)"])
  out.table(["N", "what", "ours", "jaxoplanet (ratio jaxoplanet / ours)"], rows)
  out.section("Targets (ours)")
  out.para("Judged in a compiled loop (the op as a fit runs it: "
           + ", ".join(f"{LOOP_CALLS[int(n)]} evaluations at N = {int(n):,}" for n in res["results"])
           + " in one jitted lax.fori_loop, time per evaluation); called alone from Python (one "
           "jitted call per evaluation, jax's cost per array in and out included) for comparison. "
           "us per evaluation in parentheses.")
  rows = []
  for n, r in res["results"].items():
    t = r["times"]
    for case, reference, what, limit in TARGETS:
      cells = []
      for prefix in ("loop/", ""):
        a, b = t[prefix + case]["min"], t[prefix + reference]["min"]
        cells.append((a / b, f"{a / b:.2f}x ({a * 1e6:.1f} / {b * 1e6:.1f})"))
      rows.append([f"{int(n):,}", f"{what} <= {limit}x {reference.split('/')[-1]}", cells[0][1],
                   cells[1][1], "met" if cells[0][0] <= limit else "MISSED"])
  out.table(["N", "target", "in a compiled loop", "called alone", "status"], rows)
  out.para(
      "Called alone, the true anomaly's jax.jvp minus its forward call, against the same "
      "difference for jnp functions of 4 and 2 arrays in and out (x + 1 each: what dispatching "
      "two more arrays costs, whatever the op), us per call: " + "; ".join(
          f"N = {int(n):,}: "
          f"{1e6 * (t['kepler/ours/jvp']['min'] - t['kepler/ours/forward']['min']):.1f}"
          f" against {1e6 * _dispatch_extra(t):.1f}"
          f" (the forward call plus that: {_dispatch_floor(t):.2f}x the forward call)"
          for n, t in ((n, r["times"]) for n, r in res["results"].items())))
  out.para("Agreement of the model on both ops (relative): " + "; ".join(
      f"N = {int(n):,}: chi2 {r['agreement']['chi2']:.1e}, gradient {r['agreement']['gradient']:.1e}"
      for n, r in res["results"].items()))
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_worker)


if __name__ == "__main__":
  main()
