"""Accuracy sweep of kepler.limb_dark.light_curve against the mpmath reference.

Prints one Markdown report: for each family of limb-darkening laws, the
largest |F - F_ref| over every law and point, where it is, and how many
law-point pairs exceed the bound of docs/accuracy_and_speed.md (1e-15 for
laws of up to two coefficients, 5e-15 beyond). float64, jax_enable_x64 on,
whatever CPU variant the process picks (KEPLER_CPU_ISA forces one).

Points (b, r): on and next to the special points b = 0, r, |1 - r|, 1 and
1 + r (offsets up to 1e-3 either way) of SPECIAL_RADII, and random ones with
r log-uniform in [1e-3, 3] and b uniform over the overlapping range
[max(0, r - 1), 1 + r]. The reference, tests/limb_dark_reference.py
(blocked_terms: each term (1 - mu)^n integrated once per point at 40
digits), takes 0.1 to 0.4 s per point and is computed in worker
processes; --cache keeps it in a JSON file for later runs with the same
points. Every law is then a sum of the terms.

Families (seeded): the quadratic region (u1 >= 0, u1 + u2 <= 1, u1 + 2 u2 >=
0: its corners and uniform draws); for N = 3 to 6 coefficients, u_n >= 0
with sum u_n <= 1 (uniform on that simplex, and the unit laws), and the
laws drawn from [-k, k]^N whose intensity is non-negative and non-increasing
toward the limb (k = 1, 2, 4: large coefficients of alternating sign). The
regions and the special points are the tests' (tests/limb_dark_laws.py).

  bazel run //benchmarks:accuracy_sweep -- [--quick] [--points N] [--cache FILE]
"""

import json
import multiprocessing
import os
import sys

import bench_common

SPECIAL_RADII = (1e-3, 0.01, 0.1, 0.5, 1 - 1e-9, 1.0, 1 + 1e-9, 1.5, 3.0)
OFFSETS = (0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-6, -1e-6, 1e-3, -1e-3)
SEED = 0
N_MAX = 6


def special_points():
  """(b, r) on and next to every special point, b >= 0."""
  from tests import limb_dark_laws

  return limb_dark_laws.special_points(SPECIAL_RADII, OFFSETS)


def random_points(np, count):
  rng = np.random.default_rng(SEED)
  r = np.exp(rng.uniform(np.log(1e-3), np.log(3.0), count))
  b = rng.uniform(np.maximum(0.0, r - 1), 1 + r)
  return [(float(x), float(y)) for x, y in zip(b, r)]


def _terms(point):
  from tests import limb_dark_reference as ref
  import mpmath as mp

  return [mp.nstr(x, 35) for x in ref.blocked_terms(point[0], point[1], N_MAX)]


def reference_terms(points, cache_path):
  """blocked_terms of every point (strings of 35 digits), from the cache
  where it has them, the rest in worker processes."""
  cache = {}
  if cache_path and os.path.exists(cache_path):
    with open(cache_path) as f:
      cache = {(b, r): t for b, r, t in json.load(f)}
  todo = [p for p in points if p not in cache]
  if todo:
    print(f"reference: {len(todo)} points to integrate ({len(points) - len(todo)} cached) ...",
          file=sys.stderr, flush=True)
    with multiprocessing.Pool() as pool:
      for i, (point, terms) in enumerate(zip(todo, pool.imap(_terms, todo, chunksize=4)), 1):
        cache[point] = terms
        if i % 50 == 0 or i == len(todo):
          print(f"  {i}/{len(todo)}", file=sys.stderr, flush=True)
    if cache_path:
      with open(cache_path, "w") as f:
        json.dump([[b, r, t] for (b, r), t in cache.items()], f)
  return [cache[p] for p in points]


def law_families(np, count):
  from tests import limb_dark_laws

  rng = np.random.default_rng(SEED + 1)
  families = {"quadratic region": limb_dark_laws.quadratic_laws(rng, count)}
  for n in range(3, N_MAX + 1):
    families[f"{n} coefficients, u_n >= 0, sum <= 1"] = np.vstack(
        [np.eye(n), rng.dirichlet(np.ones(n + 1), count)[:, :n]])
    for box in (1, 2, 4):
      families[f"{n} coefficients from [-{box}, {box}]^{n}, physical"] = (
          limb_dark_laws.physical_laws(n, count, rng, box))
  return families


def measure(args):
  """The worst error of each law family, as plain data for `report`."""
  n_random = args.points if args.points is not None else (60 if args.quick else 400)
  n_laws = args.laws if args.laws is not None else (10 if args.quick else 60)
  if n_random < 0 or n_laws < 1:
    sys.exit("accuracy_sweep: --points must be >= 0 and --laws >= 1")
  jax, jnp, np = bench_common.import_jax()
  import kepler  # pylint: disable=g-import-not-at-top
  from kepler import limb_dark  # pylint: disable=g-import-not-at-top
  from tests import limb_dark_reference as ref  # pylint: disable=g-import-not-at-top
  import mpmath as mp  # pylint: disable=g-import-not-at-top

  data = {"started": bench_common.now(), "kepler": kepler.__version__, "jax": jax.__version__,
          "isa": os.environ.get("KEPLER_CPU_ISA", "the one picked at run time"),
          "random": n_random, "families": []}
  points = special_points() + random_points(np, n_random)
  data["points"] = len(points)
  terms = [[mp.mpf(x) for x in t] for t in reference_terms(points, args.cache)]
  b = jnp.asarray([p[0] for p in points])
  r = jnp.asarray([p[1] for p in points])
  for name, laws in law_families(np, n_laws).items():
    print(f"checking {name} ...", file=sys.stderr, flush=True)
    bound = 1e-15 if laws.shape[1] <= 2 else 5e-15
    got = np.asarray(jax.vmap(lambda u: limb_dark.light_curve(u, b, r))(jnp.asarray(laws)))
    err = np.abs(got - np.array(ref.flux_minus_one_from_terms(terms, laws)))
    i, j = np.unravel_index(np.argmax(err), err.shape)
    data["families"].append({
        "name": name, "count": len(laws), "worst": float(err[i, j]), "at": points[j],
        "law": np.round(laws[i], 3).tolist(), "above": int((err > bound).sum()),
        "pairs": int(err.size), "bound": bound})
  return data


def report(data):
  out = bench_common.Report("kepler-jax light-curve accuracy sweep")
  out.bullets([
      f"date: {data['started']}; kepler {data['kepler']}, jax {data['jax']}; CPU variant: "
      f"{data['isa']}",
      f"{data['points']} points: {data['points'] - data['random']} on and next to the special "
      f"points of r in {list(SPECIAL_RADII)}, {data['random']} random (seed {SEED}); float64; "
      "error |F - F_ref|"])
  out.table(["laws", "count", "worst", "at (b, r)", "law", "pairs above the bound"], [
      [f["name"], f["count"], f"{f['worst']:.2e}", f"({f['at'][0]:.6g}, {f['at'][1]:.6g})",
       f["law"], f"{f['above']} of {f['pairs']} (bound {f['bound']:g})"]
      for f in data["families"]])
  return out.text()


def main():
  bench_common.main(__doc__, measure, report, options=[
      (["--points"], dict(type=int, help="random points besides the special ones (default 400; "
                          "quick: 60)")),
      (["--laws"], dict(type=int, help="drawn laws a family (default 60; quick: 10)")),
      (["--cache"], dict(help="JSON file keeping the reference's terms between runs"))])


if __name__ == "__main__":
  main()
