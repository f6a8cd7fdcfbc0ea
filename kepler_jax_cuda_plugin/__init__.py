"""kepler's CUDA plugin: the CUDA handlers of every op, for `import kepler`.

Installed by `pip install 'kepler-jax[cuda13]'` (the wheel
kepler-jax-cuda13-plugin, of the same version as kepler-jax). Users never
import it: `import kepler` does, checks that its version is kepler's own, and
registers `registrations()` with XLA for the CUDA platform.
"""

from kepler_jax_cuda_plugin._kepler_cuda import cuda_version, device_problem, registrations
from kepler_jax_cuda_plugin._version import __version__

__all__ = ["__version__", "cuda_version", "device_problem", "registrations"]
