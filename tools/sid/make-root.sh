#!/bin/bash
# Builds an isolated Debian sid root for tools/sid/run: Bazel 7.7.1 (bzlmod) and the
# Pythons that only sid packages (SID_PYTHONS of tools/setup.sh, which the wheels are
# tested with, with pip from python3-pip, which every python3.X of Debian shares). The host stays
# Debian 12: only mmdebstrap and bubblewrap (its own packages) are installed on it.
# The comments say why each step is there.
#
#   bash tools/sid/make-root.sh [ROOT [CUDA_DIR]]
#
# ROOT: default /tmp/sidroot. CUDA_DIR: the local CUDA toolkit tools/sid/run binds
# into the root (step 4), or none (the default).
set -euo pipefail
ROOT=${1:-/tmp/sidroot}
CUDA_DIR=${2:-none}
here=$(cd "$(dirname "$0")" && pwd)
SID_PYTHONS=$(sed -n 's/^SID_PYTHONS="\([^"]*\)".*/\1/p' "$here/../setup.sh")
if [ -z "$SID_PYTHONS" ]; then
  echo "make-root: no SID_PYTHONS=\"...\" line in $here/../setup.sh" >&2
  exit 1
fi
pythons=""
for v in $SID_PYTHONS; do
  pythons+=",python$v-dev,python$v-venv"
done
MIRROR="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main"

if ! command -v mmdebstrap >/dev/null || ! command -v bwrap >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap bubblewrap >/dev/null
fi

# 1) rootfs (~675 MB download, ~45 s, ~1.6 GB on disk)
#    Check-Valid-Until=false: the mirror is a snapshot whose sid Release file is past Valid-Until.
mmdebstrap --variant=apt --architectures=amd64 \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --aptopt='Apt::Install-Recommends "false"' \
  --include="bazel-bootstrap,build-essential,python3,bazel-rules-shell,ca-certificates,python3-pip$pythons" \
  sid "$ROOT" "$MIRROR"

# 2) stub modules for bzlmod deps of @bazel_tools / rules_python that Debian does not package
#    (same trick as Debian's own autopkgtests debian/tests/cpp-success).
M=$ROOT/usr/local/share/bazel-offline-mocks
for m in apple_support protobuf buildozer zlib; do
  mkdir -p "$M/$m"; echo "module(name = \"$m\")" > "$M/$m/MODULE.bazel"; : > "$M/$m/BUILD"
done
cat > "$M/zlib/BUILD" <<'EOF'
cc_library(
    name = "zlib",
    linkopts = ["-lz"],
    visibility = ["//visibility:public"],
)
EOF
cat > "$M/buildozer/buildozer_binary.bzl" <<'EOF'
# Offline stub for @buildozer//:buildozer_binary.bzl (only `bazel mod ...` loads it).
def _stub_repo_impl(rctx):
    rctx.file("BUILD.bazel", 'exports_files(["buildozer"])\n')
    rctx.file("buildozer", "#!/bin/sh\necho 'buildozer is not available offline' >&2\nexit 1\n", executable = True)

_stub_repo = repository_rule(implementation = _stub_repo_impl)

def _ext_impl(mctx):
    _stub_repo(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _ext_impl)
EOF

# 3) --repository_disable_download: Bazel's own downloader fetches nothing; only
#    pip, inside kepler_jax's repository rules, fetches the hash-pinned Python
#    packages (and the jaxlib wheel of the XLA FFI headers) from PyPI.
#    /etc/bazel.bazelrc is try-imported by Debian's /etc/bazel/bazelrc (which already
#    --override_module's platforms, rules_cc, rules_java, rules_python, rules_proto,
#    rules_license, bazel_skylib, bazel_features to /usr/share/bazel/...).
cat > "$ROOT/etc/bazel.bazelrc" <<'EOF'
common --override_module=apple_support=/usr/local/share/bazel-offline-mocks/apple_support
common --override_module=zlib=/usr/local/share/bazel-offline-mocks/zlib
common --override_module=protobuf=/usr/local/share/bazel-offline-mocks/protobuf
common --override_module=buildozer=/usr/local/share/bazel-offline-mocks/buildozer
common --repository_disable_download
startup --host_jvm_args=-Xmx2g
EOF

# 4) A local CUDA toolkit (CUDA_DIR, bind-mounted from the host at run time) vs sid's
#    glibc (2.42 and newer declare rsqrt and rsqrtf): CUDA 13.0's nvcc fails with
#    "exception specification is incompatible ... rsqrt". For a crt/math_functions.h
#    that declares them bare (after its __NV_GLIBC_PROVIDES_IEC_60559_FUNCS block),
#    keep a copy in the rootfs whose declarations carry glibc's exception specifier;
#    tools/sid/run bind-mounts it over the original.
CU=$CUDA_DIR/targets/x86_64-linux/include/crt/math_functions.h
if [ "$CUDA_DIR" != none ] && [ -f "$CU" ]; then
  if grep -q 'define __NV_GLIBC_PROVIDES_IEC_60559_FUNCS' "$CU" &&
     grep -Eq '^extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ (double|float) +rsqrtf?\((double|float) x\);' "$CU"; then
    mkdir -p "$ROOT/usr/local/share/cuda-glibc-fix"
    awk '{print} /define __NV_GLIBC_PROVIDES_IEC_60559_FUNCS/ && !seen {seen=1} seen==1 && /^#endif/ {print "#if __NV_GLIBC_PROVIDES_IEC_60559_FUNCS || (defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 42)))\n#define __NV_RSQRT_EXCEPTION_SPECIFIER __THROW\n#else\n#define __NV_RSQRT_EXCEPTION_SPECIFIER\n#endif"; seen=2}' "$CU" \
     | sed -E 's/^(extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ (double|float) +rsqrtf?\((double|float) x\));/\1 __NV_RSQRT_EXCEPTION_SPECIFIER;/' \
     | sed -E 's/ __NV_RSQRT_EXCEPTION_SPECIFIER;;/ __NV_RSQRT_EXCEPTION_SPECIFIER;/' \
     > "$ROOT/usr/local/share/cuda-glibc-fix/math_functions.h"
  fi
  ln -sfn "$CUDA_DIR" "$ROOT/usr/local/cuda"
fi
bwrap --bind "$ROOT" / --dev /dev --proc /proc /bin/bash -c 'apt-get clean; rm -rf /var/lib/apt/lists/*'
du -sh "$ROOT"
