"""Solves, jits, differentiates and vmaps the Kepler op; prints a small table."""

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
import numpy as np

import kepler

print(f"kepler {kepler.__version__} from {kepler.__file__}")
print(f"jax {jax.__version__}, devices {jax.devices()}")

mean_anomaly = np.array([0.1, 1.0, 2.0, 3.0, -2.5])
ecc = np.array([0.0, 0.3, 0.6, 0.9, 0.99])

solve = jax.jit(kepler.solve)
sin_e, cos_e = solve(mean_anomaly, ecc)
ecc_anom = np.arctan2(sin_e, cos_e)
sin_f, cos_f = jax.jit(kepler.true_anomaly)(mean_anomaly, ecc)
true_anom = np.arctan2(sin_f, cos_f)
# dE/dM through jax.grad, vectorised with jax.vmap.
d_e_d_m = jax.vmap(jax.grad(lambda m, e: jnp.arctan2(*kepler.solve(m, e))))(mean_anomaly, ecc)
residual = ecc_anom - ecc * np.sin(ecc_anom) - mean_anomaly

print(f"{'M':>6} {'e':>5} {'E':>10} {'f':>10} {'dE/dM':>10} {'E - e sinE - M':>15}")
for row in zip(mean_anomaly, ecc, ecc_anom, true_anom, d_e_d_m, residual):
  print("{:6.2f} {:5.2f} {:10.6f} {:10.6f} {:10.4f} {:15.1e}".format(*row))
assert np.all(np.abs(residual) < 1e-12), "Kepler's equation is not satisfied"
print("demo: ok")
