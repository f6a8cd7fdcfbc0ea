"""The x86-64 instruction-set variants of the CPU loops: the one list.

Each op's elementwise loop is compiled once per variant (per_isa_cc_library)
and the handler picks one at run time (cpu_isa.cc), so the wheel runs on any
x86-64 CPU and uses AVX2 or AVX-512 where the CPU has them. Never
-march=native. This table is read by:
  - per_isa_cc_library (below): one cc_library per variant, with its copts;
  - cpu_isa_list_header (below): cpu_isa_list.h, the same list for C++ (the
    dispatcher in cpu_isa.cc, each op's table of loops, the C++ tests);
  - tests/BUILD.bazel: one accuracy test per variant.
Adding a variant is one entry here (and, if it needs a CPU feature not yet
known, its CPUID bit in cpu_isa.cc).

Entries, from the least to the most demanding:
  name:     the variant's name (KEPLER_CPU_ISA, test names, C++ identifiers);
  copts:    the compiler flags of its loops on x86-64 Linux;
  features: the CPU features it needs (cpu_isa.h, CpuFeature).
"""

CPU_ISAS = [
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
]

CPU_ISA_NAMES = [isa.name for isa in CPU_ISAS]

def per_isa_cc_library(name, srcs, hdrs = [], copts = [], deps = [], **kwargs):
    """`name`: the loops of `srcs` compiled once per CPU_ISAS entry.

    Each compilation gets the variant's copts (on x86-64 Linux),
    -DJAXEXT_ISA_NAMESPACE=isa_<variant>, the namespace its entry points must
    live in (jaxlib_ext/cpu/cpu_isa.h, JAXEXT_PER_ISA_TABLE), and
    -DJAXEXT_MATH_NAMESPACE=math_<variant>, which gives its copy of the op's
    math symbols of its own (jaxlib_ext/host_device.h).
    """
    variants = []
    for isa in CPU_ISAS:
        variant = "%s_%s" % (name, isa.name)
        native.cc_library(
            name = variant,
            srcs = srcs,
            hdrs = hdrs,
            copts = copts + [
                "-DJAXEXT_ISA_NAMESPACE=isa_" + isa.name,
                "-DJAXEXT_MATH_NAMESPACE=math_" + isa.name,
            ] + select({
                "@bazel_tools//src/conditions:linux_x86_64": isa.copts,
                "//conditions:default": [],
            }),
            deps = deps,
            visibility = ["//visibility:private"],
            **kwargs
        )
        variants.append(":" + variant)
    native.cc_library(
        name = name,
        hdrs = hdrs,
        deps = variants,
        visibility = kwargs.get("visibility"),
    )

def cpu_isa_list_header(name, out):
    """Writes `out`: #define JAXEXT_CPU_ISA_LIST(X, ...), X(name, features, ...) per variant."""
    lines = [
        "// Generated from jaxlib_ext/cpu/cpu_isa.bzl (CPU_ISAS) by cpu_isa_list_header.",
        "// X(name, required CpuFeature bits, the arguments after X), least to most demanding.",
        "#define JAXEXT_CPU_ISA_LIST(X, ...) \\",
    ]
    for isa in CPU_ISAS:
        features = " | ".join(["kCpuFeature_" + f for f in isa.features]) or "0"
        lines.append("  X(%s, (%s), __VA_ARGS__) \\" % (isa.name, features))
    lines.append("")
    native.genrule(
        name = name,
        outs = [out],
        cmd = "cat > $@ <<'EOF'\n%s\nEOF" % "\n".join(lines),
    )
