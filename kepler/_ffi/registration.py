"""Registers every op's compiled handlers with XLA, once, at import.

The CPU handlers come with this package (kepler/_lib/_kepler_cpu). The CUDA
handlers come from the plugin package kepler_jax_cuda_plugin, installed by
`pip install 'kepler-jax[cuda13]'` and accepted only at kepler's own version.
Without an accepted plugin, every target gets a CUDA stand-in that fails with
a message saying what to install (jaxlib_ext/gpu_unavailable.h), so GPU
arrays give that error while CPU use is unaffected.
"""

import warnings

import jax

from kepler._ffi import partition
from kepler._lib import _kepler_cpu
from kepler._version import CUDA_EXTRA, __version__

PLUGIN_MODULE = "kepler_jax_cuda_plugin"
PLUGIN_DIST = f"kepler-jax-{CUDA_EXTRA}-plugin"
_INSTALL = f"pip install 'kepler-jax[{CUDA_EXTRA}]=={__version__}'"


def _does_not_load(error):
  return (f"kepler: kepler's CUDA plugin ({PLUGIN_DIST}) is installed but does not load "
          f"({error}); reinstall it: {_INSTALL}")


def _load_cuda_plugin():
  """(the plugin module, None) or (None, why it is not used)."""
  try:
    plugin = __import__(PLUGIN_MODULE)
  except ImportError as e:
    if e.name == PLUGIN_MODULE:
      return None, (f"kepler: GPU arrays need kepler's CUDA plugin, which is not installed: "
                    f"{_INSTALL}")
    return None, _does_not_load(e)
  except Exception as e:  # pylint: disable=broad-except (a module that fails otherwise)
    return None, _does_not_load(e)
  found = getattr(plugin, "__version__", "unknown")
  if found != __version__:
    message = (f"kepler: the CUDA plugin {PLUGIN_DIST} {found} does not match kepler-jax "
               f"{__version__}; it is not used, so kepler runs on the CPU only. Install "
               f"matching versions: {_INSTALL}")
    warnings.warn(message, RuntimeWarning, stacklevel=3)
    return None, message
  return plugin, None


# Why no plugin is in use (None when one is), kept by register().
_plugin_problem = None


def cuda_problem(plugin):
  """None when kepler can run on a GPU here, else what is missing, in a sentence.

  In order: kepler's CUDA plugin (`plugin`, None without one), an NVIDIA
  driver and GPU (asked through the plugin's own CUDA runtime), jax's CUDA
  backend. Nothing is run on a device.
  """
  if plugin is None:
    return _plugin_problem
  device = plugin.device_problem()
  if device:
    return f"kepler: GPU use is not possible here: {device}"
  try:
    jax.devices("cuda")
  except RuntimeError as e:
    return (f"kepler: jax has no CUDA backend ({e}); it needs jax's own CUDA plugin: "
            f"pip install 'jax[{CUDA_EXTRA}]'")
  return None


def register():
  """Registers the CPU handlers and the CUDA handlers (or their stand-in)."""
  global _plugin_problem
  cpu_targets = _kepler_cpu.registrations()
  for name, capsule in cpu_targets.items():
    jax.ffi.register_ffi_target(name, capsule, platform="cpu")
  plugin, problem = _load_cuda_plugin()
  _plugin_problem = problem
  cuda_targets = plugin.registrations() if plugin is not None else {}
  for name, capsule in cuda_targets.items():
    jax.ffi.register_ffi_target(name, capsule, platform="CUDA")
  # Every target the plugin does not serve (all of them without a plugin)
  # gets the stand-in, so that GPU arrays fail with a message, not a crash.
  missing = [name for name in cpu_targets if name not in cuda_targets]
  if missing:
    _kepler_cpu.set_gpu_unavailable_message(
        problem or f"kepler: the installed CUDA plugin has no CUDA kernel for {missing}")
    for name in missing:
      jax.ffi.register_ffi_target(name, _kepler_cpu.gpu_unavailable_handler(), platform="CUDA")
  # Every op partitions elementwise on many devices (kepler/_ffi/partition.py).
  for name in cpu_targets:
    partition.register_target(name)
  return plugin
