// Names this source's constant tables (host_device.h's TableAt).
#define JAXEXT_KERNEL_SOURCE transit_kernel

#include "jaxlib_ext/transit/transit_kernel.h"

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit::kernel {

constexpr int kBlockSize = 128;

// Element i: the thread makes its row's planet ready, shifts its time by
// its epoch's variation (rows with transit times: ShiftedTime) and, where
// its exposure needs them, finds the contacts or the orbit's breakpoints
// (TransitElement), then computes its element. One thread per time.
struct Element {
  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    Planet planet;
    const int offset = RowOffsetOfU(p.light);
    const T* row = p.rows + (i / p.group_size) * (offset + p.epochs + p.order);
    MakePlanetFromRow(row, p.order, p.geometry, p.law, p.light, p.epochs, &planet);
    const T time = p.epochs > 0
                       ? ShiftedTime(row[kT0], row[kPeriod], row + offset, p.epochs, p.x[i])
                       : p.x[i];
    TransitElement(planet, nullptr, nullptr, time, p.y, i, p.out);
  }
};

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize>(cuda::BothDtypes<Params, Element>::Of(params),
                                            stream);
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::transit::kernel
