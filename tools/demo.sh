#!/usr/bin/env bash
# The main job, as a user runs it: build the wheel with Bazel, install it into
# a fresh virtualenv with the demo's locked packages (matplotlib, numpyro,
# scipy, jaxoplanet), and there, away from Bazel, fit a simulated transit and
# radial-velocity curve (tools/demo.py -> examples/transit_rv_fit.py): MAP,
# NUTS, a table and kepler_demo_fit.png (+ .json) at the repository root. Then
# the example's test checks the figure and that the fit recovers the truth.
# Then the second example, a hot Jupiter's transit, secondary eclipse and
# phase curve (examples/phase_curve_fit.py: NUTS, a table,
# kepler_phase_curve_fit.png + .json), and its test. See docs/demo.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
start=$SECONDS

bazel build //:wheel
wheel=$(ls bazel-bin/wheel/kepler_jax-*.whl)
python=$(bazel_python)
lock=tools/requirements/requirements_demo_lock_3_12.txt
if [ "$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != 3.12 ]; then
  echo "demo: $lock is for Python 3.12 only, and HERMETIC_PYTHON_VERSION is" \
    "$HERMETIC_PYTHON_VERSION: run it without HERMETIC_PYTHON_VERSION" >&2
  exit 1
fi

venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
echo "demo: installing $lock, then $(basename "$wheel") into a fresh virtualenv"
# The lock holds the wheel's own requirements (jax, jaxlib, numpy) at the
# build's versions, hashed; the wheel itself goes in after it, without deps.
"${pip[@]}" --require-hashes -r "$lock"
"${pip[@]}" --no-deps "$wheel"
"$venv/bin/python" -m pip check --disable-pip-version-check
echo "demo: installed in $((SECONDS - start)) s"

cd "$(dirname "$venv")"  # away from the source tree: the installed package is used
png="$OLDPWD/kepler_demo_fit.png"
"$venv/bin/python" "$OLDPWD/tools/demo.py" "$png"
echo "demo: checking the figure and the fit (examples/transit_rv_fit_test.py)"
KEPLER_DEMO_PNG="$png" "$venv/bin/python" "$OLDPWD/examples/transit_rv_fit_test.py"
phase_png="$OLDPWD/kepler_phase_curve_fit.png"
"$venv/bin/python" "$OLDPWD/examples/phase_curve_fit.py" "$phase_png"
echo "demo: checking the phase-curve fit (examples/phase_curve_fit_test.py)"
KEPLER_PHASE_CURVE_PNG="$phase_png" "$venv/bin/python" "$OLDPWD/examples/phase_curve_fit_test.py"
echo "demo: ok in $((SECONDS - start)) s; the figures: $png, $phase_png"
