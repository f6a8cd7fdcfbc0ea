"""The ops and the build macros of the repository (the counterpart of jaxlib's jax.bzl).

Labels are wrapped in Label() so that the macros also work when this
repository is pulled into another workspace as @kepler_jax.
"""

load("@rules_cuda//cuda:defs.bzl", "cuda_library")
load("//jaxlib_ext/cpu:cpu_isa.bzl", "per_isa_cc_library")

# The ops: the one list. Each entry is an op's name, which is
#   its folder, jaxlib_ext/<op>/ (C++ and CUDA, targets by op_targets below),
#   and its Python module, kepler/<op>.py;
#   with PREFIX, its XLA FFI target name (ffi_target: kepler_jax_<op>; XLA's
#   registry of targets is one per process, shared with every other library);
#   in CamelCase, the prefix of its handler symbols (handler_prefix:
#   <Op>Cpu in the CPU module, <Op>Cuda in the CUDA plugin).
# Read by ffi_targets_header (jaxlib_ext/ffi_targets.h, which the modules
# register from) and by the modules' deps (op_libraries).
# (Plain string literals only: tests/layout_test.py reads OPS and PREFIX as
# Python literals.)
OPS = [
    "kepler_solve",
    "limb_dark",
    "transit",
]

PREFIX = "kepler_jax_"

def ffi_target(op):
    """The XLA FFI target name of `op`: kepler_jax_<op>."""
    return PREFIX + op

def handler_prefix(op):
    """The prefix of `op`'s handler symbols: limb_dark -> LimbDark (LimbDarkCpu, LimbDarkCuda)."""
    return "".join([word.capitalize() for word in op.split("_")])

# Flags for every C++ source of the ops: one place to change them.
COPTS = [
    "-std=c++17",
    "-O3",
    "-fno-math-errno",
]

def op_libraries(platform):
    """Every op's handler library for `platform` ("cpu" or "cuda"): //jaxlib_ext/<op>:<platform>."""
    return [str(Label("//jaxlib_ext/%s:%s" % (op, platform))) for op in OPS]

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
        lines.append("  X(\"%s\", \"%s\", %s) \\" % (op, ffi_target(op), handler_prefix(op)))
    lines.append("")
    for op in OPS:
        lines.append("XLA_FFI_DECLARE_HANDLER_SYMBOL(%sCpu);" % handler_prefix(op))
        lines.append("XLA_FFI_DECLARE_HANDLER_SYMBOL(%sCuda);" % handler_prefix(op))
    lines += ["", "#endif  // JAXLIB_EXT_FFI_TARGETS_H_"]
    native.genrule(
        name = name,
        outs = [out],
        cmd = "cat > $@ <<'EOF'\n%s\nEOF" % "\n".join(lines),
    )

def op_targets(deps = [], ffi_deps = [], cpu_loops_copts = []):
    """The targets of an op's folder jaxlib_ext/<op>/, from its files' names.

    `deps`: what the op's math header includes beyond jaxlib_ext/host_device.h
    (e.g. another op's math library, //jaxlib_ext/kepler_solve); every target
    of the op reaches it through <op>. `ffi_deps`: another op's checks
    that <op>_ffi.h includes (e.g. //jaxlib_ext/limb_dark:limb_dark_ffi, the
    checks of a law). Call it once in
    jaxlib_ext/<op>/BUILD.bazel, after
    package(default_visibility = ["//visibility:public"]); <op> is the
    folder's name.
      <op>                    the math, host and device (<op>.h and any other
                              header of the folder but the three below);
      <op>_ffi                the buffer checks both handlers share (<op>_ffi.h);
      cpu_loops               the elementwise loop, compiled once per CPU
                              variant (<op>_cpu_loops.cc/.h; copts COPTS +
                              cpu_loops_copts);
      cpu                     the CPU handler <Op>Cpu (<op>_cpu.cc), in the CPU module;
      kernel                  the device code: Params, the kernel, Launch()
                              (<op>_kernel.cu/.h);
      cuda                    the CUDA handler <Op>Cuda (<op>_cuda.cc), in the
                              CUDA plugin (exists with --config=cuda);
      <op>_cpu_isa_test       every CPU variant agreeing (<op>_cpu_isa_test.cc);
      <op>_cpu_handler_test   the CPU handler as XLA calls it, on valid,
                              adversarial and malformed calls (a stand-in
                              runtime builds the call frame; CI also runs it
                              under --config=sanitize);
      sources                 every file of the folder (tests/layout_test.py).
    More tests of the op are cc_tests of its own BUILD file.
    """
    op = native.package_name().split("/")[-1]
    native.filegroup(
        name = "sources",
        srcs = native.glob(["*"]),
    )
    ffi = Label("@xla_ffi_headers//:headers")
    native.cc_library(
        name = op,
        # <op>.h and the headers it includes: every header of the folder but
        # those of the targets below.
        hdrs = native.glob(["*.h"], exclude = [
            op + "_ffi.h",
            op + "_cpu_loops.h",
            op + "_kernel.h",
        ]),
        deps = [Label("//jaxlib_ext:host_device")] + deps,
    )
    native.cc_library(
        name = op + "_ffi",
        hdrs = [op + "_ffi.h"],
        deps = [":" + op, Label("//jaxlib_ext:ffi_helpers"), ffi] + ffi_deps,
    )
    per_isa_cc_library(
        name = "cpu_loops",
        srcs = [op + "_cpu_loops.cc"],
        hdrs = [op + "_cpu_loops.h"],
        copts = COPTS + cpu_loops_copts,
        deps = [":" + op, Label("//jaxlib_ext/cpu:cpu_isa")],
    )
    native.cc_library(
        name = "cpu",
        srcs = [op + "_cpu.cc"],
        copts = COPTS,
        deps = [
            ":cpu_loops",
            ":" + op,
            ":" + op + "_ffi",
            Label("//jaxlib_ext:constants"),
            Label("//jaxlib_ext:ffi_helpers"),
            Label("//jaxlib_ext:ffi_targets"),
            Label("//jaxlib_ext/cpu:cpu_handler"),
            ffi,
        ],
    )
    cuda_library(
        name = "kernel",
        srcs = [op + "_kernel.cu"],
        hdrs = [op + "_kernel.h"],
        deps = [
            ":" + op,
            Label("//jaxlib_ext/cuda:grid_stride"),
            Label("@local_cuda//:cuda_runtime"),
        ],
    )
    native.cc_library(
        name = "cuda",
        srcs = [op + "_cuda.cc"],
        copts = COPTS,
        target_compatible_with = cuda_only(),
        deps = [
            ":kernel",
            ":" + op + "_ffi",
            Label("//jaxlib_ext:ffi_helpers"),
            Label("//jaxlib_ext:ffi_targets"),
            Label("//jaxlib_ext/cuda:launch_status"),
            Label("@local_cuda//:cuda_runtime"),
            ffi,
        ],
    )
    native.cc_test(
        name = op + "_cpu_isa_test",
        srcs = [op + "_cpu_isa_test.cc"],
        copts = COPTS,
        deps = [":cpu_loops", ":" + op, Label("//jaxlib_ext/cpu:cpu_isa")],
    )
    native.cc_test(
        name = op + "_cpu_handler_test",
        srcs = [op + "_cpu_handler_test.cc"],
        copts = COPTS,
        deps = [
            ":cpu",
            ":" + op,
            Label("//jaxlib_ext:ffi_targets"),
            Label("//jaxlib_ext/cpu:ffi_test_runtime"),
        ],
    )

def c_module(name, srcs, deps = [], **kwargs):
    """The shared library lib`name`.so, whose C interface (jaxlib_ext/c_module.h)
    the Python packages read with ctypes: no Python headers, so one build serves
    every Python."""
    native.cc_binary(
        name = "lib" + name + ".so",
        srcs = srcs,
        copts = COPTS + ["-fvisibility=hidden"],
        linkshared = True,
        linkstatic = True,
        deps = deps + [Label("//jaxlib_ext:c_module")],
        **kwargs
    )

def pybind_extension(name, srcs, deps = [], **kwargs):
    """A Python extension module `name`.so, for the hermetic Python only, and a
    py_library `name` holding it (the tests' device-path module)."""
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

# The target-name suffix of each jax_enable_x64 mode, by the value of
# KEPLER_TEST_X64 (read by tests/x64_mode.py): "1" on, "0" off.
X64_SUFFIXES = {
    "1": "",
    "0": "_x64off",
}

def py_op_test(name, srcs, deps = [], env = {}, x64 = ["1", "0"], backends = ["cpu"], **kwargs):
    """One Python test file as every target it needs: NAME[_x64off]_<backend>.

    One target per value of KEPLER_TEST_X64 in `x64` ("1": NAME_..., with
    jax_enable_x64 on; "0": NAME_x64off_..., with it off, float64 inputs
    computed in float32) and per backend in `backends` ("cpu", "gpu"). _cpu
    targets run everywhere with JAX_PLATFORMS=cpu; _gpu targets exist only
    with --config=cuda, run with JAX_PLATFORMS=cuda, are tagged "gpu" (select
    or skip them with --test_tag_filters) and take the JAX CUDA plugin from
    the pinned tools/requirements/requirements_cuda_lock_3_XX.txt. `env` is
    added to every target's environment. This repository's tests get their
    arguments from tests/test_table.bzl.
    """
    if "JAX_PLATFORMS" in env or "KEPLER_TEST_X64" in env:
        fail("py_op_test sets JAX_PLATFORMS and KEPLER_TEST_X64 itself")
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
    for mode in x64:
        for backend in backends:
            platform = platforms[backend]
            native.py_test(
                name = name + X64_SUFFIXES[mode] + "_" + backend,
                srcs = srcs,
                main = srcs[0],
                python_version = "PY3",
                env = dict(env, JAX_PLATFORMS = platform.jax, KEPLER_TEST_X64 = mode),
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
