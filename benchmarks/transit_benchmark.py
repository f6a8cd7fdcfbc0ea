"""CPU benchmark of kepler.transit.light_curve against its peers.

    HERMETIC_PYTHON_VERSION=3.12 bazel run //benchmarks:transit_benchmark

One pinned thread, float64, N = 1e5 times spread over four transit durations
of a hot Jupiter (P = 3 d, jaxoplanet's a for a Sun-like star, b = 0.3,
r = 0.1, the quadratic law u = (0.4, 0.26)), ns per time:
- the model without exposures: ours (value; value and the gradient in every
  parameter and u), kepler.limb_dark.light_curve alone on the same
  separations, jaxoplanet 0.2's System light curve (value, value and
  gradient) and batman 2.5 (value);
- with Kepler's long-cadence exposures (29.4 min): ours (exact), jaxoplanet's
  `integrate` and batman's supersampling, each at the fewest samples (odd,
  from a doubling search) that bring it within 1 ppm of ours everywhere,
  that number reported;
- the light-curve evaluations per exposure of ours, in and out of transit
  (benchmarks/exposure_counts.cc runs the same exposure code and counts);
- over one whole orbit (N times from a quarter period before t0, the
  secondary eclipse in the middle): the transit alone, the full model with
  the planet's light (eclipse, phase curve, beaming, ellipsoidal) and the
  transit with transit_times (two epochs), value and value and gradient;
- a fit's step over two transits and two secondary eclipses (2-min
  cadence, two durations either side of each event): jax.value_and_grad
  of a chi-square in every parameter (period, t0, b, r, u, the planet's
  flux), ours against jaxoplanet 0.2's emission light curve (its
  SurfaceSystem: the transit and a uniform planet's eclipse; it has no
  phase curve, beaming or ellipsoidal variation), called alone and in a
  compiled loop (bench_common.in_loop, as a sampler runs it); ours with the
  whole planet's light too;
- the power laws (LAWS: power-2, Claret's four coefficients) at the same
  times: ours (value, value and gradient, with the exposures) and batman's
  value, with the quadratic law's rows beside them;
- the targets (TARGETS, COUNT_TARGETS, FIT_TARGET) marked met or missed;
  the agreement of the columns.
See benchmarks/BENCHMARKS.md.
"""

import functools
import os
import subprocess

import bench_common

N = 100_000
PERIOD, B, R = 3.0, 0.3, 0.1
U = (0.4, 0.26)
EXPOSURE = 29.4 / 1440  # Kepler long cadence, days
PPM = 1e-6
# The evaluation counts' targets: per exposure, in transit (mean) and out.
COUNT_TARGETS = {"in transit": 12.0, "out of transit": 2.0}
# The counting program (exposure_counts.cc), in the runfiles next to this file.
COUNTS_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exposure_counts")
# (case, reference case, relation, limit): "<=": time(case) / time(reference)
# <= limit; ">=": time(reference) / time(case) >= limit.
TARGETS = (
    ("ours/value", "limb_dark/value", "<=", 1.5),
    ("ours/value_and_grad", "ours/value", "<=", 2.5),
    ("orbit/light/value", "orbit/transit/value", "<=", 1.3),
    ("orbit/transit_times/value", "orbit/transit/value", "<=", 1.1),
    ("loop/inside/value_and_grad", "loop/inside/value", "<=", 2.5),
)
# Times inside the transit of an eccentric orbit (its full duration by
# transit_duration, 95% of it), for the gradient's cost there.
INSIDE = {"period": 5.0, "t0": 0.0, "a": 12.0, "b": 0.4, "r": 0.1, "ecc": 0.3, "omega": 0.8}
INSIDE_LOOP_CALLS = 10
# The whole orbit's model: the planet's light, and the transit times of
# epochs 0 and 1 (off the linear ephemeris by 1.4 and -2.9 min).
LIGHT = {"planet_flux": 1e-3, "night_flux": 1e-4, "phase_offset": 0.2, "beaming": 2e-5,
         "ellipsoidal": 3e-5}
TRANSIT_TIMES = (0.001, PERIOD - 0.002)
ORBIT_MODELS = ("transit", "light", "transit_times")
# The power laws' rows: batman's conventions (power2: c, alpha; nonlinear:
# c1..c4), the coefficients of the limb-darkening benchmark.
LAWS = {"power2": (0.6, 0.6), "nonlinear": (0.5, 0.1, 0.1, -0.1)}
# The eclipse fit: 2-min cadence, its loop's evaluations, the light curve's
# noise; the target: jaxoplanet's time / ours in the loop.
FIT_CADENCE, FIT_LOOP_CALLS, FIT_SIGMA = 2 / 1440, 20, 100e-6
FIT_TARGET = 10.0


def jaxoplanet_model(jnp, period, b, r):
  """(model(p, t, samples=None): F - 1 of jaxoplanet 0.2's System light curve at
  the parameters p (period, t0, b, r, u; a from the period, a Sun-like star;
  `samples`: jaxoplanet's exposure integral with that many), the a of
  `period` in stellar radii)."""
  from jaxoplanet.light_curves import limb_dark as lc  # pylint: disable=g-import-not-at-top
  from jaxoplanet.light_curves import transforms  # pylint: disable=g-import-not-at-top
  from jaxoplanet.orbits import keplerian  # pylint: disable=g-import-not-at-top

  def system(p):
    return keplerian.System(keplerian.Central(), bodies=[keplerian.Body(
        period=p["period"], time_transit=p["t0"], impact_param=p["b"], radius=p["r"])])

  def model(p, t, samples=None):
    fn = lc.light_curve(system(p), p["u"])
    if samples:
      fn = transforms.integrate(fn, exposure_time=EXPOSURE, num_samples=samples)
    return fn(t)[..., 0]

  body = system(dict(period=period, t0=0.0, b=b, r=r)).bodies[0]
  return model, float(body.semimajor / body.central_radius)


def jaxoplanet_emission_model(jnp):
  """model(p, t): F - 1 of jaxoplanet 0.2's emission light curve at the
  parameters p (period, t0, b, r, u and fp, the planet's flux: a uniform
  disk, no phase curve), the sum of the star's and the planet's fluxes less
  one; a Sun-like star as jaxoplanet_model's."""
  from jaxoplanet.light_curves import emission  # pylint: disable=g-import-not-at-top
  from jaxoplanet.orbits import keplerian  # pylint: disable=g-import-not-at-top
  from jaxoplanet.starry.orbit import SurfaceSystem  # pylint: disable=g-import-not-at-top
  from jaxoplanet.starry.surface import Surface  # pylint: disable=g-import-not-at-top

  def model(p, t):
    system = SurfaceSystem(keplerian.Central(), Surface(u=tuple(p["u"]))).add_body(
        keplerian.Body(period=p["period"], time_transit=p["t0"], impact_param=p["b"],
                       radius=p["r"]), surface=Surface(amplitude=p["fp"], normalize=False))
    return jnp.sum(emission.light_curve(system)(t), axis=-1) - 1

  return model


def _fit_cases(jax, jnp, np, a, ours):
  """The eclipse fit's cases ({name: (fn, args)}, alone and "loop/" in a
  compiled loop) and the agreement of ours with jaxoplanet on its times.
  Ours keeps a fixed; jaxoplanet's a follows the period (Kepler's third law
  for a Sun-like star)."""
  duration = PERIOD / (np.pi * a) * (1 + R)
  events = [k * PERIOD + offset for k in (0, 1) for offset in (0.0, PERIOD / 2)]
  t = jnp.asarray(np.concatenate([np.arange(c - 2 * duration, c + 2 * duration, FIT_CADENCE)
                                  for c in events]))
  truth = {"period": PERIOD, "t0": 0.0, "b": B, "r": R, "u": jnp.asarray(U), "fp": 5e-4}
  truth = {k: jnp.asarray(v, jnp.float64) for k, v in truth.items()}
  jaxoplanet_fn = jaxoplanet_emission_model(jnp)
  rest = {k: v for k, v in LIGHT.items() if k != "planet_flux"}
  models = {
      "jaxoplanet": jaxoplanet_fn,
      "ours": lambda p, t: ours(p, t, planet_flux=p["fp"]),
      "ours, the whole light": lambda p, t: ours(p, t, planet_flux=p["fp"], **rest),
  }
  rng = np.random.default_rng(bench_common.SEED)
  y = models["ours"](truth, t) + jnp.asarray(rng.normal(0, FIT_SIGMA, t.shape))
  # One array of the parameters (what in_loop perturbs), a little off the
  # truth as a fit's steps are.
  start = jnp.concatenate([jnp.ravel(truth[k]) for k in truth]) * (1 + 1e-3)

  def unpack(z):
    return {"period": z[0], "t0": z[1], "b": z[2], "r": z[3], "u": z[4:6], "fp": z[6]}

  cases = {}
  for name, model in models.items():
    chi2 = lambda z, model=model: jnp.sum(jnp.square((model(unpack(z), t) - y) / FIT_SIGMA))
    fn = jax.jit(jax.value_and_grad(chi2))
    cases[f"fit/{name}"] = (fn, (start,))
    cases[f"loop/fit/{name}"] = (bench_common.in_loop(jax, jnp, fn, FIT_LOOP_CALLS),
                                 (start, jnp.zeros((), jnp.float64)))
  # At the truth, where jaxoplanet's a is ours.
  agreement = float(jnp.max(jnp.abs(models["jaxoplanet"](truth, t) - models["ours"](truth, t))))
  return cases, {"points": int(t.size), "agreement": agreement}


def _batman(np, a, t, samples=1, law="quadratic", u=U):
  """F - 1 from batman at the benchmark's orbit, and the call."""
  import sys  # pylint: disable=g-import-not-at-top
  import types  # pylint: disable=g-import-not-at-top
  import warnings  # pylint: disable=g-import-not-at-top
  sys.modules.setdefault("batman.openmp", types.SimpleNamespace(detect=lambda: False))
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", SyntaxWarning)
    import batman  # pylint: disable=g-import-not-at-top
  params = batman.TransitParams()
  params.t0, params.per, params.rp, params.a = 0.0, PERIOD, R, a
  params.inc = np.degrees(np.arccos(B / a))
  params.ecc, params.w, params.limb_dark, params.u = 0.0, 90.0, law, list(u)
  model = batman.TransitModel(params, t, supersample_factor=samples,
                              exp_time=EXPOSURE if samples > 1 else 0.0)
  return lambda: model.light_curve(params) - 1


def _fewest_samples(np, fn, exact, start=3, most=4097):
  """The fewest odd samples s (3, 5, 9, 17, ...: doubling) with
  max |fn(s) - exact| <= PPM, and that error; (None, error at `most`)."""
  s = start
  while True:
    error = float(np.max(np.abs(np.asarray(fn(s)) - exact)))
    if error <= PPM:
      return s, error
    if s >= most:
      return None, error
    s = 2 * s - 1


def _evaluation_counts(np, a, t, exact):
  """{"in transit" | "out of transit": (mean, max, exposures)}: the
  light-curve evaluations of each exposure's exact mean (exposure_counts.cc),
  in transit where the mean is not 0; or a string saying why not."""
  if not os.access(COUNTS_PROGRAM, os.X_OK):
    return f"not counted: {COUNTS_PROGRAM} missing (run through Bazel)"
  args = [COUNTS_PROGRAM] + [repr(float(x)) for x in (PERIOD, 0.0, a, B, R, 0.0, 0.0, *U)]
  lines = "".join(f"{x!r} {EXPOSURE!r}\n" for x in np.asarray(t, np.float64).tolist())
  out = subprocess.run(args, input=lines, capture_output=True, text=True, check=True, timeout=120)
  counts = np.array([int(x) for x in out.stdout.split()])
  if counts.size != len(t):
    return f"not counted: {counts.size} counts for {len(t)} times"
  inside = np.asarray(exact) != 0
  return {name: (float(np.mean(counts[m])), int(np.max(counts[m])), int(np.sum(m)))
          for name, m in (("in transit", inside), ("out of transit", ~inside)) if np.any(m)}


def measure_mode(quick):
  threads = bench_common.cpu_worker(cpus=1)
  jax, jnp, np = bench_common.import_jax()
  from kepler import limb_dark  # pylint: disable=g-import-not-at-top
  from kepler import transit  # pylint: disable=g-import-not-at-top

  n = 20_000 if quick else N
  jaxoplanet_fn, a = jaxoplanet_model(jnp, PERIOD, B, R)
  duration = PERIOD / (np.pi * a) * (1 + R)
  t_host = np.linspace(-2 * duration, 2 * duration, n)
  t = jax.device_put(t_host)
  p = {"period": jnp.float64(PERIOD), "t0": jnp.float64(0.0), "b": jnp.float64(B),
       "r": jnp.float64(R), "u": jnp.asarray(U)}

  def ours(p, t, exposure=0.0, **extra):
    # a: jaxoplanet's for the period (fixed in the fit).
    return transit.light_curve(t, period=p["period"], t0=p["t0"], a=a, b=p["b"], r=p["r"],
                               u=p["u"], exposure_time=exposure, **extra)

  def value_and_grad(fn):
    return jax.jit(jax.value_and_grad(lambda p, t: jnp.sum(fn(p, t))))

  # The separations ours computes, for the light curve alone.
  phase = 2 * np.pi * t_host / PERIOD
  sep = a * np.sqrt(np.sin(phase)**2 + (B / a)**2 * np.cos(phase)**2)
  sep = jax.device_put(np.where(np.cos(phase) > 0, sep, 2.0))
  cases = {
      "limb_dark/value": (jax.jit(lambda b: limb_dark.light_curve(p["u"], b, p["r"])), (sep,)),
      "ours/value": (jax.jit(ours), (p, t)),
      "ours/value_and_grad": (value_and_grad(ours), (p, t)),
      "jaxoplanet/value": (jax.jit(jaxoplanet_fn), (p, t)),
      "jaxoplanet/value_and_grad": (value_and_grad(jaxoplanet_fn), (p, t)),
  }
  batman_value = _batman(np, a, t_host)
  exact = np.asarray(ours(p, t, EXPOSURE))
  counts = _evaluation_counts(np, a, t_host, exact)
  agreement = {
      "jaxoplanet": float(np.max(np.abs(np.asarray(jaxoplanet_fn(p, t)) - ours(p, t)))),
      "batman": float(np.max(np.abs(batman_value() - ours(p, t)))),
  }
  t_orbit = jax.device_put(np.linspace(-PERIOD / 4, 3 * PERIOD / 4, n))
  extras = {"transit": {}, "light": LIGHT,
            "transit_times": {"transit_times": jnp.asarray(TRANSIT_TIMES)}}
  for name in ORBIT_MODELS:
    orbit = functools.partial(ours, **extras[name])
    cases[f"orbit/{name}/value"] = (jax.jit(orbit), (p, t_orbit))
    cases[f"orbit/{name}/value_and_grad"] = (value_and_grad(orbit), (p, t_orbit))
  half = float(transit.transit_duration(**{k: v for k, v in INSIDE.items() if k != "t0"})) / 2
  t_inside = jax.device_put(np.linspace(-0.95 * half, 0.95 * half, n))
  names = list(INSIDE)
  z = jnp.asarray([INSIDE[k] for k in names])
  inside = lambda z, t: transit.light_curve(t, u=jnp.asarray(U), **dict(zip(names, z)))
  for what, fn in (("value", jax.jit(inside)),
                   ("value_and_grad", jax.jit(jax.value_and_grad(
                       lambda z, t: jnp.sum(inside(z, t)))))):
    cases[f"inside/{what}"] = (fn, (z, t_inside))
    cases[f"loop/inside/{what}"] = (bench_common.in_loop(jax, jnp, fn, INSIDE_LOOP_CALLS),
                                    (z, t_inside, jnp.zeros((), jnp.float64)))
  law_batman = {}
  for law, u in LAWS.items():
    q = dict(p, u=jnp.asarray(u))
    of_law = functools.partial(ours, law=law)
    cases[f"{law}/value"] = (jax.jit(of_law), (q, t))
    cases[f"{law}/value_and_grad"] = (value_and_grad(of_law), (q, t))
    cases[f"{law}/exposure/value"] = (
        jax.jit(functools.partial(ours, law=law, exposure=EXPOSURE)), (q, t))
    law_batman[f"batman/{law}/value"] = (_batman(np, a, t_host, law=law, u=u), ())
    agreement[f"batman, {law}"] = float(np.max(np.abs(
        law_batman[f"batman/{law}/value"][0]() - np.asarray(of_law(q, t)))))
  exposed = functools.partial(ours, exposure=EXPOSURE)
  cases["ours/exposure/value"] = (jax.jit(exposed), (p, t))
  cases["ours/exposure/value_and_grad"] = (value_and_grad(exposed), (p, t))
  samples = {}
  s, error = _fewest_samples(np, lambda k: jax.jit(functools.partial(
      jaxoplanet_fn, samples=k))(p, t), exact)
  samples["jaxoplanet"] = (s, error)
  if s:
    integrated = functools.partial(jaxoplanet_fn, samples=s)
    cases["jaxoplanet/exposure/value"] = (jax.jit(integrated), (p, t))
    cases["jaxoplanet/exposure/value_and_grad"] = (value_and_grad(integrated), (p, t))
  s, error = _fewest_samples(np, lambda k: _batman(np, a, t_host, k)(), exact, most=1025)
  samples["batman"] = (s, error)
  fit_cases, fit = _fit_cases(jax, jnp, np, a, ours)
  timer = bench_common.Timer(jax, repeats=3 if quick else 7, min_seconds=0.02 if quick else 0.1)
  times = bench_common.per_evaluation(timer(cases, interleave=False), INSIDE_LOOP_CALLS)
  fit["times"] = bench_common.per_evaluation(timer(fit_cases, interleave=False), FIT_LOOP_CALLS)
  numpy_timer = bench_common.Timer(jax, repeats=3 if quick else 7,
                                   min_seconds=0.02 if quick else 0.1)
  times.update(numpy_timer({"batman/value": (batman_value, ())}, interleave=False))
  times.update(numpy_timer(law_batman, interleave=False))
  if samples["batman"][0]:
    times.update(numpy_timer({"batman/exposure/value": (
        _batman(np, a, t_host, samples["batman"][0]), ())}, interleave=False))
  return dict(threads, n=n, a=a, times=times, agreement=agreement, samples=samples, counts=counts,
              fit=fit,
              versions=bench_common.versions(("jax", "jaxlib", "jaxoplanet", "batman-package")))


def measure(args):
  started = bench_common.now()
  return {"started": started, "machine": bench_common.machine(),
          "result": bench_common.run_worker(__file__, {"quick": args.quick}, "one-thread")}


def _cell(t, n, case, reference=None):
  if case not in t or "error" in t[case]:
    return "n/a"
  text = bench_common.ns(t[case]["min"], n)
  if reference and reference in t and "error" not in t[reference]:
    text += f" ({t[case]['min'] / t[reference]['min']:.2f}x)"
  return text


def report(data):
  res = data["result"]
  t, n = res["times"], res["n"]
  out = bench_common.Report("kepler-jax transit-model benchmark")
  out.host(data["started"], data["machine"], extra=[
      "versions: " + ", ".join(f"{k} {v}" for k, v in res["versions"].items()),
      f"one pinned thread; N = {n:,} times over four transit durations; P = {PERIOD} d, "
      f"a = {res['a']:.4f} (jaxoplanet's, a Sun-like star), b = {B}, r = {R}, u = {U}; "
      "float64; min of the repeats, each case timed alone; value_and_grad: jax.value_and_grad "
      "of the sum in every parameter and u. Ratios in parentheses: the case's time / ours."])
  rows = []
  for what in ("value", "value_and_grad"):
    rows.append(["no exposure", what, _cell(t, n, f"ours/{what}"),
                 _cell(t, n, f"limb_dark/{what}", f"ours/{what}"),
                 _cell(t, n, f"jaxoplanet/{what}", f"ours/{what}"),
                 _cell(t, n, f"batman/{what}", f"ours/{what}")])
  for what in ("value", "value_and_grad"):
    rows.append([f"exposure {EXPOSURE * 1440:.1f} min", what, _cell(t, n, f"ours/exposure/{what}"),
                 "n/a", _cell(t, n, f"jaxoplanet/exposure/{what}", f"ours/exposure/{what}"),
                 _cell(t, n, f"batman/exposure/{what}", f"ours/exposure/{what}")])
  out.table(["model", "what", "ours", "limb_dark alone (ratio)", "jaxoplanet (ratio)",
             "batman (ratio)"], rows)
  out.para("The power laws at the same times (" + "; ".join(
      f"{law} {u}" for law, u in LAWS.items()) + "), ns per time, and the quadratic law's "
      "rows; batman's value at its default 1 ppm (its ratio: batman's time / ours):")
  law_rows = [["quadratic", _cell(t, n, "ours/value"), _cell(t, n, "ours/value_and_grad"),
               _cell(t, n, "ours/exposure/value"), _cell(t, n, "batman/value", "ours/value")]]
  law_rows += [[law, _cell(t, n, f"{law}/value"), _cell(t, n, f"{law}/value_and_grad"),
                _cell(t, n, f"{law}/exposure/value"),
                _cell(t, n, f"batman/{law}/value", f"{law}/value")] for law in LAWS]
  out.table(["law", "value", "value_and_grad",
             f"exposure {EXPOSURE * 1440:.1f} min, value", "batman, value (ratio)"], law_rows)
  out.para("Over one whole orbit (N times, the eclipse in the middle), ns per time; in "
           "parentheses the time over the transit alone's: the planet's light "
           f"({', '.join(f'{k} {v:g}' for k, v in LIGHT.items())}), transit_times "
           f"{TRANSIT_TIMES}.")
  out.table(["model", "value", "value_and_grad"], [
      [name] + [_cell(t, n, f"orbit/{name}/{what}", f"orbit/transit/{what}")
                for what in ("value", "value_and_grad")] for name in ORBIT_MODELS])
  out.para("Inside the transit of an eccentric orbit (" + ", ".join(
      f"{k} {v:g}" for k, v in INSIDE.items()) + "; N times over 95% of its duration), ns "
      "per time, called alone and in a compiled loop "
      f"({INSIDE_LOOP_CALLS} evaluations in one jitted lax.fori_loop, as a sampler runs them; "
      "called alone, the gradient's 13 fresh result arrays cost page faults that a loop's "
      "reused buffers do not): value " + _cell(t, n, "inside/value") + " and "
      + _cell(t, n, "loop/inside/value") + " in a loop; value + gradient "
      + _cell(t, n, "inside/value_and_grad", "inside/value") + " and "
      + _cell(t, n, "loop/inside/value_and_grad", "loop/inside/value") + " in a loop.")
  out.para("Samples per exposure for 1 ppm of the exact mean (ours): " + "; ".join(
      f"{peer} {s if s else 'not reached'} (max error {err:.1e})"
      for peer, (s, err) in res["samples"].items())
      + ". jaxoplanet: `integrate(..., num_samples=s)` (order 0); batman: "
      "`supersample_factor=s, exp_time=T`.")
  counts = res["counts"]
  if isinstance(counts, str):
    out.para(f"Light-curve evaluations per exposure: {counts}.")
  else:
    out.para("Light-curve evaluations per exposure of ours (the exact mean; counted by "
             "benchmarks/exposure_counts.cc, the same header): " + "; ".join(
                 f"{name}: {mean:.2f} on average, at most {most} ({k:,} exposures)"
                 for name, (mean, most, k) in counts.items()) + ".")
  fit, ft = res["fit"], res["fit"]["times"]
  out.para(f"A fit's step over two transits and two secondary eclipses ({fit['points']:,} "
           "points, 2-min cadence): jax.value_and_grad of the chi-square in period, t0, b, r, u "
           f"and the planet's flux, us per evaluation, in a compiled loop ({FIT_LOOP_CALLS} "
           "evaluations in one jitted lax.fori_loop) and called alone; jaxoplanet 0.2's emission "
           "light curve expresses the transit and a uniform planet's eclipse, not the phase "
           f"curve. max |jaxoplanet - ours|: {fit['agreement']:.1e}.")
  names = [k.split("/", 1)[1] for k in ft if not k.startswith("loop/")]
  out.table(["model", "in a loop", "called alone"], [
      [name, "%.1f us" % (ft["loop/fit/" + name]["min"] * 1e6),
       "%.1f us" % (ft["fit/" + name]["min"] * 1e6)] for name in names])
  rows = []
  for case, reference, relation, limit in TARGETS:
    num, den = (reference, case) if relation == ">=" else (case, reference)
    ratio = t[num]["min"] / t[den]["min"]
    met = ratio >= limit if relation == ">=" else ratio <= limit
    rows.append([f"{case} {relation} {limit:g}x {reference}", f"{ratio:.2f}x",
                 "met" if met else "MISSED"])
  ratio = ft["loop/fit/jaxoplanet"]["min"] / ft["loop/fit/ours"]["min"]
  rows.append([f"eclipse fit: jaxoplanet >= {FIT_TARGET:g}x ours (in a loop)", f"{ratio:.1f}x",
               "met" if ratio >= FIT_TARGET else "MISSED"])
  if not isinstance(counts, str):
    for name, limit in COUNT_TARGETS.items():
      if name in counts:
        mean = counts[name][0]
        rows.append([f"evaluations per exposure {name} <= {limit:g} on average", f"{mean:.2f}",
                     "met" if mean <= limit else "MISSED"])
  out.section("Targets (one thread)")
  out.table(["target", "measured", "status"], rows)
  out.para("Agreement with ours without exposures (max |difference|): " + "; ".join(
      f"{k} {v:.1e}" for k, v in res["agreement"].items()))
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, worker=measure_mode)


if __name__ == "__main__":
  main()
