#!/usr/bin/env python3
"""ptxas's resource report of every CUDA kernel, as the build compiled it.

Runs without a GPU (tools/test_all.sh's CUDA leg, after `bazel build
--config=cuda //...`): builds the CUDA module (x86-64; nothing to do when it is
built), reads the report ptxas wrote for each nvcc action of the module
(`-Xptxas=-v`: the cuda_library rule keeps it beside the object,
third_party/rules_cuda/cuda/defs.bzl; the actions from `bazel aquery
--config=cuda`), and prints per kernel and architecture the registers per thread,
the cumulative stack, the kernel's own spills and the largest spill of any
device function it calls (ptxas reports a function it did not inline once,
after the first kernel of its source that calls it: a later kernel calling
the same function shows only its own spills).

Limits (the GPU issue's, for the kernels that do the light curve's and the
transit model's work: names in jaxext::limb_dark or jaxext::transit): at most
128 registers, at most 1 KiB of stack, at most 64 B spilled by any of their
functions. A kernel over a limit is marked OVER; with --enforce the script
then exits 1. Without it, it only reports: tools/test_all.sh passes --enforce
from the commit in which those kernels first meet the limits. Until then
--guard (what CI passes) holds the line where it stands: it exits 1 when a
kernel outside KNOWN_OVER is OVER (a change made a kernel that met the
limits miss them), or when a kernel of KNOWN_OVER meets them on sm_90 (the
list is then out of date: take it off).

  python3 tools/ptxas_report.py [--enforce | --guard] [--all-archs] [--bazel BAZEL]

By default only sm_90 (H100, H200) is printed, the architecture the GPU
targets are measured on; --all-archs prints every architecture the build
compiles.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

MAX_REGISTERS = 128
MAX_STACK = 1024
MAX_SPILL = 64
LIMITED = re.compile(r"jaxext::(limb_dark|transit)::")
QUERY = 'mnemonic("CudaCompile", deps(//jaxlib_ext/cuda:libkepler_cuda.so))'

# The kernels over the limits on sm_90 (docs/gpu.md's table says by how
# much), by the kernel's element in its short name (`short`, the namespace
# of the math's instruction-set variant left out): the transit model's
# passes of the times its window pass marked, of the polynomial laws of
# three or more coefficients and of the tabulated law; the two passes of
# the laws of laws.h's transit rows with the planet's light.
KNOWN_OVER = (
    "transit::kernel::Element<limb_dark::PolynomialCurveRow<32>, 5>",
    "transit::kernel::Element<limb_dark::TableCurveRow, 5>",
    "transit::kernel::Element<limb_dark::LawCurveRow, 3>",
    "transit::kernel::Element<limb_dark::LawCurveRow, 4>",
)
MATH_NAMESPACE = re.compile(r"math_\w+::")

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+)'")
PROPERTIES = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers.*?(?:, (\d+) bytes cumulative stack size)?$")


def bazel_lines(bazel, *args):
  return subprocess.run([bazel, *args], check=True, capture_output=True, text=True).stdout


def demangle(names):
  """The demangled names (c++filt), or the names as they are without it."""
  tool = shutil.which("c++filt")
  if not tool or not names:
    return {n: n for n in names}
  out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True,
                       check=True).stdout.splitlines()
  return dict(zip(names, out))


def short(name):
  """A demangled name without `void `, `jaxext::` and its argument list."""
  name = name.replace("jaxext::", "").removeprefix("void ")
  if name.endswith(")"):
    depth = 0
    for i in range(len(name) - 1, -1, -1):
      depth += {")": 1, "(": -1}.get(name[i], 0)
      if depth == 0:
        return name[:i]
  return name


def parse(text):
  """Kernels from ptxas -v output: {(name, arch): {registers, stack, spill, functions}}."""
  kernels, current, pending = {}, None, None
  for line in text.splitlines():
    if m := ENTRY.search(line):
      current = (m.group(1), m.group(2))
      kernels[current] = {"registers": 0, "stack": 0, "spill": 0, "functions": {}}
    elif m := PROPERTIES.search(line):
      pending = m.group(1)
    elif (m := FRAME.search(line)) and pending and current:
      frame, stores, loads = (int(g) for g in m.groups())
      kernel = kernels[current]
      if pending == current[0]:
        kernel["spill"] = max(stores, loads)
        kernel["stack"] = max(kernel["stack"], frame)
      else:
        kernel["functions"][pending] = max(stores, loads)
      pending = None
    elif (m := USED.search(line)) and current:
      kernels[current]["registers"] = int(m.group(1))
      if m.group(2):
        kernels[current]["stack"] = int(m.group(2))
  return kernels


def known_over(readable):
  """Whether a kernel (its short name) is on KNOWN_OVER."""
  plain = MATH_NAMESPACE.sub("", readable)
  return any(element in plain for element in KNOWN_OVER)


def report_of(arguments, root):
  """The text of the ptxas report that one nvcc action wrote."""
  paths = [a for a in arguments if a.endswith(".ptxas.txt")]
  if len(paths) != 1:
    sys.exit(f"ptxas_report: an nvcc action names no single report: {arguments[-1]}")
  with open(os.path.join(root, paths[0]), encoding="utf-8", errors="replace") as f:
    return f.read()


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--enforce", action="store_true", help="exit 1 when a kernel is OVER")
  parser.add_argument("--guard", action="store_true",
                      help="exit 1 when a kernel off KNOWN_OVER is OVER, or one on it is not")
  parser.add_argument("--all-archs", action="store_true", help="the build's whole -gencode list")
  parser.add_argument("--bazel", default="bazel")
  options = parser.parse_args()
  os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
  root = bazel_lines(options.bazel, "info", "--config=cuda", "execution_root").strip()
  subprocess.run([options.bazel, "build", "--config=cuda", "//jaxlib_ext/cuda:libkepler_cuda.so"],
                 check=True)
  actions = json.loads(bazel_lines(options.bazel, "aquery", "--config=cuda",
                                   "--output=jsonproto", QUERY)).get("actions", [])
  if not actions:
    sys.exit("ptxas_report: no nvcc action found (bazel aquery --config=cuda)")
  print(f"ptxas_report: {len(actions)} kernels' sources, "
        f"{'the build architectures' if options.all_archs else 'sm_90'}, ptxas -v")
  kernels = {}
  for action in actions:
    kernels.update(parse(report_of(action["arguments"], root)))
  if not options.all_archs:
    kernels = {key: k for key, k in kernels.items() if key[1] == "sm_90"}
  if not kernels:
    sys.exit("ptxas_report: the reports name no kernel")
  names = demangle(sorted({n for n, _ in kernels} |
                          {f for k in kernels.values() for f in k["functions"]}))
  over, new_over, now_within = 0, [], []
  print(f"{'registers':>9} {'stack B':>8} {'spill B':>8} {'callee spill B':>14}  "
        "verdict  arch   kernel")
  for (name, arch), k in sorted(kernels.items(), key=lambda item: names[item[0][0]]):
    readable = short(names[name])
    worst = max(k["functions"].items(), key=lambda f: f[1], default=("", 0))
    limited = bool(LIMITED.search(names[name]))
    fails = limited and (k["registers"] > MAX_REGISTERS or k["stack"] > MAX_STACK or
                         max(k["spill"], worst[1]) > MAX_SPILL)
    over += fails
    if limited and fails and not known_over(readable):
      new_over.append(f"{arch} {readable}")
    if limited and not fails and arch == "sm_90" and known_over(readable):
      now_within.append(readable)
    verdict = "OVER" if fails else "ok" if limited else "-"
    callee = f" (worst callee: {short(names[worst[0]])[:90]})" if worst[1] else ""
    print(f"{k['registers']:>9} {k['stack']:>8} {k['spill']:>8} {worst[1]:>14}  "
          f"{verdict:<7}  {arch}  {readable}{callee}")
  print(f"ptxas_report: limits for the light-curve and transit kernels: <= {MAX_REGISTERS} "
        f"registers, <= {MAX_STACK} B stack, <= {MAX_SPILL} B spilled by any function; "
        f"{over} kernel(s) over" + ("" if options.enforce or options.guard else
                                     " (reported, not enforced)"))
  if options.guard:
    for name in new_over:
      print(f"ptxas_report: OVER and not on KNOWN_OVER: {name}")
    for name in now_within:
      print(f"ptxas_report: on KNOWN_OVER but within the limits (take it off): {name}")
    print(f"ptxas_report: --guard: {len(KNOWN_OVER)} kernels known over, "
          f"{len(new_over)} newly over, {len(now_within)} known over now within")
    if new_over or now_within:
      return 1
  return 1 if options.enforce and over else 0


if __name__ == "__main__":
  sys.exit(main())
