#!/usr/bin/env bash
# Builds the wheel twice from clean and fails unless the two are byte-identical.
set -euo pipefail
cd "$(dirname "$0")/.."
sums=()
for attempt in 1 2; do
  bazel clean
  bazel build //:wheel
  sums+=("$(sha256sum bazel-bin/wheel/*.whl)")
  echo "build $attempt: ${sums[-1]}"
done
if [ "${sums[0]}" != "${sums[1]}" ]; then
  echo "the wheel is not reproducible" >&2
  exit 1
fi
echo "reproducible: both builds have sha256 ${sums[0]%% *}"
