#!/usr/bin/env bash
# The release in one command: every wheel of the release matrix, into OUT.
#
#   bash tools/build_wheels.sh OUT
#
# The matrix is tools/setup.sh's (the README's install table): the CPU wheel
# kepler-jax for every supported CPython on Linux x86-64 and (AARCH64_PYTHONS,
# --config=linux_aarch64) aarch64 and, for the Pythons jax's own CUDA 13
# plugin supports, the CUDA plugin kepler-jax-cuda13-plugin for both
# (--config=cuda: the pinned toolkit, third_party/cuda). One Bazel build per Python, from the same
# sources, with the interpreter chosen by HERMETIC_PYTHON_VERSION: the host's
# Bazel 4.2.3 (WORKSPACE) for HOST_PYTHONS, Bazel 7.7.1 (bzlmod) in the sid
# root for SID_PYTHONS, whose interpreters need sid's glibc. Each build runs
# //tests:wheel_test, which checks the wheels' contents, that their tags are
# the ones their binaries allow and that `auditwheel show` agrees. The wheels
# are named as pip expects; the list is printed at the end. Environment:
# KEPLER_WHEEL_PYTHONS (default: the whole matrix) builds fewer Pythons.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: bash tools/build_wheels.sh OUT" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
source tools/setup.sh
pythons=${KEPLER_WHEEL_PYTHONS:-$SID_PYTHONS $HOST_PYTHONS}
# The default Python last: the host's Bazel then ends where the other scripts
# start (a change of Python re-installs the locked packages).
default=$HERMETIC_PYTHON_VERSION
pythons="$(printf '%s\n' $pythons | grep -vx "$default" | tr '\n' ' ')$(printf '%s\n' $pythons | grep -x "$default" || true)"

for version in $pythons; do
  export HERMETIC_PYTHON_VERSION=$version
  flags=()
  if [[ " $CUDA_PLUGIN_PYTHONS " == *" $version "* ]]; then
    flags+=(--config=cuda)
  fi
  if [[ " $SID_PYTHONS " == *" $version "* ]]; then
    run_bazel=(tools/sid/bazel)
    flags+=(--config=bzlmod)
  elif [[ " $HOST_PYTHONS " == *" $version "* ]]; then
    run_bazel=(bazel)
  else
    echo "build_wheels: Python $version is not in the release matrix ($HOST_PYTHONS $SID_PYTHONS)" >&2
    exit 2
  fi
  builds=()
  # aarch64 first: the x86-64 build then leaves Bazel where the tests start.
  if [[ " $AARCH64_PYTHONS " == *" $version "* ]]; then
    builds+=("${flags[*]} --config=linux_aarch64")
  fi
  builds+=("${flags[*]}")
  for build in "${builds[@]}"; do
    read -r -a build_flags <<<"$build"
    echo "=== build_wheels: Python $version: ${run_bazel[*]} test ${build_flags[*]+${build_flags[*]} }//tests:wheel_test"
    "${run_bazel[@]}" test "${build_flags[@]}" //tests:wheel_test
    bin=$("${run_bazel[@]}" info "${build_flags[@]}" bazel-bin 2>/dev/null)
    cp "$bin"/wheel/*.whl "$out/"
  done
done

echo "=== build_wheels: the wheels in $out"
(cd "$out" && ls -1 *.whl)
