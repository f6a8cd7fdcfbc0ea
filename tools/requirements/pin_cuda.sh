#!/usr/bin/env bash
# Prints tools/workspace.bzl's CUDA_WHEELS for one CUDA release: each part of
# the toolkit (NVIDIA's wheels on PyPI) with the platform tag and sha256 of its
# x86_64 and aarch64 wheel, as pip downloads them. Paste the output over the
# table to move the build to that toolkit.
#
#   bash tools/requirements/pin_cuda.sh 13.5.37 13.3.5.0.6
#     (the release of nvcc, nvvm, crt and cudart; then of cccl, which has its own)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bash tools/requirements/pin_cuda.sh CUDA_RELEASE CCCL_RELEASE" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "CUDA_WHEELS = {"
for requirement in "nvidia-cuda-nvcc==$1" "nvidia-nvvm==$1" "nvidia-cuda-crt==$1" \
  "nvidia-cuda-runtime==$1" "nvidia-cuda-cccl==$2"; do
  echo "    \"$requirement\": ["
  for arch in x86_64 aarch64; do
    dest="$work/$arch-${requirement%%==*}"
    # pip takes no tag older than the one asked for: ask for each that NVIDIA uses.
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.12 --platform "manylinux_2_17_$arch" --platform "manylinux2014_$arch" \
      --platform "manylinux_2_12_$arch" --platform "manylinux2010_$arch" \
      --dest "$dest" "$requirement" >&2
    wheel=$(ls "$dest"/*.whl)
    # The wheel's last platform tag: the one pip is asked for when fetching it.
    platform=$(basename "$wheel" .whl | sed 's/.*-//; s/.*\.//')
    echo "        \"$platform=$(sha256sum "$wheel" | cut -d' ' -f1)\","
  done
  echo "    ],"
done
echo "}"
