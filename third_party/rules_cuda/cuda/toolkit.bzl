"""The CUDA toolkit a cuda_library compiles with (see local_cuda.bzl)."""

CudaToolkitInfo = provider(
    doc = "Where the CUDA toolkit is and which version it is.",
    fields = {
        "path": "absolute path of the toolkit, '' when none was found",
        "nvcc": "absolute path of nvcc",
        "version": "toolkit version, e.g. '13.0'",
    },
)

def _cuda_toolkit_impl(ctx):
    return [CudaToolkitInfo(
        path = ctx.attr.path,
        nvcc = ctx.attr.path + "/bin/nvcc" if ctx.attr.path else "",
        version = ctx.attr.version,
    )]

cuda_toolkit = rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "path": attr.string(),
        "version": attr.string(),
    },
)
