#!/usr/bin/env bash
# The GPU check: one command that installs kepler-jax and its CUDA plugin,
# checks that kepler runs on the GPU, runs every GPU test (one of them under
# compute-sanitizer) and the GPU benchmark.
#
#   bash tools/gpu_check.sh [WHEEL ...]
#
# Run it from the repository root on a machine with an NVIDIA GPU, Python
# 3.12, a pip-installed jax with its CUDA 13 plugin, numpy, mpmath and absl-py.
# Bazel is not needed there. The wheels: the arguments, else the main wheel
# .gpu/kepler_jax-*.whl and the plugin wheel .gpu/kepler_jax_cuda13_plugin-*.whl
# (folder: $KEPLER_WHEEL_DIR, default .gpu). It never touches that machine's
# jax: the wheels go into their own folder ($KEPLER_SITE, default
# /tmp/kepler_site) with `pip install --no-deps --no-index --target`, which
# PYTHONPATH then puts first; the wheels in .whl/ (benchmark-only packages:
# jaxoplanet) go into another (/tmp/kepler_extra), next on PYTHONPATH. The
# tests run from a copy of tests/ in a folder with no kepler/ next to it, so
# `import kepler` finds the installed wheel, never the source tree.
#
# Steps, each bounded by `timeout`:
#   env          the machine: GPU, driver, nvcc, jax, tools (env.txt)
#   install      both wheels, and .whl/*.whl
#   sanity       kepler from the installed folder, its CUDA plugin loaded, a
#                solve whose outputs are on the GPU and agree with the CPU
#   no_plugin    the main wheel alone: GPU arrays give kepler's error naming
#                the plugin to install, CPU arrays still work
#   gpu_test, kepler_test, accuracy_test   with JAX_PLATFORMS=cuda and
#                XLA_PYTHON_CLIENT_PREALLOCATE=false, at the same time (and
#                kepler_test, accuracy_test again with jax_enable_x64 off)
#   memcheck     compute-sanitizer --tool memcheck on tests/gpu_test.py (its
#                KEPLER_GPU_TEST_SANITIZER=1 subset), alongside the tests
#   gpu_benchmark  benchmarks/gpu_benchmark.py, alone on the GPU
#   ncu          (KEPLER_NCU=1 only) Nsight Compute on the kernel, N = 1e7
#
# Writes into OUT_DIR ($KEPLER_CHECK_OUT, else $OUT when set, else ./gpu_out)
# at most five files, refreshed after every step (so a run cut short still
# leaves what it had): summary.txt (each step's status, the tests' counts and
# failures, memcheck's ERROR SUMMARY, the benchmark's targets), env.txt,
# gpu_benchmark.md (the benchmark's report), logs.tar.gz (every log and JUnit
# XML) and, with KEPLER_NCU=1, ncu.txt. Prints the report and the summary
# last. Exits non-zero when any step fails.
#
# How a session gets there (a development machine with Bazel, plus a lent
# "device" machine with the GPU and no Bazel): build both wheels for Python
# 3.12 (`bazel build --config=cuda //:wheel`), copy them into .gpu/, put
# jaxoplanet 0.2's wheel into .whl/ (`pip download --no-deps jaxoplanet==0.2.0
# -d .whl`; both folders are in .gitignore), then call the device tool from
# the repository root:
#   run(command="bash tools/gpu_check.sh", carry=[".gpu", ".whl"], timeout_s=600)
#
# Knobs (environment):
#   KEPLER_CHECK_PLATFORM=cpu   SMOKE TEST ONLY: the same steps on the CPU
#                               (gpu_test with KEPLER_GPU_TEST_ON_CPU=1, a
#                               quick CPU benchmark). Proves the script works,
#                               says nothing about the GPU. Default: cuda.
#   KEPLER_CHECK_PYTHON         the interpreter (default: python3)
#   KEPLER_SITE                 where the wheels go (default /tmp/kepler_site)
#   KEPLER_BENCH_ARGS           extra arguments of gpu_benchmark.py (e.g. "--quick")
#   KEPLER_SKIP_TESTS=1, KEPLER_SKIP_SANITIZER=1, KEPLER_SKIP_BENCH=1   skip those steps
#   KEPLER_NCU=1                also profile the kernel with ncu (about 1-2 min more)
#   KEPLER_NCU_REGEX            ncu's kernel filter (default: kepler, matched
#                               against the demangled name)

set -uo pipefail

PY=${KEPLER_CHECK_PYTHON:-python3}
PLATFORM=${KEPLER_CHECK_PLATFORM:-cuda}
SITE=${KEPLER_SITE:-/tmp/kepler_site}
SITE_MAIN_ONLY=${SITE}_main_only
EXTRA_SITE=/tmp/kepler_extra
WORK=/tmp/kepler_gpu_check
LOGS=$WORK/logs
TEST_ROOT=$WORK/tests_root
REPO=$(pwd)
OUT_DIR=${KEPLER_CHECK_OUT:-${OUT:-$REPO/gpu_out}}
STARTED=$(date +%s)

if [[ ! -f "$REPO/tests/gpu_test.py" || ! -f "$REPO/benchmarks/gpu_benchmark.py" ]]; then
  echo "gpu_check: run it from the repository root" >&2
  exit 2
fi
case "$PLATFORM" in
  cuda) ;;
  cpu) echo "gpu_check: KEPLER_CHECK_PLATFORM=cpu: a SMOKE TEST on the CPU, not a GPU check" >&2 ;;
  *) echo "gpu_check: KEPLER_CHECK_PLATFORM must be cuda or cpu" >&2; exit 2 ;;
esac
rm -rf "$WORK"
mkdir -p "$OUT_DIR" "$LOGS"
OUT_DIR=$(realpath "$OUT_DIR")

declare -a RESULTS=()
declare -a NOTES=()
FAILED=0
record() {  # record STEP STATUS
  RESULTS+=("$1: $2")
  echo "== $1: $2 ($(( $(date +%s) - STARTED )) s)" >&2
  [[ "$2" == ok* || "$2" == skipped* ]] || FAILED=1
  finalize
}
finalize() {  # summary.txt and logs.tar.gz in OUT_DIR, as they stand now
  {
    [[ "$PLATFORM" == cpu ]] && echo "SMOKE TEST on the CPU (KEPLER_CHECK_PLATFORM=cpu): NOT a GPU result"
    echo "gpu_check $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(( $(date +%s) - STARTED )) s so far"
    printf '%s\n' "${RESULTS[@]}"
    [[ ${#NOTES[@]} -gt 0 ]] && printf '%s\n' "" "${NOTES[@]}"
  } > "$OUT_DIR/summary.txt"
  tar -czf "$OUT_DIR/logs.tar.gz" -C "$WORK" logs 2>/dev/null
}
# A test log's last verdict: "Ran N tests in Xs; OK (skipped=1)" or FAILED (...).
verdict() {
  local ran result
  ran=$(grep -Eo 'Ran [0-9]+ tests? in [0-9.]+s' "$1" | tail -n 1)
  result=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$1" | tail -n 1)
  echo "${ran:-no test count}; ${result:-no verdict}"
}
die() {  # die MESSAGE: a setup error, in summary.txt too
  echo "gpu_check: $1" >&2
  RESULTS+=("setup: FAILED ($1)")
  finalize
  exit 2
}
failures() {  # the names of failed tests in a log, for the summary
  grep -E '^(FAIL|ERROR): ' "$1" | head -n 20 | sed 's/^/    /'
}

# --- The wheels ------------------------------------------------------------------
WHEEL_DIR=${KEPLER_WHEEL_DIR:-.gpu}
if [[ $# -gt 0 ]]; then
  WHEELS=("$@")
else
  shopt -s nullglob
  MAIN=("$WHEEL_DIR"/kepler_jax-*.whl)
  PLUGIN=("$WHEEL_DIR"/kepler_jax_cuda13_plugin-*.whl)
  shopt -u nullglob
  if [[ ${#MAIN[@]} -ne 1 ]]; then
    die "expected one main wheel $WHEEL_DIR/kepler_jax-*.whl, found ${#MAIN[@]}: ${MAIN[*]:-none}"
  fi
  if [[ ${#PLUGIN[@]} -gt 1 ]]; then
    die "more than one plugin wheel: ${PLUGIN[*]}"
  fi
  WHEELS=("${MAIN[@]}" "${PLUGIN[@]}")
  if [[ ${#PLUGIN[@]} -eq 0 ]]; then
    NOTES+=("no plugin wheel $WHEEL_DIR/kepler_jax_cuda13_plugin-*.whl: only ${MAIN[0]} is installed")
  fi
fi
for i in "${!WHEELS[@]}"; do
  [[ -f "${WHEELS[$i]}" ]] || die "no wheel at ${WHEELS[$i]}"
  WHEELS[$i]=$(realpath "${WHEELS[$i]}")
done
MAIN_WHEEL=""
for w in "${WHEELS[@]}"; do
  [[ "$(basename "$w")" == kepler_jax-* ]] && MAIN_WHEEL=$w
done

# --- The machine ----------------------------------------------------------------
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "platform checked: $PLATFORM"
  for w in "${WHEELS[@]}"; do
    echo "wheel: $(basename "$w") sha256 $(sha256sum "$w" | cut -d' ' -f1)"
  done
  echo "repository: $REPO ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "host: $(uname -srm); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
  echo "python: $("$PY" --version 2>&1) at $(command -v "$PY")"
  timeout 60 "$PY" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1
  timeout 60 "$PY" -m pip list 2>/dev/null | grep -Ei '^(jax|numpy|mpmath|absl|equinox|jaxtyping|nvidia-cuda)' || true
  if command -v nvidia-smi >/dev/null; then
    echo "--- nvidia-smi"
    timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    timeout 30 nvidia-smi 2>&1 | head -n 15
  else
    echo "nvidia-smi: not found"
  fi
  echo "--- tools"
  for tool in nvcc compute-sanitizer ncu; do
    if command -v "$tool" >/dev/null; then
      echo "$tool: $(command -v "$tool"): $(timeout 30 "$tool" --version 2>&1 | grep -Ei 'release|version' | tail -n 1)"
    else
      echo "$tool: not found"
    fi
  done
} > "$OUT_DIR/env.txt" 2>&1
cp "$OUT_DIR/env.txt" "$LOGS/env.txt"
cat "$OUT_DIR/env.txt" >&2

# --- Install --------------------------------------------------------------------
pip_install() {  # pip_install TARGET WHEEL...
  local target=$1
  shift
  rm -rf "$target"
  if "$PY" -m pip --version >/dev/null 2>&1; then
    timeout 300 "$PY" -m pip install --no-deps --no-index --no-compile --no-cache-dir \
      --target "$target" "$@"
  else
    # No pip: a wheel is a zip of the files to put on sys.path.
    echo "no pip for $PY: unpacking the wheels with zipfile"
    "$PY" -c 'import sys, zipfile; [zipfile.ZipFile(w).extractall(sys.argv[1]) for w in sys.argv[2:]]' \
      "$target" "$@"
  fi
}
if ! pip_install "$SITE" "${WHEELS[@]}" > "$LOGS/install.log" 2>&1; then
  record install "FAILED (see logs/install.log)"
  tail -n 20 "$LOGS/install.log" >&2
  exit 1
fi
EXTRA_WHEELS=()
if [[ -d "$REPO/.whl" ]]; then
  shopt -s nullglob
  EXTRA_WHEELS=("$REPO"/.whl/*.whl)
  shopt -u nullglob
fi
if [[ ${#EXTRA_WHEELS[@]} -gt 0 ]]; then
  if ! pip_install "$EXTRA_SITE" "${EXTRA_WHEELS[@]}" >> "$LOGS/install.log" 2>&1; then
    NOTES+=("the wheels in .whl/ did not install (logs/install.log): the benchmark runs without them")
    rm -rf "$EXTRA_SITE"
  fi
fi
record install "ok (${WHEELS[*]##*/} into $SITE; ${#EXTRA_WHEELS[@]} extra wheel(s) from .whl/)"

# The installed kepler first; never an empty entry (that would be the current
# directory, the repository root with its source kepler/).
BASE_PYTHONPATH=${PYTHONPATH:-}
export PYTHONPATH="$SITE${EXTRA_WHEELS:+:$EXTRA_SITE}${BASE_PYTHONPATH:+:$BASE_PYTHONPATH}"
export KEPLER_SITE="$SITE" KEPLER_CHECK_PLATFORM="$PLATFORM"

# The tests, away from the source tree.
mkdir -p "$TEST_ROOT/tests"
cp "$REPO"/tests/*.py "$TEST_ROOT/tests/"
cd "$TEST_ROOT" || exit 1

# --- Sanity: the installed kepler, its CUDA plugin, a solve on the GPU -------------
if [[ "$PLATFORM" == cuda ]]; then SANITY_PLATFORMS="cuda,cpu"; else SANITY_PLATFORMS=cpu; fi
JAX_PLATFORMS=$SANITY_PLATFORMS XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 180 "$PY" - \
    > "$LOGS/sanity.log" 2>&1 <<'EOF'
import importlib
import os
import sys

import jax

jax.config.update("jax_enable_x64", True)
import numpy as np

import kepler

platform = os.environ["KEPLER_CHECK_PLATFORM"]
site = os.path.realpath(os.environ["KEPLER_SITE"])
problems = []
print("kepler", kepler.__version__, "from", kepler.__file__)
print("kepler.cuda_version:", getattr(kepler, "cuda_version", "(no such attribute)"))
print("jax", jax.__version__, "devices:", jax.devices())
if not os.path.realpath(kepler.__file__).startswith(site + os.sep):
  problems.append("kepler was imported from %s, not from %s" % (kepler.__file__, site))
registration = sys.modules.get("kepler._registration")
names = [getattr(registration, "PLUGIN_MODULE", None), "kepler_jax_cuda13_plugin",
         "kepler_jax_cuda_plugin"]
for name in dict.fromkeys(n for n in names if n):
  try:
    plugin = importlib.import_module(name)
    print("CUDA plugin module %s %s from %s" % (name, getattr(plugin, "__version__", "?"),
                                                 plugin.__file__))
  except ImportError as err:
    print("CUDA plugin module %s: not importable (%s)" % (name, err))
if platform == "cuda":
  if getattr(kepler, "cuda_version", None) is None:
    problems.append("kepler.cuda_version is None: no CUDA plugin is loaded")
  try:
    device = jax.devices("gpu")[0]
  except RuntimeError as err:
    sys.exit("FAILED: no GPU visible to JAX: %s" % err)
else:
  device = jax.devices("cpu")[0]
print("device:", device, getattr(device, "device_kind", ""))

cpu = jax.devices("cpu")[0]
for dtype, tol in ((np.float64, 1e-13), (np.float32, 1e-5)):
  m_host = np.linspace(-20.0, 20.0, 4099).astype(dtype)
  e_host = np.linspace(0.0, 0.99, 4099).astype(dtype)
  m, e = jax.device_put(m_host, device), jax.device_put(e_host, device)
  compiled = jax.jit(kepler.solve).lower(m, e).compile()
  if 'custom_call_target="kepler_solve"' not in compiled.as_text():
    problems.append("%s: no kepler_solve custom call in the compiled HLO" % dtype.__name__)
  sin_e, cos_e = compiled(m, e)
  where = {d for out in (sin_e, cos_e) for d in out.devices()}
  print(dtype.__name__, "outputs on", where)
  if where != {device}:
    problems.append("%s: outputs on %s, not %s" % (dtype.__name__, where, device))
  # Backward error of E = atan2(sin E, cos E) in Kepler's equation, in float64.
  s, c = np.asarray(sin_e, np.float64), np.asarray(cos_e, np.float64)
  m64, e64 = m_host.astype(np.float64), e_host.astype(np.float64)
  residual = np.arctan2(s, c) - e64 * s - (np.remainder(m64 + np.pi, 2 * np.pi) - np.pi)
  residual = np.abs(np.remainder(residual + np.pi, 2 * np.pi) - np.pi)
  print(dtype.__name__, "max |E - e sin E - M| = %.2e" % residual.max())
  if not residual.max() <= tol:
    problems.append("%s: Kepler residual %.2e > %.0e" % (dtype.__name__, residual.max(), tol))
  ref = jax.jit(kepler.solve)(jax.device_put(m_host, cpu), jax.device_put(e_host, cpu))
  diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
             for a, b in zip((sin_e, cos_e), ref))
  print(dtype.__name__, "max |device - CPU| = %.2e" % diff)
  if not diff <= tol:
    problems.append("%s: device and CPU differ by %.2e" % (dtype.__name__, diff))

for p in problems:
  print("PROBLEM:", p)
print("FAILED" if problems else "OK")
sys.exit(1 if problems else 0)
EOF
status=$?
if [[ $status -eq 0 ]]; then record sanity ok; else record sanity "FAILED (exit $status, see logs/sanity.log)"; fi
cat "$LOGS/sanity.log" >&2

# --- Without the plugin: GPU arrays get kepler's message, the CPU still works ------
if [[ "$PLATFORM" != cuda ]]; then
  record no_plugin "skipped (needs a GPU)"
elif [[ ${#WHEELS[@]} -lt 2 || -z "$MAIN_WHEEL" ]]; then
  record no_plugin "skipped (no separate plugin wheel)"
else
  {
    pip_install "$SITE_MAIN_ONLY" "$MAIN_WHEEL" &&
    PYTHONPATH="$SITE_MAIN_ONLY${BASE_PYTHONPATH:+:$BASE_PYTHONPATH}" JAX_PLATFORMS=cuda,cpu \
      XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 180 "$PY" - <<'EOF'
import re
import sys

import jax
import numpy as np

import kepler

print("kepler from", kepler.__file__, "cuda_version", kepler.cuda_version)
problems = []
if kepler.cuda_version is not None:
  problems.append("cuda_version is %r without the plugin" % kepler.cuda_version)
gpu, cpu = jax.devices("gpu")[0], jax.devices("cpu")[0]
try:
  out = jax.block_until_ready(kepler.solve(jax.device_put(np.float32(1.0), gpu),
                                           jax.device_put(np.float32(0.5), gpu)))
  problems.append("GPU arrays without the plugin gave %s, not an error" % (out,))
except Exception as err:  # pylint: disable=broad-except
  text = str(err)
  print("GPU arrays without the plugin:", type(err).__name__, text[:500])
  if not re.search(r"kepler-jax\[cuda", text):
    problems.append("the error does not say which plugin to install")
value = float(kepler.solve(jax.device_put(np.float32(1.0), cpu), jax.device_put(np.float32(0.0), cpu))[0])
print("CPU solve(1, 0) =", value)
if abs(value - np.sin(1.0)) > 1e-6:
  problems.append("CPU result %r after the GPU error" % value)
for p in problems:
  print("PROBLEM:", p)
print("FAILED" if problems else "OK")
sys.exit(1 if problems else 0)
EOF
  } > "$LOGS/no_plugin.log" 2>&1
  status=$?
  if [[ $status -eq 0 ]]; then record no_plugin ok; else record no_plugin "FAILED (exit $status, see logs/no_plugin.log)"; fi
  tail -n 8 "$LOGS/no_plugin.log" >&2
fi

# --- The tests, and gpu_test under compute-sanitizer, at the same time ---------------
# Several JAX processes on one GPU: XLA_PYTHON_CLIENT_PREALLOCATE=false, or each
# would take 75% of its memory.
declare -A PIDS=()
# NAME_x64off: the same test file with jax_enable_x64 off (KEPLER_TEST_X64=0).
TESTS=(gpu_test kepler_test accuracy_test kepler_test_x64off accuracy_test_x64off)
if [[ "${KEPLER_SKIP_TESTS:-0}" == 1 ]]; then
  for t in "${TESTS[@]}"; do record "$t" "skipped (KEPLER_SKIP_TESTS=1)"; done
  TESTS=()
fi
for t in "${TESTS[@]}"; do
  if [[ "$PLATFORM" == cpu && "$t" == gpu_test ]]; then SMOKE=1; else SMOKE=0; fi
  if [[ "$t" == *_x64off ]]; then X64=0; else X64=1; fi
  KEPLER_GPU_TEST_ON_CPU=$SMOKE XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=$PLATFORM \
    KEPLER_TEST_X64=$X64 PYTHONUNBUFFERED=1 timeout --kill-after=10 270 "$PY" -m "tests.${t%_x64off}" \
    --xml_output_file="$LOGS/$t.xml" > "$LOGS/$t.log" 2>&1 &
  PIDS[$t]=$!
done

SANITIZER_PID=""
if [[ "${KEPLER_SKIP_SANITIZER:-0}" == 1 ]]; then
  record memcheck "skipped (KEPLER_SKIP_SANITIZER=1)"
elif [[ "$PLATFORM" != cuda ]]; then
  record memcheck "skipped (a CPU smoke test)"
elif ! command -v compute-sanitizer >/dev/null; then
  record memcheck "skipped (compute-sanitizer not found)"
else
  SAN=(compute-sanitizer --tool memcheck --print-limit 100)
  SAN_HELP=$(timeout 30 compute-sanitizer --help 2>&1)
  # API errors that XLA expects and handles would count as errors: left out.
  grep -q -- '--report-api-errors' <<<"$SAN_HELP" && SAN+=(--report-api-errors no)
  grep -q -- '--error-exitcode' <<<"$SAN_HELP" && SAN+=(--error-exitcode 86)
  # The test classes that launch the kernel with every shape, size and bad input.
  read -r -a SAN_CLASSES < <("$PY" -c 'import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
print(" ".join(next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
               and getattr(n.targets[0], "id", "") == "SANITIZER_CLASSES")))' "$TEST_ROOT/tests/gpu_test.py")
  # One buffer per cudaMalloc, so that an overrun leaves its allocation.
  KEPLER_GPU_TEST_SANITIZER=1 XLA_PYTHON_CLIENT_ALLOCATOR=platform XLA_PYTHON_CLIENT_PREALLOCATE=false \
    JAX_PLATFORMS=cuda PYTHONUNBUFFERED=1 timeout --kill-after=10 240 "${SAN[@]}" \
    "$PY" -m tests.gpu_test --xml_output_file="$LOGS/gpu_test_memcheck.xml" "${SAN_CLASSES[@]}" \
    > "$LOGS/gpu_test_memcheck.log" 2>&1 &
  SANITIZER_PID=$!
  echo "memcheck: ${SAN[*]} $PY -m tests.gpu_test ${SAN_CLASSES[*]}" >> "$LOGS/gpu_test_memcheck.cmd"
fi

for t in "${TESTS[@]}"; do
  wait "${PIDS[$t]}"
  status=$?
  if [[ $status -eq 0 ]]; then
    record "$t" "ok ($(verdict "$LOGS/$t.log"))"
  else
    [[ $status -eq 124 || $status -eq 137 ]] && why="TIMED OUT after 270 s" || why="exit $status"
    record "$t" "FAILED ($why; $(verdict "$LOGS/$t.log"); see logs/$t.log)"
    names=$(failures "$LOGS/$t.log")
    [[ -n "$names" ]] && RESULTS+=("$names")
    tail -n 40 "$LOGS/$t.log" >&2
  fi
done
if [[ -f "$LOGS/gpu_test.log" ]]; then
  # What the GPU tests only report (CUDA-graph evidence, the subnormal e).
  while IFS= read -r line; do NOTES+=("$line"); done < <(grep -E '^gpu_test: ' "$LOGS/gpu_test.log" | cut -c1-1500)
fi

if [[ -n "$SANITIZER_PID" ]]; then
  wait "$SANITIZER_PID"
  status=$?
  summary=$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors?' "$LOGS/gpu_test_memcheck.log" | tail -n 1)
  if [[ $status -eq 0 && "$summary" == "ERROR SUMMARY: 0 errors" ]]; then
    record memcheck "ok ($summary; the KEPLER_GPU_TEST_SANITIZER=1 subset: $(verdict "$LOGS/gpu_test_memcheck.log"))"
  else
    [[ $status -eq 124 || $status -eq 137 ]] && why="TIMED OUT after 240 s" || why="exit $status"
    record memcheck "FAILED ($why; ${summary:-no ERROR SUMMARY line}; $(verdict "$LOGS/gpu_test_memcheck.log"); see logs/gpu_test_memcheck.log)"
    names=$(failures "$LOGS/gpu_test_memcheck.log")
    [[ -n "$names" ]] && RESULTS+=("$names")
    grep -E '^=========' "$LOGS/gpu_test_memcheck.log" | head -n 30 >&2
  fi
fi

# --- The benchmark, alone on the GPU --------------------------------------------------
cd "$REPO" || exit 1
if [[ "${KEPLER_SKIP_BENCH:-0}" == 1 ]]; then
  record gpu_benchmark "skipped (KEPLER_SKIP_BENCH=1)"
else
  if [[ "$PLATFORM" == cuda ]]; then
    BENCH=(--platform cuda --budget 170)
  else
    BENCH=(--platform cpu --quick --max-n 100000)
  fi
  # shellcheck disable=SC2206  # word splitting of the extra arguments is meant
  BENCH+=(${KEPLER_BENCH_ARGS:-})
  # Run as a script: sys.path[0] is benchmarks/, not the repository root.
  PYTHONUNBUFFERED=1 timeout --kill-after=10 230 "$PY" benchmarks/gpu_benchmark.py "${BENCH[@]}" \
    --output "$OUT_DIR/gpu_benchmark.md" > "$LOGS/gpu_benchmark.log" 2>&1
  status=$?
  if [[ $status -eq 0 ]]; then
    record gpu_benchmark "ok (gpu_benchmark.md)"
    while IFS= read -r line; do RESULTS+=("  $line"); done < <(
      grep -E '^\| N = 1e[48]: .*\| (met|MISSED|not measured) \|$' "$OUT_DIR/gpu_benchmark.md" |
      grep -v 'not part of the target' | sed -E 's/^\| //; s/ \|$//; s/ \| / -- /g')
  else
    [[ $status -eq 124 || $status -eq 137 ]] && why="TIMED OUT after 230 s" || why="exit $status"
    record gpu_benchmark "FAILED ($why; see logs/gpu_benchmark.log)"
    tail -n 40 "$LOGS/gpu_benchmark.log" >&2
  fi
  [[ -f "$OUT_DIR/gpu_benchmark.md" ]] && cp "$OUT_DIR/gpu_benchmark.md" "$LOGS/"
fi

# --- Nsight Compute on the kernel (KEPLER_NCU=1) -----------------------------------
if [[ "${KEPLER_NCU:-0}" == 1 ]]; then
  if [[ "$PLATFORM" != cuda ]]; then
    record ncu "skipped (a CPU smoke test)"
  elif ! command -v ncu >/dev/null; then
    record ncu "skipped (ncu not found)"
  else
    # Two launches: kepler.solve at N = 1e7, float64 then float32 (tools/gpu/ncu_driver.py).
    XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=cuda timeout --kill-after=10 240 \
      ncu --set full --kernel-name-base demangled -k "regex:${KEPLER_NCU_REGEX:-kepler}" -c 2 \
      "$PY" tools/gpu/ncu_driver.py --n 10000000 --cases solve:float64,solve:float32 \
      > "$OUT_DIR/ncu.txt" 2>&1
    status=$?
    cp "$OUT_DIR/ncu.txt" "$LOGS/ncu.txt"
    profiled=$(grep -cE 'Context [0-9]+, Stream [0-9]+' "$OUT_DIR/ncu.txt")
    if [[ $status -eq 0 ]]; then
      record ncu "ok ($profiled kernel section(s) in ncu.txt)"
    else
      record ncu "FAILED (exit $status; see ncu.txt)"
    fi
  fi
fi

finalize
if [[ -f "$OUT_DIR/gpu_benchmark.md" ]]; then
  echo
  # The report without its long timing appendix (the file has it).
  sed '/^## Timing details/,$d' "$OUT_DIR/gpu_benchmark.md"
fi
echo
echo "== summary ($OUT_DIR/summary.txt)"
[[ $FAILED -eq 0 ]] && echo "ALL OK" >> "$OUT_DIR/summary.txt" || echo "SOME STEPS FAILED" >> "$OUT_DIR/summary.txt"
cat "$OUT_DIR/summary.txt"
exit $FAILED
