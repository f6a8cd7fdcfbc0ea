#include "jaxlib_ext/transit/transit_kernel.h"

#include <algorithm>
#include <type_traits>

#include "jaxlib_ext/transit/transit.h"

namespace jaxext {
namespace transit {
namespace kernel {

constexpr int kBlockSize = 128;
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

// Element i: the thread makes its row's planet ready and, where its exposure
// needs them, the contacts (TransitElement), then computes its element.
template <typename T>
__device__ void Element(const Params<T>& p, int64_t i) {
  Planet planet;
  MakePlanetFromRow(p.params + (i / p.group_size) * (kParamCount + p.order), p.order, p.geometry,
                    p.law, &planet);
  TransitElement(planet, nullptr, p.t, p.exposure, i, p.out);
}

// One kernel for both dtypes (the other's Params unused): ptxas compiles the
// math's device functions once per kernel that calls them, so one kernel
// halves the build's time. One thread per time, grid-stride beyond the
// grid's limit.
__global__ void __launch_bounds__(kBlockSize)
    Kernel(Params<double> as_double, Params<float> as_float, bool is_float) {
  const int64_t n = is_float ? as_float.n : as_double.n;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kBlockSize + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kBlockSize) {
    if (is_float) {
      Element(as_float, i);
    } else {
      Element(as_double, i);
    }
  }
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  if (params.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((params.n + kBlockSize - 1) / kBlockSize, kMaxBlocks);
  Params<double> as_double{};
  Params<float> as_float{};
  constexpr bool kIsFloat = std::is_same<T, float>::value;
  if constexpr (kIsFloat) {
    as_float = params;
  } else {
    as_double = params;
  }
  Kernel<<<static_cast<unsigned>(blocks), kBlockSize, 0, stream>>>(as_double, as_float, kIsFloat);
  return cudaGetLastError();
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace kernel
}  // namespace transit
}  // namespace jaxext
