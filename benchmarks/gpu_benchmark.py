"""GPU benchmark of kepler's ops against jaxoplanet, jnp and a device copy of the same bytes.

    python3 benchmarks/gpu_benchmark.py [--output FILE]      # an installed wheel
    bazel run --config=cuda //benchmarks:gpu_benchmark        # or from the tree

Runs on JAX's default device (the GPU when there is one; `--platform cpu` for
a smoke run on the CPU) and prints one Markdown report: the device, driver,
CUDA and versions; a check that the ops run on the device and agree with the
CPU and with their peers; light curves (the quadratic law, ten
coefficients, the power-2 law and a tabulated law of 78 points, the value
and jax.value_and_grad of the sum in (b, r, u); ours and jaxoplanet's
`core.light_curve` on the device, ours on the CPU's all cores up to
CPU_MAX_N) at N = 1e4, 1e6, 1e8 (the tabulated law to 1e6), each row
also as a share of its bound, a copy of the same bytes (arrays in plus out)
on the same device in the same run; the transit model
(`kepler.transit.light_curve`, 1000 parameter sets x 1e4 times under
jax.vmap, with and without exposures, and over a whole orbit with the
quadratic law and ten coefficients; jaxoplanet's System light curve on
the device, ours on the CPU); Kepler's equation (`kepler.solve`,
`kepler.true_anomaly`, jaxoplanet's `core.kepler`, a jnp Newton solver) at
N = 1e4 ... 1e8; float32 and float64; one step of a radial-velocity fit on
examples/transit_rv_model.py's `radial_velocity`; the targets (below) marked met or MISSED. Timing:
bench_common.Timer, the median of the repeats; past --budget seconds every
case gets 3 loops of one call, past 1.25 --budget none is run (the report
says where). See benchmarks/BENCHMARKS.md.

Run it as a script with the kepler wheel installed (or through Bazel): the
folder of this file is the first entry of sys.path, so `import kepler` finds
the installed package, never the source tree's kepler/ (which has no
compiled modules). Do not put the repository root on PYTHONPATH.
"""

import argparse
import importlib
import importlib.util
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import types

import bench_common

SIZES = (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)
LC_SIZES = (10_000, 1_000_000, 100_000_000)
# The light curves' laws: name: (kepler's law, u). jaxoplanet has the
# polynomial laws only.
# The tabulated law: a grid of 78 points (as a PHOENIX model's) with a power-2
# profile on it, I = 1 - 0.6 (1 - mu^0.6); LC_GRIDS holds each law's grid.
TABULATED_MU = tuple(0.01 + 0.99 * k / 77 for k in range(78))
LC_LAWS = {"quadratic": ("polynomial", bench_common.LAWS["quadratic"]),
           "ten": ("polynomial", bench_common.LAWS["ten"]), "power2": ("power2", (0.7, 0.6)),
           "tabulated": ("tabulated", tuple(1 - 0.6 * (1 - m ** 0.6) for m in TABULATED_MU))}
LC_GRIDS = {"tabulated": TABULATED_MU}
# The laws timed at N = 1e8 (the tabulated law stops at 1e6: seconds a call
# there on the CPU's all cores, and the device's time a point is the same at
# 1e6, 1e6 points filling an H200 several times over).
LC_LAWS_AT_LARGEST_N = ("quadratic", "ten", "power2")
# The transit model (kepler.transit.light_curve) under jax.vmap: TRANSIT_SETS
# parameter sets x TRANSIT_TIMES times each, without exposures and with
# Kepler's long-cadence exposure (TRANSIT_EXPOSURE days).
TRANSIT_SETS, TRANSIT_TIMES, TRANSIT_EXPOSURE = 1000, 10_000, 0.0204
ORBIT_SPAN = 5.0  # days: a whole orbit of every set (P from 2 to 5 d)
SECTIONS = ("lc", "transit", "kepler", "rv")
# The CPU column of the light curves stops at this N (all cores; 1e8 points
# of ten coefficients with gradients would take seconds per call).
CPU_MAX_N = 1_000_000
RV_SIZES = (1_000, 1_000_000)
RV_SPAN_DAYS = 1000.0
DTYPES = ("float32", "float64")
WHATS = ("value", "value_and_grad")
# Arrays of N elements in plus out: a Kepler solve (M, e -> sin, cos); the
# light curve's value (b, r -> F) and value with gradient (b, r -> dF/db, dF/dr).
ARRAYS = {"kepler": 4, "value": 3, "value_and_grad": 4}

# The speed targets (benchmarks/BENCHMARKS.md).
TARGET_FRACTION = 0.80  # kepler.solve at TARGET_N: >= 80% of its copy bound
TARGET_N = 100_000_000
SMALL_N = 10_000  # kepler.true_anomaly no slower than jaxoplanet
# The GPU issue's targets, float64: ns a point, (law, what, ns, N);
# the transit model's ns a time, without and with exposures; every row
# jaxoplanet runs at least LC_TARGET_SPEEDUP times faster on the same device;
# the device at least CPU_TARGET_SPEEDUP times our op on the CPU (all cores)
# at CPU_MAX_N, every law.
LC_TARGET_NS = (("quadratic", "value", 0.07, TARGET_N),
                ("quadratic", "value_and_grad", 0.1, TARGET_N), ("ten", "value", 0.5, TARGET_N),
                ("power2", "value", 1.0, TARGET_N), ("tabulated", "value", 2.0, CPU_MAX_N))
TRANSIT_TARGET_NS = (("ours", 0.1), ("ours_exposure", 1.0))
LC_TARGET_SPEEDUP = 5.0
CPU_TARGET_SPEEDUP = 10.0

OP_TITLES = {
    "solve": "ours `kepler.solve` (E)",
    "true_anomaly": "ours `kepler.true_anomaly` (f)",
    "jaxoplanet": "jaxoplanet `core.kepler` (f)",
    "newton": "jnp Newton (E)",
}
PEER_OF = {"jaxoplanet": "true_anomaly", "newton": "solve"}  # the op of ours a peer's ratio divides by
LC_TITLES = {"dev/ours": "ours, on the device", "dev/jaxoplanet": "jaxoplanet, same device",
             "cpu/ours": "ours, on the CPU (all cores)"}
COPY_TITLES = ("two XLA copies (`jnp.copy` of each input) and a fused `(x + 1, y + 1)` for two "
               "arrays in and two out, a fused `x + y` for two in and one out")


def lc_function(limb_dark, law):
  """Our light curve of LC_LAWS[law] (its grid too), a function of (u, b, r)."""
  name, grid = LC_LAWS[law][0], {"mu": LC_GRIDS[law]} if law in LC_GRIDS else {}
  return lambda u, b, r: limb_dark.light_curve(u, b, r, law=name, **grid)


def _copies(jax, jnp, what):
  """The bound's functions: copies of the bytes `what` moves (ARRAYS)."""
  if what == "value":
    return {"copy_fused": jax.jit(lambda x, y: x + y)}
  return {"copy_xla": jax.jit(lambda x, y: (jnp.copy(x), jnp.copy(y))),
          "copy_fused": jax.jit(lambda x, y: (x + 1, y + 1))}


def _command(*args):
  """stdout of a command, or "" with why not."""
  if not shutil.which(args[0]):
    return "", f"{args[0]} not found"
  try:
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
  except (OSError, subprocess.SubprocessError) as err:
    return "", f"{args[0]} failed: {err}"
  return (out.stdout, None) if not out.returncode else (
      "", f"{args[0]} failed (exit {out.returncode}): {out.stderr.strip()[-300:]}")


def _gpu_info():
  """{name, driver, memory, cuda_driver, nvcc}, from nvidia-smi and nvcc."""
  out, err = _command("nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                      "--format=csv,noheader")
  fields = [x.strip() for x in (out.strip().splitlines() or [""])[0].split(",")] + ["?", "?"]
  info = dict(zip(("name", "driver", "memory"), fields)) if out else {"name": err}
  match = re.search(r"CUDA Version:\s*([\d.]+)", _command("nvidia-smi")[0])
  info["cuda_driver"] = match.group(1) if match else "unknown"
  out, err = _command("nvcc", "--version")
  match = re.search(r"release ([\d.]+), (V[\d.]+)", out)
  info["nvcc"] = "%s (%s)" % match.groups() if match else (err or "unknown")
  return info


def _load_jaxoplanet():
  """(jaxoplanet's core.kepler, its core.light_curve, a note) or (None, None, why not).

  jaxoplanet/__init__ imports all of jaxoplanet (and equinox); if that fails
  with the equinox at hand, core/kepler.py and core/limb_dark.py, which need
  only jax, scipy and jaxoplanet's types and utils, are loaded on their own
  (the note says so).
  """
  try:
    from jaxoplanet import core  # pylint: disable=g-import-not-at-top
    return core.kepler, core.light_curve, None
  except Exception as err:  # pylint: disable=broad-except
    first_error = err
  spec = importlib.util.find_spec("jaxoplanet")
  if spec is None or not spec.submodule_search_locations:
    return None, None, f"not installed ({first_error})"
  folder = list(spec.submodule_search_locations)[0]
  try:
    sys.modules["jaxoplanet"] = types.ModuleType("jaxoplanet")
    sys.modules["jaxoplanet"].__path__ = [folder]
    for name in ("types", "utils"):
      sys.modules["jaxoplanet." + name] = importlib.import_module("jaxoplanet." + name)
    loaded = []
    for name in ("kepler", "limb_dark"):
      file_spec = importlib.util.spec_from_file_location(
          "jaxoplanet.core." + name, os.path.join(folder, "core", name + ".py"))
      loaded.append(importlib.util.module_from_spec(file_spec))
      file_spec.loader.exec_module(loaded[-1])
    return loaded[0].kepler, loaded[1].light_curve, (
        f"core/kepler.py and core/limb_dark.py loaded on their own: `import jaxoplanet` "
        f"failed: {first_error}")
  except Exception as err:  # pylint: disable=broad-except
    return None, None, f"import failed ({first_error}; then {err})"


def _uniform(jax, dtype, n, device, *ranges):
  """Arrays of n elements uniform in each of `ranges`, generated on the
  device (no host copy of 1e8-element arrays), seed bench_common.SEED."""
  keys = jax.random.split(jax.random.PRNGKey(bench_common.SEED), len(ranges))
  make = jax.jit(lambda keys: tuple(jax.random.uniform(k, (n,), dtype, lo, hi)
                                    for k, (lo, hi) in zip(keys, ranges)))
  return jax.block_until_ready(make(jax.device_put(keys, device)))


def kepler_inputs(jax, dtype, n, device):
  """(M, e) as timed: n of each on `device` (also tools/gpu/ncu_driver.py's)."""
  return _uniform(jax, dtype, n, device, (0.0, 2 * math.pi), (0.0, bench_common.E_MAX))


def light_curve_inputs(jax, dtype, n, device):
  """(b, r) as timed: n of each on `device` (also tools/gpu/ncu_driver.py's)."""
  return _uniform(jax, dtype, n, device, (0.0, bench_common.B_MAX), bench_common.R_RANGE)


def _as_tuple(x):
  return x if isinstance(x, tuple) else (x,)


def _max_diff(np, got, want):
  return max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
             for a, b in zip(_as_tuple(got), _as_tuple(want)))


def _correctness(jax, np, kepler_fns, lc_fns, device, n):
  """(rows (dtype, what, outputs on, max abs diff), note): ours on the device
  against ours on the CPU, and the peers against ours, on the device."""
  try:
    cpu = jax.devices("cpu")[0]
  except RuntimeError as err:
    return [], f"no CPU backend in this process ({err}): device not compared with the CPU"
  rows = []
  for dtype in DTYPES:
    m, e = bench_common.inputs(np, dtype, n)
    m, e = (m - np.pi) * 30, (e / bench_common.E_MAX * 0.999).astype(dtype)  # wider than timed
    b, r = (x.astype(dtype) for x in bench_common.light_curve_inputs(np, n))
    cases = {op: (OP_TITLES[op], fn, (m, e)) for op, fn in kepler_fns.items()}
    cases.update({f"{key}/{law}": (f"{key} light curve, {law} law", fn, (np.asarray(u, dtype), b, r))
                  for law, (_, u) in LC_LAWS.items() for key, fn in lc_fns[law].items()})
    outs = {}
    for key, (title, fn, args) in cases.items():
      outs[key] = jax.jit(fn)(*jax.device_put(args, device))
      if key in ("solve", "true_anomaly") or key.startswith("ours/"):
        where = ", ".join(sorted({str(d) for x in _as_tuple(outs[key]) for d in x.devices()}))
        rows.append((dtype, f"{title}: device vs CPU", where,
                     _max_diff(np, outs[key], jax.jit(fn)(*jax.device_put(args, cpu)))))
    for peer, ours in [*PEER_OF.items()] + [(f"jaxoplanet/{law}", f"ours/{law}")
                                            for law in LC_LAWS]:
      if peer in outs:
        rows.append((dtype, f"{cases[peer][0]} vs ours, on the device", "",
                     _max_diff(np, outs[peer], outs[ours])))
  return rows, None


def _copy_kernels(jax, jnp, device):
  """What XLA made of each copy function: it must not be elided."""
  x = jax.device_put(jnp.zeros((1024,), jnp.float32), device)
  notes = {}
  for what in ("value", "kepler"):
    for name, fn in _copies(jax, jnp, what).items():
      entry = fn.lower(x, x).compile().as_text().split("ENTRY", 1)[-1]
      notes[f"{name}, {ARRAYS[what]} arrays"] = "%d copy, %d fusion instruction(s)" % (
          len(re.findall(r"= \S+ copy\(", entry)), len(re.findall(r" fusion\(", entry)))
  return notes


def _transit_cases(jax, jnp, np, transit, dtype, where, sets, with_jaxoplanet):
  """({key: (function, args)}, max |jaxoplanet - ours| or a note): the
  transit model of `sets` hot Jupiters (seeded: P in [2, 5] d, t0
  within 15 min of 0, b in [0, 0.8], r in [0.05, 0.15], u around the
  quadratic law's; circular, a from P for a Sun-like star as jaxoplanet
  computes it) at TRANSIT_TIMES times spread evenly over [-0.25, 0.25] d
  (four transit durations), under jax.vmap over the sets; the value and
  jax.value_and_grad of the sum in every parameter; ours with and without
  exposures, jaxoplanet's System light curve without."""
  rng = np.random.default_rng(bench_common.SEED)
  k = sets
  host = dict(period=rng.uniform(2, 5, k), t0=rng.uniform(-0.01, 0.01, k), b=rng.uniform(0, 0.8, k),
              r=rng.uniform(0.05, 0.15, k),
              u=np.stack([rng.uniform(0.3, 0.5, k), rng.uniform(0.1, 0.3, k)], axis=1))
  peer, note, a_one_day = None, "jaxoplanet left out", 4.2089  # a / R_star of P = 1 d, a Sun
  if with_jaxoplanet:
    try:
      import transit_benchmark  # pylint: disable=g-import-not-at-top
      peer, a_three_days = transit_benchmark.jaxoplanet_model(jnp, 3.0, 0.3, 0.1)
      a_one_day = a_three_days / 3.0 ** (2 / 3)  # Kepler's third law, as jaxoplanet has it
    except Exception as err:  # pylint: disable=broad-except
      note = f"jaxoplanet's System not available ({type(err).__name__}: {err})"
  host["a"] = a_one_day * host["period"] ** (2 / 3)
  params = jax.device_put({key: v.astype(dtype) for key, v in host.items()}, where)
  times = jax.device_put(np.linspace(-0.25, 0.25, TRANSIT_TIMES).astype(dtype), where)

  def ours(exposure, u=None):
    return lambda p, t: jax.vmap(lambda q: transit.light_curve(
        t, period=q["period"], t0=q["t0"], a=q["a"], b=q["b"], r=q["r"],
        u=q["u"] if u is None else jnp.asarray(u, dtype), exposure_time=exposure))(p)

  fns = {"ours": ours(0.0), "ours_exposure": ours(TRANSIT_EXPOSURE)}
  # A whole orbit (ORBIT_SPAN days of times, the window pass writing those
  # out of transit): the quadratic law, and ten coefficients (whose kernel
  # of 255 registers runs only the times the window pass leaves); the
  # value alone.
  orbit_times = jax.device_put(np.linspace(-ORBIT_SPAN / 2, ORBIT_SPAN / 2,
                                           TRANSIT_TIMES).astype(dtype), where)
  orbit_fns = {"ours_orbit": ours(0.0), "ours_ten_orbit": ours(0.0, bench_common.LAWS["ten"])}
  if peer:
    fns["jaxoplanet"] = lambda p, t: jax.vmap(lambda q: peer(q, t))(
        {key: p[key] for key in ("period", "t0", "b", "r", "u")})
  cases = {}
  for key, fn in fns.items():
    cases[f"value/{key}"] = (jax.jit(fn), (params, times))
    cases[f"value_and_grad/{key}"] = (jax.jit(jax.value_and_grad(
        lambda p, t, fn=fn: jnp.sum(fn(p, t)))), (params, times))
  for key, fn in orbit_fns.items():
    cases[f"value/{key}"] = (jax.jit(fn), (params, orbit_times))
  if not peer:
    return cases, note
  diff = float(jnp.max(jnp.abs(cases["value/jaxoplanet"][0](params, times)
                               - cases["value/ours"][0](params, times))))
  return cases, diff


def _rv_case(jax, jnp, np, model, ops, dtype, n, device):
  """{key: (jit(value_and_grad) of the squared residuals, (params, t, y))}:
  t uniform in [0, RV_SPAN_DAYS) days, y the model's RV at model.TRUTH
  (float64, our op) plus noise of 4 m/s, params the six it reads, 1e-3 off
  the truth (relative), as a fit's steps are."""
  rng = np.random.default_rng(bench_common.SEED)
  t = np.sort(rng.uniform(0.0, RV_SPAN_DAYS, n))
  keys = ("period", "t0", "sqrt_e_cosw", "sqrt_e_sinw", "k_rv", "gamma")
  truth = {k: jnp.asarray(model.TRUTH[k], jnp.float64) for k in keys}
  y = np.asarray(model.radial_velocity(truth, jnp.asarray(t))) + rng.normal(0.0, 4.0, n)
  params = {k: np.asarray(model.TRUTH[k] * (1 + 1e-3), dtype) for k in keys}
  args = jax.device_put((params, t.astype(dtype), y.astype(dtype)), device)
  loss = lambda p, t, y, o: jnp.sum(jnp.square(model.radial_velocity(p, t, o) - y))
  return {key: (jax.jit(jax.value_and_grad(lambda p, t, y, o=o: loss(p, t, y, o))), args)
          for key, o in ops.items()}


def _rv_agreement(jax, np, results):
  """Max over (loss, gradient) of max |jaxoplanet - ours| / max |jaxoplanet|."""
  if len(results) < 2:
    return None
  pairs = zip(*(jax.tree.leaves(results[k]) for k in ("ours", "jaxoplanet")))
  pairs = [(np.asarray(a, np.float64), np.asarray(b, np.float64)) for a, b in pairs]
  return max(float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)) for a, b in pairs)


def measure(args):
  """Every measurement of the run, as plain data for `report`."""
  if args.platform in ("cuda", "gpu"):
    # The CPU backend too, for the device-vs-CPU check and the CPU column.
    os.environ["JAX_PLATFORMS"] = "cuda,cpu"
  elif args.platform == "cpu":
    os.environ["JAX_PLATFORMS"] = "cpu"
  started, start = bench_common.now(), time.perf_counter()
  jax, jnp, np = bench_common.import_jax()
  try:
    import kepler  # pylint: disable=g-import-not-at-top
    from kepler import limb_dark  # pylint: disable=g-import-not-at-top
    from kepler import transit  # pylint: disable=g-import-not-at-top
  except ImportError as err:
    sys.exit(f"gpu_benchmark: cannot import kepler ({err}). Install the kepler-jax wheel (and its "
             "CUDA plugin for a GPU), and run this file as a script, not with the repository "
             "root on sys.path: the source tree's kepler/ has no compiled modules.")
  model = bench_common.example_model()
  device = jax.devices()[0]
  on_gpu = device.platform == "gpu"
  if args.platform in ("cuda", "gpu") and not on_gpu:
    sys.exit(f"gpu_benchmark: --platform {args.platform}, but JAX's default device is {device}")
  if on_gpu and getattr(kepler, "cuda_version", None) is None:
    sys.exit(f"gpu_benchmark: the device is a GPU but kepler ({kepler.__file__}) has no CUDA "
             "plugin loaded")
  try:
    cpu = jax.devices("cpu")[0]
  except RuntimeError:  # JAX_PLATFORMS without cpu
    cpu = None
  log = lambda msg: print(f"  {msg} ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)

  max_n = args.max_n or (100_000_000 if on_gpu and not args.quick else
                         1_000_000 if on_gpu else 100_000)
  timers = [bench_common.Timer(
      jax, repeats=repeats, min_seconds=args.min_seconds or (0.01 if args.quick else 0.05),
      max_case_seconds=args.max_case_seconds, deadline=start + args.budget,
      stop=start + 1.25 * args.budget, keep_going=True)
            for repeats in (args.repeats or (3 if args.quick else 15),
                            args.lc_repeats or (3 if args.quick else 7))]
  kepler_jx, lc_jx, jaxoplanet_note = (None, None, "left out (--no-jaxoplanet)") if (
      args.no_jaxoplanet) else _load_jaxoplanet()
  kepler_fns = {"solve": kepler.solve, "true_anomaly": kepler.true_anomaly,
                "jaxoplanet": kepler_jx, "newton": bench_common.newton_solver(jax, jnp)}
  kepler_fns = {k: fn for k, fn in kepler_fns.items() if fn}
  lc_fns = {law: {k: fn for k, fn in (
      ("ours", lc_function(limb_dark, law)),
      ("jaxoplanet", lc_jx if name == "polynomial" else None)) if fn}
            for law, (name, _) in LC_LAWS.items()}
  data = {
      "started": started, "on_gpu": on_gpu, "platform": device.platform, "device": str(device),
      "device_kind": getattr(device, "device_kind", "") or "",
      "device_count": len(jax.devices(device.platform)),
      "platform_version": getattr(getattr(device, "client", None), "platform_version", "unknown"),
      "gpu": _gpu_info() if on_gpu else {}, "host": platform.platform(),
      "python": platform.python_version(), "cpus": os.cpu_count(),
      "versions": bench_common.versions(
          ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin",
           "jax-cuda12-pjrt", "numpy", "kepler-jax", "kepler-jax-cuda13-plugin", "jaxoplanet",
           "equinox"), **{"kepler.__version__": kepler.__version__,
                          "kepler.cuda_version": str(getattr(kepler, "cuda_version", None))}),
      "jaxoplanet_note": jaxoplanet_note, "kepler_module": os.path.dirname(kepler.__file__),
      "xla_flags": os.environ.get("XLA_FLAGS", ""), "check_n": args.check_n,
      "sizes": [n for n in SIZES if n <= max_n] or [max_n],
      "lc_sizes": [n for n in LC_SIZES if n <= max_n] or [max_n],
      "transit_sets": 20 if args.quick else TRANSIT_SETS,
      "rv_sizes": [n for n in RV_SIZES if n <= max(max_n, RV_SIZES[0])],
      "repeats": [t.repeats for t in timers], "min_seconds": timers[0].min_seconds,
      "places": {"dev": str(device), **({"cpu": str(cpu)} if cpu else {})},
  }
  log(f"device {device} ({data['device_kind']}); correctness check")
  data["check"], data["check_note"] = _correctness(jax, np, kepler_fns, lc_fns, device, args.check_n)
  data["copy_kernels"] = _copy_kernels(jax, jnp, device)

  times = data["times"] = {}
  # Light curves and the transit model first (the light curve's targets),
  # the device's rows before the CPU's; then Kepler's equation.
  lc_jit = {law: {k: {"value": jax.jit(fn), "value_and_grad": jax.jit(jax.value_and_grad(
      lambda u, b, r, fn=fn: jnp.sum(fn(u, b, r)), argnums=(0, 1, 2)))} for k, fn in fns.items()}
            for law, fns in lc_fns.items()}
  for place, keys in (("dev", ("ours", "jaxoplanet")), ("cpu", ("ours",))) * ("lc" in args.sections):
    where = {"dev": device, "cpu": cpu}[place]
    for dtype, n in ((dtype, n) for dtype in DTYPES for n in data["lc_sizes"]
                     if where and (place == "dev" or n <= CPU_MAX_N)):
      b_r = light_curve_inputs(jax, dtype, n, where)
      cases = {}
      for what in WHATS:
        cases.update({f"{what}/{c}": (fn, b_r) for c, fn in _copies(jax, jnp, what).items()})
        for law, (_, u) in LC_LAWS.items():
          if n > CPU_MAX_N and law not in LC_LAWS_AT_LARGEST_N:
            continue
          u = jax.device_put(np.asarray(u, dtype), where)
          cases.update({f"{what}/{law}/{k}": (lc_jit[law][k][what], (u, *b_r))
                        for k in keys if k in lc_jit[law]})
      times.update({f"lc/{place}/{dtype}/{n}/{k}": v for k, v in timers[1](cases).items()})
      del b_r, cases
      log(f"light curves on {where}, {dtype} N={n}")
  data["transit_agreement"] = {}
  for place, where in (("dev", device), ("cpu", cpu)) * ("transit" in args.sections):
    for dtype in DTYPES if where else ():
      cases, agree = _transit_cases(jax, jnp, np, transit, dtype, where, data["transit_sets"],
                                    lc_jx is not None and place == "dev")
      times.update({f"transit/{place}/{dtype}/{k}": v for k, v in timers[1](cases).items()})
      if place == "dev":
        data["transit_agreement"][dtype] = agree
      del cases
      log(f"transit model on {where}, {dtype}")
  for dtype in DTYPES * ("kepler" in args.sections):
    for n in data["sizes"]:
      m_e = kepler_inputs(jax, dtype, n, device)
      cases = {c: (fn, m_e) for c, fn in _copies(jax, jnp, "kepler").items()}
      cases.update({op: (jax.jit(fn), m_e) for op, fn in kepler_fns.items()})
      times.update({f"kepler/{dtype}/{n}/{k}": v for k, v in timers[0](cases).items()})
      del m_e, cases
      log(f"Kepler {dtype} N={n}")
  rv_ops = {"ours": model.OURS}
  if kepler_jx:
    rv_ops["jaxoplanet"] = model.Ops("jaxoplanet", kepler_jx, lc_jx)
  data["rv_agreement"] = {}
  for dtype in DTYPES * ("rv" in args.sections):
    for n in data["rv_sizes"]:
      cases = _rv_case(jax, jnp, np, model, rv_ops, dtype, n, device)
      times.update({f"rv/{dtype}/{n}/{k}": v for k, v in timers[0](cases).items()})
      data["rv_agreement"][f"{dtype}/{n}"] = _rv_agreement(
          jax, np, {k: fn(*a) for k, (fn, a) in cases.items()})
      del cases
      log(f"RV step {dtype} N={n}")
  data["wall"] = time.perf_counter() - start
  return data


# ---------------------------------------------------------------------------
# The report.


def _fmt_time(seconds):
  return "%.1f us" % (seconds * 1e6) if seconds < 1e-3 else "%.3g ms" % (seconds * 1e3)


def _median(times, name):
  return times.get(name, {}).get("median")


def _bound(times, prefix):
  """The fastest copy timed under `prefix` (seconds), or None."""
  found = [v["median"] for k, v in times.items() if k.startswith(prefix + "/copy_") and "median" in v]
  return min(found) if found else None


def _cell(times, name, n, bound, ours=None, rate=False):
  """ns per element, [G per s,] % of the bound[, time / ours]; "n/a" and why."""
  entry = times.get(name, {})
  if "median" not in entry:
    return "n/a (%s)" % entry["error"] if "error" in entry else "n/a"
  t = entry["median"]
  cell = [bench_common.ns(t, n) + " ns"]
  cell += ["%.3g G/s" % (n / t / 1e9)] if rate else []
  cell += ["%.0f%%" % (100 * bound / t)] if bound else []
  cell += ["%.2fx" % (t / ours)] if ours else []
  return ", ".join(cell) + " (r)" * entry["reduced"]


def report(data):
  """The Markdown report of `measure`'s data."""
  times, gpu, first = data["times"], data["gpu"], data["sizes"][0]
  ops = [op for op in OP_TITLES if f"kepler/float64/{first}/{op}" in times]
  out = bench_common.Report("kepler-jax GPU benchmark" if data["on_gpu"] else
                            "kepler-jax GPU benchmark script: %s smoke run, NOT a GPU result"
                            % data["platform"].upper())
  out.bullets([
      f"date: {data['started']} (the run took {data['wall']:.0f} s)",
      f"device: {data['device']}, device_kind `{data['device_kind']}`; {data['device_count']} "
      "device(s) of this platform",
      *(["nvidia-smi: %s, driver %s, %s; CUDA (driver) %s" % (
          gpu.get("name"), gpu.get("driver"), gpu.get("memory"), gpu.get("cuda_driver")),
         "CUDA toolkit: nvcc %s; kepler's CUDA plugin built with CUDA %s; JAX's platform "
         "version: %s" % (gpu.get("nvcc"), data["versions"]["kepler.cuda_version"],
                          data["platform_version"])] if data["on_gpu"] else []),
      f"host: {data['host']}; Python {data['python']}; {data['cpus'] or 0} CPUs",
      "versions: " + ", ".join("%s %s" % kv for kv in data["versions"].items()),
      f"kepler imported from `{data['kepler_module']}`; XLA_FLAGS: `{data['xla_flags']}`",
      "method: inputs generated on the device (jax.random, seed %d: M uniform in [0, 2 pi), e in "
      "[0, %.2f); b uniform in [0, %g], r in [%g, %g]); each function jitted, compiled and warmed "
      "up, then %d interleaved repeats (light curves: %d; fewer where marked (r)) of a loop of "
      "calls lasting >= %g s, each call followed by block_until_ready (bench_common.Timer); "
      "reported: the median over the repeats of the time per call, per element (ns/solve, "
      "ns/point); %% = the time of a copy of the same bytes on the same device (the bound) / the "
      "row's time. The bound: the faster of %s; XLA compiled them to %s." % (
          bench_common.SEED, bench_common.E_MAX, bench_common.B_MAX, *bench_common.R_RANGE,
          *data["repeats"], data["min_seconds"], COPY_TITLES,
          "; ".join(f"{k}: {v}" for k, v in data["copy_kernels"].items()))])
  if "jaxoplanet" not in ops:
    out.para(f"jaxoplanet: {data['jaxoplanet_note']}.")

  out.section("Correctness on the device")
  out.para((data["check_note"] or "") + ("The device is the CPU: this compares the CPU backend "
                                         "with itself (a smoke run). " * (data["platform"] == "cpu"))
           + f"{data['check_n']} points; Kepler: M uniform in [-30 pi, 30 pi), e uniform in "
           "[0, 0.999); light curves: b and r as timed.")
  out.table(["dtype", "what", "outputs on", "max abs diff"],
            [(d, what, where, "%.2e" % diff) for d, what, where, diff in data["check"]])

  out.section("Solves per second")
  out.para("Each cell: ns/solve, Gsolves/s, % of the copy bound at that N; for the peers also "
           "their time / ours (> 1: ours is faster; jaxoplanet against `kepler.true_anomaly`, "
           "which returns the same thing, Newton against `kepler.solve`).")
  for dtype in DTYPES:
    size = ARRAYS["kepler"] * (4 if dtype == "float32" else 8)
    out.section("%s (%d bytes per solve)" % (dtype, size), level=3)
    rows = []
    for n in data["sizes"]:
      prefix = f"kepler/{dtype}/{n}"
      bound = _bound(times, prefix)
      rows.append([f"{n:,}", "%s, %.0f GB/s" % (_fmt_time(bound), size * n / bound / 1e9)
                   if bound else "n/a"] + [_cell(times, f"{prefix}/{op}", n, bound, rate=True, ours=(
                       _median(times, f"{prefix}/{PEER_OF[op]}") if op in PEER_OF else None))
                                           for op in ops])
    out.table(["N", "bound: copy time, GB/s"] + [OP_TITLES[op] for op in ops], rows)
  out.para("(r): fewer repeats than planned (time cap); see the timing details.")

  out.section("Light curves")
  out.para("ns per point, %% of the bound (a copy of the row's bytes: b and r in; the value out, "
           "or dF/db and dF/dr for the value with its gradient in (b, r, u), jax.value_and_grad of "
           "the sum; %d and %d arrays of N) on the same device; jaxoplanet also its time / ours "
           "on the device (> 1: ours is faster). The CPU column: our op on the CPU backend of the "
           "same process (%s), all cores, against a copy on the CPU, up to N = %.0e. Laws: quadratic u = %s, ten "
           "coefficients u = %s, power-2 (c, alpha) = %s, tabulated: %d points, I = 1 - 0.6 (1 - mu^0.6) "
           "at mu evenly spaced in [0.01, 1] (jaxoplanet has the polynomial laws alone)." % (
               ARRAYS["value"], ARRAYS["value_and_grad"], data["places"].get("cpu", "none"),
               CPU_MAX_N, *(LC_LAWS[law][1] for law in ("quadratic", "ten", "power2")),
               len(TABULATED_MU)))
  columns = [c for c in LC_TITLES if c.split("/")[0] in data["places"]]
  for dtype in DTYPES:
    out.section(dtype, level=3)
    rows = []
    for law, what, n in ((l, w, n) for l in LC_LAWS for w in WHATS for n in data["lc_sizes"]
                         if n <= CPU_MAX_N or l in LC_LAWS_AT_LARGEST_N):
      bound = _bound(times, f"lc/dev/{dtype}/{n}/{what}")
      size = ARRAYS[what] * (4 if dtype == "float32" else 8)
      ours = _median(times, f"lc/dev/{dtype}/{n}/{what}/{law}/ours")
      rows.append([law, what, f"{n:,}", "%s, %.0f GB/s" % (_fmt_time(bound), size * n / bound / 1e9)
                   if bound else "n/a"] + [_cell(
                       times, f"lc/{place}/{dtype}/{n}/{what}/{law}/{key}", n,
                       _bound(times, f"lc/{place}/{dtype}/{n}/{what}"),
                       ours if key == "jaxoplanet" else None)
                                           for place, key in (c.split("/") for c in columns)])
    out.table(["law", "what", "N", "bound on the device: copy time, GB/s"]
              + [LC_TITLES[c] for c in columns], rows)

  out.section("The transit model under jax.vmap")
  points = data["transit_sets"] * TRANSIT_TIMES
  out.para("`kepler.transit.light_curve` of %d parameter sets (hot Jupiters on circular orbits, "
           "the quadratic law) at the same %d times each, four transit durations, under jax.vmap "
           "(one kernel launch): ns per point (%.0e points), the value and jax.value_and_grad of "
           "the sum in every parameter; the value alone over a whole orbit (the same number of "
           "times, the quadratic law and ten coefficients); ours without exposures and with "
           "Kepler's long-cadence "
           "exposure (%.4f d, integrated exactly), jaxoplanet 0.2's System light curve on the "
           "same device (its time / ours without exposures: > 1, ours is faster), ours on the "
           "CPU (all cores). max |jaxoplanet - ours| on the device: %s." % (
               data["transit_sets"], TRANSIT_TIMES, points, TRANSIT_EXPOSURE,
               "; ".join(f"{d} " + ("%.1e" % v if isinstance(v, float) else str(v))
                         for d, v in data["transit_agreement"].items()) or "not run"))
  rows = []
  models = {"ours": "instantaneous", "ours_exposure": "with exposures",
            "ours_orbit": f"a whole orbit ({ORBIT_SPAN:g} d)",
            "ours_ten_orbit": f"ten coefficients, a whole orbit ({ORBIT_SPAN:g} d)"}
  for dtype, what, key in ((d, w, k) for d in DTYPES for w in WHATS for k in models
                           if w == "value" or k in ("ours", "ours_exposure")):
    prefix = f"transit/dev/{dtype}/{what}"
    ours = _median(times, f"{prefix}/ours")
    rows.append([dtype, what, models[key],
                 _cell(times, f"{prefix}/{key}", points, None),
                 _cell(times, f"{prefix}/jaxoplanet", points, None, ours) if key == "ours" else "",
                 _cell(times, f"transit/cpu/{dtype}/{what}/{key}", points, None)])
  out.table(["dtype", "what", "model", "ours, on the device", "jaxoplanet, same device",
             "ours, on the CPU (all cores)"], rows)

  out.section("Radial-velocity model step")
  out.para("jit(value_and_grad) of the sum of squared residuals of examples/transit_rv_model.py's "
           "`radial_velocity` (K (cos(w + f) + e cos w) + gamma, f from each Kepler solver; the six "
           "parameters it reads, 1e-3 off the truth), t uniform in [0, %g) days, data from the "
           "truth plus noise. Per step: time, ns per data point; how far apart the two are: max "
           "over the loss and the gradient of max |jaxoplanet - ours| / max |jaxoplanet|."
           % RV_SPAN_DAYS)
  rows = []
  for dtype, n in ((d, n) for d in DTYPES for n in data["rv_sizes"]):
    t = [_median(times, f"rv/{dtype}/{n}/{k}") for k in ("ours", "jaxoplanet")]
    agree = data["rv_agreement"].get(f"{dtype}/{n}")
    rows.append([dtype, f"{n:,}"] + ["%s, %s ns" % (_fmt_time(x), bench_common.ns(x, n))
                                     if x else "n/a" for x in t]
                + ["%.2fx" % (t[1] / t[0]) if all(t) else "n/a",
                   "%.1e" % agree if agree is not None else "n/a"])
  out.table(["dtype", "N points", "ours (`kepler.true_anomaly`)", "jaxoplanet",
             "jaxoplanet / ours", "rel diff (loss, grad)"], rows)

  out.section("Targets")
  if not data["on_gpu"]:
    out.para("Not a GPU: the statuses below are for this smoke run only.")
  out.table(["target", "dtype", "measured", "status"],
            _targets(times, data["transit_sets"] * TRANSIT_TIMES))

  out.section("Timing details")
  out.para("Per case: calls per timed loop x repeats; min / median / max time per call.")
  out.table(["case", "calls x repeats", "min", "median", "max"], [
      [name, "%d x %d%s" % (v["calls"], v["repeats"], " (r)" * v["reduced"]), _fmt_time(v["min"]),
       _fmt_time(v["median"]), _fmt_time(v["max"])] if "median" in v else
      [name, v["error"], "", "", ""] for name, v in times.items()])
  return out.text()


def _power(n):
  """1e6 for 1_000_000, 2e5 for 200_000."""
  return ("%.0e" % n).replace("e+0", "e").replace("e+", "e")


def _targets(times, transit_points):
  """The rows of the targets' table: tools/gpu_check.py reads those whose
  target starts with "N = 1e" (and leaves out those "not part of" one)."""
  rows = []

  def row(label, dtype, got, limit):
    """got: (the measured share or speed-up, its cell), or None; met at >= limit."""
    rows.append([label, dtype] + (["not run", "not measured"] if got is None else
                                  [got[1], "met" if got[0] >= limit else "MISSED"]))

  def share(prefix, case, unit):
    t, bound = _median(times, f"{prefix}/{case}"), _bound(times, prefix)
    return (bound / t, "%.0f%% (%.3g %s vs copy %.3g G/s)" % (
        100 * bound / t, TARGET_N / t / 1e9, unit, TARGET_N / bound / 1e9)) if t and bound else None

  def speedup(prefix, ours, text):
    t, peer = _median(times, f"{prefix}/{ours}"), _median(times, f"{prefix}/jaxoplanet")
    return (peer / t, text.format(ratio=peer / t, ours=_fmt_time(t), peer=_fmt_time(peer))
            ) if t and peer else None

  for dtype, op in ((d, op) for d in DTYPES for op in ("solve", "true_anomaly")):
    row(f"N = 1e8: {OP_TITLES[op]} >= {100 * TARGET_FRACTION:.0f}% of the copy bound"
        + " (not part of the target)" * (op != "solve"), dtype,
        share(f"kepler/{dtype}/{TARGET_N}", op, "G/s"), TARGET_FRACTION)
  for dtype, op in ((d, op) for d in DTYPES for op in ("true_anomaly", "solve")):
    row(f"N = 1e4: {OP_TITLES[op]} no slower than jaxoplanet"
        + " (E, not f: not part of the target)" * (op != "true_anomaly"), dtype,
        speedup(f"kepler/{dtype}/{SMALL_N}", op,
                "ours {ours}, jaxoplanet {peer} per call ({ratio:.2f}x)"), 1.0)
  def per_point(key, n, limit, unit="point"):
    t = _median(times, key)
    return (limit / (t / n * 1e9), "%.3g ns a %s" % (t / n * 1e9, unit)) if t else None

  for law, what, limit, n in LC_TARGET_NS:
    row(f"N = {_power(n)}: ours light curve, {law} law, {what} at most {limit:g} ns a point",
        "float64", per_point(f"lc/dev/float64/{n}/{what}/{law}/ours", n, limit), 1.0)
  for key, limit in TRANSIT_TARGET_NS:
    row(f"N = {_power(transit_points)}: ours transit model, {key.replace('_', ' with ')}, value at "
        f"most {limit:g} ns a time", "float64",
        per_point(f"transit/dev/float64/value/{key}", transit_points, limit, "time"), 1.0)
  for dtype, law, what, n in ((d, l, w, n) for d in DTYPES for l in LC_LAWS for w in WHATS
                              for n in (CPU_MAX_N, TARGET_N) if LC_LAWS[l][0] == "polynomial"):
    row(f"N = {_power(n)}: ours light curve, {law} law, {what} >= {LC_TARGET_SPEEDUP:g}x "
        "jaxoplanet", dtype, speedup(f"lc/dev/{dtype}/{n}/{what}/{law}", "ours",
                                     "{ratio:.1f}x (ours {ours}, jaxoplanet {peer} per call)"),
        LC_TARGET_SPEEDUP)
  for dtype, what in ((d, w) for d in DTYPES for w in WHATS):
    row(f"N = {_power(transit_points)}: ours transit model, {what} >= {LC_TARGET_SPEEDUP:g}x "
        "jaxoplanet", dtype, speedup(f"transit/dev/{dtype}/{what}", "ours",
                                     "{ratio:.1f}x (ours {ours}, jaxoplanet {peer} per call)"),
        LC_TARGET_SPEEDUP)
  for law in LC_LAWS:
    t, cpu = (_median(times, f"lc/{p}/float64/{CPU_MAX_N}/value/{law}/ours") for p in ("dev", "cpu"))
    row(f"N = {_power(CPU_MAX_N)}: ours light curve, {law} law, value, the device >= "
        f"{CPU_TARGET_SPEEDUP:g}x ours on the CPU (all cores)", "float64",
        (cpu / t, "%.1fx (device %s, CPU %s per call)" % (cpu / t, _fmt_time(t), _fmt_time(cpu)))
        if t and cpu else None, CPU_TARGET_SPEEDUP)
  return rows


def _count(text):
  value = float(text)
  if value < 1 or value != int(value):
    raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
  return int(value)


def _sections(text):
  """--sections: a comma-separated subset of SECTIONS; anything else is an error."""
  names = {name.strip() for name in text.split(",") if name.strip()}
  unknown = sorted(names - set(SECTIONS))
  if unknown or not names:
    raise argparse.ArgumentTypeError("unknown section(s) %s in %r: the sections are %s" % (
        ", ".join(map(repr, unknown)) or "(none given)", text, ",".join(SECTIONS)))
  return names


def main():
  bench_common.main(__doc__, measure, report, options=[
      (["--platform"], dict(choices=("default", "cuda", "gpu", "cpu"), default="default", help=(
          "JAX platform to measure on (default: JAX's default device; cuda/gpu: require a GPU; "
          "cpu: a smoke run)"))),
      (["--max-n"], dict(type=_count, help="largest N (default: 1e8 on a GPU, 1e5 on the CPU; "
                         "quick: 1e6 on a GPU)")),
      (["--repeats"], dict(type=int, help="repeats per case (default 15; quick: 3)")),
      (["--lc-repeats"], dict(type=int, help="repeats per light-curve case (default 7; quick: 3)")),
      (["--min-seconds"], dict(type=float, help="shortest timed loop (default 0.05 s; quick: 0.01 s)")),
      (["--max-case-seconds"], dict(type=float, default=3.0, help=(
          "cap on one case's timed loops; a slower case gets fewer repeats (default 3)"))),
      (["--budget"], dict(type=float, default=200.0, help=(
          "seconds after which every case gets 3 loops of one call; past 1.25 times it no case "
          "is run (default 200)"))),
      (["--check-n"], dict(type=int, default=4096, help="points of the correctness check (default 4096)")),
      (["--no-jaxoplanet"], dict(action="store_true", help="leave jaxoplanet out")),
      (["--sections"], dict(type=_sections, default=set(SECTIONS), help=(
          "comma-separated sections to time (default: all of %s)" % ",".join(SECTIONS)))),
  ])


if __name__ == "__main__":
  main()
