"""Checks the built wheel: contents, metadata, RECORD and an honest platform tag."""

import base64
import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import zipfile

from absl.testing import absltest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def _read(relative):
  with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
    return f.read()


class WheelTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    folder = os.path.join(ROOT, "wheel")
    wheels = [f for f in os.listdir(folder) if f.endswith(".whl")]
    assert len(wheels) == 1, wheels
    cls.name = wheels[0]
    cls.path = os.path.join(folder, cls.name)
    cls.zip = zipfile.ZipFile(cls.path)
    cls.version = re.search(r'__version__ = "([^"]+)"', _read("kepler/_version.py")).group(1)
    cls.dist_info = [n.split("/")[0] for n in cls.zip.namelist() if n.endswith(".dist-info/WHEEL")][0]

  def test_file_name_carries_version_and_this_python(self):
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    self.assertRegex(self.name, rf"^kepler_jax-{re.escape(self.version)}(\+cuda[\d.]+)?-{tag}-{tag}-manylinux_2_\d+_x86_64\.whl$")

  def test_holds_both_packages_and_the_cpu_module(self):
    names = set(self.zip.namelist())
    for required in ("kepler/__init__.py", "kepler/_ops.py", "jaxlib_ext/__init__.py",
                     "jaxlib_ext/cpu/__init__.py", "jaxlib_ext/cpu/_kepler_cpu.so"):
      self.assertIn(required, names)
    self.assertFalse([n for n in names if n.startswith("tests/") or "__pycache__" in n])

  def test_metadata(self):
    meta = self.zip.read(f"{self.dist_info}/METADATA").decode()
    self.assertIn("Name: kepler-jax\n", meta)
    self.assertRegex(meta, rf"\nVersion: {re.escape(self.version)}(\+cuda[\d.]+)?\n")
    self.assertIn("Requires-Dist: jax", meta)

  def test_record_hashes_match_the_files(self):
    record = self.zip.read(f"{self.dist_info}/RECORD").decode()
    rows = list(csv.reader(io.StringIO(record)))
    self.assertEqual(len(rows), len(self.zip.namelist()))
    for path, digest, size in rows:
      if path.endswith("RECORD"):
        continue
      data = self.zip.read(path)
      want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
      self.assertEqual(digest, "sha256=" + want, path)
      self.assertEqual(int(size), len(data), path)

  def test_entries_carry_no_timestamps(self):
    for info in self.zip.infolist():
      self.assertEqual(info.date_time, (1980, 1, 1, 0, 0, 0), info.filename)

  def test_auditwheel_agrees_with_the_tag(self):
    out = subprocess.run([sys.executable, "-m", "auditwheel", "show", self.path],
                         capture_output=True, text=True, check=True).stdout
    tag = self.name.rsplit("-", 1)[1][:-len(".whl")]
    self.assertIn(f'is consistent with the following platform tag: "{tag}"',
                  " ".join(out.split()))

  def test_module_bazel_version_matches_the_package(self):
    module = _read("MODULE.bazel")
    self.assertRegex(module, rf'version = "{re.escape(self.version)}"')


if __name__ == "__main__":
  absltest.main()
