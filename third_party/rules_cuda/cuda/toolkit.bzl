"""The CUDA toolkit a cuda_library compiles with (@local_cuda, third_party/cuda)."""

CudaToolkitInfo = provider(
    doc = "nvcc, the files it needs, and the toolkit's version.",
    fields = {
        "nvcc": "File: nvcc",
        "files": "depset of every file nvcc runs or reads",
        "version": "toolkit version, e.g. '13.5'",
    },
)

def _cuda_toolkit_impl(ctx):
    return [CudaToolkitInfo(
        nvcc = ctx.file.nvcc,
        files = depset(ctx.files.files + [ctx.file.nvcc]),
        version = ctx.attr.version,
    )]

cuda_toolkit = rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "nvcc": attr.label(allow_single_file = True, mandatory = True),
        "files": attr.label(allow_files = True),
        "version": attr.string(mandatory = True),
    },
)
