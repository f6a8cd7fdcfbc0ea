"""A small driver for Nsight Compute: one launch of one of kepler's kernels per case.

    ncu --set full --kernel-name-base demangled -k regex:jaxext \
        python3 tools/gpu/ncu_driver.py --cases solve:float64:1e7,lc_quadratic:float64,lc_ten:float64

(tools/gpu_check.py runs this with KEPLER_NCU=1.) A case is op:dtype[:N]:
op one of CASES (Kepler's equation, a light curve's value with one of
benchmarks/gpu_benchmark.py's laws, LC_LAWS, or the transit model's value
in one of TRANSIT_CASES), N the elements of the call (default --n). The
inputs are those the benchmark times (the transit model's: TRANSIT_CASES),
made on the GPU by XLA kernels, whose names do not match the filter
(kepler's kernels are in namespace jaxext); each case compiles its
function, then calls it exactly once, so the filter alone profiles each
case's kernels once (two for the light curve of at most two coefficients:
its two passes; three for the transit model of such a law without the
planet's light: the window pass, the times without an exposure, the times
with one). Prints, per case, what was launched and a check of the result.
"""

import argparse
import os
import sys

# benchmarks/ for gpu_benchmark (the laws and the inputs); never the
# repository root, whose kepler/ has no compiled modules.
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks"))
import gpu_benchmark  # pylint: disable=g-import-not-at-top,wrong-import-position

# The transit model's cases, one for each of its kernels' families
# (jaxlib_ext/transit/transit_kernel.cu): (law of gpu_benchmark.LC_LAWS,
# exposure time in days, the planet's day-side flux). One hot Jupiter (P = 3
# d, a = 8.8, b = 0.3, r = 0.1, circular) at N times spread evenly over
# [-0.25, 0.25] d around a transit, about a quarter of them in it; with the
# planet's light, over a whole orbit, the secondary eclipse included.
TRANSIT_CASES = {
    "quadratic": ("quadratic", 0.0, 0.0),  # the low-order passes, no exposure
    "quadratic_exposure": ("quadratic", gpu_benchmark.TRANSIT_EXPOSURE, 0.0),
    "quadratic_light": ("quadratic", 0.0, 1e-3),  # the low-order law with the light
    "ten": ("ten", 0.0, 0.0),  # the other polynomial laws
    "power2": ("power2", 0.0, 0.0),  # the laws of laws.h
    "tabulated": ("tabulated", 0.0, 0.0),
}

# op: what it launches (lc_<law>: the light curve of gpu_benchmark.LC_LAWS[law];
# transit_<case>: the transit model of TRANSIT_CASES[case]).
CASES = {"solve": "kepler.solve", "true_anomaly": "kepler.true_anomaly",
         **{f"lc_{law}": f"the light curve, {law} law" for law in gpu_benchmark.LC_LAWS},
         **{f"transit_{case}": "the transit model, %s law%s%s" % (
             law, ", exposures of %g d" % exposure if exposure else "",
             ", the planet's light" if light else "")
            for case, (law, exposure, light) in TRANSIT_CASES.items()}}


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


def transit_function(transit, case):
  """The transit model of TRANSIT_CASES[case], a function of the times."""
  law, exposure, light = TRANSIT_CASES[case]
  name, u = gpu_benchmark.LC_LAWS[law]
  grid = {"mu": gpu_benchmark.LC_GRIDS[law]} if law in gpu_benchmark.LC_GRIDS else {}
  return lambda t: transit.light_curve(
      t, period=3.0, t0=0.0, a=8.8, b=0.3, r=0.1, u=u, law=name, exposure_time=exposure,
      planet_flux=light, **grid)


def transit_times(jax, np, case, dtype, n, device):
  """N times around a transit (with the planet's light: over a whole orbit)."""
  span = 1.5 if TRANSIT_CASES[case][2] else 0.25
  return (jax.device_put(np.linspace(-span, span, n).astype(dtype), device),)


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
  from kepler import transit

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
    elif op.startswith("transit_"):
      case = op[len("transit_"):]
      fn = jax.jit(transit_function(transit, case))
      args = transit_times(jax, np, case, dtype, n, device)
    else:
      fn = jax.jit(getattr(kepler, op))
      args = gpu_benchmark.kepler_inputs(jax, dtype, n, device)
    compiled = fn.lower(*args).compile()  # compiling launches nothing
    out = jax.block_until_ready(compiled(*args))  # the one launch
    if op.startswith(("lc_", "transit_")):
      check = "F - 1 in [%.3g, %.3g], %d NaN" % (float(jnp.nanmin(out)), float(jnp.nanmax(out)),
                                                  int(jnp.sum(jnp.isnan(out))))
    else:
      s, c = (x.astype(jnp.float64) for x in out)
      check = "max |sin^2 + cos^2 - 1| = %.2e" % float(jnp.max(jnp.abs(s ** 2 + c ** 2 - 1)))
    print("ncu_driver: %s (%s) %s N=%d on %s: %s" % (op, CASES[op], dtype, n, device, check),
          flush=True)

if __name__ == "__main__":
  main()
