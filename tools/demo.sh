#!/usr/bin/env bash
# The main job: build the wheel with Bazel, install it into a fresh virtualenv
# next to a pip-installed jax, and run a short demo there, away from Bazel.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

bazel build //:wheel
wheel=$(ls bazel-bin/wheel/kepler_jax-*.whl)
python=$(bazel_python)

venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$python" -m venv "$venv"
echo "demo: installing $(basename "$wheel") into a fresh virtualenv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
cd "$(dirname "$venv")"  # away from the source tree: the installed package is used
"$venv/bin/python" "$OLDPWD/tools/demo.py" "$OLDPWD/kepler_demo_transit.svg"
