// Names this source's constant tables (host_device.h's TableAt).
#define JAXEXT_KERNEL_SOURCE transit_kernel

#include "jaxlib_ext/transit/transit_kernel.h"

#include <type_traits>

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/transit/exposure_batch.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit::kernel {

constexpr int kBlockSize = 128;

// The kernels, one thread per time (transit.h's TransitRowElement: the
// thread makes its row's planet ready and shifts its time by its epoch's
// variation), a family for each pass of transit.h's TransitPlan:
// kLowOrderLight, kLowOrderPasses' three (kLowOrderWindow over every time
// writes those between the transit's windows and marks the rest, which
// kLowOrderInstant (T = 0) computes in full warps, cuda/grid_stride.h's
// LeftPassKernel without the exposure's code, and kLowOrderExposed (the
// others) in batches of kBatchSize times whose exposures' nodes the
// block's threads share, LeftBatchKernel over exposure_batch.h's
// ExposedBatch), and one for each other family of laws (kPolynomial,
// kLaws, kTabulated), each with its family's row.
//
// JAXEXT_EXPOSED_PER_THREAD=1 builds instead the exposed times' pass with
// a thread per time (LeftPassKernel over TransitRowElement, the exposure's
// mean in the thread: 168 registers, 1,408 B of stack; nvcc 13.5, sm_90),
// for a GPU to time the two.
enum Family : int {
  kLowOrderWindow,
  kLowOrderInstant,
  kLowOrderExposed,
  kLowOrderLight,
  kPolynomial,
  kLaws,
  kTabulated
};

// The exposures a kernel's code handles (transit.h's SpanCode).
template <int kFamily>
constexpr SpanCode kSpanOf = kFamily == kLowOrderInstant   ? SpanCode::kInstant
                             : kFamily == kLowOrderExposed ? SpanCode::kExposed
                                                           : SpanCode::kEither;

// The row of a family's laws (limb_dark.h).
template <int kFamily>
using CurveOf = std::conditional_t<
    kFamily == kPolynomial, PolynomialCurve,
    std::conditional_t<kFamily == kLaws, LawCurve,
                       std::conditional_t<kFamily == kTabulated, TableCurve, LowOrderCurve>>>;

// The planet's light a kernel's code handles: the row's choice at run time
// in the kernels of one family of laws each, fixed in the low-order ones.
template <int kFamily>
constexpr LightCode kLightOf =
    kFamily == kLowOrderLight ? LightCode::kOnly
    : kFamily == kPolynomial || kFamily == kLaws || kFamily == kTabulated ? LightCode::kEither
                                                                          : LightCode::kNone;

#ifndef JAXEXT_EXPOSED_PER_THREAD
#define JAXEXT_EXPOSED_PER_THREAD 0
#endif

// The batches of exposed times: 64 times and 64 threads a block, whose
// ExposureBatch (49,040 B) is the block's shared memory; its marks read
// 4 a thread (the gathered indices, 2.5 KB more).
constexpr int kBatchSize = 64;
constexpr int kBatchPerThread = 4;
using LowOrderBatch = ExposureBatch<LowOrderCurve, kBatchSize>;

// ExposedBatch's steps on the device: each thread its own, then the block's
// barrier.
struct DeviceBlock {
  template <typename Function>
  __host__ __device__ void Step(Function step) {
#ifdef __CUDA_ARCH__
    step(static_cast<int>(threadIdx.x));
    __syncthreads();
#endif
  }
};

// A call's times in a batch (exposure_batch.h's BatchTimes) of the dtype in
// use: `both` is cuda::BothDtypes's.
template <typename T>
__device__ BatchTimes<T> TimesOf(const Params<T>& p, const int64_t* index) {
  return {p.rows, p.x, p.y, p.order, p.group_size, p.geometry, p.law, p.epochs, index, &p.out};
}
template <typename Both>
struct BothTimes {
  const Both* both;
  const int64_t* index;

  template <typename Batch>
  __device__ void SetUp(Batch& s, int o) const {
    if (both->is_float) {
      TimesOf(both->as_float, index).SetUp(s, o);
    } else {
      TimesOf(both->as_double, index).SetUp(s, o);
    }
  }

  __device__ void Store(int o, double value, const double* d, const double* du, int n_du) const {
    if (both->is_float) {
      TimesOf(both->as_float, index).Store(o, value, d, du, n_du);
    } else {
      TimesOf(both->as_double, index).Store(o, value, d, du, n_du);
    }
  }
};

template <int kFamily>
struct Element {
  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    TransitRowElement<CurveOf<kFamily>, kLightOf<kFamily>, kSpanOf<kFamily>,
                      kFamily == kLowOrderWindow>(p.rows, p.x, p.y, p.order, p.group_size,
                                                  p.geometry, p.law, p.light, p.epochs, i,
                                                  p.out);
  }

  // The left passes' test: the window pass marked the time for this pass.
  template <typename T>
  __device__ static bool IsLeft(const Params<T>& p, int64_t i) {
    return IsMarkedLeft(p.out.flux[i], WindowMarkOf(kSpanOf<kFamily>));
  }

  // kLowOrderExposed's batch of the times it marked (LeftBatchKernel), one
  // body for both dtypes (BothTimes).
  template <typename Both>
  __device__ static void Batch(const Both& both, const int64_t* index, int count,
                               LowOrderBatch* batch) {
    DeviceBlock block;
    const bool derivatives = both.is_float ? both.as_float.out.d[0] != nullptr
                                           : both.as_double.out.d[0] != nullptr;
    ExposedBatch(block, *batch, BothTimes<Both>{&both, index}, count, derivatives);
  }
};

// The left passes read the marks of 16 times a thread, all in flight.
constexpr int kLeftPerThread = 16;

// The times without an exposure: at least 4 blocks a multiprocessor (128
// registers, nothing spilled, as ptxas chooses uncapped; nvcc 13.5, sm_90).
// Capped so, the pass of the exposed times with a thread per time (168
// registers, 8 B spilled) spills about 430 B in its exposure's mean, whose
// sums and plan are live across each node's call of the flux.
constexpr int kInstantMinBlocks = 4;

// A kernel of kFamily over every time.
template <int kFamily, typename T>
cudaError_t LaunchOver(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize>(
      cuda::BothDtypes<Params, Element<kFamily>>::Of(params), stream);
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  switch (PlanOf(params.law, params.order, params.light)) {
    case TransitPlan::kPolynomial:
      return LaunchOver<kPolynomial>(params, stream);
    case TransitPlan::kLaws:
      return LaunchOver<kLaws>(params, stream);
    case TransitPlan::kTabulated:
      return LaunchOver<kTabulated>(params, stream);
    case TransitPlan::kLowOrderLight:
      return LaunchOver<kLowOrderLight>(params, stream);
    case TransitPlan::kLowOrderPasses:
      break;
  }
  cudaError_t status = LaunchOver<kLowOrderWindow>(params, stream);
  if (status == cudaSuccess) {
    status = cuda::LaunchLeftPass<kBlockSize, kLeftPerThread, kInstantMinBlocks>(
        cuda::BothDtypes<Params, Element<kLowOrderInstant>>::Of(params), stream);
  }
  if (status != cudaSuccess) return status;
  if constexpr (JAXEXT_EXPOSED_PER_THREAD) {
    return cuda::LaunchLeftPass<kBlockSize, kLeftPerThread>(
        cuda::BothDtypes<Params, Element<kLowOrderExposed>>::Of(params), stream);
  } else {
    return cuda::LaunchLeftBatch<kBatchSize, kBatchPerThread, LowOrderBatch>(
        cuda::BothDtypes<Params, Element<kLowOrderExposed>>::Of(params), stream);
  }
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::transit::kernel
