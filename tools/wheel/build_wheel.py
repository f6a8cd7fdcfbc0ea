"""Writes the kepler-jax wheels, byte for byte the same from the same inputs.

Called by the `kepler_wheel` rule (tools/wheel/wheel.bzl) with files that
list `path-in-wheel<TAB>file-on-disk` lines: one for the main wheel
(kepler-jax) and, in CUDA builds, one for the CUDA plugin wheel
(kepler-jax-cuda13-plugin, same version). Versions, the supported jax range and
the CUDA extra's name and the oldest Pythons come from kepler/_version.py. The
compiled modules use no Python C API (ctypes reads them), so each wheel serves
every Python from its Requires-Python on: its tag is py3-none-<platform>. The
platform tag is derived from the shared objects themselves: the oldest manylinux policy in auditwheel's own table that
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

# Zip entries carry this timestamp (the earliest a zip can hold), never mtimes.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
ELF_MACHINES = {"EM_X86_64": "x86_64", "EM_AARCH64": "aarch64"}
SUMMARY = "Kepler orbits and transit light curves as native JAX ops (XLA FFI, CPU and CUDA)"


def read_version_file(version_py):
  """The names kepler/_version.py assigns: __version__, JAX_MIN, JAX_BELOW, CUDA_EXTRA,
  PYTHON_MIN, CUDA_PYTHON_MIN."""
  text = open(version_py, encoding="utf-8").read()
  found = dict(re.findall(r'^(\w+) = "([^"]+)"$', text, re.M))
  for name in ("__version__", "JAX_MIN", "JAX_BELOW", "CUDA_EXTRA", "PYTHON_MIN",
               "CUDA_PYTHON_MIN"):
    if name not in found:
      raise SystemExit(f"{version_py} does not assign {name} = \"...\"")
  if "+" in found["__version__"]:
    raise SystemExit("no local version labels: PyPI rejects them")
  return found


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


def write_wheel(out_dir, name, version, tag, files, metadata, license_path, generated=None):
  """Writes {name}-{version}-{tag}.whl holding `files` ({path in wheel: file})
  and `generated` ({path in wheel: bytes})."""
  dist_info = f"{name}-{version}.dist-info"
  wheel = [
      "Wheel-Version: 1.0",
      "Generator: kepler_jax tools/wheel/build_wheel.py",
      "Root-Is-Purelib: false",
      f"Tag: {tag}",
  ]
  contents = dict(generated or {})
  for dest, src in files.items():
    with open(src, "rb") as f:
      contents[dest] = f.read()
  entries = sorted(contents.items())
  with open(license_path, "rb") as f:
    entries.append((f"{dist_info}/LICENSE", f.read()))
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
  os.makedirs(out_dir, exist_ok=True)
  out = os.path.join(out_dir, f"{name}-{version}-{tag}.whl")
  with open(out, "wb") as f:
    f.write(buffer.getvalue())
  print(out)


def _read_manifest(path):
  files = {}
  for line in open(path, encoding="utf-8").read().splitlines():
    if line:
      dest, src = line.split("\t")
      files[dest] = src
  return files


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--manifest", required=True, help="the main wheel's files")
  parser.add_argument("--cuda_manifest", default="",
                      help="the CUDA plugin's files; with it, the plugin wheel is written too")
  parser.add_argument("--cuda_version", default="", help="the CUDA toolkit, e.g. 13.0")
  parser.add_argument("--version_file", required=True)
  parser.add_argument("--license", required=True)
  parser.add_argument("--site_hook", default="",
                      help="a module of the main wheel (path in the wheel) that is also "
                      "installed as a top-level module with a .pth file that calls its "
                      "install_import_guard() when Python starts")
  parser.add_argument("--out_dir", required=True)
  args = parser.parse_args()

  facts = read_version_file(args.version_file)
  version = facts["__version__"]
  extra = facts["CUDA_EXTRA"]
  jax_range = f">={facts['JAX_MIN']},<{facts['JAX_BELOW']}"
  plugin_dist = f"kepler-jax-{extra}-plugin"

  def common(dist_name, python_min, requires):
    return [
        "Metadata-Version: 2.1",
        f"Name: {dist_name}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "License: Apache-2.0",
        f"Requires-Python: >={python_min}",
    ] + [f"Requires-Dist: {r}" for r in requires]

  def tag_of(files):
    return "py3-none-" + platform_tag([s for d, s in files.items() if d.endswith(".so")])

  # The main wheel: the kepler package. Its extra (kepler-jax[cuda13]) pulls
  # the plugin of the same version and jax's own CUDA plugin.
  files = _read_manifest(args.manifest)
  metadata = common("kepler-jax", facts["PYTHON_MIN"], [f"jax{jax_range}", f"jaxlib{jax_range}", "numpy"]) + [
      f"Provides-Extra: {extra}",
      f'Requires-Dist: {plugin_dist}=={version}; extra == "{extra}"',
      f'Requires-Dist: jax[{extra}]{jax_range}; extra == "{extra}"',
  ]
  generated = {}
  if args.site_hook:
    # kepler/_ownership.py -> _kepler_jax_ownership.py and kepler_jax.pth
    module = "_kepler_jax_" + os.path.splitext(os.path.basename(args.site_hook))[0].lstrip("_")
    with open(files[args.site_hook], "rb") as f:
      generated[module + ".py"] = f.read()
    generated["kepler_jax.pth"] = f"import {module}; {module}.install_import_guard()\n".encode()
  write_wheel(args.out_dir, "kepler_jax", version, tag_of(files), files, metadata, args.license,
              generated)

  if args.cuda_manifest:
    major = args.cuda_version.split(".")[0]
    if f"cuda{major}" != extra:
      raise SystemExit(f"the CUDA toolkit is {args.cuda_version} but kepler/_version.py says "
                       f"CUDA_EXTRA = \"{extra}\": the plugin would be misnamed")
    files = _read_manifest(args.cuda_manifest)
    # CUDA's minor-version compatibility: a runtime of 13.x runs on every
    # driver for 13.0 or newer, running the kernels' SASS (sm_80, sm_90);
    # only JIT-compiling their PTX for a newer GPU needs a driver as new as
    # the toolkit.
    metadata = common(plugin_dist, facts["CUDA_PYTHON_MIN"], [f"kepler-jax=={version}"]) + [
        f"Requires-External: cuda-driver (>={major}.0)",
    ]
    write_wheel(args.out_dir, plugin_dist.replace("-", "_"), version, tag_of(files), files,
                metadata, args.license)


if __name__ == "__main__":
  main()
