"""GPU benchmark of kepler.solve and kepler.true_anomaly against jaxoplanet, jnp and a copy.

    python3 benchmarks/gpu_benchmark.py [--output FILE]      # an installed wheel
    bazel run --config=cuda //benchmarks:gpu_benchmark        # or from the tree

Runs on JAX's default device (the GPU when there is one; `--platform cpu` for
a smoke run on the CPU) and prints one Markdown report, last: the device,
driver, CUDA and versions; a check that the ops run on the device and agree
with the CPU and with each other; then, for float32 and float64 at N = 1e4,
1e5, 1e6, 1e7, 1e8, the time per call, ns per solve and solves per second of

  * `kepler.solve` and `kepler.true_anomaly` (ours),
  * jaxoplanet 0.2's `jaxoplanet.core.kepler` (true anomaly, like ours' f),
  * a plain jnp Newton solver (bench_common.newton_solver),
  * the ceiling: a device-to-device copy of the same bytes (two arrays in,
    two out), measured the same way, as two XLA `copy` ops and as a fused
    `(M + 1, e + 1)`; the faster of the two is the ceiling, and each op's
    time is given as a percentage of it (copy time / op time);

and one step of a radial-velocity fit (jit(value_and_grad) of the sum of
squared residuals of a Keplerian RV model, six parameters) at N = 1e3 and
1e6 data points, ours against jaxoplanet. The targets (N = 1e8: kepler.solve
>= 80% of the copy ceiling, both dtypes; N = 1e4: ours no slower than
jaxoplanet, both dtypes) are printed as met or MISSED.

Timing: every function jitted, compiled and warmed up; then interleaved
repeats of a loop of calls lasting >= --min-seconds, each call followed by
block_until_ready, wall clock; reported: the median over the repeats of the
time per call. A case whose repeats would take more than --max-case-seconds
gets fewer (at least 3), and past --budget seconds every case gets 3 loops of
one call: the report says where that happened.

Run it as a script with the kepler wheel installed (or through Bazel): the
folder of this file is the first entry of sys.path, so `import kepler` finds
the installed package, never the source tree's kepler/ (which has no
compiled modules). Do not put the repository root on PYTHONPATH.
"""

import argparse
import datetime
import importlib
import importlib.util
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
RV_SIZES = (1_000, 1_000_000)
DTYPES = ("float32", "float64")
# Bytes moved per solve: M and e read, two outputs written.
BYTES_PER_SOLVE = {"float32": 16, "float64": 32}

# The speed targets (benchmarks/BENCHMARKS.md).
TARGET_FRACTION = 0.80  # kepler.solve at TARGET_N: >= 80% of the measured copy ceiling
TARGET_N = 100_000_000
SMALL_N = 10_000  # ours no slower than jaxoplanet

OPS = ("solve", "true_anomaly", "jaxoplanet", "newton")
OP_TITLES = {
    "solve": "ours `kepler.solve` (E)",
    "true_anomaly": "ours `kepler.true_anomaly` (f)",
    "jaxoplanet": "jaxoplanet `core.kepler` (f)",
    "newton": "jnp Newton (E)",
}
COPIES = ("copy_xla", "copy_fused")
COPY_TITLES = {
    "copy_xla": "two XLA copies (`jnp.copy` of M and e)",
    "copy_fused": "fused `(M + 1, e + 1)`",
}


def _parse_count(text):
  value = float(text)
  if value < 1 or value != int(value):
    raise argparse.ArgumentTypeError("expected a positive whole number, got %r" % text)
  return int(value)


def _command(args, timeout=60):
  """stdout of a command, or why there is none."""
  if not shutil.which(args[0]):
    return None, "%s not found" % args[0]
  try:
    out = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
  except (OSError, subprocess.SubprocessError) as err:
    return None, "%s failed: %s" % (args[0], err)
  if out.returncode:
    return None, "%s failed (exit %d): %s" % (args[0], out.returncode, out.stderr.strip()[-300:])
  return out.stdout, None


def _gpu_info():
  """{name, driver, memory, cuda (the driver's), nvcc}, from nvidia-smi and nvcc."""
  info = {}
  out, err = _command(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                       "--format=csv,noheader"])
  if out:
    first = out.strip().splitlines()[0]
    name, driver, memory = (x.strip() for x in (first.split(",") + ["", "", ""])[:3])
    info.update(name=name, driver=driver, memory=memory)
  else:
    info["name"] = err
  out, _ = _command(["nvidia-smi"])
  match = re.search(r"CUDA Version:\s*([\d.]+)", out or "")
  info["cuda_driver"] = match.group(1) if match else "unknown"
  out, err = _command(["nvcc", "--version"])
  match = re.search(r"release ([\d.]+), (V[\d.]+)", out or "")
  info["nvcc"] = "%s (%s)" % match.groups() if match else (err or "unknown")
  return info


def _versions(kepler, jaxoplanet_note):
  from importlib import metadata

  versions = {}
  for name in ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin",
               "jax-cuda12-pjrt", "numpy", "kepler-jax", "kepler-jax-cuda13-plugin",
               "jaxoplanet", "equinox"):
    try:
      versions[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
      pass
  versions["kepler.__version__"] = kepler.__version__
  versions["kepler.cuda_version"] = str(getattr(kepler, "cuda_version", None))
  if jaxoplanet_note:
    versions["jaxoplanet"] = "%s (%s)" % (versions.get("jaxoplanet", "?"), jaxoplanet_note)
  return versions


def _load_jaxoplanet():
  """(jaxoplanet's core.kepler, a note on how it was loaded) or (None, why not).

  jaxoplanet/__init__ imports all of jaxoplanet (and equinox); if that fails
  with the equinox at hand, core/kepler.py, which needs only jax, is loaded
  on its own (the note says so).
  """
  try:
    from jaxoplanet.core import kepler as jaxoplanet_kepler  # pylint: disable=g-import-not-at-top
    return jaxoplanet_kepler, None
  except Exception as err:  # pylint: disable=broad-except
    first_error = err
  spec = importlib.util.find_spec("jaxoplanet")
  if spec is None or not spec.submodule_search_locations:
    return None, "not installed (%s)" % first_error
  folder = list(spec.submodule_search_locations)[0]
  try:
    package = types.ModuleType("jaxoplanet")
    package.__path__ = [folder]
    sys.modules["jaxoplanet"] = package
    sys.modules["jaxoplanet.types"] = importlib.import_module("jaxoplanet.types")
    file_spec = importlib.util.spec_from_file_location(
        "jaxoplanet.core.kepler", os.path.join(folder, "core", "kepler.py"))
    module = importlib.util.module_from_spec(file_spec)
    file_spec.loader.exec_module(module)
    return module.kepler, ("core/kepler.py loaded on its own: `import jaxoplanet` failed: %s"
                           % first_error)
  except Exception as err:  # pylint: disable=broad-except
    return None, "import failed (%s; then %s)" % (first_error, err)


def _device_inputs(jax, jnp, dtype, n, device):
  """(M, e) generated on the device: no host copy of 1e8-element arrays."""
  key_m, key_e = jax.random.split(jax.random.PRNGKey(bench_common.SEED))
  make = jax.jit(lambda k_m, k_e: (
      jax.random.uniform(k_m, (n,), dtype, 0.0, 2 * jnp.pi),
      jax.random.uniform(k_e, (n,), dtype, 0.0, bench_common.E_MAX)))
  key_m, key_e = jax.device_put((key_m, key_e), device)
  return jax.block_until_ready(make(key_m, key_e))


def _copies(jax, jnp):
  """The ceiling's functions: two in, two out, the same bytes as a solve."""
  return {
      "copy_xla": jax.jit(lambda m, e: (jnp.copy(m), jnp.copy(e))),
      "copy_fused": jax.jit(lambda m, e: (m + 1, e + 1)),
  }


def _copy_kernels(jax, jnp, copies, device):
  """What XLA made of each copy function: it must not be elided."""
  x = jax.device_put(jnp.zeros((1024,), jnp.float32), device)
  notes = {}
  for name, fn in copies.items():
    hlo = fn.lower(x, x).compile().as_text()
    entry = hlo[hlo.find("ENTRY"):]
    notes[name] = ("%d copy, %d fusion instruction(s) in the entry computation"
                   % (len(re.findall(r"= \S+ copy\(", entry)), len(re.findall(r" fusion\(", entry))))
  return notes


def _correctness(jax, np, impls, device, n):
  """Rows (dtype, what, outputs on, max abs diff): device vs CPU, and peers vs ours."""
  rows = []
  try:
    cpu = jax.devices("cpu")[0]
  except RuntimeError as err:
    return [], "no CPU backend in this process (%s): device not compared with the CPU" % err
  for dtype in DTYPES:
    m, e = bench_common.inputs(np, dtype, n)
    m = (m - np.pi) * 30  # M in [-30 pi, 30 pi)
    e = (e / bench_common.E_MAX * 0.999).astype(dtype)  # e in [0, 0.999)
    outs = {}
    for op in ("solve", "true_anomaly", "jaxoplanet", "newton"):
      if impls.get(op) is None:
        continue
      fn = jax.jit(impls[op])
      on_dev = fn(jax.device_put(m, device), jax.device_put(e, device))
      outs[op] = [np.asarray(x, np.float64) for x in on_dev]
      where = ", ".join(sorted({str(d) for x in on_dev for d in x.devices()}))
      if op in ("solve", "true_anomaly"):
        on_cpu = fn(jax.device_put(m, cpu), jax.device_put(e, cpu))
        diff = max(float(np.max(np.abs(a - np.asarray(b, np.float64))))
                   for a, b in zip(outs[op], on_cpu))
        rows.append((dtype, "%s: device vs CPU" % OP_TITLES[op], where, diff))
    for peer, ours in (("jaxoplanet", "true_anomaly"), ("newton", "solve")):
      if peer in outs:
        diff = max(float(np.max(np.abs(a - b))) for a, b in zip(outs[peer], outs[ours]))
        rows.append((dtype, "%s vs %s, on the device" % (OP_TITLES[peer], OP_TITLES[ours]),
                     "", diff))
  return rows, None


def _rv_agreement(jax, np, results):
  """Max over (loss, gradient) of max |jaxoplanet - ours| / max |jaxoplanet|."""
  ours, peer = results.get("ours"), results.get("jaxoplanet")
  if ours is None or peer is None:
    return None
  worst = 0.0
  for a, b in zip(jax.tree.leaves(ours), jax.tree.leaves(peer)):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    worst = max(worst, float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300)))
  return worst


def _fmt_ns(seconds, n):
  ns = seconds * 1e9 / n
  return "%#.3g" % ns if ns < 100 else "%.0f" % ns


def _fmt_time(seconds):
  if seconds < 1e-3:
    return "%.1f us" % (seconds * 1e6)
  return "%.3g ms" % (seconds * 1e3)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--platform", choices=("default", "cuda", "gpu", "cpu"), default="default",
                      help="JAX platform to measure on (default: JAX's default device; "
                      "cuda/gpu: require a GPU; cpu: a smoke run)")
  parser.add_argument("--max-n", type=_parse_count, default=None,
                      help="largest N (default: 1e8 on a GPU, 1e5 on the CPU)")
  parser.add_argument("--quick", action="store_true",
                      help="few repeats, short loops, N <= 1e6 unless --max-n (a smoke run)")
  parser.add_argument("--repeats", type=int, default=None, help="repeats per case (default 15; quick: 3)")
  parser.add_argument("--min-seconds", type=float, default=None,
                      help="shortest timed loop (default 0.05 s; quick: 0.01 s)")
  parser.add_argument("--max-case-seconds", type=float, default=3.0,
                      help="cap on one case's timed loops; a slower case gets fewer repeats (default 3)")
  parser.add_argument("--budget", type=float, default=200.0,
                      help="seconds after which every case gets 3 loops of one call (default 200)")
  parser.add_argument("--check-n", type=int, default=4096,
                      help="points of the correctness check (default 4096)")
  parser.add_argument("--no-jaxoplanet", action="store_true", help="leave jaxoplanet out")
  parser.add_argument("--output", help="also write the report to this file")
  args = parser.parse_args()

  if args.platform in ("cuda", "gpu"):
    # The CPU backend too, for the device-vs-CPU check.
    os.environ["JAX_PLATFORMS"] = "cuda,cpu"
  elif args.platform == "cpu":
    os.environ["JAX_PLATFORMS"] = "cpu"

  started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
  start = time.perf_counter()
  import jax

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp
  import numpy as np

  try:
    import kepler
  except ImportError as err:
    sys.exit("gpu_benchmark: cannot import kepler (%s). Install the kepler-jax wheel (and its "
             "CUDA plugin for a GPU), and run this file as a script, not with the repository "
             "root on sys.path: the source tree's kepler/ has no compiled modules." % err)

  device = jax.devices()[0]
  on_gpu = device.platform == "gpu"
  if args.platform in ("cuda", "gpu") and not on_gpu:
    sys.exit("gpu_benchmark: --platform %s, but JAX's default device is %s" % (args.platform, device))
  if on_gpu and getattr(kepler, "cuda_version", None) is None:
    sys.exit("gpu_benchmark: the device is a GPU but kepler (%s) has no CUDA plugin loaded"
             % kepler.__file__)

  log = lambda msg: print(msg, file=sys.stderr, flush=True)  # pylint: disable=unnecessary-lambda-assignment
  max_n = args.max_n or (100_000_000 if on_gpu and not args.quick else
                         1_000_000 if on_gpu else 100_000)
  sizes = [n for n in SIZES if n <= max_n] or [max_n]
  rv_sizes = [n for n in RV_SIZES if n <= max(max_n, RV_SIZES[0])]
  timer = bench_common.BudgetTimer(
      jax, repeats=args.repeats or (3 if args.quick else 15),
      min_seconds=args.min_seconds or (0.01 if args.quick else 0.05),
      max_case_seconds=args.max_case_seconds, deadline=start + args.budget)

  if args.no_jaxoplanet:
    jaxoplanet_fn, jaxoplanet_note = None, "left out (--no-jaxoplanet)"
  else:
    jaxoplanet_fn, jaxoplanet_note = _load_jaxoplanet()
  impls = {
      "solve": kepler.solve,
      "true_anomaly": kepler.true_anomaly,
      "jaxoplanet": jaxoplanet_fn,
      "newton": bench_common.newton_solver(jax, jnp),
  }
  ops = [op for op in OPS if impls[op] is not None]
  gpu = _gpu_info() if on_gpu else {}
  kind = getattr(device, "device_kind", "") or ""
  platform_version = getattr(getattr(device, "client", None), "platform_version", "unknown")
  versions = _versions(kepler, jaxoplanet_note)
  copies = _copies(jax, jnp)

  log("device %s (%s); correctness check ..." % (device, kind))
  check_rows, check_note = _correctness(jax, np, impls, device, args.check_n)
  copy_notes = _copy_kernels(jax, jnp, copies, device)

  times = {}
  for dtype in DTYPES:
    for n in sizes:
      m, e = _device_inputs(jax, jnp, np.dtype(dtype), n, device)
      cases = {"%s/%d/%s" % (dtype, n, c): (copies[c], (m, e)) for c in COPIES}
      cases.update({"%s/%d/%s" % (dtype, n, op): (jax.jit(impls[op]), (m, e)) for op in ops})
      times.update(timer(cases))
      del m, e, cases
      log("  %s N=%d: %s (%.0f s)" % (dtype, n, ", ".join(
          "%s %s ns" % (c, _fmt_ns(times["%s/%d/%s" % (dtype, n, c)]["median"], n))
          for c in COPIES + tuple(ops)), time.perf_counter() - start))

  rv = {}
  rv_check = {}
  for dtype in DTYPES:
    for n in rv_sizes:
      params, t, y = (jax.device_put(x, device) for x in bench_common.rv_data(np, dtype, n))
      steps = {"ours": bench_common.rv_step(jax, jnp, kepler.true_anomaly)}
      if jaxoplanet_fn is not None:
        steps["jaxoplanet"] = bench_common.rv_step(jax, jnp, jaxoplanet_fn)
      cases = {"%s/%d/%s" % (dtype, n, k): (f, (params, t, y)) for k, f in steps.items()}
      rv.update(timer(cases))
      rv_check["%s/%d" % (dtype, n)] = _rv_agreement(
          jax, np, {k: f(params, t, y) for k, f in steps.items()})
      del params, t, y
      log("  RV step %s N=%d: %s" % (dtype, n, ", ".join(
          "%s %s" % (k, _fmt_time(rv["%s/%d/%s" % (dtype, n, k)]["median"])) for k in steps)))
  wall = time.perf_counter() - start

  def t_of(dtype, n, op, table=None):
    entry = (table or times).get("%s/%d/%s" % (dtype, n, op))
    return entry["median"] if entry else None

  def ceiling(dtype, n):
    return min(t_of(dtype, n, c) for c in COPIES)

  # The report.
  lines = []
  say = lines.append
  if on_gpu:
    say("# kepler-jax GPU benchmark")
  else:
    say("# kepler-jax GPU benchmark script: %s smoke run, NOT a GPU result" % device.platform.upper())
  say("")
  say("- date: %s (the run took %.0f s)" % (started, wall))
  say("- device: %s, device_kind `%s`; %d device(s) of this platform" % (
      device, kind, len(jax.devices(device.platform))))
  if on_gpu:
    say("- nvidia-smi: %s, driver %s, %s; CUDA (driver) %s" % (
        gpu.get("name"), gpu.get("driver", "?"), gpu.get("memory", "?"), gpu.get("cuda_driver")))
    say("- CUDA toolkit: nvcc %s; kepler's CUDA plugin built with CUDA %s; JAX's platform "
        "version: %s" % (gpu.get("nvcc"), getattr(kepler, "cuda_version", None), platform_version))
  say("- host: %s; Python %s; %d CPUs" % (platform.platform(), platform.python_version(),
                                         os.cpu_count() or 0))
  say("- versions: " + ", ".join("%s %s" % kv for kv in versions.items()))
  say("- kepler imported from `%s`" % os.path.dirname(kepler.__file__))
  say("- XLA_FLAGS: `%s`" % os.environ.get("XLA_FLAGS", ""))
  say("- method: inputs generated on the device (M uniform in [0, 2 pi), e uniform in "
      "[0, %.2f), jax.random, seed %d); each function jitted, compiled and warmed up, then "
      "%d interleaved repeats (fewer where marked) of a loop of calls lasting >= %g s, each "
      "call followed by block_until_ready, timed by the wall clock; reported: the median over "
      "the repeats of the time per call. ns/solve = time per call / N; Gsolves/s = N / time "
      "per call / 1e9; %% of ceiling = the copy's time / the op's time." % (
          bench_common.E_MAX, bench_common.SEED, timer.repeats, timer.min_seconds))
  say("")
  say("## Correctness on the device")
  say("")
  if check_note:
    say(check_note)
    say("")
  if device.platform == "cpu":
    say("The device is the CPU: this compares the CPU backend with itself (a smoke run).")
    say("")
  say("%d points, M uniform in [-30 pi, 30 pi), e uniform in [0, 0.999)." % args.check_n)
  say("")
  say("| dtype | what | outputs on | max abs diff (sin, cos) |")
  say("|---|---|---|---|")
  for dtype, what, where, diff in check_rows:
    say("| %s | %s | %s | %.2e |" % (dtype, what, where, diff))
  say("")
  say("## Solves per second")
  say("")
  say("Each cell: ns/solve, Gsolves/s, %% of the copy ceiling at that N; for the peers also "
      "their time / ours (> 1: ours is faster; jaxoplanet against `kepler.true_anomaly`, which "
      "returns the same thing, Newton against `kepler.solve`). Ceiling: the faster of %s. "
      "What XLA compiled them to: %s." % (
          " and ".join(COPY_TITLES[c] for c in COPIES),
          "; ".join("%s: %s" % (c, copy_notes[c]) for c in COPIES)))
  if jaxoplanet_fn is None:
    say("")
    say("jaxoplanet: %s." % jaxoplanet_note)
  for dtype in DTYPES:
    say("")
    say("### %s (%d bytes per solve)" % (dtype, BYTES_PER_SOLVE[dtype]))
    say("")
    say("| N | ceiling: copy time, GB/s | " + " | ".join(OP_TITLES[op] for op in ops) + " |")
    say("|---|---|" + "---|" * len(ops))
    for n in sizes:
      t_copy = ceiling(dtype, n)
      cells = []
      for op in ops:
        t = t_of(dtype, n, op)
        cell = "%s ns, %.3g G/s, %.0f%%" % (_fmt_ns(t, n), n / t / 1e9, 100 * t_copy / t)
        if op in ("jaxoplanet", "newton"):
          ours = "true_anomaly" if op == "jaxoplanet" else "solve"
          cell += ", %.2fx" % (t / t_of(dtype, n, ours))
        if any(times["%s/%d/%s" % (dtype, n, x)]["reduced"] for x in (op,)):
          cell += " (r)"
        cells.append(cell)
      say("| %s | %s, %.0f GB/s | %s |" % (
          "{:,}".format(n), _fmt_time(t_copy), BYTES_PER_SOLVE[dtype] * n / t_copy / 1e9,
          " | ".join(cells)))
  say("")
  say("(r): fewer repeats than planned (time cap); see the timing details.")
  say("")
  say("## Radial-velocity model step")
  say("")
  say("jit(value_and_grad) of the sum of squared residuals of v(t) = K (cos(w + f) + e cos w) "
      "+ gamma, M = 2 pi (t - t0) / P, f from each Kepler solver; six parameters; t uniform in "
      "[0, %g) days, data from the true parameters plus noise. Per step: time, ns per data "
      "point; how far apart the two are: max over the loss and the gradient of max |jaxoplanet - ours| / max |jaxoplanet|." % bench_common.RV_SPAN_DAYS)
  say("")
  say("| dtype | N points | ours (`kepler.true_anomaly`) | jaxoplanet | jaxoplanet / ours | rel diff (loss, grad) |")
  say("|---|---|---|---|---|---|")
  for dtype in DTYPES:
    for n in rv_sizes:
      t_ours = t_of(dtype, n, "ours", rv)
      t_peer = t_of(dtype, n, "jaxoplanet", rv)
      agree = rv_check.get("%s/%d" % (dtype, n))
      say("| %s | %s | %s, %s ns | %s | %s | %s |" % (
          dtype, "{:,}".format(n), _fmt_time(t_ours), _fmt_ns(t_ours, n),
          "%s, %s ns" % (_fmt_time(t_peer), _fmt_ns(t_peer, n)) if t_peer else "n/a",
          "%.2fx" % (t_peer / t_ours) if t_peer else "n/a",
          "%.1e" % agree if agree is not None else "n/a"))
  say("")
  say("## Targets")
  say("")
  if not on_gpu:
    say("Not a GPU: the statuses below are for this smoke run only.")
    say("")
  say("| target | dtype | measured | status |")
  say("|---|---|---|---|")
  for dtype in DTYPES:
    for op in ("solve", "true_anomaly"):
      label = "N = 1e8: %s >= %.0f%% of the copy ceiling" % (OP_TITLES[op], 100 * TARGET_FRACTION)
      if op != "solve":
        label += " (not part of the target)"
      if TARGET_N not in sizes:
        say("| %s | %s | not run (--max-n %d) | not measured |" % (label, dtype, max_n))
        continue
      frac = ceiling(dtype, TARGET_N) / t_of(dtype, TARGET_N, op)
      say("| %s | %s | %.0f%% (%s G/s vs copy %s G/s) | %s |" % (
          label, dtype, 100 * frac, "%.3g" % (TARGET_N / t_of(dtype, TARGET_N, op) / 1e9),
          "%.3g" % (TARGET_N / ceiling(dtype, TARGET_N) / 1e9),
          "met" if frac >= TARGET_FRACTION else "MISSED"))
  for dtype in DTYPES:
    for op in ("true_anomaly", "solve"):
      label = "N = 1e4: %s no slower than jaxoplanet" % OP_TITLES[op]
      if op != "true_anomaly":
        label += " (E, not f: not part of the target)"
      if SMALL_N not in sizes or jaxoplanet_fn is None:
        say("| %s | %s | not run | not measured |" % (label, dtype))
        continue
      t_ours, t_peer = t_of(dtype, SMALL_N, op), t_of(dtype, SMALL_N, "jaxoplanet")
      say("| %s | %s | ours %s, jaxoplanet %s per call (%.2fx) | %s |" % (
          label, dtype, _fmt_time(t_ours), _fmt_time(t_peer), t_peer / t_ours,
          "met" if t_ours <= t_peer else "MISSED"))
  say("")
  say("## Timing details")
  say("")
  say("Per case: calls per timed loop x repeats; min / median / max time per call.")
  say("")
  say("| case | calls x repeats | min | median | max |")
  say("|---|---|---|---|---|")
  for name, entry in list(times.items()) + [("rv/" + k, v) for k, v in rv.items()]:
    say("| %s | %d x %d%s | %s | %s | %s |" % (
        name, entry["calls"], entry["repeats"], " (r)" if entry["reduced"] else "",
        _fmt_time(entry["min"]), _fmt_time(entry["median"]), _fmt_time(entry["max"])))
  report = "\n".join(lines)
  bench_common.emit_report(report, args.output)


if __name__ == "__main__":
  main()
