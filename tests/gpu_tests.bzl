"""The test files in tests/ (names without .py) that also run on the GPU.

The one list of GPU tests: jaxlib_ext/ops.bzl's py_op_test gives each of
these files its _gpu targets, and tools/gpu_check.py runs them on a GPU
machine without Bazel, reading this file as Python (so it holds only this
plain list literal).
"""

GPU_TESTS = ["gpu_test", "kepler_test", "accuracy_test", "limb_dark_test"]
