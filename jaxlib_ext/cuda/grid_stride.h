// The kernel launch of every op: a grid-stride loop of threads over the
// elements, each op giving only its per-element work (an op of two passes
// launches it twice). Included by the ops'
// .cu files (device code).
//
// An op's kernel is GridStrideKernel over an element functor: a copyable
// struct whose `__device__ void operator()(int64_t i) const` computes
// element i and whose `__host__ __device__ int64_t size() const` is the
// element count. BothDtypes wraps an op's Params of either dtype into one such
// functor, so that one kernel serves float32 and float64 (ptxas compiles
// the math's device functions once per kernel that calls them: one kernel
// per op, not per dtype, halves the build's time).
#ifndef JAXLIB_EXT_CUDA_GRID_STRIDE_H_
#define JAXLIB_EXT_CUDA_GRID_STRIDE_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

namespace jaxext::cuda {

// The grid is capped (gridDim.x < 2^31); the loop covers any n beyond it.
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// The loop of one thread. kPerThread 1: element(i) for each i < n, one per
// thread per step. kPerThread > 1: the thread's tile of kPerThread elements
// per step, element(i) with i its first (the others i + k kBlockSize,
// k < kPerThread), which the functor bounds by n itself (it loads them all
// before computing any).
template <int kBlockSize, int kPerThread, typename Element>
__device__ __forceinline__ void GridStrideLoop(const Element& element) {
  const int64_t n = element.size();
  if constexpr (kPerThread == 1) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
      element(i);
    }
  } else {
    constexpr int64_t kTile = int64_t{kBlockSize} * kPerThread;
    for (int64_t tile = static_cast<int64_t>(blockIdx.x) * kTile; tile < n;
         tile += static_cast<int64_t>(gridDim.x) * kTile) {
      element(tile + threadIdx.x);
    }
  }
}

// The kernel: threads of kBlockSize, registers per thread as ptxas
// chooses; or (kMinBlocks > 0) capped so that kMinBlocks blocks fit on a
// multiprocessor at once (__launch_bounds__'s second argument).
template <int kBlockSize, int kPerThread, typename Element>
__global__ void __launch_bounds__(kBlockSize) GridStrideKernel(Element element) {
  GridStrideLoop<kBlockSize, kPerThread>(element);
}
template <int kBlockSize, int kPerThread, int kMinBlocks, typename Element>
__global__ void __launch_bounds__(kBlockSize, kMinBlocks)
    GridStrideKernelMinBlocks(Element element) {
  GridStrideLoop<kBlockSize, kPerThread>(element);
}

// Enqueues the kernel over element.size() elements on `stream` (nothing for
// none); returns the launch error, if any.
template <int kBlockSize, int kPerThread = 1, int kMinBlocks = 0, typename Element>
cudaError_t LaunchGridStride(const Element& element, cudaStream_t stream) {
  const int64_t n = element.size();
  if (n == 0) return cudaSuccess;
  constexpr int64_t kTile = int64_t{kBlockSize} * kPerThread;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((n + kTile - 1) / kTile,
                                                                  kMaxBlocks));
  if constexpr (kMinBlocks > 0) {
    GridStrideKernelMinBlocks<kBlockSize, kPerThread, kMinBlocks>
        <<<blocks, kBlockSize, 0, stream>>>(element);
  } else {
    GridStrideKernel<kBlockSize, kPerThread><<<blocks, kBlockSize, 0, stream>>>(element);
  }
  return cudaGetLastError();
}

// The second pass over elements that a first pass marked (jaxext::MarkLeft):
// the element functor also has `__device__ bool IsLeft(int64_t i) const`.
// Each block scans its share of the elements, kPerThread a thread at a time
// with every load in flight, gathers the indices of the marked ones in
// shared memory, and hands them to `run(gathered, batch)` kBlockSize at a
// time, so that the warps that compute them run full however rare they are
// (a grid-stride pass would run each warp for its one or two marked lanes);
// after its last tile, all it has gathered. Every thread of the block calls
// `run`, with the same arguments.
template <int kBlockSize, int kPerThread, typename Element, typename Run>
__device__ __forceinline__ void GatherLeft(const Element& element, Run run) {
  constexpr int64_t kTile = int64_t{kBlockSize} * kPerThread;
  __shared__ int64_t gathered[kTile + kBlockSize];
  __shared__ int count;
  const int64_t n = element.size();
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kTile;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  // Block-uniform trip count: every thread reaches every barrier.
  for (int64_t tile = static_cast<int64_t>(blockIdx.x) * kTile;; tile += stride) {
    const bool last = tile + stride >= n;
    bool left[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = tile + threadIdx.x + int64_t{k} * kBlockSize;
      left[k] = i < n && element.IsLeft(i);
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      if (left[k]) gathered[atomicAdd(&count, 1)] = tile + threadIdx.x + int64_t{k} * kBlockSize;
    }
    __syncthreads();
    const int gathered_count = count;
    const int batch = last ? gathered_count : gathered_count - gathered_count % kBlockSize;
    run(static_cast<const int64_t*>(gathered), batch);
    if (last) break;
    __syncthreads();
    // The rest (fewer than kBlockSize) to the front, for the next tile; it
    // lies past the first kBlockSize entries, so the copy overlaps nothing.
    if (batch > 0 && threadIdx.x < gathered_count - batch) {
      gathered[threadIdx.x] = gathered[batch + threadIdx.x];
    }
    if (threadIdx.x == 0) count = gathered_count - batch;
    __syncthreads();
  }
}

// GatherLeft's kernel with a thread per marked element. The element is
// called from one place: a second call site inlines its body twice (nvcc
// 13.5, sm_90: the crossing rule's pass spilled 204 B with two, 20 B with
// one). kMinBlocks > 0 caps its registers as GridStrideKernelMinBlocks's;
// 0, no cap (__launch_bounds__'s second argument 0 compiles as none: nvcc
// 13.5, sm_90, the same report; 1 does not: ptxas then took up to 26 more
// registers a thread).
template <int kBlockSize, int kPerThread, int kMinBlocks, typename Element>
__global__ void __launch_bounds__(kBlockSize, kMinBlocks) LeftPassKernel(Element element) {
  GatherLeft<kBlockSize, kPerThread>(element, [&](const int64_t* gathered, int batch) {
    for (int k = threadIdx.x; k < batch; k += kBlockSize) element(gathered[k]);
  });
}

// GatherLeft's kernel with the block's threads on each batch of marked
// elements together: `__device__ void Batch(const int64_t* index, int
// count, Storage* storage) const` (count <= kBlockSize), called by every
// thread of the block, with the block's Storage in dynamic shared memory.
template <int kBlockSize, int kPerThread, typename Storage, typename Element>
__global__ void __launch_bounds__(kBlockSize) LeftBatchKernel(Element element) {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  Storage* storage = reinterpret_cast<Storage*>(dynamic_shared);
  GatherLeft<kBlockSize, kPerThread>(element, [&](const int64_t* gathered, int batch) {
    for (int base = 0; base < batch; base += kBlockSize) {
      element.Batch(gathered + base, batch - base < kBlockSize ? batch - base : kBlockSize,
                    storage);
    }
  });
}

// The blocks for a pass over n elements that gathers kTile at a time: as
// many as fit on the current device at once (`kernel` with `shared` bytes
// of dynamic shared memory), the fewer the blocks the fuller the batches.
template <typename Kernel>
cudaError_t ResidentBlocks(Kernel kernel, int block_size, size_t shared, int64_t n,
                           int64_t tile, unsigned* blocks) {
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  }
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                           block_size, shared);
  }
  if (status != cudaSuccess) return status;
  const int64_t resident = std::max<int64_t>(1, int64_t{multiprocessors} * per_multiprocessor);
  *blocks = static_cast<unsigned>(std::min((n + tile - 1) / tile, resident));
  return cudaSuccess;
}

// Enqueues LeftPassKernel over element.size() elements on `stream` (nothing
// for no elements); returns the launch error, if any.
template <int kBlockSize, int kPerThread, int kMinBlocks = 0, typename Element>
cudaError_t LaunchLeftPass(const Element& element, cudaStream_t stream) {
  const int64_t n = element.size();
  if (n == 0) return cudaSuccess;
  const auto kernel = LeftPassKernel<kBlockSize, kPerThread, kMinBlocks, Element>;
  unsigned blocks = 0;
  const cudaError_t status =
      ResidentBlocks(kernel, kBlockSize, 0, n, int64_t{kBlockSize} * kPerThread, &blocks);
  if (status != cudaSuccess) return status;
  kernel<<<blocks, kBlockSize, 0, stream>>>(element);
  return cudaGetLastError();
}

// Enqueues LeftBatchKernel the same way, with sizeof(Storage) bytes of
// dynamic shared memory a block (allowed past the default 48 KiB first).
template <int kBlockSize, int kPerThread, typename Storage, typename Element>
cudaError_t LaunchLeftBatch(const Element& element, cudaStream_t stream) {
  const int64_t n = element.size();
  if (n == 0) return cudaSuccess;
  const auto kernel = LeftBatchKernel<kBlockSize, kPerThread, Storage, Element>;
  constexpr size_t kShared = sizeof(Storage);
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
  unsigned blocks = 0;
  if (status == cudaSuccess) {
    status = ResidentBlocks(kernel, kBlockSize, kShared, n, int64_t{kBlockSize} * kPerThread,
                            &blocks);
  }
  if (status != cudaSuccess) return status;
  kernel<<<blocks, kBlockSize, kShared, stream>>>(element);
  return cudaGetLastError();
}

// Whether an element computes both dtypes in one body (Element::kOneBody,
// false where it has none): Element::RunBoth(both, i) reads and writes the
// dtype in use of `both` (BothDtypes), and computes in between once, so
// that the kernel does not hold the registers of two bodies.
template <typename Element, typename = void>
struct OneBody : std::false_type {};
template <typename Element>
struct OneBody<Element, std::void_t<decltype(Element::kOneBody)>>
    : std::bool_constant<Element::kOneBody> {};

// An op's Params (with their element count n) in either dtype as one
// element functor: Element::Run(p, i) on the dtype in use (the other's
// Params stay empty), or Element::RunBoth(*this, i) (OneBody).
template <template <typename> class Params, typename Element>
struct BothDtypes {
  Params<double> as_double;
  Params<float> as_float;
  bool is_float;

  template <typename T>
  static BothDtypes Of(const Params<T>& params) {
    BothDtypes both{};
    both.is_float = std::is_same<T, float>::value;
    if constexpr (std::is_same<T, float>::value) {
      both.as_float = params;
    } else {
      both.as_double = params;
    }
    return both;
  }

  __host__ __device__ int64_t size() const { return is_float ? as_float.n : as_double.n; }

  __device__ void operator()(int64_t i) const {
    if constexpr (OneBody<Element>::value) {
      Element::RunBoth(*this, i);
    } else if (is_float) {
      Element::Run(as_float, i);
    } else {
      Element::Run(as_double, i);
    }
  }

  // For LeftPassKernel and LeftBatchKernel: Element::IsLeft(p, i).
  __device__ bool IsLeft(int64_t i) const {
    return is_float ? Element::IsLeft(as_float, i) : Element::IsLeft(as_double, i);
  }

  // For LeftBatchKernel: Element::Batch(*this, index, count, storage), one
  // body for both dtypes, which tells them apart where it reads and writes
  // them (a body per dtype would hold the registers of both).
  template <typename Storage>
  __device__ void Batch(const int64_t* index, int count, Storage* storage) const {
    Element::Batch(*this, index, count, storage);
  }
};

}  // namespace jaxext::cuda

#endif  // JAXLIB_EXT_CUDA_GRID_STRIDE_H_
