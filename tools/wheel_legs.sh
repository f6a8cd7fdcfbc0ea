#!/usr/bin/env bash
# The wheels where users are: installs a built wheel into a fresh virtualenv
# next to a pip-installed jax and runs the Python tests there, away from Bazel
# and from the source tree.
#
#   bash tools/wheel_legs.sh WHEEL_DIR LEG...
#
# WHEEL_DIR holds the wheels (tools/build_wheels.sh writes them). LEG is
# PYTHON:JAX[:MODE], e.g. 3.12:0.6.0: the cpPYTHON wheel from WHEEL_DIR with
# jax==JAX and jaxlib==JAX in a virtualenv of that Python (found as Bazel's
# repository rule finds it: pyenv, then pythonX.Y on PATH; for 3.14 and 3.15
# run this script in the sid root, tools/sid/run). MODE is
#   tests (default): the Python tests, with jax_enable_x64 on and off; where
#     WHEEL_DIR has that Python's CUDA plugin wheel, it is installed too (no
#     GPU here: CPU use must be unaffected, and installed_plugin_test checks
#     what GPU use says);
#   refused: the wheel installed with --no-deps next to a jax outside the
#     supported range: `import kepler` must raise ImportError naming both
#     versions while JAX keeps working;
#   clash: the distributions that also install a top-level `kepler` package
#     (CLASHING below), each installed after the wheel and before it: `import
#     kepler` must fail naming it, and the repair its message gives must work.
# Every leg runs even when one fails; the exit status is non-zero if any did.
# Legs run two at a time (KEPLER_WHEEL_JOBS), each logged apart and printed whole.
# Test packages are pinned to the versions of that Python's Bazel lock.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
wheel_dir=$(realpath "$1")
shift
tests=(kepler_test accuracy_test limb_dark_test sharding_test multiprocess_test cuda_plugin_test)
# PyPI distributions whose files go into site-packages/kepler too.
CLASHING=(kepler==0.3.0 kepler.py==0.0.7)

find_python() {  # the interpreter of Python X.Y, as third_party/python finds it
  local version=$1 found
  found=$(pyenv prefix "$version" 2>/dev/null) && [ -x "$found/bin/python$version" ] &&
    { echo "$found/bin/python$version"; return; }
  found=$(command -v "python$version") && [[ "$found" != */shims/* ]] && { echo "$found"; return; }
  found=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$version".*/bin/"python$version" 2>/dev/null |
    sort -V | tail -n 1)
  [ -n "$found" ] && echo "$found"
}

# The version that Python's lock pins for a package (absl-py==2.5.1 -> 2.5.1).
pinned() {
  sed -n "s/^$2==\([^ ]*\) .*/\1/p" "$repo/tools/requirements/requirements_lock_${1/./_}.txt"
}

run_leg() {  # run_leg PYTHON JAX [MODE]
  local py_version=$1 jax_version=$2 mode=${3:-tests}
  local tag="cp${py_version/./}"
  local wheel
  wheel=$(ls "$wheel_dir"/kepler_jax-*-"$tag"-*_"$(uname -m)".whl 2>/dev/null | head -1)
  [ -n "$wheel" ] || { echo "no $tag wheel in $wheel_dir"; return 1; }
  local python
  python=$(find_python "$py_version")
  [ -n "$python" ] || { echo "no Python $py_version interpreter on this machine"; return 1; }
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
  if [ "$mode" = clash ]; then
    "${pip[@]}" "$wheel" "jax==$jax_version" "jaxlib==$jax_version" || return 1
    clash_leg "$work/venv/bin/python" "$wheel"
    return
  fi
  local plugin leg_tests=("${tests[@]}")
  plugin=$(ls "$wheel_dir"/kepler_jax_cuda*_plugin-*-"$tag"-*_"$(uname -m)".whl 2>/dev/null | head -1)
  if [ -n "$plugin" ]; then
    echo "leg: with the CUDA plugin $(basename "$plugin")"
    leg_tests+=(installed_plugin_test)
  fi
  "${pip[@]}" "$wheel" ${plugin:+"$plugin"} "jax==$jax_version" "jaxlib==$jax_version" \
    "mpmath==$(pinned "$py_version" mpmath)" "absl-py==$(pinned "$py_version" absl-py)" || return 1
  # The tests, outside the source tree: `import kepler` finds the wheel.
  mkdir -p "$work/run/tests"
  cp "$repo"/tests/*.py "$work/run/tests/"
  touch "$work/run/tests/__init__.py"
  local failed=0
  cd "$work/run"
  "$work/venv/bin/python" -c 'import jax, kepler; print(f"running against jax {jax.__version__}, kepler {kepler.__version__} from {kepler.__file__}")' || return 1
  local test x64
  for test in "${leg_tests[@]}"; do
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

# import_kepler PYTHON: runs `import kepler` and a solve away from the source
# tree; prints what happened; succeeds only if both worked.
import_kepler() {
  (cd / && "$1" -c 'import kepler, jax.numpy as jnp; print("import kepler: ok,", kepler.__file__); print(kepler.solve(jnp.array([1.0]), jnp.array([0.5])))' 2>&1)
}

clash_leg() {  # clash_leg PYTHON WHEEL
  local python=$1 wheel=$2 other name
  local pip=("$python" -m pip --disable-pip-version-check --quiet)
  import_kepler "$python" >/dev/null || { echo "the wheel alone does not import"; return 1; }
  for other in "${CLASHING[@]}"; do
    name=${other%%==*}
    for order in after before; do
      echo "--- $other installed $order kepler-jax"
      if [ "$order" = after ]; then
        "${pip[@]}" install "$other" || return 1
      else
        "${pip[@]}" install "$other" && "${pip[@]}" install --force-reinstall --no-deps "$wheel" ||
          return 1
      fi
      local out
      if out=$(import_kepler "$python"); then
        echo "$out"
        echo "FAILED: import kepler worked with $other installed $order kepler-jax"
        return 1
      fi
      local message
      message=$(echo "$out" | grep '^ImportError: kepler-jax: ')
      echo "    $message"
      if [[ "$message" != *"$name "* ]] || [[ "$message" != *"pip uninstall -y $name && pip install --force-reinstall --no-deps kepler-jax=="* ]]; then
        echo "$out"
        echo "FAILED: the message does not name $name and its repair"
        return 1
      fi
      # The repair the message gives, with the wheel file for the version on PyPI.
      "${pip[@]}" uninstall -y "$name" && "${pip[@]}" install --force-reinstall --no-deps "$wheel" ||
        return 1
      out=$(import_kepler "$python") || { echo "$out"; echo "FAILED: the repair did not work"; return 1; }
      echo "    after the repair: ${out%%$'\n'*}"
    done
  done
}

# The legs run KEPLER_WHEEL_JOBS at a time (default 2, this machine's cores:
# a leg is mostly one Python process at a time), each into a log of its own;
# the logs are printed in the order of the legs as they finish.
jobs=${KEPLER_WHEEL_JOBS:-2}
leg_logs=$(mktemp -d)
trap 'rm -rf "$leg_logs"' EXIT
pids=()
for i in $(seq 0 $(($# - 1))); do
  leg=${@:$((i + 1)):1}
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "wheel leg $leg: started"
  IFS=: read -r py jax mode <<<"$leg"
  run_leg "$py" "$jax" "$mode" >"$leg_logs/$i.log" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!pids[@]}"; do
  leg=${@:$((i + 1)):1}
  wait "${pids[$i]}" && status=0 || status=$?
  printf '\n=== wheel leg %s\n' "$leg"
  cat "$leg_logs/$i.log"
  if [ "$status" -eq 0 ]; then
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
