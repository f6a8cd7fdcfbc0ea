#!/usr/bin/env python3
"""The Python tests against installed wheels, away from Bazel and the source tree.

    python3 tools/wheel_tests.py --python PYTHON --wheel WHEEL [--wheel WHEEL]
        [--requirement REQ]... [--select wheel|arm64|gpu] [--platform cpu|cuda]
        [--x64 1,0] [--only FILE,...] [--target] [--pip-arg ARG] [--launcher COMMAND]
        [--work DIR] [--jobs N] [--timeout SECONDS]

Installs the wheels (kepler-jax, and its CUDA plugin where given) with the
requirements (e.g. jax==0.6.0 jaxlib==0.6.0 and the pinned test packages) into
a fresh virtualenv of PYTHON, or with --target into a folder of their own
next to PYTHON's own packages (no dependencies, nothing from an index: the
GPU check's way, which leaves the machine's jax alone); copies tests/ into a
folder with no kepler/ next to it, so that `import kepler` finds the wheel;
runs the files that tests/test_table.bzl selects for --select, each with every
KEPLER_TEST_X64 value of its row (--x64 narrows them), JAX_PLATFORMS set to
--platform, writing JUnit XML; reads the XML and prints one line per run and
a summary. Exits 1 when a run fails (non-zero exit, a failure or error in
its XML, or no XML at all), 2 when the set-up fails.

--launcher prefixes every command that runs PYTHON or the virtualenv's
interpreter (tools/arm64/test.sh: the arm64 root under qemu). In --work it
leaves venv/ (the virtualenv) or site/ (the --target folder), run/ (the
tests' copy, run/tests/) and logs/ (a log and a JUnit XML file per run). The same
functions serve tools/wheel_legs.py and tools/gpu_check.py, which import this
file.
"""

import argparse
import ast
import concurrent.futures
import dataclasses
import glob
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELECTIONS = ("wheel", "arm64", "gpu")


def top_level_literal(path, name):
  """A top-level `name = <literal>` of a Python or Starlark file, as Python
  reads the literal (tools/gpu_check.py, tools/arm64/test.sh,
  tests/layout_test.py and this file read their lists of tests and ops so)."""
  with open(path) as f:
    module = ast.parse(f.read(), path)
  for node in module.body:
    if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
      return ast.literal_eval(node.value)
  raise ValueError(f"{path}: no top-level `{name} = ...`")


def load_table(repo=REPO):
  """tests/test_table.bzl's TESTS."""
  return top_level_literal(os.path.join(repo, "tests", "test_table.bzl"), "TESTS")


@dataclasses.dataclass
class Run:
  """One test file in one x64 mode: what to run, and what came of it."""
  name: str
  x64: str
  selectors: tuple = ()
  env: dict = dataclasses.field(default_factory=dict)
  prefix: tuple = ()  # runs before the interpreter (e.g. compute-sanitizer)
  timeout: float = 1800
  label: str = ""
  status: int = None
  seconds: float = 0.0
  counts: dict = dataclasses.field(default_factory=dict)
  failed_tests: list = dataclasses.field(default_factory=list)
  log: str = ""

  def __post_init__(self):
    self.label = self.label or self.name + ("" if self.x64 == "1" else "_x64off")

  @property
  def ok(self):
    c = self.counts
    return self.status == 0 and c.get("tests", 0) > 0 and c["failures"] == 0 and c["errors"] == 0

  def line(self):
    c = self.counts
    if not c:
      what = "no JUnit XML (the process died before writing it)"
    elif not c["tests"]:
      what = "no tests ran"
    else:
      what = (f"{c['tests']} tests, {c['failures']} failures, {c['errors']} errors, "
              f"{c['skipped']} skipped")
    status = "TIMED OUT" if self.status == 124 else f"exit {self.status}"
    return f"{'PASS' if self.ok else 'FAIL'}  {self.label}: {what}; {status}; {self.seconds:.0f} s"


def select(table, selection, plugin=False, x64=None):
  """The runs `selection` asks for: "wheel", "arm64" or "gpu"; x64 narrows the modes."""
  if selection not in SELECTIONS:
    raise ValueError(f"unknown selection {selection!r}; expected one of {SELECTIONS}")
  runs = []
  for name, row in table.items():
    if row.get("plugin") and not plugin:
      continue
    if selection == "wheel" and not row["wheel"]:
      continue
    if selection == "gpu" and "gpu" not in row["backends"]:
      continue
    if selection == "arm64" and not row["arm64"]:
      continue
    selectors = tuple(s for s in row["arm64"] if s != "*") if selection == "arm64" else ()
    for mode in row["x64"]:
      if x64 is None or mode in x64:
        runs.append(Run(name, mode, selectors))
  return runs


def read_junit(path):
  """Counts of a JUnit XML file (tests, failures, errors, skipped) and the failed tests' names."""
  root = ET.parse(path).getroot()
  counts = dict(tests=0, failures=0, errors=0, skipped=0)
  failed = []
  # absltest writes a skipped test as status="notrun", and a failed
  # setUpClass or setUpModule as a test case of that name with an <error>.
  for case in root.iter("testcase"):
    counts["tests"] += 1
    counts["skipped"] += case.get("status") == "notrun"
    for kind, key in (("failure", "failures"), ("error", "errors")):
      if case.find(kind) is not None:
        counts[key] += 1
        failed.append(f"{case.get('classname')}.{case.get('name')} ({kind})")
  return counts, failed


def call(cmd, log, timeout, **kwargs):
  """Runs cmd, its output in the file `log`: its exit status, 124 past the timeout."""
  with open(log, "w") as f:
    proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                            **kwargs)
    try:
      return proc.wait(timeout)
    except subprocess.TimeoutExpired:
      os.killpg(proc.pid, signal.SIGKILL)
      proc.wait()
      return 124


def copy_tests(dest, repo=REPO):
  """tests/*.py into DEST/tests (a package, nothing of kepler/ beside it); returns DEST."""
  os.makedirs(os.path.join(dest, "tests"), exist_ok=True)
  for path in glob.glob(os.path.join(repo, "tests", "*.py")):
    shutil.copy(path, os.path.join(dest, "tests"))
  return dest


def run_tests(runs, python, cwd, logs, env=None, launcher=(), jobs=1, quiet=False):
  """Runs every Run (JUnit XML and a log each in `logs`), `jobs` at a time; fills in results."""
  os.makedirs(logs, exist_ok=True)
  base = dict(os.environ if env is None else env)
  # The test folder first on the path, never an empty entry (the current folder).
  path = [cwd] + [p for p in base.get("PYTHONPATH", "").split(":") if p]
  base.update(PYTHONPATH=":".join(path), PYTHONUNBUFFERED="1")

  def one(run):
    xml = os.path.join(logs, run.label + ".xml")
    run.log = os.path.join(logs, run.label + ".log")
    if os.path.exists(xml):
      os.remove(xml)
    cmd = [*launcher, *run.prefix, python, os.path.join("tests", run.name + ".py"),
           f"--xml_output_file={xml}", *run.selectors]
    started = time.time()
    run.status = call(cmd, run.log, run.timeout, cwd=cwd,
                      env=dict(base, KEPLER_TEST_X64=run.x64, **run.env))
    run.seconds = time.time() - started
    if os.path.exists(xml):
      try:
        run.counts, run.failed_tests = read_junit(xml)
      except ET.ParseError as err:
        run.failed_tests = [f"unreadable JUnit XML: {err}"]
    if not quiet:
      print(run.line(), flush=True)
      if not run.ok:
        with open(run.log, errors="replace") as f:
          tail = f.read().splitlines()[-60:]
        print("\n".join("    " + l for l in tail + run.failed_tests[:20]), flush=True)
    return run

  with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
    return list(pool.map(one, runs))


def summary(runs):
  """The closing lines: every run's line and the totals."""
  failed = [r for r in runs if not r.ok]
  total = {k: sum(r.counts.get(k, 0) for r in runs) for k in ("tests", "failures", "errors", "skipped")}
  lines = ["--- summary"] + [r.line() for r in runs]
  lines.append(f"{len(runs) - len(failed)} of {len(runs)} runs passed; {total['tests']} tests, "
               f"{total['failures']} failures, {total['errors']} errors, {total['skipped']} skipped")
  return "\n".join(lines)


def install_venv(python, venv, wheels, requirements, launcher=(), pip_args=()):
  """A fresh virtualenv of `python` at `venv` with the wheels and requirements; its interpreter."""
  subprocess.run([*launcher, python, "-m", "venv", venv], check=True)
  interpreter = os.path.join(venv, "bin", "python")
  subprocess.run([*launcher, interpreter, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                  *pip_args, *wheels, *requirements], check=True)
  return interpreter


def install_target(python, site, wheels, log):
  """The wheels alone into the folder `site` (no dependencies, no index); raises on failure."""
  cmd = [python, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile", "--target", site,
         *wheels]
  if call(cmd, log, 300) != 0:
    with open(log, errors="replace") as f:
      raise RuntimeError(f"pip install --target {site} failed:\n{f.read()[-3000:]}")


def pinned(lock, names):
  """NAME==VERSION for each name, as the lock file pins it."""
  pins = {}
  with open(lock) as f:
    for line in f:
      if "==" in line and not line.startswith((" ", "#")):
        name, version = line.split()[0].split("==")
        pins[name.lower()] = version
  missing = [n for n in names if n.lower() not in pins]
  if missing:
    raise ValueError(f"{lock} pins none of {missing}")
  return [f"{n}=={pins[n.lower()]}" for n in names]


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--python", required=True, help="the interpreter that installs and runs the tests")
  parser.add_argument("--wheel", action="append", required=True, help="a wheel to install (repeat)")
  parser.add_argument("--requirement", action="append", default=[], help="a requirement (repeat)")
  parser.add_argument("--select", default="wheel", choices=SELECTIONS)
  parser.add_argument("--platform", default="cpu", help="JAX_PLATFORMS of the tests")
  parser.add_argument("--only", default=None, help="the test files to run of the selection, e.g. kepler_test,accuracy_test")
  parser.add_argument("--x64", default=None, help="the KEPLER_TEST_X64 values to run, e.g. 1 (default: each row's)")
  parser.add_argument("--target", action="store_true",
                      help="install the wheels alone into a folder on PYTHONPATH, not a virtualenv")
  parser.add_argument("--pip-arg", action="append", default=[], help="a further argument of pip install")
  parser.add_argument("--launcher", default="", help="a command that runs the interpreters (shell words)")
  parser.add_argument("--work", default=None, help="the folder for the environment, tests and logs")
  parser.add_argument("--jobs", type=int, default=1, help="test processes at a time")
  parser.add_argument("--timeout", type=float, default=1800, help="seconds per test run")
  args = parser.parse_args(argv)

  work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="kepler_wheel_tests."))
  os.makedirs(work, exist_ok=True)
  launcher = shlex.split(args.launcher)
  wheels = [os.path.abspath(w) for w in args.wheel]
  plugin = any("_plugin-" in os.path.basename(w) for w in wheels)
  env = dict(os.environ, JAX_PLATFORMS=args.platform)
  try:
    if args.target:
      site = os.path.join(work, "site")
      install_target(args.python, site, wheels, os.path.join(work, "install.log"))
      python = args.python
      env["PYTHONPATH"] = ":".join([site] + [p for p in env.get("PYTHONPATH", "").split(":") if p])
    else:
      python = install_venv(args.python, os.path.join(work, "venv"), wheels, args.requirement,
                            launcher, args.pip_arg)
      # Nothing but the virtualenv and the tests: no checkout on the path.
      env.pop("PYTHONPATH", None)
  except (subprocess.CalledProcessError, RuntimeError, OSError) as err:
    print(f"wheel_tests: installing {[os.path.basename(w) for w in wheels]} failed: {err}", flush=True)
    return 2
  root = copy_tests(os.path.join(work, "run"))
  check = subprocess.run([*launcher, python, "-c", "import jax, kepler; print(f'jax {jax.__version__}, "
                          "kepler {kepler.__version__} from {kepler.__file__}')"],
                         cwd=root, env=env, capture_output=True, text=True)
  print(f"wheel_tests: {check.stdout.strip() or check.stderr.strip()[-2000:]}", flush=True)
  if check.returncode != 0:
    return 2
  runs = select(load_table(), args.select, plugin=plugin,
                x64=args.x64.split(",") if args.x64 else None)
  if args.only:
    unknown = set(args.only.split(",")) - {r.name for r in runs}
    if unknown:
      print(f"wheel_tests: --only names files outside the selection {args.select!r}: {sorted(unknown)}")
      return 2
    runs = [r for r in runs if r.name in args.only.split(",")]
  if not runs:
    print(f"wheel_tests: the selection {args.select!r} (--x64 {args.x64}, --only {args.only}) is empty")
    return 2
  for run in runs:
    run.timeout = args.timeout
  run_tests(runs, python, root, os.path.join(work, "logs"), env=env, launcher=launcher, jobs=args.jobs)
  print(summary(runs), flush=True)
  return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
  sys.exit(main())
