"""Build macros of the repository (the counterpart of jaxlib's jax.bzl).

Labels are wrapped in Label() so that the macros also work when this
repository is pulled into another workspace as @kepler_jax.
"""

# Flags for every C++ source of the ops: one place to change them.
KEPLER_COPTS = [
    "-std=c++17",
    "-O3",
    "-fno-math-errno",
]

def pybind_extension(name, srcs, deps = [], **kwargs):
    """A Python extension module `name`.so and a py_library `name` holding it.

    libstdc++ and libgcc are linked statically so that the module needs
    nothing from the system but glibc (what manylinux wheels may assume).
    """
    native.cc_binary(
        name = name + ".so",
        srcs = srcs,
        copts = KEPLER_COPTS + ["-fvisibility=hidden", "-fexceptions"],
        linkshared = True,
        linkstatic = True,
        linkopts = ["-static-libstdc++", "-static-libgcc"],
        deps = deps + [
            Label("@kepler_pypi//:pybind11_headers"),
            Label("@kepler_python//:headers"),
        ],
        **kwargs
    )
    native.py_library(
        name = name,
        data = [name + ".so"],
        visibility = kwargs.get("visibility"),
    )

def kepler_py_test(name, srcs, deps = [], args = [], **kwargs):
    """A Python test run against the CPU backend, as `name`_cpu."""
    native.py_test(
        name = name + "_cpu",
        srcs = srcs,
        main = srcs[0],
        args = args,
        python_version = "PY3",
        env = {"JAX_PLATFORMS": "cpu"},
        tags = ["cpu"],
        deps = deps + [Label("@kepler_pypi//:pkgs")],
        **kwargs
    )
