"""A small driver for Nsight Compute: one launch of one of kepler's kernels per case.

    ncu --set full --kernel-name-base demangled -k regex:jaxext \
        python3 tools/gpu/ncu_driver.py --cases solve:float64:1e7,lc_quadratic:float64,lc_ten:float64

(tools/gpu_check.py runs this with KEPLER_NCU=1.) A case is op:dtype[:N]:
op one of CASES (Kepler's equation, or a light curve's value with one of
benchmarks/gpu_benchmark.py's laws, LC_LAWS), N the elements of the call
(default --n). The inputs are those the benchmark times, made on the GPU by
XLA kernels, whose names do not match the filter (kepler's kernels are in
namespace jaxext); each case compiles its function, then calls it exactly
once, so the filter alone profiles each case's kernels once (two for the
light curve of at most two coefficients: its two passes). Prints,
per case, what was launched and a check of the result.
"""

import argparse
import os
import sys

# benchmarks/ for gpu_benchmark (the laws and the inputs); never the
# repository root, whose kepler/ has no compiled modules.
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks"))
import gpu_benchmark  # pylint: disable=g-import-not-at-top,wrong-import-position

# op: what it launches (lc_<law>: the light curve of gpu_benchmark.LC_LAWS[law]).
CASES = {"solve": "kepler.solve", "true_anomaly": "kepler.true_anomaly",
         **{f"lc_{law}": f"the light curve, {law} law" for law in gpu_benchmark.LC_LAWS}}


def parse_cases(text, default_n):
  """[(op, dtype, n)] from "op:dtype[:N],..."; SystemExit with why on a bad one."""
  cases = []
  for case in text.split(","):
    fields = case.split(":")
    if (len(fields) not in (2, 3) or fields[0] not in CASES
        or fields[1] not in gpu_benchmark.DTYPES):
      sys.exit("ncu_driver: bad case %r: expected op:dtype[:N], op one of %s, dtype one of %s"
               % (case, ", ".join(CASES), ", ".join(gpu_benchmark.DTYPES)))
    try:
      n = int(float(fields[2])) if len(fields) == 3 else default_n
    except ValueError:
      n = 0
    if n < 1:
      sys.exit("ncu_driver: bad N in case %r: a positive number of elements" % case)
    cases.append((fields[0], fields[1], n))
  return cases


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--n", type=float, default=1e7, help="elements per call (default 1e7)")
  parser.add_argument("--cases", default="solve:float64,solve:float32",
                      help="comma-separated op:dtype[:N], op in " + ", ".join(CASES))
  parser.add_argument("--on-cpu", action="store_true", help=(
      "SMOKE TEST ONLY: run on the CPU, without ncu (tools/gpu_check.py's dry run checks this "
      "file so)"))
  args = parser.parse_args()
  cases = parse_cases(args.cases, int(args.n))
  os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  if args.on_cpu:
    os.environ["JAX_PLATFORMS"] = "cpu"
  import jax

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp
  import numpy as np

  import kepler
  from kepler import limb_dark

  device = jax.devices()[0]
  if device.platform != "gpu" and not args.on_cpu:
    sys.exit("ncu_driver: JAX's default device is %s, not a GPU" % device)
  for op, dtype, n in cases:
    if op.startswith("lc_"):
      law = op[len("lc_"):]
      fn = jax.jit(gpu_benchmark.lc_function(limb_dark, law))
      u = gpu_benchmark.LC_LAWS[law][1]
      args = (jax.device_put(np.asarray(u, dtype), device),
              *gpu_benchmark.light_curve_inputs(jax, dtype, n, device))
    else:
      fn = jax.jit(getattr(kepler, op))
      args = gpu_benchmark.kepler_inputs(jax, dtype, n, device)
    compiled = fn.lower(*args).compile()  # compiling launches nothing
    out = jax.block_until_ready(compiled(*args))  # the one launch
    if op.startswith("lc_"):
      check = "F - 1 in [%.3g, %.3g], %d NaN" % (float(jnp.nanmin(out)), float(jnp.nanmax(out)),
                                                  int(jnp.sum(jnp.isnan(out))))
    else:
      s, c = (x.astype(jnp.float64) for x in out)
      check = "max |sin^2 + cos^2 - 1| = %.2e" % float(jnp.max(jnp.abs(s ** 2 + c ** 2 - 1)))
    print("ncu_driver: %s (%s) %s N=%d on %s: %s" % (op, CASES[op], dtype, n, device, check),
          flush=True)

if __name__ == "__main__":
  main()
