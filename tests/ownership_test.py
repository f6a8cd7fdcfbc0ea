"""kepler/_ownership.py against site-packages folders laid out by hand.

Each case writes a folder as pip leaves it (a `kepler/` package and the
.dist-info folders of the distributions installed there) for every subset of
the distributions that also install a top-level `kepler`, and checks which of
them `check()` names, the repair it prints, and the start-up hook in a fresh
interpreter. tools/wheel_legs.py (the `clash` leg) does the same with the real
distributions installed by pip.
"""

import itertools
import os
import shutil
import subprocess
import sys
import tempfile

from absl.testing import absltest

from kepler import _ownership

# (name, version, how its metadata says it installs `kepler`)
OTHERS = [
    ("kepler", "0.3.0", "record"),  # a wheel without top_level.txt
    ("kepler.py", "0.0.7", "top_level"),  # built by setuptools
    ("Kepler_Tools", "1.2", "record"),  # a name pip normalises
]
# Distributions beside them that must never be named.
BYSTANDERS = [
    ("keplerian", "2.0", "keplerian/__init__.py"),  # a longer name with the same prefix
    ("numpy", "2.5.5", "numpy/__init__.py"),
]
OURS_INIT = "from kepler import _ownership\n_ownership.check(__path__[0])\nVALUE = 'ours'\n"


def _dist_info(site, name, version, files=(), top_level=None):
  folder = os.path.join(site, f"{name.replace('-', '_')}-{version}.dist-info")
  os.makedirs(folder)
  with open(os.path.join(folder, "METADATA"), "w") as f:
    f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
  with open(os.path.join(folder, "RECORD"), "w") as f:
    f.writelines(f"{path},,\n" for path in files)
  if top_level is not None:
    with open(os.path.join(folder, "top_level.txt"), "w") as f:
      f.write(top_level + "\n")


def _site(others, init=OURS_INIT):
  """A site-packages folder with kepler-jax, the bystanders and `others`."""
  site = tempfile.mkdtemp()
  os.makedirs(os.path.join(site, "kepler"))
  if init is not None:
    with open(os.path.join(site, "kepler", "__init__.py"), "w") as f:
      f.write(init)
  shutil.copy(_ownership.__file__, os.path.join(site, "kepler", "_ownership.py"))
  shutil.copy(_ownership.__file__, os.path.join(site, "_kepler_jax_ownership.py"))
  _dist_info(site, "kepler-jax", "0.1.0", ["kepler/__init__.py", "kepler/_ownership.py"])
  for name, version, path in BYSTANDERS:
    _dist_info(site, name, version, [path], top_level=path.split("/")[0])
  for name, version, how in others:
    if how == "record":
      _dist_info(site, name, version, ["kepler/__init__.py", "kepler/timer.py"])
    else:
      _dist_info(site, name, version, top_level="kepler")
  return site


def _subsets():
  for n in range(len(OTHERS) + 1):
    yield from itertools.combinations(OTHERS, n)


def _start_python(site, code):
  """Runs code in a fresh interpreter whose only extra path is `site`, with the start-up hook."""
  script = ("import sys; sys.path.insert(0, sys.argv[1]); import _kepler_jax_ownership as o; "
            "o.install_import_guard(); " + code)
  env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
  return subprocess.run([sys.executable, "-S", "-c", script, site], capture_output=True,
                        text=True, env=env, cwd=site, check=False)


class OwnershipTest(absltest.TestCase):

  def test_names_exactly_the_other_owners(self):
    for others in _subsets():
      site = _site(others)
      want = sorted((name, version) for name, version, _ in others)
      self.assertEqual(_ownership.other_owners(os.path.join(site, "kepler")), want)

  def test_check_raises_with_the_names_and_the_repair(self):
    for others in _subsets():
      site = _site(others)
      package = os.path.join(site, "kepler")
      if not others:
        _ownership.check(package)
        continue
      with self.assertRaises(ImportError) as raised:
        _ownership.check(package)
      text = str(raised.exception)
      names = " ".join(sorted(name for name, _, _ in others))
      for name, version, _ in others:
        self.assertIn(f"{name} {version}", text)
      self.assertIn(f"pip uninstall -y {names} && "
                    "pip install --force-reinstall --no-deps kepler-jax==0.1.0", text)
      for name, _, _ in BYSTANDERS:
        self.assertNotIn(f"{name} ", text)

  def test_start_up_hook_leaves_our_package_alone(self):
    site = _site([])
    result = _start_python(site, "import kepler; print(kepler.VALUE, len(sys.meta_path))")
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertTrue(result.stdout.startswith("ours "), result.stdout)

  def test_start_up_hook_refuses_a_replaced_package(self):
    for others in list(_subsets())[1:]:
      site = _site(others, init="VALUE = 'theirs'\n")
      for module in ("kepler", "kepler.timer"):
        result = _start_python(site, f"import {module}")
        self.assertNotEqual(result.returncode, 0, module)
        self.assertIn("ImportError: kepler-jax: the package folder", result.stderr)
        for name, version, _ in others:
          self.assertIn(f"{name} {version}", result.stderr)
      # Other imports are untouched.
      result = _start_python(site, "import json")
      self.assertEqual(result.returncode, 0, result.stderr)

  def test_start_up_hook_refuses_a_package_without_its_init(self):
    site = _site([], init=None)
    result = _start_python(site, "import kepler")
    self.assertIn("replaced or removed it", result.stderr)
    self.assertIn("pip install --force-reinstall --no-deps kepler-jax==0.1.0", result.stderr)


if __name__ == "__main__":
  absltest.main()
