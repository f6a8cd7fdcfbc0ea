"""Every op of jaxlib_ext/ops.bzl has the pieces docs/adding_an_op.md names.

For each name in OPS: its C++ folder jaxlib_ext/<op>/ with the files the
op_targets macro builds from and a BUILD.bazel that calls it; its Python
module kepler/<op>.py; its handlers registered under the derived FFI target
name; and one row of tests/test_table.bzl naming it as its `op`, which runs
its tests on the GPU, in both x64 modes, against every wheel and on aarch64. Also: every tests/*_test.py file has
a row in the table. tests/BUILD.bazel lists every op's targets as this test's
data, so an op without them fails to build the test.
"""

import glob
import os
import re

from absl.testing import absltest

import kepler
from kepler import _ffi
from kepler._lib import _kepler_cpu
from tools import wheel_tests

# The files op_targets (jaxlib_ext/ops.bzl) builds an op from.
OP_FILES = ("{op}.h", "{op}_ffi.h", "{op}_cpu_loops.h", "{op}_cpu_loops.cc", "{op}_cpu.cc",
            "{op}_kernel.h", "{op}_kernel.cu", "{op}_cuda.cc", "{op}_cpu_isa_test.cc",
            "{op}_cpu_handler_test.cc", "BUILD.bazel")

OPS = wheel_tests.top_level_literal("jaxlib_ext/ops.bzl", "OPS")
PREFIX = wheel_tests.top_level_literal("jaxlib_ext/ops.bzl", "PREFIX")
TESTS = wheel_tests.load_table(".")


class OpLayoutTest(absltest.TestCase):

  def test_ops_are_names(self):
    self.assertNotEmpty(OPS)
    for op in OPS:
      self.assertRegex(op, r"^[a-z][a-z0-9_]*$", f"OPS entry {op!r}")
    self.assertLen(set(OPS), len(OPS), f"OPS has duplicates: {OPS}")

  def test_each_op_folder_has_its_files(self):
    for op in OPS:
      with self.subTest(op=op):
        missing = [f.format(op=op) for f in OP_FILES
                   if not os.path.isfile(os.path.join("jaxlib_ext", op, f.format(op=op)))]
        self.assertEmpty(missing, f"jaxlib_ext/{op}/ lacks {missing} (docs/adding_an_op.md)")
        with open(os.path.join("jaxlib_ext", op, "BUILD.bazel")) as f:
          self.assertRegex(f.read(), r"(?m)^op_targets\(", f"jaxlib_ext/{op}/BUILD.bazel calls no op_targets()")

  def test_each_op_has_its_python_module(self):
    package = os.path.dirname(kepler.__file__)
    for op in OPS:
      self.assertTrue(os.path.isfile(os.path.join(package, op + ".py")), f"no kepler/{op}.py")

  def test_each_op_is_registered_under_its_derived_name(self):
    registered = _kepler_cpu.registrations()
    self.assertEqual(set(_kepler_cpu.TARGET_NAMES), set(OPS))
    for op in OPS:
      self.assertEqual(_ffi.target(op), PREFIX + op)
      self.assertIn(PREFIX + op, registered)

  def test_each_op_has_its_test_row(self):
    for op in OPS:
      with self.subTest(op=op):
        names = [name for name, row in TESTS.items() if row.get("op") == op]
        self.assertLen(names, 1, f"tests/test_table.bzl: rows with op = {op!r}: {names}")
        name, row = names[0], TESTS[names[0]]
        self.assertEqual(row["bazel"], "op", name)
        self.assertIn("gpu", row["backends"], f"{name} does not run on the GPU")
        self.assertEqual(sorted(row["x64"]), ["0", "1"], f"{name} does not run in both x64 modes")
        self.assertTrue(row["wheel"], f"{name} does not run against the wheels")
        self.assertNotEmpty(row["arm64"], f"{name} does not run on aarch64")

  def test_rows_name_known_ops(self):
    for name, row in TESTS.items():
      if "op" in row:
        self.assertIn(row["op"], OPS, f"{name}: op {row['op']!r} is not in OPS")

  def test_every_test_file_has_a_row(self):
    files = {os.path.basename(p)[:-3] for p in glob.glob("tests/*_test.py")}
    self.assertNotEmpty(files)
    self.assertEmpty(files - set(TESTS), "test files without a row in tests/test_table.bzl")
    self.assertEmpty(set(TESTS) - files, "rows of tests/test_table.bzl without a file")

  def test_rows_are_well_formed(self):
    keys = {"bazel", "deps", "backends", "x64", "wheel", "arm64"}
    optional = {"op", "plugin", "shard_count", "size"}
    for name, row in TESTS.items():
      with self.subTest(test=name):
        self.assertEmpty(keys - set(row), "missing keys")
        self.assertEmpty(set(row) - keys - optional, "unknown keys")
        self.assertIn(row["bazel"], ("op", "plain", "own"))
        self.assertTrue(set(row["backends"]) <= {"cpu", "gpu"} and row["backends"])
        self.assertTrue(set(row["x64"]) <= {"0", "1"} and row["x64"])
        with open(f"tests/{name}.py") as f:
          reads_x64 = re.search(r"(?m)^from tests import x64_mode", f.read())
        if not reads_x64:
          self.assertEqual(row["x64"], ["1"], f"{name} does not read KEPLER_TEST_X64")


if __name__ == "__main__":
  absltest.main()
