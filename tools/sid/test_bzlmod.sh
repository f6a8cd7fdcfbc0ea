#!/usr/bin/env bash
# bzlmod with Bazel 7.7.1 (Debian sid's, in an isolated root: tools/sid/):
#   1. this repository with MODULE.bazel alone: bazel build --config=bzlmod
#      //... builds every target, and BZLMOD_TESTS run: the C++ tests, one
#      Python test file per op through the compiled module, and the files
#      that read the runfiles, the wheel and the installed layout (what
#      bzlmod changes is the repositories and runfiles; the default leg runs
#      every test file on the same sources with the same compilers)
#   2. tests/embedding_bzlmod, a module that depends on kepler_jax with
#      bazel_dep + local_path_override: its py_test (jit, grad; the project's
#      py_op_test macro) and cc_test (the solver header)
#   3. the source tree is left as it was (Bazel 7 can write an empty
#      __init__.py through a runfiles symlink into kepler/: tests/BUILD.bazel,
#      tests/embedding_bzlmod/.bazelrc).
# It reuses the build of tools/check_reproducible_wheel.sh where that ran first
# (tools/test_all.sh). The first run makes the root (about 1 minute, ~700 MB from Debian's archive).
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$(git status --porcelain --untracked-files=no)
sidbazel=$(pwd)/tools/sid/bazel
echo "bzlmod: $("$sidbazel" --version)"
BZLMOD_TESTS=(
  //jaxlib_ext/...
  //tests:kepler_test_cpu //tests:transit_test_cpu //tests:accuracy_test_cpu
  //tests:extreme_inputs_test //tests:math_tables_test //tests:layout_test
  //tests:sharding_test_cpu //tests:ownership_test //tests:multiprocess_test
  //tests:version_range_test
  //tests:wheel_test //tests:cuda_plugin_test
)
"$sidbazel" build --config=bzlmod //...
"$sidbazel" test --config=bzlmod "${BZLMOD_TESTS[@]}"
(cd tests/embedding_bzlmod && "$sidbazel" test --noenable_workspace //...)
after=$(git status --porcelain --untracked-files=no)
if [ "$before" != "$after" ]; then
  echo "bzlmod: the Bazel 7 runs changed the source tree:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "bzlmod: both modules green, source tree unchanged"
