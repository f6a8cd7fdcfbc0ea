"""The wheel rule: lays out the files of py_library targets and runs build_wheel.py."""

def _wheel_path(f):
    # A file's path inside the wheel: its path inside this repository.
    if f.short_path.startswith("../"):
        return f.short_path.split("/", 2)[2]
    return f.short_path

def _manifest(ctx, name, deps, packages):
    """A `path-in-wheel<TAB>file` list of the files of `deps` under `packages`."""
    own_repo = ctx.label.workspace_name
    files = depset(transitive = [
        depset(transitive = [d[DefaultInfo].files, d[DefaultInfo].default_runfiles.files])
        for d in deps
    ])
    packaged = [
        f
        for f in files.to_list()
        if f.owner.workspace_name == own_repo and
           _wheel_path(f).split("/")[0] in packages and
           not f.basename.endswith(".pyc")
    ]
    manifest = ctx.actions.declare_file(ctx.label.name + "." + name + ".manifest")
    ctx.actions.write(manifest, "\n".join(sorted([
        "%s\t%s" % (_wheel_path(f), f.path)
        for f in packaged
    ])) + "\n")
    return manifest, packaged

def _kepler_wheel_impl(ctx):
    manifest, packaged = _manifest(ctx, "main", ctx.attr.deps, ctx.attr.packages)
    out_dir = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--manifest", manifest)
    args.add("--version_file", ctx.file.version_file)
    args.add("--license", ctx.file.license)
    if ctx.attr.site_hook:
        args.add("--site_hook", ctx.attr.site_hook)
    inputs = [manifest, ctx.file.version_file, ctx.file.license] + packaged
    if ctx.attr.cuda_plugin_deps:
        cuda_manifest, cuda_packaged = _manifest(
            ctx,
            "cuda_plugin",
            ctx.attr.cuda_plugin_deps,
            ctx.attr.cuda_plugin_packages,
        )
        args.add("--cuda_manifest", cuda_manifest)
        args.add("--cuda_version", ctx.attr.cuda_version)
        inputs += [cuda_manifest] + cuda_packaged
    args.add("--out_dir", out_dir.path)
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset(inputs),
        outputs = [out_dir],
        mnemonic = "KeplerWheel",
        progress_message = "Writing the kepler-jax wheels into %s" % out_dir.short_path,
    )
    return [DefaultInfo(
        files = depset([out_dir]),
        runfiles = ctx.runfiles(files = [out_dir]),
    )]

kepler_wheel = rule(
    implementation = _kepler_wheel_impl,
    doc = """A folder holding the kepler-jax wheel and, given cuda_plugin_deps, the
kepler-jax-cuda13-plugin wheel of the same version, named with their real tags.""",
    attrs = {
        "deps": attr.label_list(doc = "py_library targets whose files go in the main wheel."),
        "packages": attr.string_list(doc = "Top-level packages of this repository in the main wheel."),
        "cuda_plugin_deps": attr.label_list(doc = "py_library targets of the CUDA plugin wheel; none: no plugin wheel."),
        "cuda_plugin_packages": attr.string_list(doc = "Top-level packages in the plugin wheel."),
        "cuda_version": attr.string(doc = "The CUDA toolkit the plugin is built with, e.g. 13.0."),
        "version_file": attr.label(allow_single_file = True, doc = "kepler/_version.py: version, jax range, CUDA extra."),
        "license": attr.label(allow_single_file = True, doc = "Shipped in each wheel's .dist-info."),
        "site_hook": attr.string(doc = "A module of the main wheel (its path in the wheel) also installed at the top level with a .pth file that runs its install_import_guard() at start-up (kepler/_ownership.py)."),
        "_builder": attr.label(
            default = Label("//tools/wheel:build_wheel"),
            executable = True,
            cfg = "exec",
        ),
    },
)
