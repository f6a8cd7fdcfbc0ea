#!/usr/bin/env bash
# Builds the wheels twice from clean (with --config=cuda where nvcc exists:
# the main wheel and the CUDA plugin) and fails unless the two builds are
# byte-identical. The second build also starts with an empty cache of zig
# (the C++ toolchain, third_party/zig), which then builds libc++ anew.
set -euo pipefail
cd "$(dirname "$0")/.."
config=()
if [ -n "${CUDA_PATH:-}" ] || [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  config=(--config=cuda)
fi
fresh_zig_cache=$(mktemp -d)
trap 'rm -rf "$fresh_zig_cache"' EXIT
sums=()
for attempt in 1 2; do
  bazel clean
  extra=()
  [ "$attempt" = 2 ] && extra=(--action_env=TMPDIR="$fresh_zig_cache")
  bazel build "${config[@]}" "${extra[@]}" //:wheel
  sums+=("$(cd bazel-bin/wheel && sha256sum *.whl)")
  echo "build $attempt:"
  echo "${sums[-1]}"
done
if [ "${sums[0]}" != "${sums[1]}" ]; then
  echo "the wheels are not reproducible" >&2
  exit 1
fi
echo "reproducible: both builds give the same sha256 for every wheel"
