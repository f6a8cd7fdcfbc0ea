#!/usr/bin/env bash
# Byte-for-byte reproducible wheels: a build from clean, with an empty zig
# cache (the C++ toolchain, third_party/zig, then builds libc++ anew), must
# give the same files as a reference build of the same sources.
#
#   tools/check_reproducible_wheel.sh [REFERENCE_DIR]
#
# REFERENCE_DIR holds wheels built earlier (tools/test_all.sh passes the
# release's, from tools/build_wheels.sh): the x86-64 ones of the default
# Python are compared. Without it, a first build (warm caches) is the
# reference. Both are built with --config=cuda (the plugin too).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
config=(--config=cuda)
tag="cp${HERMETIC_PYTHON_VERSION/./}"
reference=${1:-}
if [ -z "$reference" ]; then
  reference=$(mktemp -d)
  bazel build "${config[@]}" //:wheel
  cp bazel-bin/wheel/*.whl "$reference/"
fi
want=$(cd "$reference" && sha256sum kepler_jax*-"$tag"-*_x86_64.whl)
[ -n "$want" ] || { echo "no $tag wheels in $reference" >&2; exit 1; }
fresh_zig_cache=$(mktemp -d)
trap 'rm -rf "$fresh_zig_cache"' EXIT
bazel clean
bazel build "${config[@]}" --action_env=TMPDIR="$fresh_zig_cache" //:wheel
got=$(cd bazel-bin/wheel && sha256sum *.whl)
echo "reference ($reference):"
echo "$want"
echo "clean build with an empty zig cache:"
echo "$got"
if [ "$want" != "$got" ]; then
  echo "the wheels are not reproducible" >&2
  exit 1
fi
echo "reproducible: both builds give the same sha256 for every wheel"
