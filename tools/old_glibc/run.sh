#!/bin/bash
# Proof that what the wheels' toolchain builds runs on an old Linux, not only
# that auditwheel says so: builds //jaxlib_ext/kepler_solve:kepler_solve_known_values_test
# (the CPU handler's solve loop on mpmath values, C++ only) with the repository's
# default toolchain (@kepler_zig, glibc 2.17, libc++ linked in) and runs it in a
# Debian bullseye root (glibc 2.31, the oldest suite deb.debian.org serves; the
# build host is Debian 12, glibc 2.36), entered with bubblewrap. As a control, a
# program built by the host's g++ must fail to start in the same root.
#
# The wheels' extension modules are loaded there too, by the root's ldd.
#
# usage: tools/old_glibc/run.sh [ROOT] [BAZEL FLAGS...]
#   ROOT: default /tmp/bullseye-root, made if absent; flags, e.g. --config=cuda
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=${1:-/tmp/bullseye-root}
BAZEL_FLAGS=("${@:2}")
SUITE=bullseye
WANT_GLIBC=2.31

if [ ! -x "$ROOT/usr/bin/ldd" ]; then
  if ! command -v mmdebstrap >/dev/null || ! command -v bwrap >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends mmdebstrap bubblewrap >/dev/null
  fi
  echo "old_glibc: making a Debian $SUITE root in $ROOT (~40 MB download)"
  rm -rf "$ROOT"
  mmdebstrap --variant=minbase --quiet \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    "$SUITE" "$ROOT" \
    "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main"
fi

bazel build //jaxlib_ext/kepler_solve:kepler_solve_known_values_test //:wheel "${BAZEL_FLAGS[@]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp bazel-bin/jaxlib_ext/kepler_solve/kepler_solve_known_values_test "$work/"
# The wheels' extension modules (with --config=cuda the plugin's too).
for wheel in bazel-bin/wheel/*.whl; do
  python3 -m zipfile -e "$wheel" "$work/wheels"
done

# The control: anything using std::shared_ptr, built by Debian 12's g++, needs
# GLIBC_2.32 (__libc_single_threaded) and so cannot start there.
printf '#include <memory>\nint main() { auto p = std::make_shared<int>(1); auto q = p; return *q - 1; }\n' > "$work/control.cc"
g++ -O2 -o "$work/control" "$work/control.cc"

in_root() {
  bwrap --ro-bind "$ROOT" / --bind "$work" /tmp --proc /proc --dev /dev \
    --unshare-pid --die-with-parent --clearenv --setenv PATH /usr/bin:/bin --chdir /tmp "$@"
}

echo "old_glibc: the root's C library: $(in_root /usr/bin/ldd --version | head -1)"
in_root ./control >"$work/control.log" 2>&1 && status=0 || status=$?
if [ "$status" = 0 ] || ! grep -q "version .GLIBC_2\.[0-9]*' not found" "$work/control.log"; then
  echo "old_glibc: FAIL: the host-built control should fail for want of a newer glibc; it gave (exit $status):" >&2
  cat "$work/control.log" >&2
  exit 1
fi
echo "old_glibc: control (host g++) refused as expected: $(head -1 "$work/control.log")"

# The dynamic loader of the root resolves every library and symbol version
# the wheels' modules need.
for module in $(cd "$work" && find wheels -name '*.so'); do
  in_root /usr/bin/ldd "./$module" >"$work/ldd.log" 2>&1 || true
  if grep -q "not found" "$work/ldd.log"; then
    echo "old_glibc: FAIL: $module does not load on glibc $WANT_GLIBC:" >&2
    cat "$work/ldd.log" >&2
    exit 1
  fi
  echo "old_glibc: $module: every library and symbol version found"
done

in_root ./kepler_solve_known_values_test | tee "$work/test.log"
if ! head -1 "$work/test.log" | grep -q "^glibc $WANT_GLIBC;"; then
  echo "old_glibc: FAIL: the test did not report glibc $WANT_GLIBC" >&2
  exit 1
fi
echo "old_glibc: the hermetic build ran on glibc $WANT_GLIBC"
