"""The x86-64 loop variants this CPU cannot run, as Bazel's tag filter.

    python3 tools/lacking_cpu_isas.py   # prints e.g. --test_tag_filters=-requires_avx512

tests/BUILD.bazel's accuracy_test_<variant> forces each variant of the
loops (tag requires_<variant>) and fails on a CPU that lacks it: it cannot
be checked there. tools/test_all.sh excludes those targets with the filter
this prints (nothing where the CPU has every variant) and says so on
stderr, naming the features missing. The variants and their features are
jaxlib_ext/cpu/cpu_isa.bzl's (read here, the one list); the CPU's features
are the kernel's (/proc/cpuinfo's flags: the instructions it lets programs
use).
"""

import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def variants():
  """[(name, features)] of the x86-64 variants, from cpu_isa.bzl."""
  scope = {"struct": lambda **fields: types.SimpleNamespace(**fields)}
  with open(os.path.join(ROOT, "jaxlib_ext", "cpu", "cpu_isa.bzl")) as f:
    exec(compile(f.read(), "cpu_isa.bzl", "exec"), scope)  # pylint: disable=exec-used
  return [(v.name, v.features) for v in scope["CPU_ISAS"]["x86_64"].variants]


def cpu_flags():
  with open("/proc/cpuinfo") as f:
    for line in f:
      if line.startswith("flags"):
        return set(line.split(":", 1)[1].split())
  return set()


def main():
  flags = cpu_flags()
  lacking = [(name, [x for x in features if x not in flags]) for name, features in variants()]
  lacking = [(name, missing) for name, missing in lacking if missing]
  for name, missing in lacking:
    print(f"lacking_cpu_isas: this CPU lacks {', '.join(missing)}: the {name} variant's "
          f"forced test (//tests:accuracy_test_{name}) is not run here", file=sys.stderr)
  if lacking:
    print("--test_tag_filters=" + ",".join(f"-requires_{name}" for name, _ in lacking))


if __name__ == "__main__":
  main()
