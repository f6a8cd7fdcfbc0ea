#!/usr/bin/env python3
"""The GPU check: installs kepler-jax and its CUDA plugin, runs the GPU tests and benchmark.

    python3 tools/gpu_check.py [MAIN_WHEEL [PLUGIN_WHEEL]]

Run it from the repository root on a machine with an NVIDIA GPU and Python
3.12 with pip, jax and its CUDA 13 plugin, numpy, mpmath and absl-py;
no Bazel. The wheels: the arguments, else .gpu/kepler_jax-*.whl and
.gpu/kepler_jax_<CUDA_EXTRA>_plugin-*.whl. They go into a folder of their own
(`pip install --no-deps --no-index --target`), first on PYTHONPATH, so the
machine's jax is never touched; the wheels in .whl/ (benchmark-only packages:
jaxoplanet) go into a second one, next on it. The tests run from a copy of
tests/ with no kepler/ next to it: `import kepler` finds the installed wheel.

Steps, each bounded by a timeout:
  env            the machine: GPU, driver, nvcc, jax (env.txt)
  install        the wheels
  tests          every file tests/test_table.bzl runs on "gpu", with
                 JAX_PLATFORMS=cuda, once per KEPLER_TEST_X64 value of its row
                 (NAME, NAME_x64off), all at the same time, by
                 tools/wheel_tests.py (JUnit XML), and after them
  memcheck,      tests/gpu_test.py's SANITIZER_CLASSES under compute-sanitizer
  racecheck      --tool memcheck and --tool racecheck (KEPLER_GPU_TEST_SANITIZER=1),
                 each a run of its own
  gpu_benchmark  benchmarks/gpu_benchmark.py, alone on the GPU
  variants       (KEPLER_VARIANTS only) tools/gpu/kernel_variants.sh's compile-time
                 variants of the kernels side by side, from their binaries in
                 .gpu/variants/ (kernel_variants.txt); in the smoke test, their
                 names checked against the script's list
  ncu            (KEPLER_NCU=1 only) Nsight Compute on one launch of each
                 kernel (NCU_CASES); in the smoke test, its driver alone

Writes into $KEPLER_CHECK_OUT, else $OUT, else ./gpu_out, after every step
(a run cut short leaves what it had): summary.txt (each step's status, test
counts and failures, the sanitizers' summaries, the benchmark's targets),
env.txt, gpu_benchmark.md, logs.tar.gz (every log and JUnit XML), with
KEPLER_VARIANTS kernel_variants.txt and with KEPLER_NCU=1 ncu.txt. Exits
non-zero when a step fails.

Getting there from a development machine: build both wheels for Python 3.12
(`bazel build --config=cuda //:wheel`) into .gpu/, put jaxoplanet 0.2's wheel
into .whl/ (`pip download --no-deps jaxoplanet==0.2.0 -d .whl`; both folders
are in .gitignore), take both folders to the GPU machine and run this there.
For the variants step, build them into .gpu/variants/ first, with nvcc 13 on
any machine: `bash tools/gpu/kernel_variants.sh build .gpu/variants NAME...`.

Environment:
  KEPLER_CHECK_PLATFORM=cpu  SMOKE TEST ONLY: the same steps on the CPU
      (gpu_test with KEPLER_GPU_TEST_ON_CPU=1, two tests at a time, a quick
      CPU benchmark). It checks this file, and says nothing about a GPU.
  KEPLER_CHECK_PYTHON  the interpreter that installs and runs it all (default python3)
  KEPLER_SKIP_TESTS=1, KEPLER_SKIP_SANITIZER=1, KEPLER_SKIP_BENCH=1  skip those steps
  KEPLER_CHECK_TESTS   the test files to run, e.g. gpu_test (default: every GPU file)
  KEPLER_BENCH_ARGS    more arguments of gpu_benchmark.py (e.g. "--quick")
  KEPLER_NCU=1         also profile the kernels with ncu (1-2 minutes more before the
                       transit model's cases; with them not yet timed)
  KEPLER_VARIANTS      names of tools/gpu/kernel_variants.sh's variants to run side by
                       side (e.g. "two_pass polynomial_one_kernel"), at KEPLER_VARIANTS_N
                       points or times (default 1e8); KERNEL_VARIANTS_CASES picks the
                       cases (kernel_variants.cu's, e.g. ten)
"""

import glob
import hashlib
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_tests  # pylint: disable=wrong-import-position

PY = os.environ.get("KEPLER_CHECK_PYTHON", "python3")
SMOKE = os.environ.get("KEPLER_CHECK_PLATFORM", "cuda") == "cpu"
# The compute-sanitizer tools run over tests/gpu_test.py's SANITIZER_CLASSES.
SANITIZERS = ("memcheck", "racecheck")
PLATFORM = "cpu" if SMOKE else "cuda"
# ncu (KEPLER_NCU=1): the cases of tools/gpu/ncu_driver.py, one launch each
# (Kepler's equation at 1e7, the light curve's four kernel families at 1e6,
# the transit model's at 1e6 times, its tabulated law at 1e5), and the
# metrics of each that summary.txt repeats (ncu.txt has them all).
NCU_CASES = ("solve:float64:1e7", "solve:float32:1e7", "lc_quadratic:float64:1e6",
             "lc_quadratic:float32:1e6", "lc_ten:float64:1e6", "lc_power2:float64:1e6",
             "lc_tabulated:float64:1e6", "transit_quadratic:float64:1e6",
             "transit_quadratic_exposure:float64:1e6", "transit_quadratic_light:float64:1e6",
             "transit_ten:float64:1e6", "transit_power2:float64:1e6",
             "transit_tabulated:float64:1e5")
NCU_METRICS = ("Duration", "Registers Per Thread", "Theoretical Occupancy", "Achieved Occupancy",
               "Compute (SM) Throughput", "Memory Throughput", "Executed Ipc Active",
               "Warp Cycles Per Issued Instruction", "Avg. Active Threads Per Warp",
               "Avg. Not Predicated Off Threads Per Warp", "Local Memory Spilling Requests")
# The variants' binaries (tools/gpu/kernel_variants.sh build .gpu/variants NAME...).
VARIANTS_DIR = os.path.abspath(".gpu/variants")
WORK = "/tmp/kepler_gpu_check"
LOGS, SITE, EXTRA, TEST_ROOT = (f"{WORK}/{d}" for d in ("logs", "site", "extra", "tests_root"))
OUT = os.path.abspath(os.environ.get("KEPLER_CHECK_OUT") or os.environ.get("OUT") or "gpu_out")
STARTED = time.time()
results, notes, failed = [], [], []


def knob(name):
  return os.environ.get(name) == "1"


def now():
  return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def record(step, status, details=(), last=False):
  """Adds a step's status; writes summary.txt and logs.tar.gz as they stand."""
  if step:
    results.extend([f"{step}: {status}", *details])
    print(f"== {step}: {status} ({time.time() - STARTED:.0f} s)", file=sys.stderr)
    if not status.startswith(("ok", "skipped")):
      failed.append(step)
  lines = ["SMOKE TEST on the CPU (KEPLER_CHECK_PLATFORM=cpu): NOT a GPU result"] * SMOKE
  lines += [f"gpu_check {now()}, {time.time() - STARTED:.0f} s so far", *results]
  lines += [""] * bool(notes) + notes + [("SOME STEPS FAILED" if failed else "ALL OK")] * last
  with open(f"{OUT}/summary.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
  with tarfile.open(f"{OUT}/logs.tar.gz", "w:gz") as tar:
    tar.add(LOGS, arcname="logs")


def run(cmd, log, timeout, **kwargs):
  """Runs cmd, its output in LOGS/log: its exit status, 124 when it ran past timeout."""
  return wheel_tests.call(cmd, f"{LOGS}/{log}", timeout, **kwargs)


def output(*cmd):
  try:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
  except (OSError, subprocess.SubprocessError) as err:
    return f"({err})"


def read(path):
  with open(path, errors="replace") as f:
    return f.read()


def finish(test, extra=""):
  """Records a test run of tools/wheel_tests.py: its counts and verdict, the failed tests' names."""
  if test.ok and not extra.startswith("FAILED"):
    return record(test.label, f"ok ({extra}{test.line()})")
  print(read(test.log)[-4000:], file=sys.stderr)
  names = ["    " + n for n in test.failed_tests[:20]]
  return record(test.label, f"FAILED ({extra}{test.line()}; see logs/{os.path.basename(test.log)})", names)


def ncu_digest(text):
  """A few lines per kernel that ncu profiled: its launch, then NCU_METRICS."""
  lines = []
  for block in re.split(r"\n(?=[ \t]*\S[^\n]*Context \d+, Stream \d+)", text)[1:]:
    header, _, body = block.partition("\n")
    name = re.sub(r"\(jaxext::[^)]*\)|jaxext::", "", header.strip())
    values = {}
    for line in body.splitlines():
      row = re.match(r"\s+(\S.*?)\s{2,}(?:(\S+)\s+)?([-\d.,]+)\s*$", line)
      if row and row.group(1) in NCU_METRICS and row.group(1) not in values:
        values[row.group(1)] = row.group(3) + (" " + row.group(2) if row.group(2) else "")
    lines.append("  " + name[:160])
    lines.append("    " + "; ".join(f"{k}: {values[k]}" for k in NCU_METRICS if k in values))
  return lines


def variants(env):
  """The variants step: KEPLER_VARIANTS's variants of the kernels, side by side, alone on the GPU."""
  names = os.environ.get("KEPLER_VARIANTS", "").replace(",", " ").split()
  if not names:
    return record("variants", "skipped (KEPLER_VARIANTS not set)")
  script = "tools/gpu/kernel_variants.sh"
  known = output("bash", script, "names").split()
  unknown = [n for n in names if n not in known]
  if unknown:
    return record("variants", f"FAILED (KEPLER_VARIANTS: no variant {' '.join(unknown)} in {script}: "
                  f"{' '.join(known)})")
  if SMOKE:
    return record("variants", f"ok ({' '.join(names)}: names known; the variants run on a GPU only)")
  count = os.environ.get("KEPLER_VARIANTS_N", "1e8")
  status = run(["bash", script, "run", VARIANTS_DIR, count, *names], "kernel_variants.txt", 300,
               env=env)
  shutil.copy(f"{LOGS}/kernel_variants.txt", OUT)
  results = f"{VARIANTS_DIR}/results.txt"
  lines = ["  " + l for l in read(results).splitlines()] if os.path.isfile(results) else []
  # 3: every variant passed its checks, but their outputs differ in the last
  # bits (kernel_variants.sh: nvcc's contractions per kernel).
  verdict = ("ok" if status == 0 else "ok, the outputs' hashes differ" if status == 3 else
             "TIMED OUT" if status == 124 else f"FAILED (exit {status})")
  return record("variants", f"{verdict} ({' '.join(names)} at N = {count}; kernel_variants.txt)",
                lines)


def cuda_extra():
  """kepler/_version.py's CUDA_EXTRA ("cuda13"): the plugin wheel's name."""
  text = pathlib.Path("kepler/_version.py").read_text()
  return re.search(r'^CUDA_EXTRA = "([^"]+)"', text, re.M).group(1)


def main():
  if not os.path.isfile("tests/test_table.bzl"):
    sys.exit("gpu_check: run it from the repository root")
  if SMOKE:
    print("gpu_check: KEPLER_CHECK_PLATFORM=cpu: a SMOKE TEST, NOT a GPU check", file=sys.stderr)
  shutil.rmtree(WORK, ignore_errors=True)
  os.makedirs(LOGS)
  os.makedirs(OUT, exist_ok=True)
  wheels = sys.argv[1:] or sorted(glob.glob(".gpu/kepler_jax-*.whl")) + sorted(
      glob.glob(f".gpu/kepler_jax_{cuda_extra()}_plugin-*.whl"))
  if len(wheels) != 2 or not all(os.path.isfile(w) for w in wheels):
    record("setup", f"FAILED (expected a main wheel and a plugin wheel, got {wheels})", last=True)
    sys.exit(2)
  wheels = [os.path.abspath(w) for w in wheels]
  if not shutil.which(PY):
    record("setup", f"FAILED (KEPLER_CHECK_PYTHON={PY!r}: no such interpreter)", last=True)
    sys.exit(2)

  # env: the machine.
  env = [f"date: {now()}", f"platform checked: {PLATFORM}"]
  env += [f"wheel: {os.path.basename(w)} sha256 {hashlib.sha256(pathlib.Path(w).read_bytes()).hexdigest()}"
          for w in wheels]
  # The commit and whether the tree differed from it (the run's own paths stay out of the record).
  changes = output("git", "status", "--porcelain", "--untracked-files=no")
  dirty = " with changes" if changes and not changes.startswith("(") else ""
  env += [f"repository: commit {output('git', 'rev-parse', '--short', 'HEAD') or 'unknown (no git)'}{dirty}",
          f"host: {' '.join(os.uname()[::2])}; {os.cpu_count()} CPUs",
          f"python: {output(PY, '--version')} at {shutil.which(PY)}",
          output(PY, "-c", "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__)")]
  env += [l for l in output(PY, "-m", "pip", "list").splitlines()
          if re.match(r"(jax|numpy|mpmath|absl|nvidia-cuda)", l, re.I)]
  query = "--query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem"
  if shutil.which("nvidia-smi"):
    env += ["--- nvidia-smi", output("nvidia-smi", query, "--format=csv")]
    env += output("nvidia-smi").splitlines()[:15] + ["---"]
  for tool in ("nvidia-smi", "nvcc", "compute-sanitizer", "ncu"):
    if not shutil.which(tool):
      env.append(f"{tool}: not found")
    elif tool != "nvidia-smi":
      version = [l for l in output(tool, "--version").splitlines() if re.search("release|version", l, re.I)]
      env.append(f"{tool}: {shutil.which(tool)}: {(version or ['?'])[-1]}")
  for path in (f"{OUT}/env.txt", f"{LOGS}/env.txt"):
    with open(path, "w") as f:
      f.write("\n".join(env) + "\n")
  print("\n".join(env), file=sys.stderr)

  # install: the wheels, and those in .whl/ into a second folder.
  try:
    wheel_tests.install_target(PY, SITE, wheels, f"{LOGS}/install.log")
  except RuntimeError:
    record("install", "FAILED (see logs/install.log)", last=True)
    sys.exit(1)
  extra = [os.path.abspath(w) for w in sorted(glob.glob(".whl/*.whl"))]
  try:
    if extra:
      wheel_tests.install_target(PY, EXTRA, extra, f"{LOGS}/install_extra.log")
  except RuntimeError:
    shutil.rmtree(EXTRA, ignore_errors=True)
    notes.append("the wheels in .whl/ did not install (logs/install_extra.log): no jaxoplanet")
  record("install", f"ok ({' '.join(map(os.path.basename, wheels))}; {len(extra)} from .whl/)")
  # The installed kepler first; never an empty entry (the current directory).
  path = [SITE, *[EXTRA] * os.path.isdir(EXTRA), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
  base = dict(os.environ, PYTHONPATH=":".join(path), KEPLER_SITE=SITE, PYTHONUNBUFFERED="1",
              XLA_PYTHON_CLIENT_PREALLOCATE="false")  # several JAX processes share the GPU
  wheel_tests.copy_tests(TEST_ROOT)

  # The tests at the same time, then the two sanitizers at the same time (a
  # memcheck run beside ten test processes died of SIGSEGV on an H200).
  runs = [] if knob("KEPLER_SKIP_TESTS") else wheel_tests.select(wheel_tests.load_table(), "gpu")
  only = [t for t in os.environ.get("KEPLER_CHECK_TESTS", "").split(",") if t]
  if only:
    unknown = set(only) - {t.name for t in runs}
    if unknown:
      record("setup", f"FAILED (KEPLER_CHECK_TESTS names no GPU test file: {sorted(unknown)})", last=True)
      sys.exit(2)
    runs = [t for t in runs if t.name in only]
  for test in runs:
    test.timeout = 270
    test.env = dict(JAX_PLATFORMS=PLATFORM, KEPLER_GPU_TEST_ON_CPU="1" if SMOKE and test.name == "gpu_test" else "0")
  if knob("KEPLER_SKIP_TESTS"):
    record("tests", "skipped (KEPLER_SKIP_TESTS=1)")
  if knob("KEPLER_SKIP_SANITIZER") or SMOKE or not shutil.which("compute-sanitizer"):
    why = ("KEPLER_SKIP_SANITIZER=1" if knob("KEPLER_SKIP_SANITIZER") else
           "a CPU smoke test" if SMOKE else "compute-sanitizer not found")
    for tool in SANITIZERS:
      record(tool, f"skipped ({why})")
  else:
    usage = output("compute-sanitizer", "--help")
    options = ["--print-limit", "100"]
    # API errors that XLA expects and handles would count as errors: left out.
    options += ["--report-api-errors", "no"] * ("--report-api-errors" in usage)
    options += ["--error-exitcode", "86"] * ("--error-exitcode" in usage)
    classes = wheel_tests.top_level_literal("tests/gpu_test.py", "SANITIZER_CLASSES")
    for tool in SANITIZERS:
      # The platform allocator: one cudaMalloc per buffer, so that an overrun leaves its allocation.
      runs.append(wheel_tests.Run("gpu_test", "1", tuple(classes), label=tool, timeout=240,
                                  prefix=("compute-sanitizer", "--tool", tool, *options),
                                  env=dict(JAX_PLATFORMS="cuda", KEPLER_GPU_TEST_SANITIZER="1",
                                           XLA_PYTHON_CLIENT_ALLOCATOR="platform")))
  for phase in ([t for t in runs if t.label not in SANITIZERS],
                [t for t in runs if t.label in SANITIZERS]):
    if phase:
      wheel_tests.run_tests(phase, PY, TEST_ROOT, LOGS, env=base, jobs=2 if SMOKE else len(phase),
                            quiet=True)
  for test in runs:
    if test.label not in SANITIZERS:
      finish(test)
      continue
    # "ERROR SUMMARY: 0 errors"; racecheck's "RACECHECK SUMMARY: 0 hazards
    # displayed (0 errors, 0 warnings)" too.
    summaries = list(dict.fromkeys(re.findall(r"(?:ERROR|RACECHECK) SUMMARY: [^\n]*", read(test.log))))
    errors = [int(n) for line in summaries for n in re.findall(r"(\d+) errors?\b", line)]
    verdict = "" if summaries and not any(errors) else "FAILED: "
    finish(test, f"{verdict}{'; '.join(summaries) or 'no sanitizer summary'}; the sanitizer subset: ")
  if os.path.isfile(f"{LOGS}/gpu_test.log"):  # what gpu_test only reports (CUDA graphs, subnormal e)
    notes.extend(l[:1500] for l in read(f"{LOGS}/gpu_test.log").splitlines() if l.startswith("gpu_test: "))

  # gpu_benchmark, alone; a script, so sys.path[0] is benchmarks/, not the source tree.
  report = f"{OUT}/gpu_benchmark.md"
  if knob("KEPLER_SKIP_BENCH"):
    record("gpu_benchmark", "skipped (KEPLER_SKIP_BENCH=1)")
  else:
    args = ["--platform", "cpu", "--quick", "--max-n", "1e5"] if SMOKE else [
        "--platform", "cuda", "--budget", "220"]
    args += shlex.split(os.environ.get("KEPLER_BENCH_ARGS", "")) + ["--output", report]
    # The benchmark stops its cases at 1.25 --budget (the last one given);
    # compiling, checking and writing the report take the rest.
    budgets = [float(b) for a, b in zip(args, args[1:]) if a == "--budget"] or [220.0]
    limit = int(1.25 * budgets[-1]) + 90
    status = run([PY, "benchmarks/gpu_benchmark.py", *args], "gpu_benchmark.log", limit, env=base)
    if status == 0:
      shutil.copy(report, LOGS)
      targets = [re.sub(r" \| ", " -- ", l.strip("| \n")) for l in read(report).splitlines()
                 if re.match(r"\| N = 1e[4-8]: .*\| (met|MISSED|not measured) \|$", l) and "not part of" not in l]
      record("gpu_benchmark", "ok (gpu_benchmark.md)", ["  " + t for t in targets])
    else:
      print(read(f"{LOGS}/gpu_benchmark.log")[-4000:], file=sys.stderr)
      record("gpu_benchmark", "FAILED (%s; see logs/gpu_benchmark.log)" % (
          f"TIMED OUT after {limit} s" if status == 124 else f"exit {status}"))

  variants(base)

  # ncu: one launch of each case of NCU_CASES (tools/gpu/ncu_driver.py); in
  # the smoke test the driver alone, on the CPU, so that it cannot rot.
  if SMOKE:
    status = run([PY, "tools/gpu/ncu_driver.py", "--on-cpu", "--n", "1000", "--cases",
                  ",".join(c.rsplit(":", 1)[0] for c in NCU_CASES)], "ncu.txt", 120, env=base)
    record("ncu", "ok (the driver alone on the CPU: a smoke test, no ncu)" if status == 0 else
           f"FAILED (the driver on the CPU: exit {status}; see logs/ncu.txt)")
  elif knob("KEPLER_NCU") and not shutil.which("ncu"):
    record("ncu", "skipped (ncu not found)")
  elif knob("KEPLER_NCU"):
    status = run(["ncu", "--set", "full", "--clock-control", "none", "--kernel-name-base",
                  "demangled", "-k", "regex:jaxext", PY,
                  "tools/gpu/ncu_driver.py", "--cases", ",".join(NCU_CASES)],
                 "ncu.txt", 360, env=dict(base, JAX_PLATFORMS="cuda"))
    shutil.copy(f"{LOGS}/ncu.txt", OUT)
    kernels = ncu_digest(read(f"{LOGS}/ncu.txt"))
    record("ncu", f"ok ({len(kernels) // 2} kernel section(s) in ncu.txt)" if status == 0 else
           f"FAILED (exit {status}; see ncu.txt)", kernels)

  record(None, None, last=True)
  if os.path.isfile(report):  # the report without its long timing appendix (the file has it)
    print("\n" + read(report).split("## Timing details")[0])
  print(f"== summary ({OUT}/summary.txt)\n" + read(f"{OUT}/summary.txt"))
  sys.exit(1 if failed else 0)


if __name__ == "__main__":
  main()
