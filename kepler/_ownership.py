"""Refuses a `kepler` package folder that another distribution also installed files into.

Two other distributions on PyPI install a top-level package named `kepler`:
`kepler.py` (a Kepler's-equation solver) and `kepler` (an instrumentation
library). pip puts every distribution into the same site-packages folder and
does not check who owns a path, so installing either of them beside
kepler-jax overwrites files of the other without a word: the last one
installed owns `kepler/__init__.py`, and uninstalling either one deletes
files that the other still needs.

Two checks, both answered from the installed distributions' metadata:

- `import kepler` (kepler/__init__.py) calls `check()` first, which raises
  ImportError naming every other distribution with files in the folder and
  saying how to repair the environment.
- The wheel also installs this file as the top-level module
  `_kepler_jax_ownership` and `kepler_jax.pth`, which calls
  `install_import_guard()` when the interpreter starts. That reads one small
  file, kepler/__init__.py, and only if it is no longer kepler-jax's (another
  distribution installed after kepler-jax replaced it, or uninstalling one
  removed it) does it add an import hook that makes `import kepler` raise the
  same ImportError, instead of running another distribution's code under
  kepler-jax's name. `python -S` skips .pth files, and with them this hook.

Standard library only: the start-up hook must not import `kepler` itself.
"""

import os
import sys

DISTRIBUTION = "kepler-jax"
PACKAGE = "kepler"
# Only kepler-jax's kepler/__init__.py contains this call.
MARKER = b"_ownership.check("


def _normalized(name):
  return name.lower().replace("_", "-").replace(".", "-")


def _installs_package(dist):
  """Whether an installed distribution put files into the top-level PACKAGE folder."""
  top_level = dist.read_text("top_level.txt")
  if top_level is not None:
    return PACKAGE in top_level.split()
  record = dist.read_text("RECORD") or ""
  return any(line.startswith(PACKAGE + "/") for line in record.splitlines())


def other_owners(package_dir):
  """'name version' of every other distribution installed into package_dir's folder."""
  from importlib import metadata  # pylint: disable=g-import-not-at-top
  site_dir = os.path.dirname(os.path.abspath(package_dir))
  owners = set()
  for dist in metadata.distributions(path=[site_dir]):
    name = dist.metadata["Name"] or ""
    if _normalized(name) != DISTRIBUTION and _installs_package(dist):
      owners.add((name, dist.version))
  return sorted(owners)


def _our_version(site_dir):
  from importlib import metadata  # pylint: disable=g-import-not-at-top
  for dist in metadata.distributions(path=[site_dir]):
    if _normalized(dist.metadata["Name"] or "") == DISTRIBUTION:
      return dist.version
  return None


def message(package_dir, owners):
  """The ImportError text: what is wrong and the commands that repair it."""
  site_dir = os.path.dirname(os.path.abspath(package_dir))
  version = _our_version(site_dir)
  reinstall = f"pip install --force-reinstall --no-deps {DISTRIBUTION}" + (
      f"=={version}" if version else "")
  if not owners:
    return (f"{DISTRIBUTION}: {os.path.join(package_dir, '__init__.py')} is not "
            f"{DISTRIBUTION}'s: another distribution that installed a package named "
            f"'{PACKAGE}' into {site_dir} replaced or removed it. Repair this environment "
            f"with: {reinstall}")
  names = " ".join(name for name, _ in owners)
  found = ", ".join(f"{name} {version}" for name, version in owners)
  return (f"{DISTRIBUTION}: the package folder {package_dir} also holds files of {found}, "
          f"which installs a top-level package named '{PACKAGE}' too. pip installs both "
          "into that one folder, where each overwrites the other's files, so neither can "
          "be trusted. Install them into separate virtualenvs; to keep "
          f"{DISTRIBUTION} in this one: pip uninstall -y {names} && {reinstall}")


def check(package_dir):
  """Raises ImportError if another distribution installed files into package_dir."""
  owners = other_owners(package_dir)
  if owners:
    raise ImportError(message(package_dir, owners), name=PACKAGE)


class _RefuseImport:
  """A meta path finder that answers `import kepler` with the ImportError."""

  def __init__(self, package_dir):
    self.package_dir = package_dir

  def find_spec(self, fullname, path=None, target=None):  # pylint: disable=unused-argument
    if fullname == PACKAGE or fullname.startswith(PACKAGE + "."):
      raise ImportError(message(self.package_dir, other_owners(self.package_dir)),
                        name=fullname)
    return None


def install_import_guard():
  """Start-up hook (kepler_jax.pth): guards `import kepler` if its __init__ is not ours."""
  package_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), PACKAGE)
  try:
    with open(os.path.join(package_dir, "__init__.py"), "rb") as f:
      ours = MARKER in f.read()
  except OSError:
    ours = False
  if not ours:
    sys.meta_path.insert(0, _RefuseImport(package_dir))
