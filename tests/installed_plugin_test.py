"""kepler's CUDA plugin as installed from its wheel, on a machine without a GPU.

Run where the plugin wheel is installed next to kepler-jax and jax
(tools/wheel_legs.py on x86-64, tools/arm64/test.sh on aarch64 under qemu);
it fails, not skips, without the plugin. Without an NVIDIA driver:
`import kepler` loads the plugin, CPU use is unaffected, jax refuses GPU use,
and kepler.cuda_status() says that the driver is missing and which CUDA the
plugin is built with. With a driver (a GPU machine), kepler.cuda_status()
names what else is missing, or nothing.
"""

import ctypes
import importlib.util
import os
import subprocess
import sys
import textwrap

from absl.testing import absltest


def _driver_loads():
  try:
    ctypes.CDLL("libcuda.so.1")
  except OSError:
    return False
  return True


class InstalledPluginTest(absltest.TestCase):

  def test_installed_plugin_without_a_gpu(self):
    self.assertIsNotNone(importlib.util.find_spec("kepler_jax_cuda_plugin"),
                         "kepler's CUDA plugin is not installed")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import jax, jax.numpy as jnp, numpy as np
        import kepler, kepler_jax_cuda_plugin
        print("CUDA", kepler.cuda_version, kepler_jax_cuda_plugin.cuda_version)
        print("STATUS", kepler.cuda_status())
        # CPU use: the solve at e = 0 (E = M) and a light curve outside transit.
        sin_e = kepler.solve(jnp.linspace(0.1, 3.0, 64), jnp.zeros(64))[0]
        print("CPU", float(jnp.max(jnp.abs(sin_e - jnp.sin(jnp.linspace(0.1, 3.0, 64))))))
        print("FLUX", float(kepler.limb_dark.light_curve(jnp.array([0.4, 0.26]), 2.0, 0.1)))
        try:
          jax.jit(kepler.solve, backend="cuda")(1.0, 0.5)
          print("GPU-USE-WORKED")
        except RuntimeError as e:
          print("GPU-REFUSED", str(e).splitlines()[0])
        """)], capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS=""),
                            timeout=600, check=False)
    self.assertEqual(result.returncode, 0, result.stderr)
    print(f"\ninstalled_plugin_test: with the plugin installed:\n{result.stdout}", file=sys.stderr)
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    version, plugin_version = lines["CUDA"].split()
    self.assertEqual(version, plugin_version)
    self.assertRegex(version, r"^\d+\.\d+$")
    self.assertLess(float(lines["CPU"]), 1e-6)
    self.assertEqual(float(lines["FLUX"]), 0.0)
    if not _driver_loads():
      self.assertIn("GPU-REFUSED", result.stdout)
      self.assertIn("no NVIDIA driver: libcuda.so.1 could not be loaded", lines["STATUS"])
      self.assertIn(f"built with CUDA {version}", lines["STATUS"])
    elif lines["STATUS"] != "None":  # a driver: the status names what else is missing
      self.assertIn("GPU-REFUSED", result.stdout)
      self.assertTrue(lines["STATUS"].startswith("kepler: "), lines["STATUS"])



if __name__ == "__main__":
  absltest.main()
