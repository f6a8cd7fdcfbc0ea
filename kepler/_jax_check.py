"""Refuses a jax or jaxlib outside the supported range, before anything is registered.

The handlers are compiled against the XLA FFI headers of jaxlib JAX_MIN; an
older jaxlib would reject them while starting its CPU backend, and that would
break every later jax call in the process, not only kepler's. So `import
kepler` checks first and raises ImportError naming both versions; nothing is
registered and the rest of JAX keeps working.
"""

import re

from kepler._version import JAX_BELOW, JAX_MIN, __version__


def release(version):
  """The leading numeric release of a version string: "0.12.0.1" -> (0, 12, 0, 1)."""
  parts = []
  for piece in str(version).split("."):
    digits = re.match(r"\d+", piece)
    if not digits:
      break
    parts.append(int(digits.group()))
    if digits.end() != len(piece):  # "0rc1", "2.dev3": the release ends here
      break
  return tuple(parts)


def supported(version):
  return release(JAX_MIN) <= release(version) < release(JAX_BELOW)


def check(jax_version, jaxlib_version):
  """Raises ImportError unless both versions are in [JAX_MIN, JAX_BELOW)."""
  if not (supported(jax_version) and supported(jaxlib_version)):
    raise ImportError(
        f"kepler {__version__} supports jax and jaxlib >={JAX_MIN},<{JAX_BELOW}, but "
        f"found jax {jax_version} and jaxlib {jaxlib_version}. Install a supported jax: "
        f"pip install 'jax>={JAX_MIN},<{JAX_BELOW}' 'jaxlib>={JAX_MIN},<{JAX_BELOW}'. "
        "Nothing was registered with XLA; the rest of JAX is unaffected.")


def check_installed():
  import jax  # pylint: disable=g-import-not-at-top
  from jaxlib import version as jaxlib_version  # pylint: disable=g-import-not-at-top
  check(jax.__version__, jaxlib_version.__version__)
