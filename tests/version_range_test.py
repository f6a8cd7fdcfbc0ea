"""The supported jax range: one source, honoured by the build and by `import kepler`.

- The XLA FFI headers the handlers are compiled against are those of jaxlib
  JAX_MIN (kepler/_version.py), the floor the wheel declares.
- A jax or jaxlib outside [JAX_MIN, JAX_BELOW) makes `import kepler` raise
  ImportError naming the found and the supported versions, before anything is
  registered with XLA, and JAX keeps working in that process. (CI also checks
  this against a real older jax: tools/wheel_legs.py.)
"""

import os
import subprocess
import sys
import textwrap

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized

from kepler import _ffi
from kepler import _jax_check
from kepler import _version

_HEADERS_VERSION_FILE = flags.DEFINE_string(
    "headers_version_file", None, "jaxlib_version.txt of @xla_ffi_headers", required=True)


def _run_python(code):
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                        text=True, env=env, timeout=300)


class VersionRangeTest(parameterized.TestCase):

  def test_headers_are_those_of_the_floor(self):
    with open(_HEADERS_VERSION_FILE.value, encoding="utf-8") as f:
      self.assertEqual(f.read().strip(), _version.JAX_MIN)

  def test_range_is_well_formed(self):
    self.assertLess(_jax_check.release(_version.JAX_MIN), _jax_check.release(_version.JAX_BELOW))
    self.assertLessEqual(_jax_check.release(_version.JAX_MIN), (0, 6, 0), "the floor is jax 0.6 or older")

  @parameterized.parameters(
      ("0.12.0.1", (0, 12, 0, 1)), ("0.6.0", (0, 6, 0)), ("0.13.0.dev20261101", (0, 13, 0)),
      ("0.7.0rc1", (0, 7, 0)), ("1.0", (1, 0)))
  def test_release(self, version, expected):
    self.assertEqual(_jax_check.release(version), expected)

  @parameterized.parameters(
      ("0.5.3", False), ("0.6.0", True), ("0.12.0.1", True), ("0.12.9", True),
      ("0.13.0", False), ("0.13.0.dev20261101", False), ("1.0.0", False))
  def test_supported(self, version, expected):
    # The cases assume the range in _version.py is 0.6.0 .. < 0.13.
    self.assertEqual(_version.JAX_MIN, "0.6.0")
    self.assertEqual(_version.JAX_BELOW, "0.13")
    self.assertEqual(_jax_check.supported(version), expected)

  def test_the_installed_jax_is_in_range(self):
    import jax  # pylint: disable=g-import-not-at-top
    from jaxlib import version as jaxlib_version  # pylint: disable=g-import-not-at-top
    self.assertTrue(_jax_check.supported(jax.__version__), jax.__version__)
    self.assertTrue(_jax_check.supported(jaxlib_version.__version__))

  @parameterized.named_parameters(
      ("jax_too_old", "jax", "0.5.3"),
      ("jaxlib_too_old", "jaxlib", "0.5.3"),
      ("jax_too_new", "jax", "0.13.0"),
      ("jaxlib_too_new", "jaxlib", "0.14.1"),
  )
  def test_out_of_range_refused_and_jax_keeps_working(self, which, fake):
    # The running jax (or jaxlib) claims another version, as one installed
    # with --no-deps would; the real one keeps running, so JAX must still work.
    result = _run_python(f"""
        import jax, jax.numpy as jnp
        from jaxlib import version as jaxlib_version
        {"jax.__version__" if which == "jax" else "jaxlib_version.__version__"} = "{fake}"
        try:
          import kepler
        except ImportError as e:
          print("IMPORT-ERROR:", e)
        else:
          print("IMPORTED")
        # Nothing was registered: the FFI target is unknown to XLA.
        out = jax.ShapeDtypeStruct((2,), jnp.float32)
        try:
          jax.ffi.ffi_call("{_ffi.target('kepler_solve')}", (out, out))(jnp.ones(2), jnp.ones(2), true_anomaly=False)
          print("TARGET-REGISTERED")
        except Exception as e:
          print("TARGET-UNKNOWN")
        print("JAX-WORKS", float(jax.jit(jnp.sin)(0.5)), float(jnp.cos(0.0)))
        """)
    self.assertEqual(result.returncode, 0, result.stderr)
    out = result.stdout
    self.assertIn("IMPORT-ERROR:", out)
    self.assertNotIn("IMPORTED", out.replace("IMPORT-ERROR", ""))
    self.assertIn(f"{which} {fake}", out)
    self.assertIn(f">={_version.JAX_MIN},<{_version.JAX_BELOW}", out)
    self.assertIn("TARGET-UNKNOWN", out)
    self.assertIn("JAX-WORKS 0.479425", out)  # sin(0.5) = 0.4794255...

  def test_in_range_import_registers_and_runs(self):
    result = _run_python("""
        import jax.numpy as jnp
        import kepler
        s, c = kepler.solve(jnp.float32(1.0), jnp.float32(0.0))
        print("OK", float(s), float(c))
        """)
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertIn("OK 0.84147", result.stdout)  # e = 0: E = M, sin 1 = 0.841470...


if __name__ == "__main__":
  absltest.main()
