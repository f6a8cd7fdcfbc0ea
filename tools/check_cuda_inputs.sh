#!/usr/bin/env bash
# The CUDA build uses the pinned toolkit (third_party/cuda), nothing of this
# machine's: for x86-64 and aarch64 targets, every nvcc action (`bazel aquery
# --config=cuda`) runs @local_cuda's nvcc, made from the pinned wheels, with
# the C++ toolchain's compiler for that target as host compiler, and no
# action of the CUDA module names a path of a CUDA installed on the machine
# (nvcc on PATH, /usr/local/cuda*, /opt/cuda, $CUDA_PATH, $CUDA_HOME).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${LOCAL_CUDA_PATH:-}" ]; then
  echo "check_cuda_inputs: LOCAL_CUDA_PATH is set: this checks the pinned toolkit; unset it" >&2
  exit 1
fi
local_paths=()
for path in /usr/local/cuda* /opt/cuda /usr/lib/cuda "${CUDA_PATH:-}" "${CUDA_HOME:-}"; do
  [ -n "$path" ] && [ -e "$path" ] && local_paths+=("$(realpath "$path")" "$path")
done
if nvcc=$(command -v nvcc); then  # the file (maybe a wrapper) and the toolkit above it
  local_paths+=("$nvcc")
  toolkit=$(dirname "$(dirname "$(realpath "$nvcc")")")
  [ -e "$toolkit/include/cuda.h" ] && local_paths+=("$toolkit")
fi
echo "check_cuda_inputs: this machine's CUDA: ${local_paths[*]:-none}"
origin=$(head -1 "$(bazel info output_base)/external/local_cuda/BUILD.bazel" 2>/dev/null || true)
status=0
for target in "x86_64:" "aarch64:--config=linux_aarch64"; do
  arch=${target%%:*}
  flags=(--config=cuda ${target#*:})
  actions=$(bazel aquery "${flags[@]}" --output=text 'deps(//jaxlib_ext/cuda:libkepler_cuda.so)' 2>&1) || {
    echo "$actions" | tail -20 >&2
    exit 1
  }
  # The nvcc actions, each command line joined into one line.
  compile_lines=$(bazel aquery "${flags[@]}" --output=text \
    'mnemonic("CudaCompile", deps(//jaxlib_ext/cuda:libkepler_cuda.so))' 2>/dev/null |
    sed 's/ \\$//' | tr '\n' ' ' | sed 's/action /\n/g' | grep "CudaCompile" || true)
  compiles=$(grep -c . <<<"$compile_lines" || true)
  # (each runs nvcc through a shell that keeps ptxas's report: every path
  # ending in bin/nvcc that the command lines name)
  nvccs=$(grep -o "[^ ']*bin/nvcc\b" <<<"$compile_lines" | sort -u)
  ccbins=$(grep -o -- '-ccbin *[^ ]*' <<<"$compile_lines" | sed 's/-ccbin *//' | sort -u)
  echo "check_cuda_inputs: $arch: $compiles nvcc actions; nvcc: $nvccs; host compiler: $ccbins"
  if [ "$compiles" -lt 1 ] || [ "$nvccs" != "external/local_cuda/cuda/bin/nvcc" ]; then
    echo "check_cuda_inputs: $arch: the CUDA compiles do not run @local_cuda's nvcc" >&2
    status=1
  fi
  case "$ccbins" in
    "external/kepler_zig/bin/$([ "$arch" = x86_64 ] && echo k8 || echo aarch64)/c++") ;;
    *) echo "check_cuda_inputs: $arch: nvcc's host compiler is not zig's for $arch" >&2; status=1 ;;
  esac
  for path in "${local_paths[@]}"; do
    if grep -qF -- "$path" <<<"$actions"; then
      echo "check_cuda_inputs: $arch: an action names $path:" >&2
      grep -F -- "$path" <<<"$actions" | head -3 >&2
      status=1
    fi
  done
done
echo "check_cuda_inputs: @local_cuda: ${origin#\# }"
[[ "$origin" == *"NVIDIA's CUDA"*"wheels, pinned in tools/workspace.bzl"* ]] || status=1
[ "$status" -eq 0 ] && echo "check_cuda_inputs: passed"
exit "$status"
