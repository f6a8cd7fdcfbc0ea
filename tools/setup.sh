#!/usr/bin/env bash
# Installs what the build needs on a fresh Debian 12 machine (as root), from
# Debian's archive only. Safe to run again: it installs only what is missing.
set -euo pipefail

need=()
command -v bazel >/dev/null || need+=(bazel-bootstrap)
[ -d /usr/share/bazel/rules/java ] || need+=(bazel-rules-java)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} from Debian's archive"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The interpreter itself is found by Bazel's repository rule
# (third_party/python/repositories.bzl), which fails clearly if it is missing.
# DEFAULT_PYTHON: the Python of the full `bazel test //...`, the CUDA build and
# the benchmarks (their locks exist for it).
DEFAULT_PYTHON=3.12
export HERMETIC_PYTHON_VERSION="${HERMETIC_PYTHON_VERSION:-$DEFAULT_PYTHON}"
echo "setup: bazel $(bazel --version 2>/dev/null | head -1), Python $HERMETIC_PYTHON_VERSION"

# The interpreter Bazel picked for HERMETIC_PYTHON_VERSION (the wheels' ABI),
# read from the repository rule's output; call after a build.
bazel_python() {
  sed -n 's/^PYTHON_INTERPRETER = "\(.*\)"$/\1/p' "$(bazel info output_base)/external/kepler_python/defs.bzl"
}

# The Pythons the release's wheels are tested with (tools/wheel_legs.py; the
# README's install table). The wheels themselves are one per architecture
# and serve every Python from kepler/_version.py's PYTHON_MIN on
# (tools/build_wheels.sh). SID_PYTHONS run only in the sid root
# (tools/sid/run; tools/sid/make-root.sh installs them, reading SID_PYTHONS's
# line, so keep it one line in double quotes): sid's glibc is newer than the
# host's. The docs name these lists rather than repeat them.
HOST_PYTHONS="3.11 3.12 3.13"
SID_PYTHONS="3.14 3.15"
