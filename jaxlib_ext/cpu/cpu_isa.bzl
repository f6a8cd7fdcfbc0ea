"""The instruction-set variants of the CPU loops, per CPU architecture: the one list.

Each op's elementwise loop is compiled once per variant of the target's
architecture (per_isa_cc_library) and the handler picks one at run time
(cpu_isa.cc), so a wheel runs on any CPU of its architecture and uses the
wider vector units where the CPU has them. Never -march=native. This table
is read by:
  - per_isa_cc_library (below): one cc_library per variant, with its copts;
  - cpu_isa_list_header (below): cpu_isa_list.h, the same lists for C++ (the
    dispatcher in cpu_isa.cc, each op's table of loops, the C++ tests);
  - tests/BUILD.bazel: one accuracy test per x86-64 variant.
Adding a variant is one entry here (and, if it needs a CPU feature not yet
known, how cpu_isa.cc reads it).

CPU_ISAS maps an architecture (a condition of @bazel_tools//src/conditions
and the C++ macro that says the compiler targets it) to its variants, from
the least to the most demanding:
  name:     the variant's name (KEPLER_CPU_ISA, test names, C++ identifiers),
            unique across architectures;
  copts:    the compiler flags of its loops;
  features: the CPU features it needs (cpu_isa.h, CpuFeature).
The first variant of each architecture runs on every CPU of it. Elsewhere
(another architecture) the x86-64 list is compiled without flags and only
its first variant counts as supported.
"""

CPU_ISAS = {
    "x86_64": struct(
        condition = "@bazel_tools//src/conditions:linux_x86_64",
        macro = "__x86_64__",
        variants = [
            struct(
                name = "baseline",
                copts = [],
                features = [],
            ),
            struct(
                name = "avx2",
                copts = [
                    "-mavx2",
                    "-mfma",
                ],
                features = [
                    "avx2",
                    "fma",
                ],
            ),
            struct(
                name = "avx512",
                copts = [
                    "-mavx512f",
                    "-mavx512dq",
                    "-mavx2",
                    "-mfma",
                ],
                features = [
                    "avx512f",
                    "avx512dq",
                    "avx2",
                    "fma",
                ],
            ),
        ],
    ),
    "aarch64": struct(
        condition = "@bazel_tools//src/conditions:linux_aarch64",
        macro = "__aarch64__",
        variants = [
            # Every armv8-a CPU: NEON, with FMA (part of armv8-a).
            struct(
                name = "neon",
                copts = [],
                features = ["fma"],
            ),
            # Scalable vectors: compiled for Neoverse V1 (Graviton 3), whose
            # features Neoverse V2 (Grace, Graviton 4) has too. With SVE
            # alone (zig's `generic+sve`) clang keeps 128-bit NEON vectors
            # for these loops; tuned for V1 it vectorises them with SVE.
            struct(
                name = "sve",
                copts = ["-mcpu=neoverse_v1"],
                features = [
                    "sve",
                    "fma",
                ],
            ),
        ],
    ),
}

# The x86-64 variants' names (the tests run on x86-64 machines).
CPU_ISA_NAMES = [isa.name for isa in CPU_ISAS["x86_64"].variants]

def per_isa_cc_library(name, srcs, hdrs = [], copts = [], deps = [], **kwargs):
    """`name`: the loops of `srcs` compiled once per CPU_ISAS entry.

    Each compilation gets the variant's copts (on x86-64 Linux),
    -DJAXEXT_ISA_NAMESPACE=isa_<variant>, the namespace its entry points must
    live in (jaxlib_ext/cpu/cpu_isa.h, JAXEXT_PER_ISA_TABLE), and
    -DJAXEXT_MATH_NAMESPACE=math_<variant>, which gives its copy of the op's
    math symbols of its own (jaxlib_ext/host_device.h).
    """
    per_arch = {}
    for arch, table in CPU_ISAS.items():
        per_arch[arch] = []
        for isa in table.variants:
            variant = "%s_%s" % (name, isa.name)
            native.cc_library(
                name = variant,
                srcs = srcs,
                hdrs = hdrs,
                copts = copts + [
                    "-DJAXEXT_ISA_NAMESPACE=isa_" + isa.name,
                    "-DJAXEXT_MATH_NAMESPACE=math_" + isa.name,
                ] + select({
                    table.condition: isa.copts,
                    "//conditions:default": [],
                }),
                deps = deps,
                # Built where `name` needs it: the variants of the target's
                # architecture only.
                tags = ["manual"],
                visibility = ["//visibility:private"],
                **kwargs
            )
            per_arch[arch].append(":" + variant)
    conditions = {CPU_ISAS[arch].condition: per_arch[arch] for arch in CPU_ISAS}
    conditions["//conditions:default"] = per_arch["x86_64"]
    native.cc_library(
        name = name,
        hdrs = hdrs,
        deps = select(conditions),
        visibility = kwargs.get("visibility"),
    )

def cpu_isa_list_header(name, out):
    """Writes `out`: JAXEXT_CPU_ISA_LIST(X, ...), X(name, features, ...) per variant of the target's architecture."""
    lines = [
        "// Generated from jaxlib_ext/cpu/cpu_isa.bzl (CPU_ISAS) by cpu_isa_list_header.",
        "// X(name, required CpuFeature bits, the arguments after X), least to most demanding,",
        "// for the architecture the compiler targets.",
        "#ifndef JAXLIB_EXT_CPU_CPU_ISA_LIST_H_",
        "#define JAXLIB_EXT_CPU_CPU_ISA_LIST_H_",
    ]
    branch = "#if"
    for arch in ["aarch64", "x86_64"]:
        table = CPU_ISAS[arch]
        lines.append("%s defined(%s)" % (branch, table.macro) if arch != "x86_64" else "#else  // x86_64, and the fallback elsewhere")
        lines.append("#define JAXEXT_CPU_ISA_LIST(X, ...) \\")
        for isa in table.variants:
            features = " | ".join(["kCpuFeature_" + f for f in isa.features]) or "0"
            lines.append("  X(%s, (%s), __VA_ARGS__) \\" % (isa.name, features))
        lines.append("")
        branch = "#elif"
    lines += ["#endif", "", "#endif  // JAXLIB_EXT_CPU_CPU_ISA_LIST_H_"]
    native.genrule(
        name = name,
        outs = [out],
        cmd = "cat > $@ <<'EOF'\n%s\nEOF" % "\n".join(lines),
    )
