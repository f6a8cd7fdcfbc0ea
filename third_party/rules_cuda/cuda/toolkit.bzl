"""The CUDA toolkit a cuda_library compiles with (see local_cuda.bzl)."""

CudaToolkitInfo = provider(
    doc = "Where the CUDA toolkit is and which version it is.",
    fields = {
        "path": "absolute path of the toolkit, '' when none was found",
        "nvcc": "absolute path of nvcc",
        "version": "toolkit version, e.g. '13.0'",
        "host_compiler": "absolute path of the C++ compiler nvcc runs when Bazel's C++ toolchain is not one nvcc accepts ('' if none)",
    },
)

def _cuda_toolkit_impl(ctx):
    return [CudaToolkitInfo(
        path = ctx.attr.path,
        nvcc = ctx.attr.path + "/bin/nvcc" if ctx.attr.path else "",
        version = ctx.attr.version,
        host_compiler = ctx.attr.host_compiler,
    )]

cuda_toolkit = rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "path": attr.string(),
        "version": attr.string(),
        "host_compiler": attr.string(),
    },
)
