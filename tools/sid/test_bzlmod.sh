#!/usr/bin/env bash
# bzlmod with Bazel 7.7.1 (Debian sid's, in an isolated root: tools/sid/):
#   1. this repository with MODULE.bazel alone: bazel test --config=bzlmod
#      //... builds every target and runs every test but the `large` ones
#      (tests/limb_dark_test: the default leg runs it, on the same code; what
#      bzlmod changes, the repositories and runfiles, every other test
#      exercises as well)
#   2. tests/embedding_bzlmod, a module that depends on kepler_jax with
#      bazel_dep + local_path_override: its py_test (jit, grad; the project's
#      py_op_test macro) and cc_test (the solver header)
#   3. the source tree is left as it was (Bazel 7 can write an empty
#      __init__.py through a runfiles symlink into kepler/: tests/BUILD.bazel,
#      tests/embedding_bzlmod/.bazelrc).
# The first run makes the root (about 1 minute, ~700 MB from Debian's archive).
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$(git status --porcelain --untracked-files=no)
sidbazel=$(pwd)/tools/sid/bazel
echo "bzlmod: $("$sidbazel" --version)"
"$sidbazel" test --config=bzlmod --test_size_filters=-large //...
(cd tests/embedding_bzlmod && "$sidbazel" test --noenable_workspace //...)
after=$(git status --porcelain --untracked-files=no)
if [ "$before" != "$after" ]; then
  echo "bzlmod: the Bazel 7 runs changed the source tree:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "bzlmod: both modules green, source tree unchanged"
