"""The ops and the build macros of the repository (the counterpart of jaxlib's jax.bzl).

Labels are wrapped in Label() so that the macros also work when this
repository is pulled into another workspace as @kepler_jax.
"""

load("//tests:gpu_tests.bzl", "GPU_TESTS")

# The ops: the one list. Each entry is
#   op:      its folder, jaxlib_ext/<op>/ (C++ and CUDA), and its Python
#            module, kepler/<op>.py;
#   target:  the XLA FFI target name the Python module calls;
#   handler: the prefix of its handler symbols, <handler>Cpu (the CPU module)
#            and <handler>Cuda (the CUDA plugin).
# Read by ffi_targets_header (jaxlib_ext/ffi_targets.h, which the modules
# register from) and by the modules' deps (op_libraries).
OPS = [
    struct(op = "kepler_solve", target = "kepler_solve", handler = "KeplerSolve"),
    struct(op = "limb_dark", target = "limb_dark_light_curve", handler = "LimbDark"),
]

# Flags for every C++ source of the ops: one place to change them.
COPTS = [
    "-std=c++17",
    "-O3",
    "-fno-math-errno",
]

def op_libraries(platform):
    """Every op's handler library for `platform` ("cpu" or "cuda"): //jaxlib_ext/<op>:<platform>."""
    return [str(Label("//jaxlib_ext/%s:%s" % (op.op, platform))) for op in OPS]

def ffi_targets_header(name, out):
    """Writes `out` (jaxlib_ext/ffi_targets.h) from OPS."""
    lines = [
        "// Generated from jaxlib_ext/ops.bzl (OPS) by ffi_targets_header: the XLA FFI",
        "// targets. JAXEXT_FFI_TARGETS(X) calls X(op, target name, handler) per op;",
        "// the handler symbols <handler>Cpu and <handler>Cuda are declared here, so",
        "// the modules register every op without including any op's header, and",
        "// each handler's definition is checked against this declaration.",
        "#ifndef JAXLIB_EXT_FFI_TARGETS_H_",
        "#define JAXLIB_EXT_FFI_TARGETS_H_",
        "",
        "#include \"xla/ffi/api/ffi.h\"",
        "",
        "#define JAXEXT_FFI_TARGETS(X) \\",
    ]
    for op in OPS:
        lines.append("  X(\"%s\", \"%s\", %s) \\" % (op.op, op.target, op.handler))
    lines.append("")
    for op in OPS:
        lines.append("XLA_FFI_DECLARE_HANDLER_SYMBOL(%sCpu);" % op.handler)
        lines.append("XLA_FFI_DECLARE_HANDLER_SYMBOL(%sCuda);" % op.handler)
    lines += ["", "#endif  // JAXLIB_EXT_FFI_TARGETS_H_"]
    native.genrule(
        name = name,
        outs = [out],
        cmd = "cat > $@ <<'EOF'\n%s\nEOF" % "\n".join(lines),
    )

def pybind_extension(name, srcs, deps = [], **kwargs):
    """A Python extension module `name`.so and a py_library `name` holding it."""
    native.cc_binary(
        name = name + ".so",
        srcs = srcs,
        copts = COPTS + ["-fvisibility=hidden", "-fexceptions"],
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

def package_file(name, src, out, **kwargs):
    """Copies `src` into this package as `out`.

    How compiled modules built under jaxlib_ext/ land inside the Python
    packages that import them (kepler/_lib/, kepler_jax_cuda_plugin/).
    """
    native.genrule(
        name = name,
        srcs = [src],
        outs = [out],
        cmd = "cp $< $@",
        **kwargs
    )

# The jax_enable_x64 modes a test runs in: target-name suffix and the value of
# KEPLER_TEST_X64 (read by tests/x64_mode.py).
X64_MODES = {
    "": "1",
    "_x64off": "0",
}

def py_op_test(name, srcs, deps = [], env = {}, x64_modes = X64_MODES, backends = None, **kwargs):
    """One Python test file as every target it needs: NAME[_x64off]_cpu and _gpu.

    One target per jax_enable_x64 mode in `x64_modes` (default both: NAME_...
    with it on, NAME_x64off_... with it off, float64 inputs computed in
    float32) and per backend. `backends` defaults to ["cpu", "gpu"] for this
    repository's tests named in tests/gpu_tests.bzl (GPU_TESTS), else ["cpu"]. _cpu targets
    run everywhere with JAX_PLATFORMS=cpu; _gpu targets exist only with
    --config=cuda, run with JAX_PLATFORMS=cuda, are tagged "gpu" (select or
    skip them with --test_tag_filters) and take the JAX CUDA plugin from the
    pinned tools/requirements/requirements_cuda_lock_3_XX.txt. `env` is added
    to every target's environment.
    """
    if "JAX_PLATFORMS" in env or "KEPLER_TEST_X64" in env:
        fail("py_op_test sets JAX_PLATFORMS and KEPLER_TEST_X64 itself")
    if backends == None:
        # GPU_TESTS names this repository's tests; elsewhere (a workspace
        # that loads this macro) the CPU only, unless `backends` says more.
        own_tests = (native.repository_name().lstrip("@") == Label("//tests:BUILD.bazel").workspace_name and
                     native.package_name() == "tests")
        backends = ["cpu", "gpu"] if own_tests and name in GPU_TESTS else ["cpu"]
    kwargs.setdefault("size", "medium")
    tags = kwargs.pop("tags", [])
    pypi = [Label("@kepler_pypi//:pkgs")]
    cuda_deps = if_cuda([
        str(Label("@kepler_pypi_cuda//:pkgs")),
        str(Label("//kepler_jax_cuda_plugin")),
    ])
    platforms = {
        "cpu": struct(jax = "cpu", compatible = [], deps = pypi),
        "gpu": struct(jax = "cuda", compatible = cuda_only(), deps = pypi + cuda_deps),
    }
    for suffix, x64 in x64_modes.items():
        for backend in backends:
            platform = platforms[backend]
            native.py_test(
                name = name + suffix + "_" + backend,
                srcs = srcs,
                main = srcs[0],
                python_version = "PY3",
                env = dict(env, JAX_PLATFORMS = platform.jax, KEPLER_TEST_X64 = x64),
                tags = tags + [backend],
                target_compatible_with = platform.compatible,
                deps = deps + platform.deps,
                **kwargs
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
