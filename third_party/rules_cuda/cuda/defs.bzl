"""cuda_library: compiles .cu sources with nvcc and returns CcInfo.

The subset of rules_cuda's cuda_library that this repository needs: srcs,
hdrs, deps, copts (to nvcc), host_copts (to the host compiler), defines,
local_defines. nvcc (@local_cuda//:toolkit, third_party/cuda) runs with
Bazel's C++ toolchain compiler as its host compiler (-ccbin), so the host
code of a .cu file is compiled for the target CPU by the same compiler as the
rest: zig's clang for the wheels (x86-64 or aarch64, glibc 2.17), gcc or
clang with --config=hostcc. The objects are archived with the toolchain's ar,
so any cc_library or cc_binary can depend on the result.

Each compile also writes ptxas's resource report of the source (`-Xptxas=-v`:
registers, stack and spills of every kernel and device function, for every
architecture compiled) next to its object, `_objs/<name>/<source>.ptxas.txt`,
in the output group `ptxas_reports`; tools/ptxas_report.py reads them. The
code compiled is the same with it; the cubins' notes record `-v` among
ptxas's options.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load(":toolkit.bzl", "CudaToolkitInfo")

_FlagInfo = provider(fields = ["value"])

# Runs nvcc ($1) with ptxas's report into $2, the rest of the arguments after
# them: the report stays in its file; nvcc's and the host compiler's warnings
# still reach the build's output, and on failure everything does.
_NVCC_WITH_REPORT = """
nvcc=$1
report=$2
shift 2
if "$nvcc" -Xptxas=-v "$@" >"$report" 2>&1; then
  grep -i warning "$report" >&2 || true
else
  status=$?
  cat "$report" >&2
  exit $status
fi
"""

def _flag_impl(ctx):
    return [_FlagInfo(value = ctx.build_setting_value)]

cuda_enable_flag = rule(implementation = _flag_impl, build_setting = config.bool(flag = True))
cuda_archs_flag = rule(implementation = _flag_impl, build_setting = config.string(flag = True))

def _gencode_flags(archs):
    flags = []
    for arch in [a.strip() for a in archs.split(";") if a.strip()]:
        kind, _, number = arch.partition("_")
        if kind not in ("sm", "compute") or not number.isdigit():
            fail("@rules_cuda//cuda:archs: '%s' is neither sm_XX nor compute_XX" % arch)
        flags.append("-gencode=arch=compute_%s,code=%s" % (number, arch))
    if not flags:
        fail("@rules_cuda//cuda:archs is empty")
    return flags

# nvcc's options for each host compiler, by Bazel's name for it. zig's
# clang is newer than nvcc checks for; and glibc's headers as zig ships them
# declare rsqrtf under _GNU_SOURCE (which nvcc defines) with an exception
# specification that clashes with CUDA's own declaration, so the host side
# is compiled without _GNU_SOURCE but with the default POSIX and BSD names.
# CUDA's headers refuse libc++ on x86-64 (some releases only when they see
# it): the kernels' host code passes no C++ library type across its
# interface, so libc++ is safe here. zig's clang also writes debug info
# unless told not to.
_HOST_COMPILER_FLAGS = {
    "gcc": [],
    "clang": [],
    # Bazel's auto-configured toolchain (--config=hostcc): the machine's gcc.
    "compiler": [],
    "zig-clang": [
        "-allow-unsupported-compiler",
        "-Xcompiler=-U_GNU_SOURCE",
        "-Xcompiler=-D_DEFAULT_SOURCE",
        "-D_ALLOW_UNSUPPORTED_LIBCPP",
        "-Xcompiler=-g0",
    ],
}

def _host_compiler_flags(ctx, cc_toolchain):
    flags = _HOST_COMPILER_FLAGS.get(cc_toolchain.compiler)
    if flags == None:
        fail("%s: nvcc cannot use the C++ toolchain's compiler '%s' as its host compiler (known: %s)" %
             (ctx.label, cc_toolchain.compiler, ", ".join(_HOST_COMPILER_FLAGS)))
    return ["-ccbin", cc_toolchain.compiler_executable] + flags

def _cuda_library_impl(ctx):
    toolkit = ctx.attr._toolkit[CudaToolkitInfo]
    cc_toolchain = find_cpp_toolchain(ctx)
    host_flags = _host_compiler_flags(ctx, cc_toolchain)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    deps = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    deps_ctx = deps.compilation_context
    repo_root = ctx.label.workspace_root or "."

    private_hdrs = [f for f in ctx.files.srcs if f.extension in ("h", "hpp", "cuh")]
    sources = [f for f in ctx.files.srcs if f.extension == "cu"]
    inputs = depset(
        ctx.files.hdrs + private_hdrs,
        transitive = [deps_ctx.headers, cc_toolchain.all_files, toolkit.files],
    )
    objects = []
    reports = []
    for src in sources:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(".cu")]))
        report = ctx.actions.declare_file("_objs/%s/%s.ptxas.txt" % (ctx.label.name, src.basename[:-len(".cu")]))
        args = ctx.actions.args()
        args.add_all(host_flags)

        # Intermediate files next to the object, not in $TMPDIR: nvcc names
        # them by process id, which repeats across sandboxes (PID namespaces).
        args.add_all(["-x", "cu", "-c", "-std=c++17", "-O3", "-Xcompiler", "-fPIC", "--objdir-as-tempdir"])

        # The architectures' compiles in parallel, one thread per CPU: the
        # same object and report as one after another (nvcc 13.5, 2 cores:
        # the transit kernel's source 72 s instead of 135 s).
        args.add("--threads=0")
        args.add_all(_gencode_flags(ctx.attr._archs[_FlagInfo].value))
        args.add_all(ctx.attr.host_copts, before_each = "-Xcompiler")
        args.add_all(ctx.attr.copts)
        args.add_all(deps_ctx.defines.to_list() + ctx.attr.defines + ctx.attr.local_defines, format_each = "-D%s")
        args.add_all([repo_root, ctx.bin_dir.path + "/" + repo_root], format_each = "-I%s")
        args.add_all(deps_ctx.quote_includes.to_list() + deps_ctx.includes.to_list(), format_each = "-I%s")
        args.add_all(deps_ctx.system_includes.to_list(), before_each = "-isystem")
        args.add("-o", obj)
        args.add(src)
        ctx.actions.run_shell(
            command = _NVCC_WITH_REPORT,
            arguments = [toolkit.nvcc.path, report.path, args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [obj, report],
            mnemonic = "CudaCompile",
            progress_message = "Compiling %s with nvcc %s" % (src.short_path, toolkit.version),
            use_default_shell_env = True,
        )
        objects.append(obj)
        reports.append(report)

    archive = ctx.actions.declare_file("lib%s.pic.a" % ctx.label.name)
    ar_args = ctx.actions.args()
    ar_args.add("rcsD", archive)
    ar_args.add_all(objects)
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = [ar_args],
        inputs = depset(objects, transitive = [cc_toolchain.all_files]),
        outputs = [archive],
        mnemonic = "CudaArchive",
        progress_message = "Archiving %s" % archive.short_path,
    )
    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        pic_static_library = archive,
    )
    compilation_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        defines = depset(ctx.attr.defines),
    )
    linking_context = cc_common.create_linking_context(
        linker_inputs = depset([cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset([library]),
        )]),
    )
    own = CcInfo(compilation_context = compilation_context, linking_context = linking_context)
    return [
        DefaultInfo(files = depset([archive])),
        OutputGroupInfo(ptxas_reports = depset(reports)),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = [deps]),
    ]

_cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu", ".h", ".hpp", ".cuh"]),
        "hdrs": attr.label_list(allow_files = [".h", ".hpp", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(doc = "Options for nvcc."),
        "host_copts": attr.string_list(doc = "Options for the host compiler (-Xcompiler)."),
        "defines": attr.string_list(),
        "local_defines": attr.string_list(),
        "_archs": attr.label(default = Label("//cuda:archs")),
        "_toolkit": attr.label(default = Label("@local_cuda//:toolkit")),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def cuda_library(name, **kwargs):
    """A C++ library of CUDA sources; skipped unless @rules_cuda//cuda:enable is set."""
    _cuda_library(
        name = name,
        target_compatible_with = kwargs.pop("target_compatible_with", []) + select({
            str(Label("//cuda:is_enabled")): [],
            "//conditions:default": [str(Label("//cuda:requires_cuda"))],
        }),
        **kwargs
    )
