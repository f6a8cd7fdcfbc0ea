"""Everything a workspace needs to build @kepler_jax, offline.

Use from this repository's WORKSPACE, or from your own after pulling this
repository in (see tests/embedding/WORKSPACE):

    load("@kepler_jax//tools:workspace.bzl", "kepler_jax_dependencies")
    kepler_jax_dependencies()
"""

load("//third_party/python:repositories.bzl", "hermetic_python", "pip_lock_repository")
load("//third_party/rules_cuda:local_cuda.bzl", "cuda_version_repository", "local_cuda")
load("//third_party/xla_ffi:repositories.bzl", "xla_ffi_headers")

def _vendored_repository_impl(rctx):
    # Lays out a folder of this repository as a repository of its own.
    src = rctx.path(rctx.attr.build_file).dirname
    for child in src.readdir():
        rctx.symlink(child, child.basename)
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)

_vendored_repository = repository_rule(
    implementation = _vendored_repository_impl,
    attrs = {"build_file": attr.label(allow_single_file = True)},
)

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def kepler_jax_dependencies():
    """Declares the external repositories and registers the toolchains."""

    # Bazel 4.2.3's built-in WORKSPACE suffix would download these three.
    _maybe(
        _vendored_repository,
        name = "rules_cc",
        build_file = Label("//third_party/rules_cc:BUILD.bazel"),
    )
    _maybe(
        _vendored_repository,
        name = "remote_coverage_tools",
        build_file = Label("//third_party/remote_coverage_tools:BUILD.bazel"),
    )
    _maybe(
        native.local_repository,
        name = "rules_java",
        path = "/usr/share/bazel/rules/java",  # Debian's bazel-rules-java
    )

    # rules_cuda's interface (the subset this repository needs) and the local
    # CUDA toolkit, under the names rules_cuda gives them.
    _maybe(
        _vendored_repository,
        name = "rules_cuda",
        build_file = Label("//third_party/rules_cuda:BUILD.bazel"),
    )
    _maybe(local_cuda, name = "local_cuda")
    _maybe(cuda_version_repository, name = "kepler_cuda_version")

    # The XLA FFI headers of the oldest supported jaxlib (JAX_MIN in
    # kepler/_version.py): handlers built against them load into every jaxlib
    # from that one on. Any wheel of that jaxlib release holds the same headers.
    _maybe(
        xla_ffi_headers,
        name = "xla_ffi_headers",
        jaxlib_version = "0.6.0",
        sha256 = "b6d85b8d1fd79248b04503517201e72fcbcd3980cf791d37e814709ea50a3c82",
        urls = ["https://files.pythonhosted.org/packages/a7/c4/1a252f12e3ed0a3986cfb36bbdc38ff33e358f58ee7a0ddb5d6bb126cb31/jaxlib-0.6.0-cp312-cp312-manylinux2014_x86_64.whl"],
    )

    _maybe(hermetic_python, name = "kepler_python")
    _maybe(pip_lock_repository, name = "kepler_pypi")

    # The JAX CUDA plugin for the GPU test variants, fetched only when one is
    # built (--config=cuda without --build_tag_filters=-gpu).
    _maybe(
        pip_lock_repository,
        name = "kepler_pypi_cuda",
        lock_prefix = "requirements_cuda_lock",
        base_lock_prefix = "requirements_lock",
        python_versions = ["3.12"],
    )
    native.register_toolchains("@kepler_python//:toolchain")
    _maybe(pip_lock_repository, name = "kepler_bench_pypi", lock_prefix = "requirements_bench_lock", base_lock_prefix = "requirements_lock", python_versions = ["3.12"])
