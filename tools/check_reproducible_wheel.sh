#!/usr/bin/env bash
# Byte-for-byte reproducible wheels: the x86-64 wheels that Bazel 7.7.1 with
# bzlmod builds in the sid root (tools/sid/bazel), from clean and with an
# empty zig cache (the C++ toolchain, third_party/zig, then builds libc++
# anew), must be the same files as a reference build of the same sources by
# the host's Bazel 4.2.3 with WORKSPACE: another Bazel, another way of
# fetching the dependencies, another output base and C library, the same
# bytes.
#
#   tools/check_reproducible_wheel.sh [REFERENCE_DIR]
#
# REFERENCE_DIR holds wheels built earlier (tools/test_all.sh passes the
# release's, from tools/build_wheels.sh): the x86-64 ones are compared.
# Without it, the host's Bazel builds the reference first. Both are built
# with --config=cuda (the plugin too). The sid root's outputs are then those
# of a plain `--config=bzlmod` build too (the same actions), which
# tools/sid/test_bzlmod.sh reuses.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
config=(--config=cuda)
reference=${1:-}
if [ -z "$reference" ]; then
  reference=$(mktemp -d)
  bazel build "${config[@]}" //:wheel
  cp bazel-bin/wheel/*.whl "$reference/"
fi
want=$(cd "$reference" && sha256sum kepler_jax*_x86_64.whl)
[ -n "$want" ] || { echo "no x86-64 wheels in $reference" >&2; exit 1; }
sidbazel=tools/sid/bazel
# zig's cache lives in the root's own /tmp (third_party/zig/repositories.bzl;
# the actions see no TMPDIR).
tools/sid/run sh -c 'rm -rf /tmp/kepler-zig-cache-*'
"$sidbazel" clean
"$sidbazel" build --config=bzlmod "${config[@]}" //:wheel
bin=$("$sidbazel" info --config=bzlmod "${config[@]}" bazel-bin 2>/dev/null)
got=$(cd "$bin/wheel" && sha256sum *.whl)
echo "reference ($reference):"
echo "$want"
echo "Bazel 7.7.1 (bzlmod, sid root), clean, with an empty zig cache:"
echo "$got"
if [ "$want" != "$got" ]; then
  echo "the wheels are not reproducible" >&2
  exit 1
fi
echo "reproducible: both builds give the same sha256 for every wheel"
