#!/usr/bin/env bash
# Every test: `bazel test //...` for each supported Python, the embedding
# workspace, the CUDA build (compile only, where nvcc exists), and the
# byte-for-byte reproducibility of the wheel. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# 3.12 last: the steps after the loop use it, as tools/demo.sh does.
pythons=${KEPLER_TEST_PYTHONS:-3.11 3.12}

step() { printf '\n=== %s\n' "$*"; }

# Bazel's per-target result lines, counted for the closing summary.
results=$(mktemp)
trap 'rm -f "$results"' EXIT
bazel_test() { bazel test "$@" 2>&1 | tee >(grep -E '^//.* (PASSED|FAILED|TIMEOUT)' >>"$results"); }

step "buildifier: Bazel files formatted"
tools/buildifier_check.sh

for version in $pythons; do
  export HERMETIC_PYTHON_VERSION=$version
  source tools/setup.sh
  step "Python $version: bazel test //..."
  bazel_test //...
done

if [ -n "${CUDA_PATH:-}" ] || [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  # Every target, the *_gpu tests included (this fetches the pinned JAX CUDA
  # plugin, about 3 GB); running those needs a GPU.
  step "CUDA: bazel build --config=cuda //... (compile only, no GPU here)"
  bazel build --config=cuda //...
else
  step "CUDA: NOT BUILT, no CUDA toolkit on this machine"
fi

step "embedding workspace (tests/embedding): bazel test //..."
(cd tests/embedding && bazel_test //...)

step "reproducible wheel: two clean builds"
tools/check_reproducible_wheel.sh

step "all tests passed"
sleep 1  # let the last result lines reach $results
echo "test_all: $(grep -c ' PASSED' "$results") passed, $(grep -cE ' (FAILED|TIMEOUT)' "$results") failed"
