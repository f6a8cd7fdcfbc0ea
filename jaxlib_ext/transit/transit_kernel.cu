#include "jaxlib_ext/transit/transit_kernel.h"

#include <algorithm>

#include "jaxlib_ext/transit/transit.h"

namespace jaxext {
namespace transit {
namespace kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// One thread per time (grid-stride beyond the grid's limit): each makes its
// row's planet ready and, where its exposure needs them, the contacts
// (TransitElement), then computes its element.
template <typename T>
__global__ void __launch_bounds__(kBlockSize) Kernel(Params<T> p) {
  const int width = kParamCount + p.order;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x; i < p.n;
       i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    Planet planet;
    MakePlanetFromRow(p.params + (i / p.group_size) * width, p.order, p.geometry, p.law,
                      &planet);
    TransitElement(planet, nullptr, p.t, p.exposure, i, p.out);
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  Kernel<T><<<static_cast<unsigned>(blocks), kBlockSize, 0, stream>>>(params);
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace transit
}  // namespace jaxext
