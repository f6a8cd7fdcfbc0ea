"""numpyro's NUTS on the example's model, on kepler.transit and on jaxoplanet.

    python benchmarks/nuts_benchmark.py [--quick] [--chains 2] [--output FILE]

Not a Bazel target: numpyro is the demo's, so this runs in the demo's
virtualenv (tools/requirements/requirements_demo_lock_3_12.txt and the
wheel, as tools/demo.sh installs them; see benchmarks/BENCHMARKS.md).
The example's data and model (examples/transit_rv_fit.py: 489 Kepler long
cadences around 20 transits and 40 radial velocities, 11 parameters),
its MAP on kepler's ops, then the same sampler run from the MAP with the
MAP's Laplace covariance as the first mass matrix, `--chains` vectorised
chains of 250 warm-up and 400 kept iterations (one process, JAX's defaults:
every CPU), once on kepler.transit (exact exposure means) and once on
jaxoplanet (its `integrate` at the fewest samples within 1 ppm of the exact
means, as the demo compares). Each run's wall time includes its
compilation, as a user's does. Target (issue #58): jaxoplanet's time at
least TARGET times ours; the report gives the ratio per effective sample
too (the two models differ by up to 1 ppm, so the chains do not take the
same steps).
"""

import os
import sys
import time

import bench_common

TARGET = 12.0
WARMUP, SAMPLES = 250, 400
QUICK_WARMUP, QUICK_SAMPLES = 20, 20


def measure(args):
  started, begin = bench_common.now(), time.perf_counter()
  sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
  import transit_rv_fit as fit  # pylint: disable=g-import-not-at-top

  warmup, samples = (QUICK_WARMUP, QUICK_SAMPLES) if args.quick else (WARMUP, SAMPLES)
  data = fit.simulate(fit.SEED)
  map_params, map_info = fit.fit_map(data)
  jaxoplanet_samples, error = fit.fewest_samples(data, map_params)
  print(f"nuts_benchmark: jaxoplanet's integrate within 1 ppm at {jaxoplanet_samples} samples",
        file=sys.stderr, flush=True)
  runs = {}
  for name, backend in (("kepler.transit", fit.KEPLER),
                        ("jaxoplanet", fit.jaxoplanet_backend(fit.EXPOSURE, jaxoplanet_samples))):
    print(f"nuts_benchmark: NUTS on {name} ...", file=sys.stderr, flush=True)
    _, info = fit.sample(data, map_params, backend=backend, chains=args.chains, warmup=warmup,
                         samples=samples, z_covariance=map_info["z_covariance"],
                         progress_bar=False)
    runs[name] = info
    print(f"nuts_benchmark: {name}: {info['seconds']:.1f} s", file=sys.stderr, flush=True)
  return {"started": started, "wall": time.perf_counter() - begin,
          "machine": bench_common.machine(),
          "versions": bench_common.versions(["jax", "jaxlib", "numpyro", "jaxoplanet",
                                             "kepler-jax"]),
          "chains": args.chains, "warmup": warmup, "samples": samples, "quick": args.quick,
          "jaxoplanet_samples": jaxoplanet_samples, "jaxoplanet_error": float(error),
          "runs": runs}


def report(data):
  out = bench_common.Report("kepler-jax: numpyro's NUTS on the example's model")
  out.host(data["started"], data["machine"], wall=data["wall"], extra=[
      "versions: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()),
      f"{data['chains']} vectorised chains x ({data['warmup']} warm-up + {data['samples']} "
      "kept iterations), from the MAP, JAX's defaults (every CPU); wall time of the run, "
      f"compilation included; jaxoplanet's `integrate` at {data['jaxoplanet_samples']} "
      f"samples (max error {data['jaxoplanet_error']:.1e} of the exact exposure means)"
      + ("; --quick: a smoke run, no target" if data["quick"] else "")])
  ours = data["runs"]["kepler.transit"]
  rows = []
  for name, info in data["runs"].items():
    rows.append([name, f"{info['seconds']:.1f}", f"{info['seconds'] / ours['seconds']:.2f}x",
                 f"{info['min_ess']:.0f}", f"{info['seconds'] / info['min_ess']:.3f}",
                 str(info["divergences"]), f"{info['max_r_hat']:.3f}"])
  out.table(["model", "seconds", "ratio to ours", "lowest ESS", "seconds per effective sample",
             "divergences", "highest R-hat"], rows)
  theirs = data["runs"]["jaxoplanet"]
  ratio = theirs["seconds"] / ours["seconds"]
  per_ess = (theirs["seconds"] / theirs["min_ess"]) / (ours["seconds"] / ours["min_ess"])
  if not data["quick"]:
    out.section("Target")
    out.para(f"jaxoplanet's time >= {TARGET:g}x ours: {ratio:.1f}x, "
             + ("met" if ratio >= TARGET else "MISSED")
             + f" (per effective sample of the lowest-ESS parameter: {per_ess:.1f}x).")
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, options=[
      (("--chains",), {"type": int, "default": 2, "help": "vectorised chains (default 2)"})])


if __name__ == "__main__":
  main()
