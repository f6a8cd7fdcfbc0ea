#!/usr/bin/env bash
# The GPU check: one command that installs a CUDA wheel of kepler-jax, checks
# that kepler.solve runs on the GPU, runs the tests there and the GPU benchmark.
#
#   bash tools/gpu_check.sh WHEEL [OUT_DIR]
#
# Run it from the repository root on a machine with an NVIDIA GPU, Python
# 3.12, a pip-installed jax with its CUDA 13 plugin, numpy, mpmath and absl-py.
# Bazel is not needed there. It never touches that machine's jax: the wheel
# goes into its own folder ($KEPLER_SITE, default /tmp/kepler_site) with
# `pip install --no-deps --no-index --target`, which PYTHONPATH then puts
# first. The tests run from a copy of tests/ in a folder with no kepler/ next
# to it, so `import kepler` finds the installed wheel, never the source tree.
#
# Writes into OUT_DIR (default: $OUT when set, else ./gpu_out): env.txt,
# install.log, sanity.log, kepler_test.log/.xml, accuracy_test.log/.xml,
# gpu_benchmark.log, gpu_benchmark.md (the report) and summary.txt. Exits
# non-zero when any step fails (install, sanity, a test, the benchmark).
#
# How a session gets there (the project's sessions: a development machine
# with Bazel, plus a lent "device" machine with the GPU and no Bazel):
#
#   1. On the development machine, build the CUDA wheel for Python 3.12 (the
#      device's Python) and copy it into a git-ignored folder:
#        HERMETIC_PYTHON_VERSION=3.12 bazel build --config=cuda //:wheel
#        mkdir -p .gpu && cp bazel-bin/wheel/kepler_jax-*+cuda*-cp312-*.whl .gpu/
#        grep -qx '/.gpu/' .git/info/exclude || echo '/.gpu/' >> .git/info/exclude
#      (.git/info/exclude, not .gitignore: the wheel must not be committed.)
#   2. Call the device tool from the repository root, carrying the folder:
#        run(command="bash tools/gpu_check.sh .gpu/kepler_jax-0.1.0+cuda13.0-cp312-cp312-manylinux_2_35_x86_64.whl",
#            carry=[".gpu"], timeout_s=600)
#      $OUT is set there, so the logs and gpu_benchmark.md come back.
#   3. Paste gpu_benchmark.md into benchmarks/BENCHMARKS.md (GPU section).
#
# Knobs (environment):
#   KEPLER_CHECK_PLATFORM=cpu   SMOKE TEST ONLY: run the same steps on the CPU
#                               (tests with JAX_PLATFORMS=cpu, a quick CPU
#                               benchmark). Proves the script works, says
#                               nothing about the GPU. Default: cuda.
#   KEPLER_CHECK_PYTHON         the interpreter (default: python3)
#   KEPLER_SITE                 where the wheel is installed (default /tmp/kepler_site)
#   KEPLER_BENCH_ARGS           extra arguments of gpu_benchmark.py (e.g. "--quick")
#   KEPLER_SKIP_BENCH=1         skip the benchmark

set -uo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: bash tools/gpu_check.sh WHEEL [OUT_DIR]" >&2
  exit 2
fi
WHEEL=$(realpath "$1")
OUT_DIR=${2:-${OUT:-./gpu_out}}
PY=${KEPLER_CHECK_PYTHON:-python3}
PLATFORM=${KEPLER_CHECK_PLATFORM:-cuda}
SITE=${KEPLER_SITE:-/tmp/kepler_site}
TEST_ROOT=/tmp/kepler_gpu_tests
REPO=$(pwd)

if [[ ! -f "$REPO/tests/kepler_test.py" || ! -f "$REPO/benchmarks/gpu_benchmark.py" ]]; then
  echo "gpu_check: run it from the repository root" >&2
  exit 2
fi
if [[ ! -f "$WHEEL" ]]; then
  echo "gpu_check: no wheel at $1" >&2
  exit 2
fi
case "$PLATFORM" in
  cuda) ;;
  cpu) echo "gpu_check: KEPLER_CHECK_PLATFORM=cpu: a SMOKE TEST on the CPU, not a GPU check" >&2 ;;
  *) echo "gpu_check: KEPLER_CHECK_PLATFORM must be cuda or cpu" >&2; exit 2 ;;
esac
mkdir -p "$OUT_DIR"
OUT_DIR=$(realpath "$OUT_DIR")

declare -a RESULTS=()
FAILED=0
record() {  # record STEP STATUS
  RESULTS+=("$1: $2")
  echo "== $1: $2" >&2
  [[ "$2" == ok* || "$2" == skipped* ]] || FAILED=1
}

# --- The machine ------------------------------------------------------------
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "platform checked: $PLATFORM"
  echo "wheel: $WHEEL"
  echo "sha256: $(sha256sum "$WHEEL" | cut -d' ' -f1)"
  echo "repository: $REPO ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "python: $("$PY" --version 2>&1) at $(command -v "$PY")"
  "$PY" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1
  "$PY" -m pip list 2>/dev/null | grep -Ei '^(jax|numpy|mpmath|absl|nvidia-cuda)' || true
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    nvidia-smi 2>&1 | head -n 15
  else
    echo "nvidia-smi: not found"
  fi
} > "$OUT_DIR/env.txt" 2>&1
cat "$OUT_DIR/env.txt" >&2

# --- Install the wheel into its own folder ------------------------------------
rm -rf "$SITE"
if "$PY" -m pip --version >/dev/null 2>&1; then
  "$PY" -m pip install --no-deps --no-index --no-compile --target "$SITE" "$WHEEL" \
    > "$OUT_DIR/install.log" 2>&1
  status=$?
else
  # No pip: a wheel is a zip of the files to put on sys.path.
  echo "no pip for $PY: unpacking the wheel with zipfile" > "$OUT_DIR/install.log"
  "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$WHEEL" "$SITE" >> "$OUT_DIR/install.log" 2>&1
  status=$?
fi
if [[ $status -ne 0 ]]; then
  record install "FAILED (see install.log)"
  tail -n 20 "$OUT_DIR/install.log" >&2
  printf '%s\n' "${RESULTS[@]}" > "$OUT_DIR/summary.txt"
  exit 1
fi
record install "ok ($SITE)"

# The installed kepler first; never an empty entry (that would be the
# current directory, the repository root with its source kepler/).
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
export KEPLER_SITE="$SITE" KEPLER_CHECK_PLATFORM="$PLATFORM"

# The tests, away from the source tree.
rm -rf "$TEST_ROOT"
mkdir -p "$TEST_ROOT/tests"
cp "$REPO"/tests/*.py "$TEST_ROOT/tests/"
cd "$TEST_ROOT" || exit 1

# --- Sanity: the installed kepler, its CUDA module, a solve on the GPU --------
if [[ "$PLATFORM" == cuda ]]; then SANITY_PLATFORMS="cuda,cpu"; else SANITY_PLATFORMS=cpu; fi
JAX_PLATFORMS=$SANITY_PLATFORMS "$PY" - > "$OUT_DIR/sanity.log" 2>&1 <<'EOF'
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
print("kepler.cuda_version:", kepler.cuda_version)
print("jax", jax.__version__, "devices:", jax.devices())
if not os.path.realpath(kepler.__file__).startswith(site + os.sep):
  problems.append("kepler was imported from %s, not from %s" % (kepler.__file__, site))
if platform == "cuda":
  if kepler.cuda_version is None:
    problems.append("kepler.cuda_version is None: this wheel has no CUDA module")
  try:
    device = jax.devices("gpu")[0]
  except RuntimeError as err:
    sys.exit("FAILED: no GPU visible to JAX: %s" % err)
else:
  device = jax.devices("cpu")[0]
print("device:", device, getattr(device, "device_kind", ""))

for dtype, tol in ((np.float64, 1e-13), (np.float32, 1e-5)):
  m_host = np.linspace(-20.0, 20.0, 4099).astype(dtype)
  e_host = np.linspace(0.0, 0.99, 4099).astype(dtype)
  m, e = jax.device_put(m_host, device), jax.device_put(e_host, device)
  compiled = jax.jit(kepler.solve).lower(m, e).compile()
  hlo = compiled.as_text()
  if '"kepler_solve"' not in hlo:
    problems.append("%s: no kepler_solve custom call in the compiled HLO" % dtype.__name__)
  sin_e, cos_e = compiled(m, e)
  where = {d for out in (sin_e, cos_e) for d in out.devices()}
  print(dtype.__name__, "outputs on", where)
  if where != {device}:
    problems.append("%s: outputs on %s, not %s" % (dtype.__name__, where, device))
  # Backward error of E = atan2(sin E, cos E) in Kepler's equation, in float64.
  s, c = np.asarray(sin_e, np.float64), np.asarray(cos_e, np.float64)
  ecc_anom = np.arctan2(s, c)
  m64, e64 = m_host.astype(np.float64), e_host.astype(np.float64)
  m_red = np.remainder(m64 + np.pi, 2 * np.pi) - np.pi
  residual = ecc_anom - e64 * s - m_red
  residual = np.abs(np.remainder(residual + np.pi, 2 * np.pi) - np.pi)
  print(dtype.__name__, "max |E - e sin E - M| = %.2e" % residual.max())
  if not residual.max() <= tol:
    problems.append("%s: Kepler residual %.2e > %.0e" % (dtype.__name__, residual.max(), tol))
  if platform == "cuda":
    cpu = jax.devices("cpu")[0]
    ref = jax.jit(kepler.solve)(jax.device_put(m_host, cpu), jax.device_put(e_host, cpu))
    diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
               for a, b in zip((sin_e, cos_e), ref))
    print(dtype.__name__, "max |GPU - CPU| = %.2e" % diff)
    if not diff <= tol:
      problems.append("%s: GPU and CPU differ by %.2e" % (dtype.__name__, diff))

for p in problems:
  print("PROBLEM:", p)
print("FAILED" if problems else "OK")
sys.exit(1 if problems else 0)
EOF
if [[ $? -eq 0 ]]; then record sanity ok; else record sanity "FAILED (see sanity.log)"; fi
cat "$OUT_DIR/sanity.log" >&2

# --- The tests, with JAX_PLATFORMS=cuda (cpu in the smoke test) --------------
# Both at once: they are mostly mpmath on the host. The flag --cpu_isa of
# accuracy_test stays at its default (auto).
# Two JAX processes on one GPU: without this each would grab 75% of its memory.
declare -A PIDS=()
for t in kepler_test accuracy_test; do
  XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=$PLATFORM "$PY" -m "tests.$t" --xml_output_file="$OUT_DIR/$t.xml" \
    > "$OUT_DIR/$t.log" 2>&1 &
  PIDS[$t]=$!
done
for t in kepler_test accuracy_test; do
  if wait "${PIDS[$t]}"; then
    record "$t" "ok ($(grep -Eo 'Ran [0-9]+ tests? in [0-9.]+s' "$OUT_DIR/$t.log" | tail -n 1))"
  else
    record "$t" "FAILED (see $t.log)"
    tail -n 40 "$OUT_DIR/$t.log" >&2
  fi
done

# --- The benchmark -------------------------------------------------------------
cd "$REPO" || exit 1
if [[ "${KEPLER_SKIP_BENCH:-0}" == 1 ]]; then
  record gpu_benchmark "skipped (KEPLER_SKIP_BENCH=1)"
else
  if [[ "$PLATFORM" == cuda ]]; then
    BENCH=(--platform cuda)
  else
    BENCH=(--platform cpu --quick --max-n 100000)
  fi
  # shellcheck disable=SC2206  # word splitting of the extra arguments is meant
  BENCH+=(${KEPLER_BENCH_ARGS:-})
  # Run as a script: sys.path[0] is benchmarks/, not the repository root.
  if "$PY" benchmarks/gpu_benchmark.py "${BENCH[@]}" --output "$OUT_DIR/gpu_benchmark.md" \
      > "$OUT_DIR/gpu_benchmark.log" 2>&1; then
    record gpu_benchmark "ok (gpu_benchmark.md)"
  else
    record gpu_benchmark "FAILED (see gpu_benchmark.log)"
    tail -n 40 "$OUT_DIR/gpu_benchmark.log" >&2
  fi
  [[ -f "$OUT_DIR/gpu_benchmark.md" ]] && cat "$OUT_DIR/gpu_benchmark.md"
fi

{
  [[ "$PLATFORM" == cpu ]] && echo "SMOKE TEST on the CPU (KEPLER_CHECK_PLATFORM=cpu): not a GPU result"
  printf '%s\n' "${RESULTS[@]}"
  if [[ $FAILED -eq 0 ]]; then echo "ALL OK"; else echo "SOME STEPS FAILED"; fi
} > "$OUT_DIR/summary.txt"
echo "== summary ($OUT_DIR/summary.txt)" >&2
cat "$OUT_DIR/summary.txt" >&2
exit $FAILED
