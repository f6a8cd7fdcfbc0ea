#!/usr/bin/env bash
# The release in one command: every wheel of the release, into OUT.
#
#   bash tools/build_wheels.sh OUT
#
# For Linux x86-64 and (--config=linux_aarch64, cross-compiled) aarch64: the
# CPU wheel kepler-jax and the CUDA plugin kepler-jax-cuda13-plugin
# (--config=cuda: the pinned toolkit, third_party/cuda). The compiled modules
# use no Python C API (ctypes reads them), so each wheel is py3-none and
# serves every Python from its Requires-Python on (kepler/_version.py); the
# Pythons they are tested with are tools/setup.sh's HOST_PYTHONS and
# SID_PYTHONS (tools/wheel_legs.py). One Bazel build per architecture, with
# the host's Bazel 4.2.3; each runs //tests:wheel_test, which checks the
# wheels' contents, that their tags are the ones their binaries allow, that
# `auditwheel show` agrees and that the modules need nothing of Python's. The
# wheels are named as pip expects; the list is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: bash tools/build_wheels.sh OUT" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
source tools/setup.sh

# aarch64 first: the x86-64 build then leaves Bazel where the tests start.
for build in "--config=cuda --config=linux_aarch64" "--config=cuda"; do
  read -r -a build_flags <<<"$build"
  echo "=== build_wheels: bazel test ${build_flags[*]} //tests:wheel_test"
  bazel test "${build_flags[@]}" //tests:wheel_test
  bin=$(bazel info "${build_flags[@]}" bazel-bin 2>/dev/null)
  cp "$bin"/wheel/*.whl "$out/"
done

echo "=== build_wheels: the wheels in $out"
(cd "$out" && ls -1 *.whl)
