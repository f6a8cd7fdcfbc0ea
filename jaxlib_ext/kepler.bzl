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
    """A Python extension module `name`.so and a py_library `name` holding it."""
    native.cc_binary(
        name = name + ".so",
        srcs = srcs,
        copts = KEPLER_COPTS + ["-fvisibility=hidden", "-fexceptions"],
        linkshared = True,
        linkstatic = True,
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
    """One Python test file as two targets: `name`_cpu and `name`_gpu.

    `name`_cpu runs everywhere. `name`_gpu runs the same file with
    JAX_PLATFORMS=cuda; it exists only with --config=cuda, is tagged "gpu"
    (select or skip it with --test_tag_filters), and takes the JAX CUDA plugin
    from the pinned tools/requirements/requirements_cuda_lock_3_XX.txt.
    """
    kwargs.setdefault("size", "medium")
    common = dict(
        srcs = srcs,
        main = srcs[0],
        args = args,
        python_version = "PY3",
        **kwargs
    )
    native.py_test(
        name = name + "_cpu",
        env = {"JAX_PLATFORMS": "cpu"},
        tags = ["cpu"],
        deps = deps + [Label("@kepler_pypi//:pkgs")],
        **common
    )
    native.py_test(
        name = name + "_gpu",
        env = {"JAX_PLATFORMS": "cuda"},
        tags = ["gpu"],
        target_compatible_with = cuda_only(),
        deps = deps + [Label("@kepler_pypi//:pkgs")] + if_cuda([
            str(Label("@kepler_pypi_cuda//:pkgs")),
            str(Label("//jaxlib_ext/cuda")),
        ]),
        **common
    )

def _wheel_path(f):
    # A file's path inside the wheel: its path inside this repository.
    if f.short_path.startswith("../"):
        return f.short_path.split("/", 2)[2]
    return f.short_path

def _kepler_wheel_impl(ctx):
    own_repo = ctx.label.workspace_name
    files = depset(transitive = [
        depset(transitive = [d[DefaultInfo].files, d[DefaultInfo].default_runfiles.files])
        for d in ctx.attr.deps
    ])
    packaged = [
        f
        for f in files.to_list()
        if f.owner.workspace_name == own_repo and
           _wheel_path(f).split("/")[0] in ctx.attr.packages
    ]
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest")
    ctx.actions.write(manifest, "\n".join(sorted([
        "%s\t%s" % (_wheel_path(f), f.path)
        for f in packaged
    ])) + "\n")
    out_dir = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--manifest", manifest)
    args.add("--version_file", ctx.file.version_file)
    args.add("--python_tag", ctx.attr.python_tag)
    args.add("--local_version", ctx.attr.local_version)
    args.add_all(ctx.attr.requires, before_each = "--requires")
    args.add_all(ctx.attr.extra_metadata, before_each = "--extra_metadata")
    args.add("--out_dir", out_dir.path)
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset([manifest, ctx.file.version_file] + packaged),
        outputs = [out_dir],
        mnemonic = "KeplerWheel",
        progress_message = "Writing the kepler-jax wheel into %s" % out_dir.short_path,
    )
    return [DefaultInfo(
        files = depset([out_dir]),
        runfiles = ctx.runfiles(files = [out_dir]),
    )]

kepler_wheel = rule(
    implementation = _kepler_wheel_impl,
    doc = "A folder holding the kepler-jax wheel, named with its real tags.",
    attrs = {
        "deps": attr.label_list(doc = "py_library targets whose files go in the wheel."),
        "packages": attr.string_list(doc = "Top-level packages of this repository to include."),
        "version_file": attr.label(allow_single_file = True),
        "python_tag": attr.string(),
        "local_version": attr.string(doc = "PEP 440 local version label, e.g. cuda13.0."),
        "requires": attr.string_list(doc = "Requires-Dist lines."),
        "extra_metadata": attr.string_list(doc = "More METADATA lines."),
        "_builder": attr.label(
            default = Label("//tools/wheel:build_wheel"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def if_cuda(if_true, if_false = []):
    """`if_true` when building with --config=cuda, else `if_false`."""
    return select({
        str(Label("@rules_cuda//cuda:is_enabled")): if_true,
        "//conditions:default": if_false,
    })

def cuda_only():
    """target_compatible_with for targets that exist only with --config=cuda."""
    return if_cuda([], [str(Label("//jaxlib_ext:requires_cuda"))])
