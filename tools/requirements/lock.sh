#!/usr/bin/env bash
# Writes the pinned, hashed locks of the build and the tests for the given
# Python versions: requirements.in -> requirements_lock_X_Y.txt.
#
#   bash tools/requirements/lock.sh 3.14 3.15
#
# uv (pinned below, installed into a throwaway virtualenv) resolves for a
# Python version and platform without needing that interpreter, so the locks
# of Pythons that run only in the sid root (SID_PYTHONS, tools/setup.sh) are
# made here too. The platform is manylinux x86-64, the wheels' own (pip
# checks every hash at install time: a lock must hold the hashes of the
# wheels that are installed).
set -euo pipefail
cd "$(dirname "$0")"
UV_VERSION=0.13.9
[ $# -gt 0 ] || { echo "usage: $0 PYTHON_VERSION..." >&2; exit 2; }
host_python=$(command -v python3)
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$host_python" -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
for version in "$@"; do
  out="requirements_lock_${version/./_}.txt"
  echo "lock: Python $version -> tools/requirements/$out"
  "$tools/venv/bin/uv" pip compile --quiet --generate-hashes \
    --python-version "$version" --python-platform x86_64-manylinux_2_28 \
    --custom-compile-command "bash tools/requirements/lock.sh $version" \
    --output-file "$out" requirements.in
done
