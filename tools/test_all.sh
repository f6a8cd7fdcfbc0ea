#!/usr/bin/env bash
# Every test, as CI runs it, the way jax tests its matrix: the full `bazel
# test //...` for the default Python (Bazel 4.2.3, WORKSPACE) and for Bazel
# 7.7.1 (bzlmod); for every Python of the release, its wheels built by
# tools/build_wheels.sh (one per architecture) and the Python tests run against them in fresh
# virtualenvs next to a pip-installed jax (SID_PYTHONS in the sid root);
# the aarch64 build under qemu (tools/arm64/test.sh);
# every C++ test under AddressSanitizer and UndefinedBehaviorSanitizer;
# the CUDA build (compile only), the GPU check's dry run on the CPU, the
# old-glibc run, the embedding workspace,
# buildifier, and the byte-for-byte reproducibility of the wheels (Bazel
# 7.7.1's build against the release's, Bazel 4.2.3's).
#
# Every leg runs even when an earlier one fails. The log ends with each leg's
# duration and status, each failed leg's log file, the count of Bazel test
# targets and of legs passed and failed; the exit status is non-zero when
# anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh  # Bazel, the release matrix
set +e  # (setup.sh sets -e) a failed leg must not stop the others
# The jax each wheel is tested with: the floor (kepler/_version.py's JAX_MIN)
# and the newest on PyPI for that Python (its lock's); and one jax below the
# floor, which `import kepler` must refuse.
jax_min=$(sed -n 's/^JAX_MIN = "\(.*\)"$/\1/p' kepler/_version.py)
newest() { sed -n 's/^jax==\([^ ]*\) .*/\1/p' "tools/requirements/requirements_lock_${1/./_}.txt"; }
jax_below_min=0.5.3  # the last jax release before JAX_MIN
py=$DEFAULT_PYTHON
# The default Python with the floor jax (every wheel test), with the newest
# jax (the smoke subset: the default leg's `bazel test //...` runs every file
# with that jax, the lock's, on the same compiled code), below the floor
# (refused) and beside the clashing distributions; every other Python of the
# release (tools/setup.sh) with its newest jax, the smoke subset too (the
# same compiled code as the default Python's).
default_legs="$py:$jax_min $py:$(newest $py):smoke $py:$jax_below_min:refused $py:$(newest $py):clash"
for other in $HOST_PYTHONS; do
  [ "$other" = "$py" ] || default_legs+=" $other:$(newest "$other"):smoke"
done
sid_legs=""
for other in $SID_PYTHONS; do sid_legs+="${sid_legs:+ }$other:$(newest "$other"):smoke"; done
host_wheel_legs=${KEPLER_WHEEL_LEGS:-$default_legs}
sid_wheel_legs=${KEPLER_SID_WHEEL_LEGS:-$sid_legs}

logs=$(mktemp -d /tmp/kepler_test_all.XXXXXX)
dist="$logs/dist"
mkdir -p "$dist"
results="$logs/bazel_results.txt"
touch "$results"
passed_legs=()
failed_legs=()
durations=()

# leg NAME COMMAND...: runs COMMAND, its output both shown and kept in a log.
leg() {
  local name=$1
  shift
  local log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_').log"
  printf '\n=== %s\n' "$name"
  local start=$SECONDS
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  durations+=("$(printf '%4d:%02d  %s  %s' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) \
    "$([ "$status" -eq 0 ] && echo passed || echo FAILED)" "$name")")
  grep -E '^//.* (PASSED|FAILED|TIMEOUT|NO STATUS)' "$log" >>"$results" || true
  if [ "$status" -eq 0 ]; then
    passed_legs+=("$name")
  else
    echo "=== FAILED: $name (exit $status; log $log)"
    failed_legs+=("$name|$log")
  fi
}

default_leg() {  # everything Bazel tests, for the default Python
  export HERMETIC_PYTHON_VERSION=$DEFAULT_PYTHON
  # But the forced-variant accuracy tests of loop variants this CPU lacks
  # (they cannot run here): the filter, and on stderr what it leaves out.
  local lacking
  lacking=$(python3 tools/lacking_cpu_isas.py) || return 1
  bazel test $lacking //... &&
    # Agreement with exoplanet-core, jaxoplanet and batman, whose lock exists
    # for DEFAULT_PYTHON only.
    bazel test //tests:limb_dark_peers_test //tests:transit_peers_test
}

sanitize_leg() {  # the C++ tests alone, built by the host's gcc (.bazelrc)
  HERMETIC_PYTHON_VERSION=$DEFAULT_PYTHON bazel test --config=sanitize --build_tests_only \
    --test_lang_filters=cc //...
}

cuda_leg() {
  export HERMETIC_PYTHON_VERSION=$DEFAULT_PYTHON
  # Every target, the *_gpu tests included (this fetches the pinned toolkit
  # and the pinned JAX CUDA plugin, about 3 GB); running those needs a GPU.
  bazel build --config=cuda //... &&
    # The compile actions use the pinned toolkit, no CUDA of this machine's.
    tools/check_cuda_inputs.sh &&
    # ptxas's registers, stack and spills per kernel (sm_90), against the
    # GPU issue's limits: no kernel newly over them, none of the kernels
    # known over (the script's KNOWN_OVER) within them unnoticed; --enforce
    # in place of --guard once every light-curve and transit kernel meets them.
    python3 tools/ptxas_report.py --guard
}

gpu_check_leg() {  # tools/gpu_check.py end to end on the CPU, so that it cannot rot without a GPU
  local venv="$logs/gpu_check_venv" lock="tools/requirements/requirements_lock_${DEFAULT_PYTHON/./_}.txt"
  "$(bazel_python)" -m venv "$venv" &&
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      $(grep -E '^(jax|jaxlib|numpy|mpmath|absl-py)==' "$lock" | sed 's/ .*//') &&
    # gpu_test only: the other GPU files run on the CPU in the wheel legs.
    KEPLER_CHECK_PLATFORM=cpu KEPLER_CHECK_TESTS=gpu_test KEPLER_CHECK_PYTHON="$venv/bin/python" \
      KEPLER_VARIANTS="two_pass polynomial_one_kernel" \
      KEPLER_CHECK_OUT="$logs/gpu_check" python3 tools/gpu_check.py \
      "$dist"/kepler_jax-*-py3-none-*_x86_64.whl "$dist"/kepler_jax_cuda*_plugin-*-py3-none-*_x86_64.whl
}

old_glibc_leg() {  # both wheels' modules
  HERMETIC_PYTHON_VERSION=$DEFAULT_PYTHON tools/old_glibc/run.sh /tmp/bullseye-root --config=cuda
}

leg "buildifier: Bazel files formatted" tools/buildifier_check.sh
leg "Python $DEFAULT_PYTHON: bazel test //... (Bazel 4.2.3, WORKSPACE)" default_leg
leg "sanitizers: every C++ test under ASan + UBSan (handlers driven on adversarial calls)" \
  sanitize_leg
leg "CUDA: bazel build --config=cuda //... (compile only, no GPU here)" cuda_leg
leg "release: tools/build_wheels.sh (the wheels of each architecture, wheel_test each)" \
  bash tools/build_wheels.sh "$dist"
leg "wheels in fresh virtualenvs: $host_wheel_legs" python3 tools/wheel_legs.py "$dist" $host_wheel_legs
leg "wheels in fresh virtualenvs in the sid root: $sid_wheel_legs" \
  env SID_BINDS="$dist" tools/sid/run python3 tools/wheel_legs.py "$dist" $sid_wheel_legs
leg "GPU check, dry run on the CPU (tools/gpu_check.py, KEPLER_CHECK_PLATFORM=cpu): not a GPU result" \
  gpu_check_leg
leg "aarch64 under qemu: C++ tests with SVE on and off, the wheels next to jax (Python 3.13)" \
  bash tools/arm64/test.sh "$dist"
leg "old glibc: the hermetic build runs in Debian bullseye (glibc 2.31)" old_glibc_leg
leg "embedding workspace (tests/embedding): bazel test //..." \
  bash -c 'cd tests/embedding && bazel test //...'
# Bazel 7.7.1 in the sid root: its clean build of the wheels first, which
# the bzlmod leg's build then reuses.
leg "reproducible wheels: Bazel 7.7.1's clean build equals the release's x86-64 wheels" \
  tools/check_reproducible_wheel.sh "$dist"
leg "bzlmod: Bazel 7.7.1 --noenable_workspace, and tests/embedding_bzlmod" tools/sid/test_bzlmod.sh

printf '\n=== summary\n'
echo "  time    status  leg"
printf '%s\n' "${durations[@]}"
for entry in "${failed_legs[@]}"; do
  echo "FAILED leg: ${entry%%|*} (log: ${entry#*|})"
done
python3 tools/lacking_cpu_isas.py 2>&1 >/dev/null | sed 's/^lacking_cpu_isas: /not run: /'
echo "Bazel test targets: $(grep -c ' PASSED' "$results") passed, $(grep -cvE ' PASSED' "$results") failed"
echo "test_all: ${#passed_legs[@]} legs passed, ${#failed_legs[@]} failed"
[ ${#failed_legs[@]} -eq 0 ]
