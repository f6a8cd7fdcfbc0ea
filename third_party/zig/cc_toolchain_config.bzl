"""The CcToolchainConfigInfo of @kepler_zig (see repositories.bzl).

Bazel 4.2.3 fills in its legacy features (include paths, defines, PIC, the
link's inputs and outputs, archiver flags, user copts and linkopts); this
adds what differs from them: the tools, the builtin include directories of
zig's clang, and the flags that Bazel's auto-configured Linux toolchain
gives (NDEBUG and section garbage collection in opt mode), plus fixed
__DATE__/__TIME__ so that the binaries are reproducible.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)

_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)])

def _impl(ctx):
    bin = "bin/%s/" % ctx.attr.cpu
    tools = {
        "gcc": bin + "c++",
        "ar": bin + "ar",
    }
    for unused in ["ld", "cpp", "nm", "objcopy", "objdump", "strip", "gcov"]:
        tools[unused] = bin + unused
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [_flags(_COMPILE_ACTIONS, [
                "-fno-omit-frame-pointer",
                "-Wno-builtin-macro-redefined",
                "-D__DATE__=\"redacted\"",
                "-D__TIMESTAMP__=\"redacted\"",
                "-D__TIME__=\"redacted\"",
            ])],
        ),
        feature(
            name = "opt",
            flag_sets = [
                _flags(_COMPILE_ACTIONS, [
                    "-g0",
                    "-O2",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ]),
                # -O2 on the link too: zig builds the libc++ it links in
                # with the optimisation level of the link's command line
                # (none: a debug libc++ with its assertions). zig's libc++
                # carries debug info (4.5 of a module's 5.7 MB): dropped.
                _flags(_LINK_ACTIONS, [
                    "-O2",
                    "-Wl,--gc-sections",
                    "-Wl,--strip-debug",
                ]),
            ],
        ),
        feature(
            name = "dbg",
            flag_sets = [_flags(_COMPILE_ACTIONS, ["-g"])],
        ),
        feature(name = "fastbuild"),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [ctx.attr.zig_lib],
        toolchain_identifier = "kepler-zig-" + ctx.attr.cpu,
        host_system_name = "local",
        target_system_name = "%s-linux-gnu.%s" % (ctx.attr.arch, ctx.attr.glibc_version),
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc_" + ctx.attr.glibc_version,
        compiler = "zig-clang",
        abi_version = "local",
        abi_libc_version = "glibc_" + ctx.attr.glibc_version,
        tool_paths = [tool_path(name = name, path = path) for name, path in tools.items()],
    )

zig_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "cpu": attr.string(mandatory = True, doc = "Bazel's name of the target CPU: k8 or aarch64"),
        "arch": attr.string(mandatory = True, doc = "zig's: x86_64 or aarch64"),
        "glibc_version": attr.string(mandatory = True),
        "zig_lib": attr.string(mandatory = True, doc = "absolute path of zig's lib/ (its headers)"),
    },
    provides = [CcToolchainConfigInfo],
)
