#!/usr/bin/env python3
"""The wheels where users are: each built wheel in a fresh virtualenv next to a pip-installed jax.

    python3 tools/wheel_legs.py WHEEL_DIR LEG...

WHEEL_DIR holds the wheels (tools/build_wheels.sh writes them). LEG is
PYTHON:JAX[:MODE], e.g. 3.12:0.6.0: the wheel from WHEEL_DIR (py3-none: one
for every Python) with
jax==JAX and jaxlib==JAX in a virtualenv of that Python (found as Bazel's
repository rule finds it: pyenv, then pythonX.Y on PATH; for SID_PYTHONS of
tools/setup.sh run this in the sid root, tools/sid/run). MODE is
  tests (default): tools/wheel_tests.py with the files tests/test_table.bzl
    marks `wheel`, each with jax_enable_x64 on and off where its row says so;
    where WHEEL_DIR has the CUDA plugin wheel and PYTHON is one it supports
    (kepler/_version.py's CUDA_PYTHON_MIN on), it is installed too
    (no GPU here: CPU use must be unaffected, and installed_plugin_test checks
    what GPU use says); the test packages pinned as that Python's Bazel lock
    pins them;
  smoke: as tests, but only the subset the test table's `arm64` column
    names for each file (what the aarch64 leg runs): for the Pythons other
    than the default one, whose wheels hold the same compiled code (their
    `import`, the FFI registration and a sample of every file's tests);
  refused: the wheel installed with --no-deps next to a jax outside the
    supported range: `import kepler` must raise ImportError naming both
    versions while JAX keeps working;
  clash: the distributions that also install a top-level `kepler` package
    (CLASHING below), each installed after the wheel and before it: `import
    kepler` must fail naming it, and the repair its message gives must work.
Every leg runs even when one fails; legs run KEPLER_WHEEL_JOBS at a time
(default 2), each into a log of its own, printed whole in the order of the
legs. The exit status is non-zero if any leg failed.
"""

import concurrent.futures
import glob
import os
import platform
import runpy
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_tests  # pylint: disable=wrong-import-position

REPO = wheel_tests.REPO
# PyPI distributions whose files go into site-packages/kepler too.
CLASHING = ["kepler==0.3.0", "kepler.py==0.0.7"]
TEST_PACKAGES = ["mpmath", "absl-py"]

REFUSED_CHECK = """
import jax, jax.numpy as jnp
from jaxlib import version
print(f"jax {jax.__version__}, jaxlib {version.__version__}")
try:
  import kepler
except ImportError as e:
  print(f"ImportError: {e}")
  assert f"jax {jax.__version__}" in str(e) and ">=" in str(e), "the message names both"
else:
  raise SystemExit("import kepler succeeded next to an unsupported jax")
assert abs(float(jax.jit(jnp.sin)(0.5)) - 0.479425538604203) < 1e-6
print("JAX still works after the refused import")
"""

IMPORT_CHECK = ("import kepler, jax.numpy as jnp; print('import kepler: ok,', kepler.__file__); "
                "print(kepler.solve(jnp.array([1.0]), jnp.array([0.5])))")


def find_python(version):
  """The interpreter of Python X.Y, as third_party/python finds it; None if there is none."""
  try:
    prefix = subprocess.run(["pyenv", "prefix", version], capture_output=True, text=True).stdout.strip()
    if prefix and os.access(f"{prefix}/bin/python{version}", os.X_OK):
      return f"{prefix}/bin/python{version}"
  except OSError:
    pass
  found = shutil.which(f"python{version}")
  if found and "/shims/" not in found:
    return found
  root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
  candidates = glob.glob(f"{root}/versions/{version}.*/bin/python{version}")
  key = lambda p: [int(x) if x.isdigit() else 0 for x in p.split("/versions/")[1].split("/")[0].split(".")]
  return max(candidates, key=key) if candidates else None


def wheel_of(wheel_dir, plugin=False):
  pattern = "kepler_jax_cuda*_plugin-" if plugin else "kepler_jax-"
  found = sorted(glob.glob(f"{wheel_dir}/{pattern}*-py3-none-*_{platform.machine()}.whl"))
  return found[0] if found else None


def version_tuple(text):
  return tuple(int(x) for x in text.split("."))


def pip(python, *args):
  return subprocess.run([python, "-m", "pip", "--disable-pip-version-check", "--quiet", *args]).returncode == 0


def import_kepler(python):
  """`import kepler` and a solve away from the source tree: (worked, what it printed)."""
  out = subprocess.run([python, "-c", IMPORT_CHECK], cwd="/", capture_output=True, text=True)
  return out.returncode == 0, (out.stdout + out.stderr).strip()


def clash_leg(python, wheel):
  ok, out = import_kepler(python)
  if not ok:
    print(f"the wheel alone does not import:\n{out}")
    return False
  for other in CLASHING:
    name = other.split("==")[0]
    for order in ("after", "before"):
      print(f"--- {other} installed {order} kepler-jax")
      if not pip(python, "install", other):
        return False
      if order == "before" and not pip(python, "install", "--force-reinstall", "--no-deps", wheel):
        return False
      ok, out = import_kepler(python)
      if ok:
        print(f"{out}\nFAILED: import kepler worked with {other} installed {order} kepler-jax")
        return False
      message = next((l for l in out.splitlines() if l.startswith("ImportError: kepler-jax: ")), "")
      print(f"    {message}")
      repair = f"pip uninstall -y {name} && pip install --force-reinstall --no-deps kepler-jax=="
      if f"{name} " not in message or repair not in message:
        print(f"{out}\nFAILED: the message does not name {name} and its repair")
        return False
      # The repair the message gives, with the wheel file for the version on PyPI.
      if not (pip(python, "uninstall", "-y", name) and
              pip(python, "install", "--force-reinstall", "--no-deps", wheel)):
        return False
      ok, out = import_kepler(python)
      if not ok:
        print(f"{out}\nFAILED: the repair did not work")
        return False
      print(f"    after the repair: {out.splitlines()[0]}")
  return True


def run_leg(wheel_dir, leg):
  """One leg, its output on stdout: True when it passed."""
  py_version, jax_version, mode = (leg.split(":") + ["tests"])[:3]
  wheel = wheel_of(wheel_dir)
  if not wheel:
    print(f"no py3-none {platform.machine()} wheel in {wheel_dir}")
    return False
  python = find_python(py_version)
  if not python:
    print(f"no Python {py_version} interpreter on this machine")
    return False
  print(f"leg: {os.path.basename(wheel)} with jax {jax_version} ({mode})", flush=True)
  jax = [f"jax=={jax_version}", f"jaxlib=={jax_version}"]
  with tempfile.TemporaryDirectory(prefix="kepler_wheel_leg.") as work:
    venv = os.path.join(work, "venv")
    if mode in ("tests", "smoke"):
      cuda_python_min = runpy.run_path(f"{REPO}/kepler/_version.py")["CUDA_PYTHON_MIN"]
      plugin = (wheel_of(wheel_dir, plugin=True)
                if version_tuple(py_version) >= version_tuple(cuda_python_min) else None)
      if plugin:
        print(f"leg: with the CUDA plugin {os.path.basename(plugin)}", flush=True)
      lock = f"{REPO}/tools/requirements/requirements_lock_{py_version.replace('.', '_')}.txt"
      args = ["--python", python, "--wheel", wheel, *["--wheel", plugin] * bool(plugin),
              *[a for r in jax + wheel_tests.pinned(lock, TEST_PACKAGES) for a in ("--requirement", r)],
              "--work", work, *["--select", "arm64"] * (mode == "smoke"),
              # The full leg runs its files two at a time: it is the longest
              # leg, and the others are done long before it.
              *["--jobs", "2"] * (mode == "tests")]
      return wheel_tests.main(args) == 0
    if mode == "refused":
      python = wheel_tests.install_venv(python, venv, [], jax)
      if not pip(python, "install", "--no-deps", wheel):
        return False
      return subprocess.run([python, "-c", REFUSED_CHECK], cwd=work).returncode == 0
    if mode == "clash":
      return clash_leg(wheel_tests.install_venv(python, venv, [wheel], jax), wheel)
    print(f"unknown mode {mode!r} (tests, smoke, refused, clash)")
    return False


def main(argv):
  if len(argv) >= 2 and argv[0] == "--leg":  # one leg, in a process of its own
    sys.stdout.reconfigure(line_buffering=True)
    return 0 if run_leg(os.path.abspath(argv[1]), argv[2]) else 1
  if len(argv) < 2:
    print(__doc__)
    return 2
  wheel_dir, legs = os.path.abspath(argv[0]), argv[1:]
  logs = tempfile.mkdtemp(prefix="kepler_wheel_legs.")

  def start(i):
    sys.stdout.write(f"wheel leg {legs[i]}: started\n")
    sys.stdout.flush()
    with open(f"{logs}/{i}.log", "w") as log:
      return subprocess.run([sys.executable, os.path.abspath(__file__), "--leg", wheel_dir, legs[i]],
                            stdout=log, stderr=subprocess.STDOUT).returncode

  jobs = int(os.environ.get("KEPLER_WHEEL_JOBS", "2"))
  with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    statuses = list(pool.map(start, range(len(legs))))
  failed = []
  for i, (leg, status) in enumerate(zip(legs, statuses)):
    print(f"\n=== wheel leg {leg}")
    with open(f"{logs}/{i}.log", errors="replace") as f:
      print(f.read(), end="")
    print(f"wheel leg {leg}: {'PASSED' if status == 0 else 'FAILED'}")
    if status != 0:
      failed.append(leg)
  shutil.rmtree(logs, ignore_errors=True)
  if failed:
    print(f"wheel legs failed: {' '.join(failed)}")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
