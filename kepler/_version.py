"""The package version and the jax versions it supports: the one place for both.

The wheel's version and its `Requires-Dist: jax>=JAX_MIN,<JAX_BELOW` (and the
same for jaxlib) are read from here by tools/wheel/build_wheel.py; `import
kepler` refuses a jax or jaxlib outside the range (kepler/_jax_check.py). The
XLA FFI headers the handlers are compiled against are those of jaxlib JAX_MIN
(pinned in tools/workspace.bzl; tests/version_range_test.py checks the two
agree). JAX_BELOW is the minor release after the newest one tested.
"""

__version__ = "0.1.0"
JAX_MIN = "0.6.0"
JAX_BELOW = "0.13"
# The extra that installs the CUDA plugin: pip install 'kepler-jax[cuda13]'
# (the plugin wheel kepler-jax-cuda13-plugin). The build checks it against the
# CUDA toolkit's major version.
CUDA_EXTRA = "cuda13"
# The oldest Python of each wheel (Requires-Python): the oldest the wheels
# are tested with (tools/setup.sh), and for the CUDA plugin the oldest that jax's own
# CUDA 13 plugin supports. The wheels serve every newer Python (py3-none).
PYTHON_MIN = "3.11"
CUDA_PYTHON_MIN = "3.12"
