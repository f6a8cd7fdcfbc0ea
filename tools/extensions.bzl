"""The module extension of kepler_jax (bzlmod): the same repositories as WORKSPACE.

MODULE.bazel uses it:

    kepler = use_extension("//tools:extensions.bzl", "kepler")
    use_repo(kepler, "kepler_python", "kepler_pypi", ...)

It calls tools/workspace.bzl's kepler_jax_repositories(), the one list of
this project's repositories, whose repository rules are the same ones
WORKSPACE uses. Bazel 4.2.3 never loads this file.
"""

load("//tools:workspace.bzl", "kepler_jax_repositories")

def _declare(rule, name, **kwargs):
    rule(name = name, **kwargs)

def _kepler_impl(module_ctx):
    # The repositories do not depend on which modules use the extension: one
    # set, declared once, whoever (this module or a dependant) asks.
    kepler_jax_repositories(declare = _declare)

kepler = module_extension(
    implementation = _kepler_impl,
    doc = "The hermetic Python, the locked packages, the pinned XLA FFI headers and CUDA toolkit, and the rules_cuda stand-in.",
)
