"""kepler: Kepler's equation M = E - e sin E, and light curves, as native JAX ops.

    import kepler
    sin_E, cos_E = kepler.solve(mean_anomaly, eccentricity)
    sin_f, cos_f = kepler.true_anomaly(mean_anomaly, eccentricity)
    flux_minus_1 = kepler.limb_dark.light_curve(u, b, r)
    flux_minus_1 = kepler.transit.light_curve(t, period=P, t0=t0, a=a, r=r, u=u, b=b)

All of them work under jax.jit, jax.grad (any order, forward and reverse) and
jax.vmap. See docs/api.md for the rules on dtypes, shapes and invalid input;
each op is a module of its own (kepler/kepler_solve.py, kepler/limb_dark.py,
kepler/transit.py).
"""

# First: another distribution with files in this package's folder (pip lets
# `kepler.py` and `kepler` overwrite them) raises ImportError here.
from kepler import _ownership

_ownership.check(__path__[0])

from kepler import _jax_check  # pylint: disable=g-import-not-at-top
from kepler._version import JAX_BELOW, JAX_MIN, __version__

# Before anything touches XLA: a jax outside the range raises ImportError here.
_jax_check.check_installed()

from kepler._ffi import registration  # pylint: disable=g-import-not-at-top

_cuda_plugin = registration.register()

# The CUDA toolkit that built the installed CUDA plugin, or None without one.
cuda_version = _cuda_plugin.cuda_version if _cuda_plugin is not None else None


def cuda_status():
  """None when kepler's ops can run on a GPU here, else a message saying what is missing.

  It checks, in order, kepler's CUDA plugin (`pip install 'kepler-jax[cuda13]'`),
  an NVIDIA driver new enough for the plugin's CUDA and a GPU, and jax's own
  CUDA backend (`jax[cuda13]`). CPU use never depends on any of them.
  """
  return registration.cuda_problem(_cuda_plugin)


from kepler.kepler_solve import solve, true_anomaly  # pylint: disable=g-import-not-at-top
from kepler import limb_dark  # pylint: disable=g-import-not-at-top
from kepler import transit  # pylint: disable=g-import-not-at-top

__all__ = ["solve", "true_anomaly", "limb_dark", "transit", "cuda_version", "cuda_status", "__version__",
           "JAX_MIN", "JAX_BELOW"]
