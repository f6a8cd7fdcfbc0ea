"""GPU benchmark of kepler.solve and kepler.true_anomaly against the bandwidth ceiling.

    python3 benchmarks/gpu_benchmark.py [--output FILE]      # an installed wheel
    bazel run --config=cuda //benchmarks:gpu_benchmark        # or from the tree

Runs on JAX's default device (the GPU when there is one; `--platform cpu` for
a smoke run on the CPU) and prints one Markdown report: the device, driver
and versions; a check that the op runs on the device and agrees with the CPU;
the memory bandwidth measured in the same run with a device-to-device stream
copy; and a table of solves per second and ns per solve for float32 and
float64 at N = 1e4 ... 1e8, for kepler.solve, kepler.true_anomaly and the jnp
Newton solver of bench_common.py, with each op's share of the bandwidth
ceiling (16 bytes per solve in float32, 32 in float64: two inputs read, two
outputs written). The issue's target, >= 70% of the ceiling at N = 1e8 on an
H100 in both precisions, is marked met or missed. See benchmarks/BENCHMARKS.md.

Run it as a script with the kepler wheel installed (or through Bazel): the
folder of this file is the first entry of sys.path, so `import kepler` finds
the installed package, never the source tree's kepler/ (which has no
compiled modules). Do not put the repository root on PYTHONPATH.
"""

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import time

import bench_common

SIZES = (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)
DTYPES = ("float32", "float64")
# Bytes moved per solve: M and e read, two outputs written.
BYTES_PER_SOLVE = {"float32": 16, "float64": 32}

# The target: solves/s >= 70% of the bandwidth ceiling at N = 1e8 on an
# H100, float32 and float64.
TARGET_FRACTION = 0.70
TARGET_N = 100_000_000

# Peak memory bandwidth from the vendors' data sheets (spec numbers, not
# measured), TB/s, by a substring of JAX's device_kind / nvidia-smi's name.
# Checked in this order: the first match wins.
SPEC_PEAK_TBPS = (
    ("H200", 4.8, "H200 (HBM3e), spec"),
    ("H100 NVL", 3.9, "H100 NVL (HBM3), spec"),
    ("H100 PCIe", 2.0, "H100 PCIe 80GB (HBM2e), spec"),
    ("H100 80GB HBM3", 3.35, "H100 SXM 80GB (HBM3), spec"),
    ("H100", 3.35, "H100 SXM (HBM3), spec; assumed from the name"),
    ("A100-SXM4-80GB", 2.039, "A100 SXM 80GB (HBM2e), spec"),
    ("A100 80GB PCIe", 1.935, "A100 PCIe 80GB (HBM2e), spec"),
    ("A100", 1.555, "A100 40GB (HBM2), spec"),
)

OPS = ("solve", "true_anomaly", "newton")
OP_TITLES = {
    "solve": "`kepler.solve`",
    "true_anomaly": "`kepler.true_anomaly`",
    "newton": "jnp Newton",
}

GIB = 1 << 30


def _parse_count(text):
  value = float(text)
  if value < 1 or value != int(value):
    raise argparse.ArgumentTypeError("expected a positive whole number, got %r" % text)
  return int(value)


def _nvidia_smi():
  """'name, driver_version' lines from nvidia-smi, or why there are none."""
  if not shutil.which("nvidia-smi"):
    return "nvidia-smi not found"
  try:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
        capture_output=True, text=True, timeout=60)
  except (OSError, subprocess.SubprocessError) as err:
    return "nvidia-smi failed: %s" % err
  if out.returncode:
    return "nvidia-smi failed (exit %d): %s" % (out.returncode, out.stderr.strip())
  return "; ".join(line.strip() for line in out.stdout.splitlines() if line.strip())


def _spec_peak(*names):
  for name in names:
    for key, tbps, label in SPEC_PEAK_TBPS:
      if key.lower() in (name or "").lower():
        return tbps, label
  return None, None


def _versions(kepler):
  from importlib import metadata

  versions = {}
  for name in ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt",
               "jax-cuda12-plugin", "jax-cuda12-pjrt", "numpy"):
    try:
      versions[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
      pass
  versions["kepler"] = kepler.__version__
  versions["kepler.cuda_version"] = str(kepler.cuda_version)
  return versions


def _device_inputs(jax, jnp, dtype, n, device):
  """(M, e) generated on the device: no host copy of 1e8-element arrays."""
  key_m, key_e = jax.random.split(jax.random.PRNGKey(bench_common.SEED))
  make = jax.jit(lambda k_m, k_e: (
      jax.random.uniform(k_m, (n,), dtype, 0.0, 2 * jnp.pi),
      jax.random.uniform(k_e, (n,), dtype, 0.0, bench_common.E_MAX)))
  key_m, key_e = jax.device_put((key_m, key_e), device)
  return jax.block_until_ready(make(key_m, key_e))


def _copy_bandwidth(jax, jnp, device, nbytes, timer, stat):
  """Bytes/s of a jitted elementwise x + 1 on float32 (read + write counted)."""
  n = nbytes // 4
  x = jax.block_until_ready(jax.device_put(jnp.zeros((n,), jnp.float32), device))
  # x + 1 rather than jnp.copy(x) or x + 0, which XLA may turn into no kernel.
  copy = jax.jit(lambda a: a + 1)
  t = timer({"copy": (copy, (x,))})["copy"]
  del x
  return 2 * n * 4 / t[stat], t


def _correctness(jax, np, kepler, device, n):
  """Max |device - CPU| of sin and cos per op and dtype, and where outputs live."""
  rows = []
  try:
    cpu = jax.devices("cpu")[0]
  except RuntimeError as err:
    return [], "no CPU backend in this process (%s): not compared" % err
  for dtype in DTYPES:
    m, e = bench_common.inputs(np, dtype, n)
    # A wider range of M than the benchmark's, and e up to 0.999.
    m = (m - np.pi) * 30
    e = (e / bench_common.E_MAX * 0.999).astype(dtype)
    for op in ("solve", "true_anomaly"):
      fn = jax.jit(getattr(kepler, op))
      on_dev = fn(jax.device_put(m, device), jax.device_put(e, device))
      on_cpu = fn(jax.device_put(m, cpu), jax.device_put(e, cpu))
      where = sorted({str(d) for out in on_dev for d in out.devices()})
      diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
                 for a, b in zip(on_dev, on_cpu))
      norm = max(float(np.max(np.abs(
          np.asarray(on_dev[0], np.float64) ** 2 + np.asarray(on_dev[1], np.float64) ** 2 - 1))), 0.0)
      finite = bool(all(np.all(np.isfinite(np.asarray(a))) for a in on_dev))
      rows.append((dtype, op, where, diff, norm, finite))
  return rows, None


def _fmt_rate(solves_per_s):
  return "%.3g" % (solves_per_s / 1e9)


def _fmt_ns(seconds, n):
  ns = seconds * 1e9 / n
  return "%#.3g" % ns if ns < 100 else "%.0f" % ns


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--platform", choices=("default", "cuda", "gpu", "cpu"), default="default",
                      help="JAX platform to measure on (default: JAX's default device; "
                      "cuda/gpu: require a GPU; cpu: a smoke run)")
  parser.add_argument("--max-n", type=_parse_count, default=None,
                      help="largest N (default: 1e8 on a GPU, 1e6 on the CPU)")
  parser.add_argument("--quick", action="store_true", help="fewer repeats, shorter loops (a smoke run)")
  parser.add_argument("--stat", choices=("min", "median"), default="median",
                      help="statistic of the repeats reported (default: median)")
  parser.add_argument("--copy-gib", type=float, default=None,
                      help="size of the bandwidth probe's buffer in GiB "
                      "(default: 2 on a GPU, 0.25 on the CPU)")
  parser.add_argument("--check-n", type=int, default=4096,
                      help="points of the device-vs-CPU check (default 4096)")
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
    sys.exit("gpu_benchmark: cannot import kepler (%s). Install a kepler-jax wheel (the CUDA "
             "one for a GPU), and run this file as a script, not with the repository root "
             "on sys.path: the source tree's kepler/ has no compiled modules." % err)

  device = jax.devices()[0]
  on_gpu = device.platform == "gpu"
  if args.platform in ("cuda", "gpu") and not on_gpu:
    sys.exit("gpu_benchmark: --platform %s, but JAX's default device is %s" % (args.platform, device))
  if on_gpu and kepler.cuda_version is None:
    sys.exit("gpu_benchmark: the device is a GPU but this kepler (%s) has no CUDA module: "
             "install the +cuda wheel" % kepler.__file__)

  max_n = args.max_n or (100_000_000 if on_gpu else 1_000_000)
  sizes = [n for n in SIZES if n <= max_n]
  if max_n not in SIZES and (not sizes or max_n > sizes[-1]):
    sizes.append(max_n)
  copy_bytes = int((args.copy_gib if args.copy_gib is not None else (2 if on_gpu else 0.25)) * GIB)
  timer = bench_common.Timer(jax, repeats=3 if args.quick else 9,
                             min_seconds=0.02 if args.quick else 0.1)
  stat = args.stat
  log = lambda msg: print(msg, file=sys.stderr, flush=True)  # pylint: disable=unnecessary-lambda-assignment

  kind = getattr(device, "device_kind", "") or ""
  smi = _nvidia_smi() if on_gpu else "(not queried: not a GPU run)"
  spec_tbps, spec_label = _spec_peak(kind, smi) if on_gpu else (None, None)
  versions = _versions(kepler)

  log("device %s (%s); correctness check ..." % (device, kind))
  check_rows, check_note = _correctness(jax, np, kepler, device, args.check_n)

  log("bandwidth probe: %.2f GiB buffer ..." % (copy_bytes / GIB))
  bandwidth, copy_t = _copy_bandwidth(jax, jnp, device, copy_bytes, timer, stat)

  newton = bench_common.newton_solver(jax, jnp)
  fns = {"solve": kepler.solve, "true_anomaly": kepler.true_anomaly, "newton": newton}
  times = {}
  for dtype in DTYPES:
    for n in sizes:
      m, e = _device_inputs(jax, jnp, np.dtype(dtype), n, device)
      cases = {"%s/%d/%s" % (dtype, n, op): (jax.jit(fns[op]), (m, e)) for op in OPS}
      times.update(timer(cases))
      del m, e, cases
      log("  %s N=%d: %s" % (dtype, n, ", ".join(
          "%s %s ns" % (op, _fmt_ns(times["%s/%d/%s" % (dtype, n, op)][stat], n)) for op in OPS)))
  wall = time.perf_counter() - start

  # The report.
  lines = []
  say = lines.append
  if on_gpu:
    say("# kepler-jax GPU benchmark")
  else:
    say("# kepler-jax GPU benchmark script: %s smoke run, NOT a GPU result" % device.platform.upper())
  say("")
  say("- date: %s (took %.0f s)" % (started, wall))
  say("- device: %s, device_kind `%s`; %d device(s) of this platform" % (
      device, kind, len(jax.devices(device.platform))))
  say("- nvidia-smi (name, driver, memory): %s" % smi)
  say("- host: %s; Python %s" % (platform.platform(), platform.python_version()))
  say("- versions: " + ", ".join("%s %s" % kv for kv in versions.items()))
  say("- kepler imported from `%s`" % os.path.dirname(kepler.__file__))
  say("- method: inputs generated on the device (M uniform in [0, 2 pi), e uniform in "
      "[0, %.2f), jax.random, seed %d); each function jitted, compiled, warmed up; then %d "
      "repeats of a loop of calls lasting >= %g s, each call followed by block_until_ready, "
      "timed by the wall clock; reported: the %s over the repeats of the time per call. "
      "ns/solve = time per call / N; Gsolves/s = N / time per call / 1e9." % (
          bench_common.E_MAX, bench_common.SEED, timer.repeats, timer.min_seconds, stat))
  say("")
  say("## Correctness on the device")
  say("")
  if check_note:
    say(check_note)
  elif device.platform == "cpu":
    say("The device is the CPU: this compares the CPU backend with itself (a smoke run).")
    say("")
  if not check_note:
    say("%d points, M uniform in [-30 pi, 30 pi), e uniform in [0, 0.999): the same jitted op "
        "on this device and on the CPU backend." % args.check_n)
    say("")
    say("| dtype | op | outputs on | max abs diff device vs CPU (sin, cos) | max abs(sin^2 + cos^2 - 1) | all finite |")
    say("|---|---|---|---|---|---|")
    for dtype, op, where, diff, norm, finite in check_rows:
      say("| %s | %s | %s | %.2e | %.2e | %s |" % (dtype, OP_TITLES[op], ", ".join(where), diff, norm,
                                                   "yes" if finite else "NO"))
  say("")
  say("## Memory-bandwidth ceiling")
  say("")
  say("- measured: jit(x + 1) on a float32 buffer of %.2f GiB on the device, read + write "
      "counted (%.2f GiB per call): %.0f GB/s (%s %.3g ms per call)" % (
          copy_bytes / GIB, 2 * copy_bytes / GIB, bandwidth / 1e9, stat, copy_t[stat] * 1e3))
  if spec_tbps:
    say("- spec peak (vendor data sheet, not measured): %.2f TB/s, %s; measured / spec = %.0f%%" % (
        spec_tbps, spec_label, 100 * bandwidth / (spec_tbps * 1e12)))
  else:
    say("- spec peak: unknown for this device")
  say("- ceiling in solves/s = bandwidth / bytes per solve (float32: %d B, float64: %d B: two "
      "inputs read, two outputs written): float32 %s Gsolves/s, float64 %s Gsolves/s (measured)" % (
          BYTES_PER_SOLVE["float32"], BYTES_PER_SOLVE["float64"],
          _fmt_rate(bandwidth / BYTES_PER_SOLVE["float32"]), _fmt_rate(bandwidth / BYTES_PER_SOLVE["float64"])))
  say("")
  say("## Solves per second")
  say("")
  say("Each cell: Gsolves/s, ns/solve, %% of the measured ceiling%s. Newton's ratio: its time / "
      "`kepler.solve`'s (> 1: ours is faster)." % (" (and of the spec peak)" if spec_tbps else ""))
  say("")
  say("| dtype | N | ceiling Gsolves/s | " + " | ".join(OP_TITLES[op] for op in OPS) + " |")
  say("|" + "---|" * (3 + len(OPS)))
  for dtype in DTYPES:
    ceiling = bandwidth / BYTES_PER_SOLVE[dtype]
    spec_ceiling = spec_tbps * 1e12 / BYTES_PER_SOLVE[dtype] if spec_tbps else None
    for n in sizes:
      cells = []
      for op in OPS:
        t = times["%s/%d/%s" % (dtype, n, op)][stat]
        rate = n / t
        cell = "%s, %s ns, %.0f%%" % (_fmt_rate(rate), _fmt_ns(t, n), 100 * rate / ceiling)
        if spec_ceiling:
          cell += " (%.0f%%)" % (100 * rate / spec_ceiling)
        if op == "newton":
          cell += ", %.2fx" % (t / times["%s/%d/solve" % (dtype, n)][stat])
        cells.append(cell)
      say("| %s | %s | %s | %s |" % (dtype, "{:,}".format(n), _fmt_rate(ceiling), " | ".join(cells)))
  say("")
  say("## Target")
  say("")
  say("Issue target: `kepler.solve` at N = 1e8 on an H100, >= %.0f%% of the memory-bandwidth "
      "ceiling, float32 and float64." % (100 * TARGET_FRACTION))
  say("")
  is_h100 = "h100" in (kind + " " + smi).lower()
  if TARGET_N not in sizes:
    say("Not measured: N = 1e8 was not run (--max-n %d)." % max_n)
  else:
    if not is_h100:
      say("This device is not an H100 (%s): the status below is against this device's "
          "ceiling, not the issue's H100." % (kind or device.platform))
      say("")
    say("| op | dtype | solves/s | % of measured ceiling | % of spec peak | status (vs measured) |")
    say("|---|---|---|---|---|---|")
    for op in ("solve", "true_anomaly"):
      for dtype in DTYPES:
        t = times["%s/%d/%s" % (dtype, TARGET_N, op)][stat]
        frac = TARGET_N / t / (bandwidth / BYTES_PER_SOLVE[dtype])
        spec = ("%.0f%%" % (100 * TARGET_N / t / (spec_tbps * 1e12 / BYTES_PER_SOLVE[dtype]))
                if spec_tbps else "n/a")
        status = "met" if frac >= TARGET_FRACTION else "MISSED"
        if op != "solve":
          status += " (not part of the target)"
        say("| %s | %s | %s G | %.0f%% | %s | %s |" % (
            OP_TITLES[op], dtype, _fmt_rate(TARGET_N / t), 100 * frac, spec, status))
  report = "\n".join(lines)
  print(report)
  if args.output:
    with open(args.output, "w") as f:
      f.write(report + "\n")


if __name__ == "__main__":
  main()
