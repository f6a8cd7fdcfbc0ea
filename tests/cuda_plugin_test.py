"""How `import kepler` treats the CUDA plugin, checked without a GPU.

- No plugin (an installed one hidden): kepler.cuda_version is None, CPU use
  works, and both kepler.cuda_status() and the CUDA stand-in handler carry a
  message naming `kepler-jax[cuda13]`.
- A plugin of another version: refused with a RuntimeWarning naming both
  versions, not registered, CPU use unaffected.
- A plugin that does not load (its CUDA module): not used, CPU use
  unaffected, kepler.cuda_status() says why.
- The stand-in handler itself (jaxlib_ext/gpu_unavailable.cc), run through the
  CPU platform under a test target name: it fails with the message it was given
  and accepts any arguments and attributes.
The real plugin, installed from its wheel: tests/installed_plugin_test.py.
On a GPU, tests/gpu_test.py (PluginTest) checks what GPU arrays do without the plugin.
"""

import os
import subprocess
import sys
import tempfile
import textwrap

from absl.testing import absltest

from kepler import _version

_PLUGIN = "kepler_jax_cuda_plugin"
# Prepended to a child's code: hides an installed plugin, as if it were absent.
_HIDE_PLUGIN = f"import sys; sys.modules[{_PLUGIN!r}] = None\n"


def _run_python(code, extra_path=None, hide_plugin=False):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  if extra_path:
    env["PYTHONPATH"] = extra_path + os.pathsep + env.get("PYTHONPATH", "")
  code = (_HIDE_PLUGIN if hide_plugin else "") + textwrap.dedent(code)
  return subprocess.run([sys.executable, "-W", "always", "-c", code],
                        capture_output=True, text=True, env=env, timeout=300)


# What a child says of the plugin, and a solve on the CPU.
_STATUS = """
    import jax.numpy as jnp
    import kepler
    print("CUDA", kepler.cuda_version)
    print("STATUS", kepler.cuda_status())
    print("CPU", float(kepler.solve(jnp.float32(1.0), jnp.float32(0.0))[0]))
    """


class CudaPluginTest(absltest.TestCase):

  def test_no_plugin(self):
    result = _run_python(_STATUS, hide_plugin=True)
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertIn("CUDA None", result.stdout)
    self.assertIn(f"STATUS kepler: GPU arrays need kepler's CUDA plugin, which is not installed: "
                  f"pip install 'kepler-jax[{_version.CUDA_EXTRA}]=={_version.__version__}'",
                  result.stdout)
    self.assertIn("CPU 0.84147", result.stdout)

  def test_plugin_of_another_version_is_refused(self):
    # The fake plugin, first on the path, shadows an installed one.
    with tempfile.TemporaryDirectory() as site:
      os.makedirs(os.path.join(site, "kepler_jax_cuda_plugin"))
      with open(os.path.join(site, "kepler_jax_cuda_plugin", "__init__.py"), "w") as f:
        f.write("__version__ = '0.0.9'\ncuda_version = '13.0'\n"
                "def registrations():\n  raise AssertionError('a refused plugin was used')\n")
      result = _run_python("""
          import jax.numpy as jnp
          import kepler
          print("CUDA", kepler.cuda_version)
          print("CPU", float(kepler.solve(jnp.float32(1.0), jnp.float32(0.0))[0]))
          """, extra_path=site)
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertIn("RuntimeWarning", result.stderr)
    self.assertIn(f"kepler-jax-{_version.CUDA_EXTRA}-plugin 0.0.9", result.stderr)
    self.assertIn(f"kepler-jax {_version.__version__}", result.stderr)
    self.assertIn("CUDA None", result.stdout)
    self.assertIn("CPU 0.84147", result.stdout)

  def test_plugin_that_does_not_load_is_not_used(self):
    # As when its CUDA module cannot be loaded here (a damaged file, a C
    # library too old): the plugin's import fails; kepler runs on the CPU
    # and says why in cuda_status().
    with tempfile.TemporaryDirectory() as site:
      os.makedirs(os.path.join(site, "kepler_jax_cuda_plugin"))
      with open(os.path.join(site, "kepler_jax_cuda_plugin", "__init__.py"), "w") as f:
        f.write("raise OSError('libkepler_cuda.so: invalid ELF header')\n")
      result = _run_python(_STATUS, extra_path=site)
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertIn("CUDA None", result.stdout)
    self.assertIn(f"STATUS kepler: kepler's CUDA plugin (kepler-jax-{_version.CUDA_EXTRA}-plugin) "
                  "is installed but does not load (libkepler_cuda.so: invalid ELF header); "
                  "reinstall it", result.stdout)
    self.assertIn("CPU 0.84147", result.stdout)

  def test_stand_in_handler_fails_with_its_message(self):
    result = _run_python("""
        import jax, jax.numpy as jnp
        import kepler
        from kepler._lib import _kepler_cpu
        jax.ffi.register_ffi_target("kepler_test_stand_in", _kepler_cpu.gpu_unavailable_handler(),
                                    platform="cpu")
        _kepler_cpu.set_gpu_unavailable_message("stand-in says: install the plugin")
        out = jax.ShapeDtypeStruct((3,), jnp.float32)
        try:
          r = jax.ffi.ffi_call("kepler_test_stand_in", (out, out))(
              jnp.ones(3), jnp.ones(3), true_anomaly=True)
          jax.block_until_ready(r)
          print("NO-ERROR")
        except Exception as e:
          print("ERROR", type(e).__name__, e)
        print("AFTER", float(kepler.solve(jnp.float32(1.0), jnp.float32(0.0))[0]))
        """, hide_plugin=True)
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertNotIn("NO-ERROR", result.stdout)
    self.assertIn("stand-in says: install the plugin", result.stdout)
    self.assertIn("AFTER 0.84147", result.stdout)


if __name__ == "__main__":
  absltest.main()
