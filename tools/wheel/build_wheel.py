"""Writes the kepler-jax wheel, byte for byte the same from the same inputs.

Called by the `kepler_wheel` rule (jaxlib_ext/kepler.bzl) with a file that
lists `path-in-wheel<TAB>file-on-disk` lines. The platform tag is derived from
the extension modules themselves: the oldest manylinux policy in auditwheel's own table that
allows every library and symbol version they need, which is what
`auditwheel show` reports.
"""

import argparse
import base64
import hashlib
import io
import os
import json
import re
import zipfile

import auditwheel
from elftools.elf.elffile import ELFFile

NAME = "kepler_jax"
DIST_NAME = "kepler-jax"
# Zip entries carry this timestamp (the earliest a zip can hold), never mtimes.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
ELF_MACHINES = {"EM_X86_64": "x86_64", "EM_AARCH64": "aarch64"}


def read_version(version_py):
  text = open(version_py, encoding="utf-8").read()
  return re.search(r'__version__ = "([^"]+)"', text).group(1)


def _needed_versions(path):
  """(arch, {library: {symbol versions}}) that an ELF file asks of other libraries."""
  with open(path, "rb") as f:
    elf = ELFFile(f)
    needs = {}
    dynamic = elf.get_section_by_name(".dynamic")
    for tag in dynamic.iter_tags() if dynamic else ():
      if tag.entry.d_tag == "DT_NEEDED":
        needs.setdefault(tag.needed, set())
    section = elf.get_section_by_name(".gnu.version_r")
    for verneed, aux in section.iter_versions() if section else ():
      needs.setdefault(verneed.name, set()).update(a.name for a in aux)
    return ELF_MACHINES[elf["e_machine"]], needs


def platform_tag(shared_objects):
  """The oldest manylinux policy (auditwheel's own table) the modules satisfy."""
  if not shared_objects:
    return "any"
  policies = os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")
  with open(policies, encoding="utf-8") as f:
    policies = [p for p in json.load(f) if p["name"] != "linux"]
  found = [_needed_versions(path) for path in shared_objects]
  for policy in sorted(policies, key=lambda p: -p["priority"]):
    if all(_allowed(policy, arch, needs) for arch, needs in found):
      return f"{policy['name']}_{found[0][0]}"
  raise SystemExit(f"no manylinux policy allows {found}; the wheel would not be portable")


def _allowed(policy, arch, needs):
  allowed_versions = policy["symbol_versions"].get(arch, {})
  for library, versions in needs.items():
    # The dynamic loader is part of glibc: only its symbol versions count.
    if library not in policy["lib_whitelist"] and not library.startswith("ld-linux"):
      return False
    for version in versions:
      prefix, _, number = version.partition("_")
      if number and number not in allowed_versions.get(prefix, ()):
        return False
  return True


def record_line(path, data):
  digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
  return f"{path},sha256={digest.decode()},{len(data)}"


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--manifest", required=True)
  parser.add_argument("--version_file", required=True)
  parser.add_argument("--python_tag", required=True)
  parser.add_argument("--local_version", default="",
                      help="PEP 440 local label, e.g. cuda13.0 for a CUDA build")
  parser.add_argument("--requires", action="append", default=[])
  parser.add_argument("--extra_metadata", action="append", default=[])
  parser.add_argument("--out_dir", required=True)
  args = parser.parse_args()

  files = {}
  for line in open(args.manifest, encoding="utf-8").read().splitlines():
    dest, src = line.split("\t")
    files[dest] = src
  version = read_version(args.version_file)
  if args.local_version:
    version += "+" + args.local_version
  plat = platform_tag([s for d, s in files.items() if d.endswith(".so")])
  abi = args.python_tag if plat != "any" else "none"
  tag = f"{args.python_tag}-{abi}-{plat}"
  dist_info = f"{NAME}-{version}.dist-info"

  py_version = args.python_tag[2] + "." + args.python_tag[3:]
  metadata = [
      "Metadata-Version: 2.1",
      f"Name: {DIST_NAME}",
      f"Version: {version}",
      "Summary: Kepler's equation as a native JAX op (XLA FFI, CPU and CUDA)",
      "License: Apache-2.0",
      f"Requires-Python: =={py_version}.*",
  ] + [f"Requires-Dist: {r}" for r in args.requires] + args.extra_metadata
  wheel = [
      "Wheel-Version: 1.0",
      "Generator: kepler_jax tools/wheel/build_wheel.py",
      "Root-Is-Purelib: false",
      f"Tag: {tag}",
  ]
  entries = []
  for dest in sorted(files):
    with open(files[dest], "rb") as f:
      entries.append((dest, f.read()))
  entries.append((f"{dist_info}/METADATA", ("\n".join(metadata) + "\n").encode()))
  entries.append((f"{dist_info}/WHEEL", ("\n".join(wheel) + "\n").encode()))
  record = [record_line(p, d) for p, d in entries] + [f"{dist_info}/RECORD,,"]
  entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))

  buffer = io.BytesIO()
  with zipfile.ZipFile(buffer, "w") as zf:
    for path, data in entries:
      info = zipfile.ZipInfo(path, date_time=FIXED_DATE)
      mode = 0o755 if path.endswith(".so") else 0o644
      info.external_attr = (0o100000 | mode) << 16
      info.compress_type = zipfile.ZIP_DEFLATED
      zf.writestr(info, data, compresslevel=9)
  os.makedirs(args.out_dir, exist_ok=True)
  out = os.path.join(args.out_dir, f"{NAME}-{version}-{tag}.whl")
  with open(out, "wb") as f:
    f.write(buffer.getvalue())
  print(out)


if __name__ == "__main__":
  main()
