"""Fits a planet's transit light curve and radial velocities with kepler.transit.

    python examples/transit_rv_fit.py [OUT.png] [--chains 4] [--warmup 250]
        [--samples 400] [--seed 7]

The steps, each a function of this module that can be used on its own:

1. `simulate`: noisy observations from known parameters (`TRUTH`) and a fixed
   seed: Kepler long-cadence photometry around 20 transits (quadratic limb
   darkening, each point the mean over its 29.4-minute exposure) and radial
   velocities over two months, from an eccentric Kepler orbit.
2. `fit_map`: the maximum a posteriori, found with scipy's L-BFGS-B on the
   jitted value and gradient (`jax.value_and_grad`) of the log posterior.
3. `sample`: the posterior, sampled with numpyro's NUTS from the MAP, the
   chains vectorised (one progress bar on a terminal, none otherwise).
4. `time_one_thread`: the wall time of one value + gradient of the log
   likelihood (`log_likelihood`) on kepler.transit and on jaxoplanet's
   System light curve, with the exposures (jaxoplanet's `integrate` at the
   fewest samples that bring it within 1 ppm of the exact mean:
   `fewest_samples`) and without, as a sampler's chain runs it: in a
   compiled loop, on one pinned thread (`time_value_and_grad` in a child
   process).
5. `make_figure`, `write_results`, `print_table`: one matplotlib figure (PNG),
   a JSON file of the numbers beside it (OUT.json), and a table on stdout.

The model is written once (`predict`, examples/transit_rv_model.py), on a
backend passed in (`KEPLER`, `kepler_backend`, `jaxoplanet_backend`), so
that the timing compares the same model on two implementations. Needs the
packages of tools/requirements/requirements_demo_lock_3_12.txt; see
docs/demo.md.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

_START = time.perf_counter()

import jax  # pylint: disable=g-import-not-at-top

jax.config.update("jax_enable_x64", True)

# pylint: disable=g-import-not-at-top,wrong-import-position
import jax.numpy as jnp
import matplotlib
from matplotlib.figure import Figure
import numpy as np
import numpyro
from numpyro import diagnostics
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, init_to_value
from numpyro.infer import util as numpyro_util
from scipy import optimize

import kepler
import transit_rv_model
from transit_rv_model import (EXPOSURE, KEPLER, LC_TRANSITS, LC_WINDOW, RV_POINTS, TRUTH,  # pylint: disable=unused-import
                              jaxoplanet_backend, kepler_backend, limb_darkening,
                              observation_times, predict)
# pylint: enable=g-import-not-at-top,wrong-import-position

# ---------------------------------------------------------------------------
# The parameters, their true values, the data's layout.

# The fitted parameters, in the order of every table, with a label and a unit.
PARAMS = collections.OrderedDict([
    ("period", ("period P", "d")),
    ("t0", ("mid-transit time t0", "d")),
    ("r", ("radius ratio Rp/R*", "")),
    ("b", ("impact parameter b", "")),
    ("a_rs", ("a/R*", "")),
    ("sqrt_e_cosw", ("sqrt(e) cos w", "")),
    ("sqrt_e_sinw", ("sqrt(e) sin w", "")),
    ("q1", ("limb darkening q1", "")),
    ("q2", ("limb darkening q2", "")),
    ("k_rv", ("RV semi-amplitude K", "m/s")),
    ("gamma", ("systemic velocity", "m/s")),
])

# The quantities computed from them that the table and the figure show too.
DERIVED = collections.OrderedDict([
    ("e", ("eccentricity e", "")),
    ("omega_deg", ("argument of periastron w", "deg")),
    ("u1", ("quadratic law u1", "")),
    ("u2", ("quadratic law u2", "")),
    ("rho_star", ("stellar density", "g/cm^3")),
])

SEED = 7
# The observations' layout (LC_TRANSITS, LC_WINDOW, EXPOSURE, RV_POINTS,
# RV_SPAN) is the model's (observation_times); their noise:
LC_SIGMA = 150e-6  # per long cadence, relative flux
RV_SIGMA = 4.0  # m/s
# The star's density from its spectrum, to this relative precision: long
# cadences blur ingress and egress, so that the light curve alone leaves b
# and a/R* degenerate; the density ties a/R* to the period, as in fits of
# Kepler's long-cadence planets.
RHO_RELATIVE_SIGMA = 0.1
# The speed targets of the timing: jaxoplanet's time over kepler's for one
# value + gradient, without exposures and with them (at 1 ppm).
TARGET_SPEEDUP = {"no exposures": 10.0, "exposures": 30.0}
# The evaluations of each timed loop (time_value_and_grad).
LOOP_EVALUATIONS = 50
PPM = 1e-6

# What an astronomer would bring to the fit from a period search: the
# ephemeris to a few minutes, which sets the boxes of the priors on P and t0.
PERIOD_GUESS, T0_GUESS = 4.235, 12.47
E_MAX = 0.9  # the prior on (sqrt(e) cos w, sqrt(e) sin w): the disk e < E_MAX

G_CGS = 6.6743e-8  # the gravitational constant, cm^3 g^-1 s^-2

# ---------------------------------------------------------------------------
# The model, on swappable backends: examples/transit_rv_model.py (also what
# benchmarks/fit_benchmark.py times).

def derived(params):
  """The quantities of DERIVED from the fitted ones (numpy arrays or scalars)."""
  h = np.asarray(params["sqrt_e_cosw"])
  k = np.asarray(params["sqrt_e_sinw"])
  q1, q2 = np.asarray(params["q1"]), np.asarray(params["q2"])
  period_s = np.asarray(params["period"]) * 86400.0
  return {
      "e": h**2 + k**2,
      "omega_deg": np.degrees(np.arctan2(k, h)),
      "u1": 2 * np.sqrt(q1) * q2,
      "u2": np.sqrt(q1) * (1 - 2 * q2),
      # Kepler's third law with the planet's mass neglected.
      "rho_star": 3 * np.pi * np.asarray(params["a_rs"]) ** 3 / (G_CGS * period_s**2),
  }


# ---------------------------------------------------------------------------
# The data.


def simulate(seed=SEED, truth=None):
  """Noisy observations of the model at `truth` (default TRUTH): a dict of numpy arrays.

  t_lc, flux, flux_err: the long cadences within +-0.25 d of 20
  mid-transits (observation_times), each the flux averaged over its
  29.4-minute exposure, Gaussian noise of 150 ppm. t_rv, rv, rv_err: 40
  times drawn uniformly over 60 days, Gaussian noise of 4 m/s. rho_star,
  rho_star_err: the star's density (g/cm^3) measured to 10%. The same seed
  gives the same data.
  """
  truth = TRUTH if truth is None else truth
  t_lc, t_rv = observation_times(truth, seed)
  rng = np.random.default_rng(seed)
  flux, rv = jax.jit(predict)(_as_jnp(truth), jnp.asarray(t_lc), jnp.asarray(t_rv))
  return {
      "t_lc": t_lc,
      "flux": np.asarray(flux) + rng.normal(0.0, LC_SIGMA, t_lc.shape),
      "flux_err": LC_SIGMA,
      "t_rv": t_rv,
      "rv": np.asarray(rv) + rng.normal(0.0, RV_SIGMA, t_rv.shape),
      "rv_err": RV_SIGMA,
      "rho_star": derived(truth)["rho_star"] * (1 + RHO_RELATIVE_SIGMA * rng.normal()),
      "rho_star_err": derived(truth)["rho_star"] * RHO_RELATIVE_SIGMA,
  }


def _as_jnp(params):
  return {name: jnp.asarray(value, dtype=jnp.float64) for name, value in params.items()}


# ---------------------------------------------------------------------------
# The posterior: priors, likelihood, MAP, NUTS.


def priors():
  """The prior of each fitted parameter: a dict of numpyro distributions."""
  return {
      "period": dist.Uniform(PERIOD_GUESS - 0.02, PERIOD_GUESS + 0.02),
      "t0": dist.Uniform(T0_GUESS - 0.05, T0_GUESS + 0.05),
      "r": dist.Uniform(0.01, 0.3),
      "b": dist.Uniform(0.0, 1.0),
      "a_rs": dist.LogUniform(2.0, 50.0),
      "sqrt_e_cosw": dist.Uniform(-1.0, 1.0),
      "sqrt_e_sinw": dist.Uniform(-1.0, 1.0),
      "q1": dist.Uniform(0.0, 1.0),
      "q2": dist.Uniform(0.0, 1.0),
      "k_rv": dist.Uniform(0.0, 200.0),
      "gamma": dist.Uniform(-100.0, 100.0),
  }


def numpyro_model(backend=KEPLER):
  """The numpyro model of the data (a function of the data dict) on the given backend."""

  def model(data):
    params = {name: numpyro.sample(name, prior) for name, prior in priors().items()}
    ecc = params["sqrt_e_cosw"]**2 + params["sqrt_e_sinw"]**2
    numpyro.factor("e_below_max", jnp.where(ecc < E_MAX, 0.0, -jnp.inf))
    flux, rv = predict(params, data["t_lc"], data["t_rv"], backend)
    numpyro.sample("lc", dist.Normal(flux, data["flux_err"]), obs=data["flux"])
    numpyro.sample("rv_obs", dist.Normal(rv, data["rv_err"]), obs=data["rv"])
    rho = 3 * jnp.pi * params["a_rs"]**3 / (G_CGS * (params["period"] * 86400.0)**2)
    numpyro.sample("rho_star_obs", dist.Normal(rho, data["rho_star_err"]), obs=data["rho_star"])

  return model


def log_posterior(data, backend=KEPLER):
  """(f, to_params, from_params): f(z) = log posterior of the unconstrained vector z.

  z holds the fitted parameters mapped to the real line (numpyro's transforms
  of their priors' supports); to_params(z) gives the parameter dict, and
  from_params(dict) the z of a dict. f is the density of the parameters
  themselves (no Jacobian of the transforms), so its maximum is the MAP.
  """
  model = numpyro_model(backend)
  data = {key: jnp.asarray(value) for key, value in data.items()}
  to_real = {name: dist.transforms.biject_to(prior.support) for name, prior in priors().items()}

  def to_params(z):
    return {name: to_real[name](z[i]) for i, name in enumerate(PARAMS)}

  def from_params(params):
    return jnp.stack([to_real[name].inv(jnp.asarray(params[name], jnp.float64)) for name in PARAMS])

  def f(z):
    value, _ = numpyro_util.log_density(model, (data,), {}, to_params(z))
    return value

  return f, to_params, from_params


def log_likelihood(data, backend=KEPLER):
  """(f, to_params, from_params) as log_posterior's, f(z) the log likelihood
  of the light curve and the radial velocities (normal errors) alone. It is
  the part of the posterior that the backends compute, and what
  benchmarks/fit_benchmark.py judges the speed targets on. The priors are
  numpyro's code, the same for both backends, and are left out."""
  _, to_params, from_params = log_posterior(data, backend)
  data = {key: jnp.asarray(value) for key, value in data.items()}

  def f(z):
    flux, rv = predict(to_params(z), data["t_lc"], data["t_rv"], backend)
    return -0.5 * (jnp.sum(jnp.square((flux - data["flux"]) / data["flux_err"])) +
                   jnp.sum(jnp.square((rv - data["rv"]) / data["rv_err"])))

  return f, to_params, from_params


def initial_guess(data):
  """A starting point for the MAP read off the data, not the truth."""
  depth = -np.percentile(data["flux"], 1)  # the bottom of the transits
  return {
      "period": PERIOD_GUESS,
      "t0": T0_GUESS,
      "r": float(np.sqrt(max(depth, 1e-4))),
      "b": 0.5,
      "a_rs": 10.0,
      "sqrt_e_cosw": 0.1,
      "sqrt_e_sinw": 0.1,
      "q1": 0.5,
      "q2": 0.4,
      "k_rv": float(np.ptp(data["rv"]) / 2),
      "gamma": float(np.mean(data["rv"])),
  }


def fit_map(data, backend=KEPLER, start=None):
  """The maximum a posteriori: (params dict of floats, info dict).

  scipy.optimize.minimize (L-BFGS-B) on the negative log posterior in the
  unconstrained coordinates, with its value and gradient from one jitted
  jax.value_and_grad. info: iterations, evaluations, seconds, the log posterior.
  """
  f, to_params, from_params = log_posterior(data, backend)
  value_and_grad = jax.jit(jax.value_and_grad(lambda z: -f(z)))

  def fun(z):
    value, grad = value_and_grad(jnp.asarray(z))
    return float(value), np.asarray(grad, dtype=np.float64)

  start_time = time.perf_counter()
  z0 = np.asarray(from_params(initial_guess(data) if start is None else start))
  result = optimize.minimize(fun, z0, jac=True, method="L-BFGS-B",
                             options={"maxiter": 2000, "gtol": 1e-9})
  params = {name: float(value) for name, value in to_params(jnp.asarray(result.x)).items()}
  info = {"iterations": int(result.nit), "evaluations": int(result.nfev),
          "seconds": time.perf_counter() - start_time, "log_posterior": -float(result.fun),
          "message": str(result.message),
          "z_covariance": _laplace_covariance(fun, result.x)}
  return params, info


def _laplace_covariance(fun, z, step=1e-4):
  """The inverse Hessian of fun at its minimum z, as nested lists; None if not positive definite.

  The Hessian is central differences of the gradient (2 x 11 more calls of
  the jitted function, nothing more to compile): the Laplace approximation of
  the posterior in the unconstrained coordinates, which `sample` hands NUTS
  as its first mass matrix.
  """
  columns = []
  for i in range(len(z)):
    dz = np.zeros_like(z)
    dz[i] = step
    columns.append((fun(z + dz)[1] - fun(z - dz)[1]) / (2 * step))
  hessian = np.array(columns)
  hessian = (hessian + hessian.T) / 2
  try:
    np.linalg.cholesky(hessian)
  except np.linalg.LinAlgError:
    return None
  return np.linalg.inv(hessian).tolist()


def sample(data, init, backend=KEPLER, chains=4, warmup=250, samples=400, seed=SEED, progress_bar=None,
           z_covariance=None):
  """NUTS from `init` (the MAP): (draws, info).

  draws: a dict name -> array (chains, samples) for PARAMS. The chains are
  vectorised (one process, one compiled program; numpyro's
  chain_method="vectorized"), with a dense mass matrix adapted in the
  warm-up, starting from z_covariance (the MAP's Laplace approximation, in
  the order of PARAMS; None: the identity). A good first mass matrix spares
  the first warm-up iterations their longest trajectories. The progress bar
  shows on a terminal only (progress_bar=None). info: seconds, divergences,
  the lowest effective sample size and the highest split R-hat over the
  parameters.
  """
  if progress_bar is None:
    progress_bar = sys.stdout.isatty()
  names = tuple(PARAMS)
  mass = None if z_covariance is None else {names: jnp.asarray(z_covariance)}
  kernel = NUTS(numpyro_model(backend), dense_mass=[names], inverse_mass_matrix=mass,
                init_strategy=init_to_value(values=init))
  mcmc = MCMC(kernel, num_warmup=warmup, num_samples=samples, num_chains=chains,
              chain_method="vectorized", progress_bar=progress_bar)
  start_time = time.perf_counter()
  data = {key: jnp.asarray(value) for key, value in data.items()}
  mcmc.run(jax.random.PRNGKey(seed), data, extra_fields=("diverging",))
  by_chain = mcmc.get_samples(group_by_chain=True)
  draws = {name: np.asarray(by_chain[name]) for name in PARAMS}
  seconds = time.perf_counter() - start_time
  info = {
      "seconds": seconds,
      "chains": chains, "warmup": warmup, "samples": samples,
      "divergences": int(np.sum(np.asarray(mcmc.get_extra_fields()["diverging"]))),
      "min_ess": float(min(diagnostics.effective_sample_size(draws[n]) for n in PARAMS)),
      "max_r_hat": float(max(diagnostics.split_gelman_rubin(draws[n]) for n in PARAMS)),
  }
  return draws, info


# ---------------------------------------------------------------------------
# The comparison: one value + gradient on kepler.transit and on jaxoplanet.


def fewest_samples(data, params):
  """(s, error): the fewest samples of jaxoplanet's `integrate` within PPM
  of the exact exposure mean at the data's times, at `params`
  (transit_rv_model.fewest_samples)."""
  return transit_rv_model.fewest_samples(_as_jnp(params), jnp.asarray(data["t_lc"]), PPM)


def timing_backends(samples):
  """The four backends of the comparison: (kepler, jaxoplanet) with the
  exposures (jaxoplanet's `integrate` at `samples`; left out if None) and
  without."""
  backends = [KEPLER] + ([jaxoplanet_backend(EXPOSURE, samples)] if samples else [])
  return backends + [kepler_backend(0.0), jaxoplanet_backend(0.0)]


def _compiled_loop(value_and_grad, count):
  """jit of `count` evaluations of value_and_grad in one lax.fori_loop, as a
  sampler runs them: each at the last point moved by 1e-12 times its
  gradient, so that none is hoisted out of the loop."""

  def loop(z):
    def body(_, carry):
      total, point = carry
      value, grad = value_and_grad(point)
      return total + value, point + 1e-12 * grad

    return jax.lax.fori_loop(0, count, body, (jnp.zeros((), z.dtype), z))

  return jax.jit(loop)


def time_value_and_grad(data, params, backends, repeats=7):
  """Times value_and_grad(log likelihood) at `params` on each backend, as a
  sampler runs it: LOOP_EVALUATIONS evaluations in one compiled loop.

  Returns a dict name -> {"seconds": the median over `repeats` loops of one
  evaluation's wall time, "value": the value, "grad": the gradient (jit of
  value_and_grad, once)}, and "max_abs_diff": the largest difference of
  value or gradient between the two backends without exposures (the same
  model). Each backend's loops run back to back after one more: interleaved
  with jaxoplanet's loops over the exposures (about 0.5 s each), kepler's
  loops without them took 3.5 times as long (2026-11-29, 2-core Xeon).
  `time_one_thread` runs this in a process of its own on one pinned CPU.
  """
  loops, results = {}, {}
  for backend in backends:
    f, _, from_params = log_likelihood(data, backend)
    z = from_params(params)
    value, grad = jax.block_until_ready(jax.jit(jax.value_and_grad(f))(z))
    results[backend.name] = {"value": float(value), "grad": np.asarray(grad)}
    loops[backend.name] = (_compiled_loop(jax.value_and_grad(f), LOOP_EVALUATIONS), z)
  for name, (loop, z) in loops.items():
    jax.block_until_ready(loop(z))
    times = []
    for _ in range(repeats):
      start = time.perf_counter()
      jax.block_until_ready(loop(z))
      times.append((time.perf_counter() - start) / LOOP_EVALUATIONS)
    results[name]["seconds"] = float(np.median(times))
  a, b = (results[kepler_backend(0.0).name], results[jaxoplanet_backend(0.0).name])
  results["max_abs_diff"] = max(abs(a["value"] - b["value"]),
                                float(np.max(np.abs(a["grad"] - b["grad"]))))
  return results


def time_one_thread(seed, params, samples):
  """time_value_and_grad(simulate(seed), params, timing_backends(samples))
  in a child process pinned to one CPU with XLA's intra-op thread pool off
  (--xla_cpu_multi_thread_eigen=false): one thread, what the targets are
  set for (a sampler's chains run one such loop each)."""
  with tempfile.TemporaryDirectory() as tmp:
    request, answer = os.path.join(tmp, "request.json"), os.path.join(tmp, "timing.json")
    with open(request, "w") as f:
      json.dump({"seed": seed, "params": {k: float(v) for k, v in params.items()},
                 "samples": samples}, f)
    cpu = min(os.sched_getaffinity(0))
    flags = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    env = dict(os.environ, XLA_FLAGS=flags, JAX_PLATFORMS="cpu")
    # The child pins itself before it imports anything (jax included), and
    # finds its modules as the script run alone would (sys.path[0] its
    # folder, not the working directory).
    start = (f"import os, runpy, sys; os.sched_setaffinity(0, {{{cpu}}}); "
             f"sys.argv = {[os.path.abspath(__file__), '--timing-worker', request, answer]!r}; "
             "sys.path[0] = os.path.dirname(sys.argv[0]); "
             "runpy.run_path(sys.argv[0], run_name='__main__')")
    subprocess.run([sys.executable, "-c", start], env=env, check=True)
    with open(answer) as f:
      timing = json.load(f)
  for name, row in timing.items():
    if isinstance(row, dict):
      row["grad"] = np.asarray(row["grad"])
  return timing


def _timing_worker(request, answer):
  """time_one_thread's child: reads the request, writes the timing."""
  with open(request) as f:
    job = json.load(f)
  timing = time_value_and_grad(simulate(job["seed"]), job["params"],
                               timing_backends(job["samples"]))
  with open(answer, "w") as f:
    json.dump({name: dict(row, grad=row["grad"].tolist()) if isinstance(row, dict) else row
               for name, row in timing.items()}, f)


def speedups(timing):
  """{"no exposures" | "exposures": jaxoplanet's time / kepler's} (those timed)."""
  pairs = {"no exposures": (kepler_backend(0.0).name, jaxoplanet_backend(0.0).name)}
  pairs["exposures"] = (KEPLER.name, next(
      (n for n in timing if n.startswith("jaxoplanet, ") and n.endswith(" samples")), None))
  return {key: timing[theirs]["seconds"] / timing[ours]["seconds"]
          for key, (ours, theirs) in pairs.items() if theirs in timing}


# ---------------------------------------------------------------------------
# Summaries: the table, the JSON file.


def summarize(draws, map_params):
  """Per parameter (fitted and derived): truth, MAP, posterior mean and sd."""
  flat = {name: np.asarray(value).reshape(-1) for name, value in draws.items()}
  truth_all = dict(TRUTH, **{k: float(v) for k, v in derived(TRUTH).items()})
  map_all = dict(map_params, **{k: float(v) for k, v in derived(map_params).items()})
  flat.update(derived(flat))
  rows = collections.OrderedDict()
  for name in list(PARAMS) + list(DERIVED):
    rows[name] = {"truth": truth_all[name], "map": map_all[name],
                  "mean": float(np.mean(flat[name])), "sd": float(np.std(flat[name], ddof=1))}
  return rows


def print_table(rows, timing, total_seconds, cpu_seconds, out=sys.stdout):
  """The table of the run: parameters, then the timing of value + gradient, then the wall time."""
  labels = dict(PARAMS, **DERIVED)
  header = ("parameter", "truth", "MAP", "mean", "sd", "(mean-truth)/sd")
  print("{:<30} {:>11} {:>11} {:>11} {:>10} {:>16}".format(*header), file=out)
  for name, row in rows.items():
    if name == "e":
      print("derived:", file=out)
    label, unit = labels[name]
    label = f"{label} [{unit}]" if unit else label
    z = (row["mean"] - row["truth"]) / row["sd"]
    print(f"{label:<30} {row['truth']:>11.6g} {row['map']:>11.6g} {row['mean']:>11.6g} "
          f"{row['sd']:>10.3g} {z:>16.2f}", file=out)
  print(file=out)
  print(f"one value + gradient of the log likelihood (median; one pinned thread, "
        f"{LOOP_EVALUATIONS} in a compiled loop):", file=out)
  for name, row in timing.items():
    if isinstance(row, dict):
      print(f"  {name:<26} {row['seconds'] * 1e3:9.3f} ms", file=out)
  for key, ratio in speedups(timing).items():
    target = TARGET_SPEEDUP[key]
    print(f"  jaxoplanet / kepler, {key:<13} {ratio:6.1f}x  (target >= {target:.0f}x: "
          f"{'met' if ratio >= target else 'missed'})", file=out)
  print(f"  largest difference of value or gradient without exposures: "
        f"{timing['max_abs_diff']:.1e}", file=out)
  print(f"total wall time: {total_seconds:.1f} s (CPU time of the process: {cpu_seconds:.1f} s)",
        file=out)


def write_results(path, rows, map_info, nuts_info, timing, thinned, total_seconds, seed,
                  samples=None):
  """The run's numbers as JSON (what examples/transit_rv_fit_test.py reads)."""
  result = {
      "kepler_version": kepler.__version__,
      "jax_version": jax.__version__,
      "seed": seed,
      "parameters": rows,
      "fitted": list(PARAMS),
      "map": {key: value for key, value in map_info.items() if key != "z_covariance"},
      "nuts": nuts_info,
      "timing": {name: {"seconds": value["seconds"], "value": value["value"]}
                 for name, value in timing.items() if name != "max_abs_diff"},
      "timing_max_abs_diff": timing["max_abs_diff"],
      "timing_speedups": speedups(timing),
      # jaxoplanet's integrate: (the fewest samples within 1 ppm, its error).
      "jaxoplanet_samples": samples,
      "total_seconds": total_seconds,
      # A thinned set of posterior draws: enough to redraw the figure.
      "draws": {name: [float(v) for v in value] for name, value in thinned.items()},
  }
  with open(path, "w", encoding="utf-8") as f:
    json.dump(result, f, indent=1)
    f.write("\n")


def thin(draws, count=500, seed=SEED):
  """`count` draws picked at random from all chains: a dict name -> 1-D array."""
  flat = {name: np.asarray(value).reshape(-1) for name, value in draws.items()}
  size = len(next(iter(flat.values())))
  pick = np.sort(np.random.default_rng(seed).choice(size, size=min(count, size), replace=False))
  return {name: value[pick] for name, value in flat.items()}


# ---------------------------------------------------------------------------
# The figure.

# The histograms of the bottom rows: (key, how a value is shown, x label).
HIST_PANELS = (
    ("period", lambda v, t: (v - t) * 86400, "P - P_true (s)"),
    ("t0", lambda v, t: (v - t) * 1440, "t0 - t0_true (min)"),
    ("r", None, "Rp/R*"),
    ("b", None, "b"),
    ("a_rs", None, "a/R*"),
    ("rho_star", None, "rho* (g/cm^3)"),
    ("e", None, "e"),
    ("omega_deg", None, "w (deg)"),
    ("q1", None, "q1"),
    ("q2", None, "q2"),
    ("k_rv", None, "K (m/s)"),
    ("gamma", None, "gamma (m/s)"),
)

FIGURE_TITLE = "Transit + radial velocity fit with kepler-jax (simulated data)"


def _fold(t, period, t0):
  """Time from the nearest mid-transit, in days."""
  return (t - t0 + 0.5 * period) % period - 0.5 * period


def make_figure(data, draws, truth=None, backend=KEPLER):
  """The figure of a fit: a matplotlib Figure (not saved; see save_figure).

  data: as from `simulate`; draws: a dict name -> 1-D array of posterior
  draws of PARAMS (e.g. `thin`'s). Top: the light curve folded on the
  posterior-mean ephemeris (data, 10-minute bins, the median model of the
  draws with its 90% band) with its residuals under it, and the radial
  velocities against orbital phase with theirs. Bottom: the posterior of 12
  parameters, a vertical line at the truth.
  """
  truth = TRUTH if truth is None else truth
  draws = {name: np.asarray(draws[name], dtype=np.float64) for name in PARAMS}
  period, t0 = float(np.mean(draws["period"])), float(np.mean(draws["t0"]))

  # Every draw's model on a grid around its own mid-transit and over its own
  # orbit, and at the data's times (for the residuals).
  hours = np.linspace(-LC_WINDOW * 24, LC_WINDOW * 24, 400)
  phase = np.linspace(-0.5, 0.5, 400)

  def curves(p):
    grid_lc = p["t0"] + hours / 24
    grid_rv = p["t0"] + phase * p["period"]
    flux_grid, rv_grid = predict(p, grid_lc, grid_rv, backend)
    flux_data, rv_data = predict(p, jnp.asarray(data["t_lc"]), jnp.asarray(data["t_rv"]), backend)
    return flux_grid, rv_grid, flux_data, rv_data

  flux_grid, rv_grid, flux_model, rv_model = (
      np.asarray(c) for c in jax.jit(jax.vmap(curves))(_as_jnp(draws)))

  # A Figure of its own, not pyplot's: no GUI backend, nothing global; it
  # renders with Agg when saved.
  fig = Figure(figsize=(15, 11.5), layout="constrained")
  fig.suptitle(FIGURE_TITLE, fontsize=15)
  grid = fig.add_gridspec(4, 6, height_ratios=[3, 1.1, 1.6, 1.6])
  ax_lc = fig.add_subplot(grid[0, :3])
  ax_lc_res = fig.add_subplot(grid[1, :3], sharex=ax_lc)
  ax_rv = fig.add_subplot(grid[0, 3:])
  ax_rv_res = fig.add_subplot(grid[1, 3:], sharex=ax_rv)

  # The light curve, in ppm against hours from mid-transit.
  x = _fold(data["t_lc"], period, t0) * 24
  y = data["flux"] * 1e6
  resid = (data["flux"] - np.median(flux_model, axis=0)) * 1e6
  bins = np.arange(-LC_WINDOW * 24, LC_WINDOW * 24 + 1e-9, 1 / 6)
  centres, binned, binned_resid = _binned(x, bins, y, resid)
  ax_lc.plot(x, y, ".", color="0.65", ms=3,
             label=f"data ({len(x)} points, {LC_SIGMA * 1e6:.0f} ppm)")
  ax_lc.plot(centres, binned, "o", color="k", ms=4, label="10-minute bins")
  _band(ax_lc, hours, flux_grid * 1e6, "C0", "model: posterior median, 90%")
  ax_lc.set(title="Transit light curve, folded on the period", xlabel="hours from mid-transit",
            ylabel="flux - 1 (ppm)")
  ax_lc.legend(loc="lower left", fontsize=9)
  ax_lc_res.plot(x, resid, ".", color="0.65", ms=3)
  ax_lc_res.plot(centres, binned_resid, "o", color="k", ms=4)
  ax_lc_res.axhline(0.0, color="C0")
  ax_lc_res.set(title="Light-curve residuals", xlabel="hours from mid-transit",
                ylabel="data - model (ppm)")

  # The radial velocities against orbital phase (0 at mid-transit).
  phase_data = _fold(data["t_rv"], period, t0) / period
  ax_rv.errorbar(phase_data, data["rv"], yerr=data["rv_err"], fmt="o", color="k", ms=4,
                 label=f"data ({len(phase_data)} points, {RV_SIGMA:.0f} m/s)")
  _band(ax_rv, phase, rv_grid, "C1", "model: posterior median, 90%")
  ax_rv.set(title="Radial velocity of the star", xlabel="orbital phase (0 = mid-transit)",
            ylabel="radial velocity (m/s)")
  ax_rv.legend(loc="upper right", fontsize=9)
  ax_rv_res.errorbar(phase_data, data["rv"] - np.median(rv_model, axis=0), yerr=data["rv_err"],
                     fmt="o", color="k", ms=4)
  ax_rv_res.axhline(0.0, color="C1")
  ax_rv_res.set(title="RV residuals", xlabel="orbital phase (0 = mid-transit)",
                ylabel="data - model (m/s)", xlim=(-0.5, 0.5))

  # The posteriors against the truth.
  values = dict(draws, **derived(draws))
  truths = dict(truth, **{k: float(v) for k, v in derived(truth).items()})
  labels = dict(PARAMS, **DERIVED)
  for i, (name, shown, xlabel) in enumerate(HIST_PANELS):
    ax = fig.add_subplot(grid[2 + i // 6, i % 6])
    v, t = values[name], truths[name]
    if shown is not None:
      v, t = shown(v, t), shown(t, t)
    heights, _, _ = ax.hist(v, bins=20, density=True, color="C2", alpha=0.6, label="posterior")
    ax.axvline(t, color="C3", lw=2, label="truth")
    ax.set_ylim(0, 1.4 * max(heights))  # room for the legend above the bars
    ax.set(title=labels[name][0], xlabel=xlabel, ylabel="density")
    ax.tick_params(labelsize=8)
    ax.locator_params(axis="x", nbins=4)
    if i == 0:
      ax.legend(fontsize=8, loc="upper left", ncols=2, handlelength=1.2, columnspacing=0.8)
  return fig


def _binned(x, edges, *ys):
  """Bin centres and the mean of each y in each non-empty bin."""
  index = np.digitize(x, edges) - 1
  keep = [i for i in range(len(edges) - 1) if np.any(index == i)]
  centres = np.array([(edges[i] + edges[i + 1]) / 2 for i in keep])
  return (centres,) + tuple(np.array([np.mean(y[index == i]) for i in keep]) for y in ys)


def _band(ax, x, curves, color, label):
  low, median, high = np.percentile(curves, [5, 50, 95], axis=0)
  ax.fill_between(x, low, high, color=color, alpha=0.3, lw=0)
  ax.plot(x, median, color=color, lw=2, label=label)


def save_figure(fig, path):
  """Writes the figure as a PNG with a title and the software's versions in its metadata."""
  fig.savefig(path, dpi=100, metadata={
      "Title": FIGURE_TITLE,
      "Software": f"kepler-jax {kepler.__version__}, jax {jax.__version__}, "
                  f"matplotlib {matplotlib.__version__}",
      "Description": "Folded transit light curve with residuals, radial velocities, and the "
                     "posteriors of a numpyro NUTS fit against the true parameters.",
  })


# ---------------------------------------------------------------------------
# The run.


def _stage(message):
  """A progress line: the wall time since the start, the process's CPU time, the message."""
  print(f"[{time.perf_counter() - _START:5.1f} s, CPU {time.process_time():5.1f} s] {message}",
        flush=True)


def main(argv=None):
  """Simulate, fit, sample, time, plot; print the table. Returns 0."""
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("output", nargs="?", default="kepler_demo_fit.png",
                      help="the PNG to write; the JSON of the numbers goes beside it")
  parser.add_argument("--chains", type=int, default=4,
                      help="NUTS chains, vectorised (default: %(default)s)")
  parser.add_argument("--warmup", type=int, default=250,
                      help="warm-up iterations of each chain (default: %(default)s)")
  parser.add_argument("--samples", type=int, default=400,
                      help="draws kept from each chain (default: %(default)s)")
  parser.add_argument("--seed", type=int, default=SEED,
                      help="of the simulated data and of the sampler (default: %(default)s)")
  parser.add_argument("--timing-worker", nargs=2, metavar=("REQUEST", "ANSWER"),
                      help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  if args.timing_worker:
    _timing_worker(*args.timing_worker)
    return 0
  png = os.path.abspath(args.output)
  result_json = os.path.splitext(png)[0] + ".json"

  data = simulate(args.seed)
  _stage(f"simulated: {len(data['t_lc'])} long cadences (29.4-minute exposures) around "
         f"{len(LC_TRANSITS)} transits, {RV_POINTS} radial velocities (seed {args.seed})")

  map_params, map_info = fit_map(data)
  _stage(f"MAP: scipy L-BFGS-B, {map_info['iterations']} iterations, {map_info['evaluations']} "
         f"evaluations of value + gradient, {map_info['seconds']:.1f} s, "
         f"log posterior {map_info['log_posterior']:.2f}")

  _stage(f"NUTS: {args.chains} vectorised chains x ({args.warmup} warm-up + {args.samples} "
         "samples), starting from the MAP")
  draws, nuts_info = sample(data, map_params, chains=args.chains, warmup=args.warmup,
                            samples=args.samples, seed=args.seed,
                            z_covariance=map_info["z_covariance"])
  _stage(f"NUTS: {nuts_info['seconds']:.1f} s (compilation included), "
         f"{nuts_info['divergences']} divergences, lowest ESS {nuts_info['min_ess']:.0f}, "
         f"highest R-hat {nuts_info['max_r_hat']:.3f}")

  samples = fewest_samples(data, map_params)
  _stage(f"jaxoplanet's integrate within {PPM * 1e6:.0f} ppm of the exact exposure mean at the "
         f"MAP: {samples[0]} samples (error {samples[1]:.1e})")
  _stage("timing one value + gradient of the log likelihood: kepler.transit against jaxoplanet, "
         "with and without the exposures, on one pinned thread in a compiled loop")
  timing = time_one_thread(args.seed, map_params, samples[0])

  thinned = thin(draws)
  fig = make_figure(data, thinned)
  save_figure(fig, png)
  _stage(f"figure written to {png}")

  rows = summarize(draws, map_params)
  total = time.perf_counter() - _START
  # The CPU time of all its threads: well below the wall time when other work
  # shared the cores, above it when XLA ran ops on more than one.
  cpu = time.process_time()
  write_results(result_json, rows, map_info, nuts_info, timing, thinned, total, args.seed,
                samples)
  _stage(f"numbers written to {result_json}")
  print()
  print_table(rows, timing, total, cpu)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
