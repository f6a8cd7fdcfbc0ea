"""Everything a workspace needs to build @kepler_jax, offline.

Use from this repository's WORKSPACE, or from your own after pulling this
repository in (see tests/embedding/WORKSPACE):

    load("@kepler_jax//tools:workspace.bzl", "kepler_jax_dependencies")
    kepler_jax_dependencies()
"""

load("//third_party/cuda:repositories.bzl", "cuda_toolkit_repository", "cuda_version_repository")
load("//third_party/python:repositories.bzl", "hermetic_python", "pip_lock_repository")
load("//third_party/xla_ffi:repositories.bzl", "xla_ffi_headers")
load("//third_party/zig:repositories.bzl", "zig_toolchain")

# The CUDA toolkit of --config=cuda (third_party/cuda): NVIDIA's wheels of one
# CUDA release, each pinned by version and by the sha256 of its wheel for every
# architecture ("PLATFORM=SHA256"; tools/requirements/pin_cuda.sh prints this
# table for a release). The same release as the nvidia-* packages jax's own
# CUDA 13 plugin resolves to in tools/requirements/requirements_cuda_lock_*.
# LOCAL_CUDA_PATH=/path/to/cuda opts in to a local toolkit instead.
CUDA_WHEELS = {
    "nvidia-cuda-nvcc==13.5.37": [
        "manylinux_2_17_x86_64=f5c4f7ead5d964fb4af42bbf1e6d3ec3c1e6e9d83b53749f691d387e7fcaa3a7",
        "manylinux_2_17_aarch64=588eda18eb5076ae859fe272844b526459228af22df0b117f54eec3aa82bc9c8",
    ],
    "nvidia-nvvm==13.5.37": [
        "manylinux_2_12_x86_64=c41bfa362e407405163f103c2229f0765f8cc2ed7d148b754dc77f228bf7e070",
        "manylinux_2_17_aarch64=b659bd3115b7ac7ec8931e67d0e2c0dd09cd35b08a6a7372df6f8f22c67da80a",
    ],
    "nvidia-cuda-crt==13.5.37": [
        "manylinux_2_17_x86_64=e898b7f73d3035fa89915a3f7bf3b54a73e90249746111aed295822c4729bb29",
        "manylinux_2_17_aarch64=9ed2c565fdf3244fa6719769a80a466b85bfd4b1467ea339353bc91c971d09e0",
    ],
    "nvidia-cuda-runtime==13.5.37": [
        "manylinux_2_17_x86_64=df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d",
        "manylinux_2_17_aarch64=de2dc5a7367974228b0a69588a9acc9340d3768bef1bf38bf0801eb08497cd2d",
    ],
    "nvidia-cuda-cccl==13.3.5.0.6": [
        "manylinux_2_17_x86_64=d5230098fa2df5021e1a00c0c4eee41797671a91119d31e892463e5ccf3ee326",
        "manylinux_2_17_aarch64=6f30b8076b3e69951c459c94ae190bde51924b320076ebaec376d36848b4c76e",
    ],
}

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

    # rules_cuda's interface (the subset this repository needs) and the CUDA
    # toolkit, under the names rules_cuda gives them. The toolkit is fetched
    # only by builds with --config=cuda.
    declare(
        _vendored_repository,
        name = "rules_cuda",
        build_file = Label("//third_party/rules_cuda:BUILD.bazel"),
    )
    declare(cuda_toolkit_repository, name = "local_cuda", wheels = CUDA_WHEELS)
    declare(cuda_version_repository, name = "kepler_cuda_version", wheels = CUDA_WHEELS)

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
