#!/usr/bin/env bash
# The wheels where users are: installs a built wheel into a fresh virtualenv
# next to a pip-installed jax and runs the Python tests there, away from Bazel
# and from the source tree.
#
#   bash tools/wheel_legs.sh WHEEL_DIR LEG...
#
# WHEEL_DIR holds the wheels and, for each Python tag, python-cpXY.txt naming
# the interpreter Bazel built that wheel with (tools/test_all.sh writes both).
# LEG is PYTHON:JAX, e.g. 3.12:0.6.0 (the wheel for cpPYTHON from WHEEL_DIR,
# with jax==JAX and jaxlib==JAX), or PYTHON:JAX:refused, which installs the
# wheel with --no-deps next to a jax outside the supported range and checks
# that `import kepler` raises ImportError naming both versions while JAX keeps
# working. Every leg runs even when one fails; the exit status is non-zero if
# any did. Test packages are pinned to the versions of the Bazel locks.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
wheel_dir=$(realpath "$1")
shift
test_pins=(mpmath==1.4.1 absl-py==2.5.1)

run_leg() {  # run_leg PYTHON JAX [refused]
  local py_version=$1 jax_version=$2 mode=${3:-tests}
  local tag="cp${py_version/./}"
  local wheel
  wheel=$(ls "$wheel_dir"/kepler_jax-*-"$tag"-*.whl 2>/dev/null | head -1)
  [ -n "$wheel" ] || { echo "no $tag wheel in $wheel_dir"; return 1; }
  local python
  python=$(cat "$wheel_dir/python-$tag.txt" 2>/dev/null)
  [ -x "$python" ] || { echo "no interpreter for $tag: $wheel_dir/python-$tag.txt"; return 1; }
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  "$python" -m venv "$work/venv" || return 1
  local pip=("$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check)
  echo "leg: $(basename "$wheel") with jax $jax_version ($mode)"
  if [ "$mode" = refused ]; then
    "${pip[@]}" "jax==$jax_version" "jaxlib==$jax_version" || return 1
    "${pip[@]}" --no-deps "$wheel" || return 1
    (cd "$work" && "$work/venv/bin/python" - <<'PY'
import jax, jax.numpy as jnp
from jaxlib import version
print(f"jax {jax.__version__}, jaxlib {version.__version__}")
try:
  import kepler
except ImportError as e:
  print(f"ImportError: {e}")
  assert f"jax {jax.__version__}" in str(e) and ">=" in str(e), "the message names both"
else:
  raise SystemExit("import kepler succeeded next to an unsupported jax")
assert abs(float(jax.jit(jnp.sin)(0.5)) - 0.479425538604203) < 1e-6
print("JAX still works after the refused import")
PY
    )
    return
  fi
  "${pip[@]}" "$wheel" "jax==$jax_version" "jaxlib==$jax_version" "${test_pins[@]}" || return 1
  # The tests, outside the source tree: `import kepler` finds the wheel.
  mkdir -p "$work/run/tests"
  cp "$repo"/tests/*.py "$work/run/tests/"
  touch "$work/run/tests/__init__.py"
  local failed=0
  cd "$work/run"
  "$work/venv/bin/python" -c 'import jax, kepler; print(f"running against jax {jax.__version__}, kepler {kepler.__version__} from {kepler.__file__}")' || return 1
  for test in kepler_test accuracy_test sharding_test multiprocess_test; do
    for x64 in 1 0; do
      echo "--- $test, jax_enable_x64=$x64"
      if JAX_PLATFORMS=cpu KEPLER_TEST_X64=$x64 PYTHONPATH="$work/run" \
        "$work/venv/bin/python" "tests/$test.py" >"$work/test.log" 2>&1; then
        tail -n 3 "$work/test.log" | sed 's/^/    /'
      else
        tail -n 60 "$work/test.log" | sed 's/^/    /'
        echo "    FAILED: $test, jax_enable_x64=$x64"
        failed=1
      fi
    done
  done
  cd "$repo"
  return $failed
}

failed=()
for leg in "$@"; do
  IFS=: read -r py jax mode <<<"$leg"
  printf '\n=== wheel leg %s\n' "$leg"
  if run_leg "$py" "$jax" "$mode"; then
    echo "wheel leg $leg: PASSED"
  else
    echo "wheel leg $leg: FAILED"
    failed+=("$leg")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "wheel legs failed: ${failed[*]}"
  exit 1
fi
