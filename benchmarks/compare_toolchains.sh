#!/bin/bash
# The CPU benchmark with the wheels' toolchain (zig's clang, the default) and
# the host's compiler (--config=hostcc) side by side in one run: builds the
# wheel with the host compiler, unpacks it, and runs
# //benchmarks:cpu_benchmark --compare_with on it. Arguments go to the
# benchmark (e.g. --modes one --output report.md). Python 3.12 only, as the
# benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
export HERMETIC_PYTHON_VERSION=3.12
other=$(mktemp -d)
trap 'rm -rf "$other"' EXIT
bazel build --config=hostcc //:wheel
python3 -m zipfile -e bazel-bin/wheel/kepler_jax-*.whl "$other"
compiler=$(g++ --version | head -1)
bazel run //benchmarks:cpu_benchmark -- --compare_with "$other" \
  --compare_label "the host's compiler ($compiler, --config=hostcc)" "$@"
