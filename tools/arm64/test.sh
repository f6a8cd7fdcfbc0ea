#!/bin/bash
# The aarch64 build, tested under emulation (tools/arm64/run: an arm64 Debian
# root and qemu-aarch64; nothing changes on the host):
#   1. the C++ tests of every op's aarch64 loops (every variant agreeing;
#      Kepler's known values), cross-compiled with --config=linux_aarch64,
#      run on an emulated CPU with SVE and on one without: every variant the
#      CPU has is checked, SVE is skipped (not passed) without it; and of
#      every op's CPU handler as XLA calls it, on the CPU without SVE;
#   2. the aarch64 wheels from DIST (kepler-jax and its CUDA plugin) in
#      a fresh virtualenv of the root's Python 3.13, next to the aarch64 jax
#      and the test packages that
#      tools/requirements/requirements_lock_3_13.txt pins: the Python tests
#      tests/test_table.bzl marks `arm64`, with SVE, and the variant choice
#      with and without SVE; the plugin loads, leaves CPU use alone, and says
#      that no driver is there.
# Emulation costs ~25x in CPU time, so the Python tests are a subset chosen
# to cover every op, both dtypes, jit, vmap, grad, the errors and the CPU
# variant choice (docs/testing.md). It says nothing about speed.
#
#   bash tools/arm64/test.sh DIST
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: bash tools/arm64/test.sh DIST" >&2; exit 2; }
dist=$(realpath "$1")
work=$(mktemp -d /tmp/kepler_arm64.XXXXXX)
run=(env ARM64_BINDS="$work" "$(pwd)/tools/arm64/run")
with_sve="max,pauth=off"
without_sve="max,pauth=off,sve=off"
failed=0
check() {  # check NAME COMMAND...: runs it, records a failure
  echo "--- arm64: $1"
  shift
  if ! "$@"; then echo "--- arm64: FAILED"; failed=1; fi
}

# 1. C++ tests.
# Every op's CPU-variant and handler tests (op_targets in jaxlib_ext/ops.bzl),
# for each op of OPS, the known-values test of Kepler's equation and the
# test of the host path's logarithm and exponential (jaxlib_ext/math).
ops=$(python3 -c 'import sys; sys.path.insert(0, "tools"); import wheel_tests
print(" ".join(wheel_tests.top_level_literal("jaxlib_ext/ops.bzl", "OPS")))')
targets=(//jaxlib_ext/kepler_solve:kepler_solve_known_values_test //jaxlib_ext/math:elementary_test)
for op in $ops; do
  targets+=("//jaxlib_ext/$op:${op}_cpu_isa_test" "//jaxlib_ext/$op:${op}_cpu_handler_test")
done
bazel build --config=linux_aarch64 "${targets[@]}"
bin=$(bazel info --config=linux_aarch64 bazel-bin 2>/dev/null)
for target in "${targets[@]}"; do
  path=${target#//}
  cp "$bin/${path/://}" "$work/"
done
for target in "${targets[@]}"; do
  test=${target##*:}
  cpus=("$with_sve" "$without_sve")
  # The handler tests once, without SVE: what they check (the handler's
  # checks and dispatch, every buffer) is the same for every variant, the
  # variants' agreement is the ISA tests', and the emulated SVE costs about
  # 3 of the leg's minutes there (the Python tests run the sve variant).
  # elementary_test has no variants: once too.
  one_cpu=false
  [[ $test == *_handler_test || $test == elementary_test ]] && one_cpu=true
  $one_cpu && cpus=("$without_sve")
  for cpu in "${cpus[@]}"; do
    log="$work/$test.$([ "$cpu" = "$with_sve" ] && echo sve || echo nosve).log"
    check "$test, QEMU_CPU=$cpu" env QEMU_CPU="$cpu" "${run[@]}" "$work/$test" >"$log" 2>&1 ||
      true
    cat "$log"
    # With SVE the sve variant must have run; without, it must be skipped
    # (the handler tests run the variant the CPU picks, and name none).
    $one_cpu && continue
    if [ "$cpu" = "$with_sve" ] && grep -q "SKIP.*sve\|sve=SKIPPED" "$log"; then
      echo "--- arm64: FAILED: the sve variant did not run on a CPU with SVE"; failed=1
    fi
    if [ "$cpu" = "$without_sve" ] && ! grep -q "SKIP.*sve\|sve=SKIPPED" "$log"; then
      echo "--- arm64: FAILED: the sve variant was not skipped on a CPU without SVE"; failed=1
    fi
  done
done

# 2. The wheels in a fresh virtualenv, next to the aarch64 jax: the files and
# selectors tests/test_table.bzl marks `arm64`, by tools/wheel_tests.py with
# the root's interpreter under qemu (pip in the root takes the aarch64 wheels
# of jax and the pins from PyPI, binary wheels only).
shopt -s nullglob
wheels=("$dist"/kepler_jax-*-py3-none-manylinux_*_aarch64.whl
  "$dist"/kepler_jax_cuda*_plugin-*-py3-none-manylinux_*_aarch64.whl)
shopt -u nullglob
[ ${#wheels[@]} -eq 2 ] || { echo "arm64: expected the aarch64 wheel and plugin wheel in $dist, found: ${wheels[*]}" >&2; exit 1; }
mkdir -p "$work/wheels"
cp "${wheels[@]}" "$work/wheels/"
# Two test files at a time: each emulated interpreter runs on one core.
args=(--python python3 --select arm64 --x64 1 --jobs 2 --work "$work/w" --pip-arg=--only-binary=:all:)
for wheel in "$work"/wheels/*.whl; do args+=(--wheel "$wheel"); done
for pin in $(grep -E '^(jax|jaxlib|numpy|scipy|ml-dtypes|opt-einsum|mpmath|absl-py)==' \
  tools/requirements/requirements_lock_3_13.txt | sed 's/ .*//'); do args+=(--requirement "$pin"); done
check "tests/test_table.bzl's arm64 selection (SVE)" python3 tools/wheel_tests.py "${args[@]}" \
  --launcher "env QEMU_CPU=$with_sve ARM64_BINDS=$work $(pwd)/tools/arm64/run"
py=(env PYTHONPATH="$work/w/run" JAX_PLATFORMS=cpu "${run[@]}" "$work/w/venv/bin/python")
# (tools/wheel_tests.py's --work layout: venv/ and the tests' copy in run/.)
cd "$work/w/run" || { echo "--- arm64: FAILED: no installed wheel to check"; rm -rf "$work"; exit 1; }
check "the variant chosen with SVE is sve" env QEMU_CPU="$with_sve" "${py[@]}" -c \
  "from kepler._lib import _kepler_cpu as m; import sys; print(m.cpu_isa()); sys.exit(m.cpu_isa() != 'sve')"
check "the variant chosen without SVE is neon, and a solve agrees" env QEMU_CPU="$without_sve" "${py[@]}" -c \
  "import kepler; from kepler._lib import _kepler_cpu as m; import sys, math; print(m.cpu_isa(), m.supported_cpu_isas()); s = float(kepler.solve(1.0, 0.5)[0]); print(s); sys.exit(m.cpu_isa() != 'neon' or abs(s - 0.99740225) > 1e-6)"
check "CpuIsaChoiceTest without SVE" env QEMU_CPU="$without_sve" "${py[@]}" tests/kepler_test.py CpuIsaChoiceTest
cd /
rm -rf "$work"
[ $failed -eq 0 ] && echo "arm64: all passed" || { echo "arm64: FAILED" >&2; exit 1; }
