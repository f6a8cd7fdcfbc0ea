"""A small driver for Nsight Compute: one launch of kepler's kernel per case.

    ncu --set full --kernel-name-base demangled -k regex:kepler -c 2 \
        python3 tools/gpu/ncu_driver.py --n 10000000 --cases solve:float64,solve:float32

(tools/gpu_check.py runs this with KEPLER_NCU=1.) The inputs are made on the
GPU by XLA kernels whose names do not match the filter; each case compiles
kepler's op, then launches it exactly once, so `-c <number of cases>` profiles
each case once. Prints, per case, what was launched and a check of the result.
"""

import argparse
import os
import sys


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--n", type=float, default=1e7, help="elements per call (default 1e7)")
  parser.add_argument("--cases", default="solve:float64,solve:float32",
                      help="comma-separated op:dtype, op in solve, true_anomaly")
  args = parser.parse_args()
  os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  import jax

  jax.config.update("jax_enable_x64", True)
  import jax.numpy as jnp
  import numpy as np

  import kepler

  device = jax.devices()[0]
  if device.platform != "gpu":
    sys.exit("ncu_driver: JAX's default device is %s, not a GPU" % device)
  n = int(args.n)
  for case in args.cases.split(","):
    op, dtype = case.split(":")
    fn = jax.jit(getattr(kepler, op))
    key_m, key_e = jax.random.split(jax.random.PRNGKey(0))
    m = jax.random.uniform(key_m, (n,), dtype, 0.0, 2 * np.pi)
    e = jax.random.uniform(key_e, (n,), dtype, 0.0, 0.95)
    compiled = fn.lower(m, e).compile()  # compiling launches nothing
    s, c = jax.block_until_ready(compiled(m, e))  # the one launch
    norm = float(jnp.max(jnp.abs(s.astype(jnp.float64) ** 2 + c.astype(jnp.float64) ** 2 - 1)))
    print("ncu_driver: %s %s N=%d on %s: max |sin^2 + cos^2 - 1| = %.2e"
          % (op, dtype, n, device, norm), flush=True)


if __name__ == "__main__":
  main()
