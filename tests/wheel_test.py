"""Checks the built wheel: contents, metadata, RECORD and an honest platform tag."""

import base64
import csv
import hashlib
import io
import os
import re
import runpy
import subprocess
import sys
import zipfile

from absl import flags
from absl.testing import absltest
from elftools.elf.elffile import ELFFile

_ARCH = flags.DEFINE_enum("arch", "x86_64", ["x86_64", "aarch64"],
                          "The CPU architecture the wheels were built for (tests/BUILD.bazel).")
# ELF e_machine of each architecture (the System V ABI's numbers).
ELF_MACHINES = {"x86_64": 62, "aarch64": 183}

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The newest glibc a wheel may need: jaxlib's wheels are manylinux_2_27.
NEWEST_GLIBC_ALLOWED = (2, 27)


def _read(relative):
  with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
    return f.read()


def _version_facts():
  # Executed, not parsed: an independent reading of what the wheel writer parses.
  return runpy.run_path(os.path.join(ROOT, "kepler/_version.py"))


class WheelTest(absltest.TestCase):
  """The main wheel (kepler-jax) and, in CUDA builds, the plugin wheel."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    folder = os.path.join(ROOT, "wheel")
    names = sorted(f for f in os.listdir(folder) if f.endswith(".whl"))
    cls.facts = _version_facts()
    cls.version = cls.facts["__version__"]
    main = [n for n in names if n.startswith("kepler_jax-")]
    plugins = [n for n in names if n.startswith("kepler_jax_cuda")]
    assert len(main) == 1 and len(plugins) <= 1 and len(names) == len(main) + len(plugins), names
    cls.wheels = {n: zipfile.ZipFile(os.path.join(folder, n)) for n in names}
    cls.paths = {n: os.path.join(folder, n) for n in names}
    cls.main = main[0]
    cls.plugin = plugins[0] if plugins else None

  def _dist_info(self, name):
    return [n.split("/")[0] for n in self.wheels[name].namelist()
            if n.endswith(".dist-info/WHEEL")][0]

  def _metadata(self, name):
    return self.wheels[name].read(f"{self._dist_info(name)}/METADATA").decode()

  def test_file_names_carry_version_and_every_python(self):
    # py3-none: the compiled modules use no Python C API (next test), so one
    # wheel serves every Python from its Requires-Python on.
    for dist, name, python_min in (
        ("kepler_jax", self.main, self.facts["PYTHON_MIN"]),
        (f"kepler_jax_{self.facts['CUDA_EXTRA']}_plugin", self.plugin,
         self.facts["CUDA_PYTHON_MIN"])):
      if name:
        self.assertRegex(
            name, rf"^{dist}-{re.escape(self.version)}-py3-none-manylinux_2_\d+_{_ARCH.value}\.whl$")
        self.assertNotIn("+", name)
        self.assertIn(f"\nRequires-Python: >={python_min}\n", self._metadata(name))

  def test_compiled_modules_use_no_python_c_api(self):
    for name, zf in self.wheels.items():
      for module in [n for n in zf.namelist() if n.endswith(".so")]:
        elf = ELFFile(io.BytesIO(zf.read(module)))
        needed = [t.needed for t in elf.get_section_by_name(".dynamic").iter_tags()
                  if t.entry.d_tag == "DT_NEEDED"]
        self.assertFalse([n for n in needed if n.startswith("libpython")], (module, needed))
        undefined = [s.name for s in elf.get_section_by_name(".dynsym").iter_symbols()
                     if s["st_shndx"] == "SHN_UNDEF"]
        self.assertTrue(undefined, module)
        self.assertFalse([s for s in undefined if s.startswith(("Py", "_Py"))], module)

  def test_only_kepler_namespaces_and_a_license(self):
    for name, zf in self.wheels.items():
      tops = {n.split("/")[0] for n in zf.namelist()}
      dist_info = self._dist_info(name)
      self.assertIn(f"{dist_info}/LICENSE", zf.namelist(), name)
      self.assertIn("Apache License", zf.read(f"{dist_info}/LICENSE").decode())
      hook = {"_kepler_jax_ownership.py", "kepler_jax.pth"} if name == self.main else set()
      for top in tops - {dist_info} - hook:
        self.assertTrue(top.startswith("kepler"), f"{name} installs top-level {top}")
      self.assertFalse([n for n in zf.namelist() if "__pycache__" in n or n.startswith("tests/")])

  def test_main_wheel_holds_the_package_and_the_cpu_module(self):
    names = set(self.wheels[self.main].namelist())
    for required in ("kepler/__init__.py", "kepler/kepler_solve.py", "kepler/_ffi/partition.py",
                     "kepler/_version.py",
                     "kepler/_lib/__init__.py", "kepler/_lib/_kepler_cpu.py",
                     "kepler/_lib/libkepler_cpu.so"):
      self.assertIn(required, names)
    self.assertFalse([n for n in names if "cuda" in n.split("/")[0]], "no CUDA in the main wheel")

  def test_main_wheel_installs_the_start_up_ownership_check(self):
    zf = self.wheels[self.main]
    # The same module as the package's, run at start-up by the .pth file's
    # one line (site.py executes .pth lines that begin with "import").
    self.assertEqual(zf.read("_kepler_jax_ownership.py"), zf.read("kepler/_ownership.py"))
    self.assertEqual(zf.read("kepler_jax.pth").decode(),
                     "import _kepler_jax_ownership; _kepler_jax_ownership.install_import_guard()\n")
    self.assertIn(b"_ownership.check(", zf.read("kepler/__init__.py"))

  def test_plugin_wheel_holds_only_the_cuda_module(self):
    if not self.plugin:
      self.assertFalse([n for n in self.paths if "cuda" in n])
      return
    tops = {n.split("/")[0] for n in self.wheels[self.plugin].namelist()}
    self.assertEqual(tops - {self._dist_info(self.plugin)}, {"kepler_jax_cuda_plugin"})
    names = set(self.wheels[self.plugin].namelist())
    self.assertIn("kepler_jax_cuda_plugin/_kepler_cuda.py", names)
    self.assertIn("kepler_jax_cuda_plugin/libkepler_cuda.so", names)
    self.assertIn(f'__version__ = "{self.version}"',
                  self.wheels[self.plugin].read("kepler_jax_cuda_plugin/_version.py").decode())
    meta = self._metadata(self.plugin)
    self.assertIn(f"Name: kepler-jax-{self.facts['CUDA_EXTRA']}-plugin\n", meta)
    self.assertIn(f"Version: {self.version}\n", meta)
    self.assertIn(f"Requires-Dist: kepler-jax=={self.version}\n", meta)

  def test_main_metadata(self):
    meta = self._metadata(self.main)
    jax_range = f">={self.facts['JAX_MIN']},<{self.facts['JAX_BELOW']}"
    extra = self.facts["CUDA_EXTRA"]
    self.assertIn("Name: kepler-jax\n", meta)
    self.assertIn(f"\nVersion: {self.version}\n", meta)
    self.assertIn(f"Requires-Dist: jax{jax_range}\n", meta)
    self.assertIn(f"Requires-Dist: jaxlib{jax_range}\n", meta)
    self.assertIn(f"Provides-Extra: {extra}\n", meta)
    self.assertIn(
        f'Requires-Dist: kepler-jax-{extra}-plugin=={self.version}; extra == "{extra}"\n', meta)

  def test_record_hashes_match_the_files(self):
    for name, zf in self.wheels.items():
      self._check_record(zf, self._dist_info(name))

  def _check_record(self, zf, dist_info):
    record = zf.read(f"{dist_info}/RECORD").decode()
    rows = list(csv.reader(io.StringIO(record)))
    self.assertEqual(len(rows), len(zf.namelist()))
    for path, digest, size in rows:
      if path.endswith("RECORD"):
        continue
      data = zf.read(path)
      want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
      self.assertEqual(digest, "sha256=" + want, path)
      self.assertEqual(int(size), len(data), path)

  def test_entries_carry_no_timestamps(self):
    for zf in self.wheels.values():
      for info in zf.infolist():
        self.assertEqual(info.date_time, (1980, 1, 1, 0, 0, 0), info.filename)

  def test_auditwheel_agrees_with_the_tag(self):
    for name, path in self.paths.items():
      out = subprocess.run([sys.executable, "-m", "auditwheel", "show", path],
                           capture_output=True, text=True, check=True).stdout
      tag = name.rsplit("-", 1)[1][:-len(".whl")]
      self.assertIn(f'is consistent with the following platform tag: "{tag}"',
                    " ".join(out.split()), name)

  def test_tag_installs_where_jaxlib_does(self):
    # The README's promise: manylinux_2_27 or older, as jaxlib's own wheels,
    # so that every machine that runs jax can install these.
    for name in self.paths:
      match = re.search(rf"-manylinux_(\d+)_(\d+)_{_ARCH.value}\.whl$", name)
      self.assertIsNotNone(match, name)
      self.assertLessEqual((int(match[1]), int(match[2])), NEWEST_GLIBC_ALLOWED, name)

  def test_compiled_modules_are_for_the_architecture(self):
    for name, zf in self.wheels.items():
      modules = [n for n in zf.namelist() if n.endswith(".so")]
      self.assertTrue(modules, name)
      for module in modules:
        header = zf.read(module)[:20]
        self.assertEqual(header[:4], b"\x7fELF", module)
        self.assertEqual(int.from_bytes(header[18:20], "little"), ELF_MACHINES[_ARCH.value], module)

  def test_module_bazel_version_matches_the_package(self):
    module = _read("MODULE.bazel")
    self.assertRegex(module, rf'version = "{re.escape(self.version)}"')


if __name__ == "__main__":
  absltest.main()
