#!/usr/bin/env bash
# The kernel variants side by side: the light curve's
# (tools/gpu/kernel_variants.cu) and the transit model's (transit_*,
# tools/gpu/transit_variants.cu):
#
#   bash tools/gpu/kernel_variants.sh build DIR [NAME...]    # nvcc: one binary a variant into DIR
#   bash tools/gpu/kernel_variants.sh run DIR [N [NAME...]]  # on a GPU: each binary in turn
#   bash tools/gpu/kernel_variants.sh names                   # the variants' names, a line each
#
# NAME: some of the VARIANTS below (default: all). KERNEL_VARIANTS_CASES
# (e.g. power2,ten) chooses the cases (kernel_variants.cu's kCases).
#
# `build` runs wherever nvcc 13 is (a development machine without a GPU
# too), with ptxas's report of each variant in DIR/NAME.ptxas; `run` builds
# again there any binary that does not start (another machine's system
# libraries), then runs every variant alone on the GPU and prints their
# lines together. It exits 1 when a variant fails its checks, 3 when they
# all pass but their outputs differ (variants that build another kernel for
# the same law can differ in the last bits, where nvcc contracts the same
# arithmetic into FMAs differently: each variant's sample against the host
# build says by how much).
set -euo pipefail
cd "$(dirname "$0")/../.."

# name: the variant's defines (limb_dark_kernel.cu's switches; for
# transit_*, transit_kernel.cu's).
VARIANTS=(
  "one_pass:-DJAXEXT_LOW_ORDER_ONE_PASS=1"
  "two_pass:"
  "two_pass_mb1:-DJAXEXT_LOW_ORDER_MIN_BLOCKS=1"
  "two_pass_mb8:-DJAXEXT_LOW_ORDER_MIN_BLOCKS=8"
  "law_one_pass:-DJAXEXT_LAW_ONE_PASS=1"
  "polynomial_one_kernel:-DJAXEXT_POLYNOMIAL_PASSES=0"
  "transit_batches:"
  "transit_per_thread:-DJAXEXT_EXPOSED_PER_THREAD=1"
  "transit_inside_unrolled:-DJAXEXT_INSIDE_NODES_A_STEP=32"
)

build_one() {  # dir name defines
  local dir=$1 name=$2 source=tools/gpu/kernel_variants.cu
  case $name in transit_*) source=tools/gpu/transit_variants.cu ;; esac
  # shellcheck disable=SC2086
  nvcc -std=c++17 -O3 -arch=sm_90 -I. -Xptxas -v $3 "$source" \
    -o "$dir/$name" >"$dir/$name.ptxas" 2>&1 || { cat "$dir/$name.ptxas"; return 1; }
}

mode=${1:?usage: kernel_variants.sh build|run DIR [N] [NAME...] | names}
if [ "$mode" = names ]; then
  for v in "${VARIANTS[@]}"; do echo "${v%%:*}"; done
  exit 0
fi
dir=${2:?usage: kernel_variants.sh build|run DIR [N] [NAME...] | names}
mkdir -p "$dir"
if [ "$mode" = run ]; then n=${3:-1e8}; shift $(($# < 3 ? $# : 3)); else shift 2; fi
if [ $# -gt 0 ]; then  # the variants named
  chosen=()
  for name in "$@"; do
    found=
    for v in "${VARIANTS[@]}"; do [ "${v%%:*}" = "$name" ] && { chosen+=("$v"); found=1; }; done
    [ -n "$found" ] || { echo "kernel_variants: no variant $name" >&2; exit 2; }
  done
  VARIANTS=("${chosen[@]}")
fi
case $mode in
  build)
    pids=()
    for v in "${VARIANTS[@]}"; do
      build_one "$dir" "${v%%:*}" "${v#*:}" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    ls -l "$dir"
    ;;
  run)
    pids=()
    for v in "${VARIANTS[@]}"; do
      name=${v%%:*}
      rc=0
      "$dir/$name" >/dev/null 2>&1 || rc=$?
      if [ "$rc" -ne 2 ]; then  # without arguments: its usage, exit 2
        echo "kernel_variants: building $name here"
        build_one "$dir" "$name" "${v#*:}" &
        pids+=($!)
      fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    status=0
    : >"$dir/results.txt"
    for v in "${VARIANTS[@]}"; do
      "$dir/${v%%:*}" "${v%%:*}" "$n" | tee -a "$dir/results.txt" || status=1
    done
    # The variants compute the same function: one hash per case and dtype.
    if awk '$1 != "variant" {k = $2 " " $3; if (!(k in h)) h[k] = $9;
                             else if (h[k] != $9) {print "outputs differ: " k; bad = 1}}
            END {exit bad}' "$dir/results.txt"; then
      echo "kernel_variants: every variant's outputs the same"
    elif [ "$status" -eq 0 ]; then
      status=3
    fi
    exit $status
    ;;
  *) echo "kernel_variants: unknown mode $mode" >&2; exit 2 ;;
esac
