"""Everything a workspace needs to build @kepler_jax, offline.

Use from this repository's WORKSPACE, or from your own after pulling this
repository in (see tests/embedding/WORKSPACE):

    load("@kepler_jax//tools:workspace.bzl", "kepler_jax_dependencies")
    kepler_jax_dependencies()
"""

load("//third_party/python:repositories.bzl", "hermetic_python", "pip_lock_repository")

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

    _maybe(hermetic_python, name = "kepler_python")
    _maybe(pip_lock_repository, name = "kepler_pypi")
    native.register_toolchains("@kepler_python//:toolchain")
