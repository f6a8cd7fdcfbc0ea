"""Everything a workspace needs to build @kepler_jax, offline.

Use from this repository's WORKSPACE, or from your own after pulling this
repository in (see tests/embedding/WORKSPACE):

    load("@kepler_jax//tools:workspace.bzl", "kepler_jax_dependencies")
    kepler_jax_dependencies()
"""

load("//third_party/python:repositories.bzl", "hermetic_python", "pip_lock_repository")
load("//third_party/rules_cuda:local_cuda.bzl", "cuda_version_repository", "local_cuda")
load("//third_party/xla_ffi:repositories.bzl", "xla_ffi_headers")
load("//third_party/zig:repositories.bzl", "zig_toolchain")

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

def kepler_jax_repositories(declare = _maybe):
    """The repositories of this project, declared by `declare(rule, name, **kwargs)`.

    The one list both entry points use: kepler_jax_dependencies() (WORKSPACE)
    declares them when absent, the module extension in tools/extensions.bzl
    (bzlmod) declares them outright.
    """

    # rules_cuda's interface (the subset this repository needs) and the local
    # CUDA toolkit, under the names rules_cuda gives them.
    declare(
        _vendored_repository,
        name = "rules_cuda",
        build_file = Label("//third_party/rules_cuda:BUILD.bazel"),
    )
    declare(local_cuda, name = "local_cuda")
    declare(cuda_version_repository, name = "kepler_cuda_version")

    # The XLA FFI headers of the oldest supported jaxlib (JAX_MIN in
    # kepler/_version.py): handlers built against them load into every jaxlib
    # from that one on. Any wheel of that jaxlib release holds the same headers.
    declare(
        xla_ffi_headers,
        name = "xla_ffi_headers",
        jaxlib_version = "0.6.0",
        # jaxlib-0.6.0-cp312-cp312-manylinux2014_x86_64.whl
        sha256 = "b6d85b8d1fd79248b04503517201e72fcbcd3980cf791d37e814709ea50a3c82",
        wheel_platform = "manylinux2014_x86_64",
        wheel_python = "3.12",
    )

    # The C/C++ toolchain of the wheels: zig's clang, targeting glibc 2.17 with
    # libc++ linked in (manylinux_2_17). .bazelrc makes it the default.
    declare(
        zig_toolchain,
        name = "kepler_zig",
        glibc_version = "2.17",
        # ziglang-0.17.0-py3-none-manylinux_2_12_x86_64.manylinux2010_x86_64.musllinux_1_1_x86_64.whl
        sha256 = "97079827064a7492cce5541ceb438ae8003ce1e54e399676da2d62fb7a5dc08b",
        wheel_platform = "manylinux_2_12_x86_64",
        zig_version = "0.17.0",
    )

    declare(hermetic_python, name = "kepler_python")
    declare(pip_lock_repository, name = "kepler_pypi")

    # The JAX CUDA plugin for the GPU test variants, fetched only when one is
    # built (--config=cuda without --build_tag_filters=-gpu).
    declare(
        pip_lock_repository,
        name = "kepler_pypi_cuda",
        lock_prefix = "requirements_cuda_lock",
        base_lock_prefix = "requirements_lock",
        python_versions = ["3.12"],
    )

    # The benchmark's peers (bazel run //benchmarks:cpu_benchmark).
    declare(
        pip_lock_repository,
        name = "kepler_bench_pypi",
        lock_prefix = "requirements_bench_lock",
        base_lock_prefix = "requirements_lock",
        python_versions = ["3.12"],
    )

def kepler_jax_dependencies():
    """WORKSPACE: declares the external repositories and registers the toolchains."""

    # Bazel 4.2.3's built-in WORKSPACE suffix would download these three
    # (under bzlmod they are modules: see MODULE.bazel).
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
    kepler_jax_repositories()
    native.register_toolchains("@kepler_python//:toolchain")
