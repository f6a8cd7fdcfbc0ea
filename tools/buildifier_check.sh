#!/usr/bin/env bash
# Fails unless every Bazel file is formatted as buildifier formats it.
# buildifier comes from the npm registry, pinned here.
set -euo pipefail
cd "$(dirname "$0")/.."
version=8.2.1
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/kepler-buildifier-$version"
if [ ! -x "$prefix/node_modules/.bin/buildifier" ]; then
  command -v npm >/dev/null || { echo "buildifier_check: npm is needed to install buildifier" >&2; exit 1; }
  npm install --silent --prefix "$prefix" "@bazel/buildifier@$version" >/dev/null
fi
git ls-files -z 'WORKSPACE' '*/WORKSPACE' 'MODULE.bazel' '*BUILD' '*BUILD.bazel' '*.bzl' |
  xargs -0 "$prefix/node_modules/.bin/buildifier" --mode=check
echo "buildifier: all Bazel files are formatted"
