"""kepler: Kepler's equation M = E - e sin E as a native JAX op.

    import kepler
    sin_E, cos_E = kepler.solve(mean_anomaly, eccentricity)
    sin_f, cos_f = kepler.true_anomaly(mean_anomaly, eccentricity)

Both work under jax.jit, jax.grad (any order, forward and reverse) and
jax.vmap. See kepler/_ops.py for the primitive and README.md for the rules on
dtypes, shapes and invalid input.
"""

from kepler._ops import cuda_version, solve, true_anomaly
from kepler._version import __version__

__all__ = ["solve", "true_anomaly", "cuda_version", "__version__"]
