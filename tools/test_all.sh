#!/usr/bin/env bash
# Every test, as CI runs it: `bazel test //...` for each supported Python (and
# that Python's wheel), the wheels installed next to the oldest and the newest
# supported jax, the CUDA build (compile only), the embedding workspace, the
# module with bzlmod on Bazel 7.7.1 (and a module depending on it), buildifier,
# and the byte-for-byte reproducibility of the wheels.
#
# Every leg runs even when an earlier one fails. The log ends with each failed
# leg's name and log file, the count of Bazel test targets and of legs passed
# and failed, and the exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
# 3.12 last: the CUDA build and the embedding workspace use it, as demo.sh does.
pythons=${KEPLER_TEST_PYTHONS:-3.11 3.13 3.12}
# The jax each wheel is tested with: the floor (kepler/_version.py's JAX_MIN)
# and the newest on PyPI for that Python; and one jax below the floor, which
# `import kepler` must refuse.
jax_min=$(sed -n 's/^JAX_MIN = "\(.*\)"$/\1/p' kepler/_version.py)
wheel_legs=${KEPLER_WHEEL_LEGS:-3.12:$jax_min 3.12:0.12.0.1 3.13:0.12.0.1 3.11:0.10.2 3.12:0.5.3:refused}

logs=$(mktemp -d /tmp/kepler_test_all.XXXXXX)
dist="$logs/dist"
mkdir -p "$dist"
results="$logs/bazel_results.txt"
touch "$results"
passed_legs=()
failed_legs=()

# leg NAME COMMAND...: runs COMMAND, its output both shown and kept in a log.
leg() {
  local name=$1
  shift
  local log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_').log"
  printf '\n=== %s\n' "$name"
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  grep -E '^//.* (PASSED|FAILED|TIMEOUT|NO STATUS)' "$log" >>"$results" || true
  if [ "$status" -eq 0 ]; then
    passed_legs+=("$name")
  else
    echo "=== FAILED: $name (exit $status; log $log)"
    failed_legs+=("$name|$log")
  fi
}

python_leg() {  # bazel test //... and the wheel, for one Python
  export HERMETIC_PYTHON_VERSION=$1
  source tools/setup.sh || return 1
  local status=0
  bazel test //... || status=1
  # Agreement with exoplanet-core, whose lock exists for Python 3.12 only.
  if [ "$1" = 3.12 ]; then
    bazel test //tests:limb_dark_peers_test || status=1
  fi
  # The wheel, and the interpreter that built it for tools/wheel_legs.sh.
  bazel build //:wheel && cp bazel-bin/wheel/*.whl "$dist/" &&
    bazel_python >"$dist/python-cp${1/./}.txt" || status=1
  return $status
}

have_cuda() {
  [ -n "${CUDA_PATH:-}" ] || [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null
}

cuda_leg() {
  if have_cuda; then
    # Every target, the *_gpu tests included (this fetches the pinned JAX CUDA
    # plugin, about 3 GB); running those needs a GPU.
    bazel build --config=cuda //... && bazel test --config=cuda //tests:wheel_test
  else
    echo "CUDA: NOT BUILT, no CUDA toolkit on this machine"
    return 1
  fi
}

leg "buildifier: Bazel files formatted" tools/buildifier_check.sh
for version in $pythons; do
  leg "Python $version: bazel test //... and its wheel" python_leg "$version"
done
export HERMETIC_PYTHON_VERSION=3.12
leg "wheels in fresh virtualenvs: $wheel_legs" tools/wheel_legs.sh "$dist" $wheel_legs
leg "CUDA: bazel build --config=cuda //... (compile only, no GPU here)" cuda_leg
old_glibc_leg() {  # both wheels' modules where nvcc exists, else the CPU one
  local flags=()
  have_cuda && flags=(--config=cuda)
  tools/old_glibc/run.sh /tmp/bullseye-root "${flags[@]}"
}
leg "old glibc: the hermetic build runs in Debian bullseye (glibc 2.31)" old_glibc_leg
leg "embedding workspace (tests/embedding): bazel test //..." \
  bash -c 'cd tests/embedding && bazel test //...'
leg "bzlmod: Bazel 7.7.1 --noenable_workspace, and tests/embedding_bzlmod" tools/bazel7/test_bzlmod.sh
leg "reproducible wheels: two clean builds" tools/check_reproducible_wheel.sh

printf '\n=== summary\n'
for entry in "${failed_legs[@]}"; do
  echo "FAILED leg: ${entry%%|*} (log: ${entry#*|})"
done
echo "Bazel test targets: $(grep -c ' PASSED' "$results") passed, $(grep -cvE ' PASSED' "$results") failed"
echo "test_all: ${#passed_legs[@]} legs passed, ${#failed_legs[@]} failed"
[ ${#failed_legs[@]} -eq 0 ]
