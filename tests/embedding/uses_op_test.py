"""kepler works from another workspace or module: Kepler's equation holds for its output."""

from absl.testing import absltest
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
import numpy as np

import kepler


class UsesOpTest(absltest.TestCase):

  def test_residual_of_keplers_equation(self):
    m = np.linspace(-3, 3, 61)
    e = np.linspace(0, 0.95, 61)
    sin_e, cos_e = jax.jit(kepler.solve)(m, e)
    ecc_anom = np.arctan2(sin_e, cos_e)
    np.testing.assert_allclose(ecc_anom - e * np.sin(ecc_anom), m, atol=1e-13, rtol=0)

  def test_grad(self):
    # dE/dM = 1 / (1 - e cos E).
    grad = jax.grad(lambda x: jnp.arctan2(*kepler.solve(x, 0.5)))(1.0)
    _, cos_e = kepler.solve(1.0, 0.5)
    self.assertAlmostEqual(float(grad), float(1 / (1 - 0.5 * cos_e)), places=12)


if __name__ == "__main__":
  absltest.main()
