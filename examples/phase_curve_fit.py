"""Fits a hot Jupiter's transit, secondary eclipse and phase curve with kepler.transit.

    python examples/phase_curve_fit.py [OUT.png] [--chains 2] [--warmup 300]
        [--samples 300] [--seed 11]

The planet's own light is part of the one model (`light_curve`'s
planet_flux, night_flux and phase_offset): the system's flux is the star's,
less what the planet blocks in transit, plus the planet's, which the star
hides in the secondary eclipse and which varies with the phase the planet
shows us, from its night side at the transit to its day side at the eclipse,
its maximum moved before the eclipse by an eastward hot spot.

The steps, each a function of this module:

1. `simulate`: two orbits of photometry (6-minute cadence, 60 ppm noise, a
   fixed seed) from known parameters (`TRUTH`).
2. `sample`: the posterior of the nine parameters (`PRIORS`), sampled with
   numpyro's NUTS (chains vectorised, a dense mass matrix) from a starting
   point read off the data (`initial_guess`), not the truth.
3. `summarize`, `write_results`, `print_table`, `make_figure`: the table of
   truth, posterior mean and sd; a JSON file of the numbers and the thinned
   draws; one matplotlib figure (PNG).

examples/phase_curve_fit_test.py checks the model against references of its
own and the last run's results. Needs the packages of
tools/requirements/requirements_demo_lock_3_12.txt (tools/demo.sh runs it).
"""

import argparse
import json
import os
import sys
import time

import jax

jax.config.update("jax_enable_x64", True)

# pylint: disable=g-import-not-at-top,wrong-import-position
import jax.numpy as jnp
from matplotlib.figure import Figure
import numpy as np
import numpyro
from numpyro import diagnostics
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, init_to_value

from kepler import transit
# pylint: enable=g-import-not-at-top,wrong-import-position

# The planet (a hot Jupiter seen by a space telescope): the period is known
# from earlier transits and held fixed; everything else is fitted.
PERIOD = 1.42  # days
TRUTH = {
    "t0": 0.351,  # days
    "r": 0.105,  # Rp / R*
    "b": 0.28,
    "a": 4.6,  # a / R*
    "q1": 0.36,  # Kipping's (q1, q2) of the quadratic law
    "q2": 0.31,
    "planet_flux": 480e-6,  # the day side over the star: the eclipse depth
    "night_flux": 70e-6,
    "phase_offset": 0.35,  # radians; the maximum comes this much before the eclipse
}
LABELS = {
    "t0": ("mid-transit time t0", "d"),
    "r": ("radius ratio Rp/R*", ""),
    "b": ("impact parameter b", ""),
    "a": ("a/R*", ""),
    "q1": ("limb darkening q1", ""),
    "q2": ("limb darkening q2", ""),
    "planet_flux": ("day-side flux (eclipse depth)", "ppm"),
    "night_flux": ("night-side flux", "ppm"),
    "phase_offset": ("phase-curve offset", "deg"),
}
# What the table and the figure show, in those units.
SCALE = {"planet_flux": 1e6, "night_flux": 1e6, "phase_offset": 180 / np.pi}
T0_GUESS = 0.35  # from the earlier transits, to a few minutes
PRIORS = {
    "t0": dist.Uniform(T0_GUESS - 0.02, T0_GUESS + 0.02),
    "r": dist.Uniform(0.01, 0.3),
    "b": dist.Uniform(0.0, 1.0),
    "a": dist.LogUniform(2.0, 20.0),
    "q1": dist.Uniform(0.0, 1.0),
    "q2": dist.Uniform(0.0, 1.0),
    "planet_flux": dist.Uniform(0.0, 3e-3),
    "night_flux": dist.Uniform(0.0, 3e-3),
    "phase_offset": dist.Uniform(-np.pi / 2, np.pi / 2),
}
CADENCE = 6 / 1440  # days
ORBITS = 2
SIGMA = 60e-6
SEED = 11


def limb_darkening(q1, q2):
  """Kipping's (q1, q2) in [0, 1]^2 to the quadratic law's (u1, u2)."""
  root = jnp.sqrt(q1)
  return jnp.stack([2 * root * q2, root * (1 - 2 * q2)])


def model_flux(params, t):
  """The system's flux minus one at times t: transit, eclipse, phase curve."""
  return transit.light_curve(
      t, period=PERIOD, t0=params["t0"], a=params["a"], b=params["b"], r=params["r"],
      u=limb_darkening(params["q1"], params["q2"]), planet_flux=params["planet_flux"],
      night_flux=params["night_flux"], phase_offset=params["phase_offset"])


def simulate(seed=SEED, truth=None):
  """The observations: a dict of times t (days), flux (flux - 1) and its
  error, drawn from `truth` (default TRUTH) with normal noise."""
  truth = TRUTH if truth is None else truth
  t = TRUTH["t0"] - 0.25 * PERIOD + np.arange(0.0, ORBITS * PERIOD, CADENCE)
  clean = np.asarray(model_flux({k: jnp.asarray(v) for k, v in truth.items()}, jnp.asarray(t)))
  noise = np.random.default_rng(seed).normal(0.0, SIGMA, t.size)
  return {"t": t, "flux": clean + noise, "flux_err": np.full(t.size, SIGMA)}


def numpyro_model(data):
  params = {name: numpyro.sample(name, prior) for name, prior in PRIORS.items()}
  numpyro.sample("obs", dist.Normal(model_flux(params, data["t"]), data["flux_err"]),
                 obs=data["flux"])


def initial_guess(data):
  """A starting point read off the data: the depth of the transit, the
  flux at the eclipse's phase and at the transit's, middling elsewhere."""
  phase = ((data["t"] - T0_GUESS) / PERIOD) % 1.0
  near = lambda centre: np.abs(phase - centre) < 0.03
  beside = lambda centre: (np.abs(phase - centre) > 0.06) & (np.abs(phase - centre) < 0.1)
  depth = np.median(data["flux"][beside(0.0)]) - np.percentile(data["flux"][near(0.0)], 10)
  day = np.median(data["flux"][beside(0.5)]) - np.median(data["flux"][near(0.5)])
  night = max(np.median(data["flux"][beside(0.0)]), 1e-6)
  return {"t0": T0_GUESS, "r": float(np.sqrt(max(depth, 1e-4))), "b": 0.5, "a": 5.0,
          "q1": 0.5, "q2": 0.4, "planet_flux": float(max(day, 1e-5)), "night_flux": float(night),
          "phase_offset": 0.0}


def sample(data, chains=2, warmup=300, samples=300, seed=SEED, progress_bar=None):
  """NUTS from initial_guess: (draws, info); draws: name -> (chains, samples)."""
  if progress_bar is None:
    progress_bar = sys.stdout.isatty()
  kernel = NUTS(numpyro_model, dense_mass=True,
                init_strategy=init_to_value(values=initial_guess(data)))
  mcmc = MCMC(kernel, num_warmup=warmup, num_samples=samples, num_chains=chains,
              chain_method="vectorized", progress_bar=progress_bar)
  start = time.perf_counter()
  mcmc.run(jax.random.PRNGKey(seed), {k: jnp.asarray(v) for k, v in data.items()},
           extra_fields=("diverging",))
  by_chain = mcmc.get_samples(group_by_chain=True)
  draws = {name: np.asarray(by_chain[name]) for name in PRIORS}
  info = {"seconds": time.perf_counter() - start, "chains": chains, "warmup": warmup,
          "samples": samples,
          "divergences": int(np.sum(np.asarray(mcmc.get_extra_fields()["diverging"]))),
          "min_ess": float(min(diagnostics.effective_sample_size(d) for d in draws.values())),
          "max_r_hat": float(max(diagnostics.split_gelman_rubin(d) for d in draws.values()))}
  return draws, info


def summarize(draws):
  """Per parameter: truth, posterior mean and sd, in the units of LABELS."""
  rows = {}
  for name, chains in draws.items():
    scale = SCALE.get(name, 1.0)
    flat = np.ravel(chains) * scale
    rows[name] = {"truth": TRUTH[name] * scale, "mean": float(np.mean(flat)),
                  "sd": float(np.std(flat, ddof=1))}
  return rows


def print_table(rows, info, out=sys.stdout):
  print(f"{'parameter':<32} {'truth':>11} {'posterior':>22}  {'(mean - truth)/sd':>17}", file=out)
  for name, row in rows.items():
    label, unit = LABELS[name]
    label = f"{label} ({unit})" if unit else label
    z = (row["mean"] - row["truth"]) / row["sd"]
    print(f"{label:<32} {row['truth']:>11.5g} {row['mean']:>11.5g} +- {row['sd']:<8.2g} "
          f"{z:>+17.2f}", file=out)
  print(f"NUTS: {info['chains']} chains x {info['samples']} draws ({info['warmup']} warm-up) in "
        f"{info['seconds']:.1f} s; {info['divergences']} divergences, lowest ESS "
        f"{info['min_ess']:.0f}, highest R-hat {info['max_r_hat']:.3f}", file=out)


def thin(draws, count=300, seed=SEED):
  """`count` draws of the pooled chains, the same ones for every parameter."""
  flat = {name: np.ravel(chains) for name, chains in draws.items()}
  size = len(next(iter(flat.values())))
  keep = np.sort(np.random.default_rng(seed).choice(size, min(count, size), replace=False))
  return {name: values[keep] for name, values in flat.items()}


def write_results(path, rows, info, thinned):
  with open(path, "w", encoding="utf-8") as f:
    json.dump({"rows": rows, "nuts": info, "truth": TRUTH, "period": PERIOD, "sigma": SIGMA,
               "draws": {name: values.tolist() for name, values in thinned.items()}}, f, indent=1)


FIGURE_TITLE = "kepler.transit: a hot Jupiter's transit, secondary eclipse and phase curve"


def make_figure(data, draws):
  """The figure of a fit (a matplotlib Figure, not saved): the folded light
  curve (data, 30-minute bins, the posterior's median model and 90% band),
  a zoom on the planet's light in ppm, the residuals, and the posteriors of
  the planet's three light parameters against the truth."""
  draws = {name: np.asarray(values, np.float64) for name, values in draws.items()}
  t0 = float(np.mean(draws["t0"]))
  phase_grid = np.linspace(-0.25, 0.75, 600)

  def curves(p):
    return (model_flux(p, p["t0"] + phase_grid * PERIOD),
            model_flux(p, jnp.asarray(data["t"])))

  grid, at_data = (np.asarray(c) for c in jax.jit(jax.vmap(curves))(
      {k: jnp.asarray(v) for k, v in draws.items()}))
  phase = (data["t"] - t0) / PERIOD
  phase = phase - np.floor(phase + 0.25)
  order = np.argsort(phase)
  resid = (data["flux"] - np.median(at_data, axis=0)) * 1e6
  edges = np.arange(-0.25, 0.75 + 1e-9, 30 / 1440 / PERIOD)
  index = np.digitize(phase, edges)
  filled = [i for i in range(1, len(edges)) if np.any(index == i)]
  centres = np.array([phase[index == i].mean() for i in filled])
  binned = np.array([data["flux"][index == i].mean() for i in filled]) * 1e6
  binned_resid = np.array([resid[index == i].mean() for i in filled])
  low, mid, high = np.percentile(grid * 1e6, [5, 50, 95], axis=0)

  fig = Figure(figsize=(15, 10), layout="constrained")
  fig.suptitle(FIGURE_TITLE, fontsize=15)
  layout = fig.add_gridspec(3, 4, height_ratios=[2.2, 2.2, 1.3])
  ax_all = fig.add_subplot(layout[0, :])
  ax_light = fig.add_subplot(layout[1, :], sharex=ax_all)
  for ax, title, ylim in (
      (ax_all, "Folded light curve: the transit at phase 0, the eclipse at 0.5", None),
      (ax_light, "The planet's light: night side at the transit, the eclipse, the hot spot's offset",
       (-250, 900))):
    ax.plot(phase[order], data["flux"][order] * 1e6, ".", color="0.7", ms=2,
            label=f"data ({phase.size} points, {SIGMA * 1e6:.0f} ppm)")
    ax.plot(centres, binned, "o", color="k", ms=3.5, label="30-minute bins")
    ax.fill_between(phase_grid, low, high, color="C0", alpha=0.3, lw=0)
    ax.plot(phase_grid, mid, color="C0", label="model: posterior median, 90%")
    ax.set(title=title, ylabel="flux - 1 (ppm)", ylim=ylim)
    ax.legend(loc="lower right", fontsize=9)
  ax_light.set(xlabel="orbital phase")
  ax_res = fig.add_subplot(layout[2, 0])
  ax_res.plot(phase, resid, ".", color="0.7", ms=2)
  ax_res.plot(centres, binned_resid, "o", color="k", ms=3.5)
  ax_res.axhline(0.0, color="C0")
  ax_res.set(title="Residuals", xlabel="orbital phase", ylabel="data - model (ppm)")
  for k, name in enumerate(("planet_flux", "night_flux", "phase_offset")):
    ax = fig.add_subplot(layout[2, k + 1])
    ax.hist(draws[name] * SCALE[name], bins=30, color="C0", alpha=0.7, label="posterior")
    ax.axvline(TRUTH[name] * SCALE[name], color="C3", label="truth")
    label, unit = LABELS[name]
    ax.set(title=label, xlabel=unit, ylabel="draws")
    ax.legend(fontsize=8)
  return fig


def save_figure(fig, path):
  from matplotlib.backends.backend_agg import FigureCanvasAgg  # pylint: disable=g-import-not-at-top
  FigureCanvasAgg(fig)
  fig.savefig(path, dpi=90, metadata={"Title": FIGURE_TITLE, "Software": "kepler-jax example"})


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("out", nargs="?", default="phase_curve_fit.png")
  parser.add_argument("--chains", type=int, default=2)
  parser.add_argument("--warmup", type=int, default=300)
  parser.add_argument("--samples", type=int, default=300)
  parser.add_argument("--seed", type=int, default=SEED)
  args = parser.parse_args(argv)
  data = simulate(args.seed)
  print(f"phase_curve_fit: {data['t'].size} points over {ORBITS} orbits; sampling "
        f"({args.chains} chains x {args.warmup} + {args.samples})", flush=True)
  draws, info = sample(data, args.chains, args.warmup, args.samples, args.seed)
  rows = summarize(draws)
  print_table(rows, info)
  thinned = thin(draws)
  os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
  write_results(os.path.splitext(args.out)[0] + ".json", rows, info, thinned)
  save_figure(make_figure(data, thinned), args.out)
  print(f"phase_curve_fit: wrote {args.out} and {os.path.splitext(args.out)[0]}.json")


if __name__ == "__main__":
  main()
