"""The Python test files of tests/ and where each runs: the one table.

Read by tests/BUILD.bazel (the Bazel targets) and, as plain Python literals
(this file holds nothing else), by tools/wheel_tests.py, which runs the files
against installed wheels: in the wheel legs (tools/wheel_legs.py), the aarch64
leg (tools/arm64/test.sh) and the GPU check (tools/gpu_check.py). A new test
file is one row here; tests/layout_test.py fails when a tests/*_test.py file
has no row, or an op of jaxlib_ext/ops.bzl has no row naming it as its `op`.

TESTS maps a file name (without .py) to its row:
  op:       the op of jaxlib_ext/ops.bzl's OPS whose test file this is (each
            op has one such row: its tests on every platform).
  bazel:    how tests/BUILD.bazel makes its targets:
              "op":    py_op_test (jaxlib_ext/ops.bzl): NAME[_x64off]_<backend>
                       per mode of `x64` and per backend of `backends`;
              "plain": one py_test NAME with JAX_PLATFORMS=cpu;
              "own":   a stanza of its own in tests/BUILD.bazel (it needs
                       data or arguments), or no Bazel target at all.
  deps:     Bazel deps besides //kepler and the pinned packages.
  backends: "cpu" and/or "gpu" (_gpu targets with --config=cuda; the GPU
            check runs the files with "gpu").
  x64:      the values of KEPLER_TEST_X64 the file runs with ("1": jax_enable_x64
            on; "0": off). Files that do not import tests/x64_mode.py: ["1"].
  wheel:    True: runs against every installed wheel of the wheel legs.
  plugin:   True: runs only where the CUDA plugin wheel is installed too.
  arm64:    what the aarch64 leg runs under emulation (25x slower): the
            absltest selectors of a subset, ["*"] for the whole file, []
            nothing.
  shard_count, size: passed to the Bazel targets ("medium" by default).
"""

TESTS = {
    # Kepler's equation against mpmath, its derivatives, transforms and errors.
    "kepler_test": {
        "op": "kepler_solve",
        "bazel": "op",
        "deps": [":mpmath_reference", ":vmap_cases", ":x64_mode"],
        "backends": ["cpu", "gpu"],
        "x64": ["1", "0"],
        "wheel": True,
        "arm64": [
            "ValuesTest",
            "TransformTest",
            "BadInputTest",
            "CpuIsaChoiceTest",
            "GradTest.test_dE_dM_matches_closed_form",
        ],
        "shard_count": 2,
    },
    # The light curve against mpmath (float32 bounds with x64 off).
    "limb_dark_test": {
        "op": "limb_dark",
        "bazel": "op",
        "deps": [":limb_dark_laws", ":limb_dark_reference", ":x64_mode"],
        "backends": ["cpu", "gpu"],
        "x64": ["1", "0"],
        "wheel": True,
        "arm64": [
            "ApiTest",
            "DerivativeTest.test_first_derivatives",
            "AccuracyTest.test_quadratic_laws_small_planets",
        ],
        "size": "large",
    },
    # The transit model against an mpmath orbit and an adaptive exposure
    # integral (float32 bounds with x64 off).
    "transit_test": {
        "op": "transit",
        "bazel": "op",
        "deps": [":x64_mode"],
        "backends": ["cpu", "gpu"],
        "x64": ["1", "0"],
        "wheel": True,
        "arm64": ["ValuesTest.test_inclination_equals_impact_parameter", "ApiTest"],
    },
    # The documented error bounds (docs/accuracy_and_speed.md) against mpmath.
    "accuracy_test": {
        "bazel": "op",
        "deps": [":accuracy_cases", ":mpmath_reference", ":x64_mode"],
        "backends": ["cpu", "gpu"],
        "x64": ["1", "0"],
        "wheel": True,
        "arm64": [],
    },
    # Property-based fuzzing of both ops (hypothesis, pinned in requirements.in)
    # against a numpy oracle of docs/api.md.
    "fuzz_test": {
        "bazel": "op",
        "deps": [":x64_mode"],
        "backends": ["cpu"],
        "x64": ["1", "0"],
        "wheel": False,
        "arm64": [],
        "shard_count": 2,
    },
    # Both ops partitioned elementwise on 8 host devices (no GPU twin).
    "sharding_test": {
        "bazel": "op",
        "deps": [":x64_mode"],
        "backends": ["cpu"],
        "x64": ["1", "0"],
        "wheel": True,
        "arm64": [],
    },
    # The CUDA path against the CPU and mpmath, proof that the work runs on the
    # GPU, the plugin's absence reported, CUDA graphs: fails, never skips,
    # without a GPU.
    "gpu_test": {
        "bazel": "op",
        "deps": [":mpmath_reference", ":vmap_cases"],
        "backends": ["gpu"],
        # It sets its own modes per test (float32 and float64 cases).
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # Two processes on localhost (jax.distributed, gloo), a global array sharded
    # across both; the workers are this file with --worker.
    "multiprocess_test": {
        "bazel": "plain",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": True,
        "arm64": [],
    },
    # How `import kepler` treats the CUDA plugin, without a GPU.
    "cuda_plugin_test": {
        "bazel": "plain",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": True,
        "arm64": ["*"],
    },
    # `import kepler` with other distributions' files in its folder.
    "ownership_test": {
        "bazel": "plain",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # The CUDA plugin as installed from its wheel (no Bazel target).
    "installed_plugin_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": True,
        "plugin": True,
        "arm64": ["*"],
    },
    # The supported jax range and the FFI headers' version agree.
    "version_range_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # The wheel's files, tags and metadata.
    "wheel_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # Agreement with exoplanet-core (manual: Python 3.12's benchmark lock).
    "limb_dark_peers_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # Agreement with jaxoplanet and batman (manual: Python 3.12's benchmark lock).
    "transit_peers_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # The CUDA kernels' code compiled for the host, against mpmath.
    "device_path_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # The light curve's constant tables are what tools/math_tables.py
    # writes, and hold what their users rely on.
    "math_tables_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
    # Every op of jaxlib_ext/ops.bzl has the pieces docs/adding_an_op.md names.
    "layout_test": {
        "bazel": "own",
        "deps": [],
        "backends": ["cpu"],
        "x64": ["1"],
        "wheel": False,
        "arm64": [],
    },
}
