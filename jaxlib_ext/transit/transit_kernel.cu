// Names this source's constant tables (host_device.h's TableAt).
#define JAXEXT_KERNEL_SOURCE transit_kernel

// The laws of laws.h's inside rules (power_sums.h's InsidePowerPoint,
// law_flux.h's InsideLawMoments; calls of their own, shared by this
// source's kernels) loop over their nodes four at a time: the same
// registers, stack and spills as unrolled in full (32), in half ptxas's
// time for this source (112 s against 219 s; nvcc 13.5, sm_90). 32 builds
// them unrolled, as the light curve's kernels run them
// (tools/gpu/kernel_variants.sh's transit_inside_unrolled).
#ifndef JAXEXT_INSIDE_NODES_A_STEP
#define JAXEXT_INSIDE_NODES_A_STEP 4
#endif

#include "jaxlib_ext/transit/transit_kernel.h"

#include <type_traits>

#include "jaxlib_ext/cuda/grid_stride.h"
#include "jaxlib_ext/transit/exposure_batch.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit::kernel {

constexpr int kBlockSize = 128;

// The kernels, one thread per time (transit.h's TransitRowElement: the
// thread makes its row's planet ready and shifts its time by its epoch's
// variation), a pass of transit.h's TransitPlan each, over the rows of one
// family of laws (Curve). The quadratic law's rows (PlanetOf<LowOrderCurve>)
// and those of the laws of laws.h (PlanetOf<LawCurve>) run in passes: with
// the planet's light in two (kLight over every time computes those without
// an exposure and marks the others, exposure_batch.h's LightInstantOrMark;
// kLightExposed computes those), without it in three (kWindow over every
// time writes those between the transit's windows and marks the rest,
// which kInstant (T = 0) computes in full warps, cuda/grid_stride.h's
// LeftPassKernel without the exposure's code, and kExposed the others).
// The exposed times go in batches of kBatchSize times whose exposures'
// nodes the block's threads share (LeftBatchKernel over exposure_batch.h's
// ExposedBatch). The other polynomial laws and the tabulated law, whose
// rows and points' arrays a batch's shared memory would not hold, in two
// passes: kWindow, whose rows hold the law's verdict alone (transit.h's
// WindowCurve) and which marks every time of rows with the planet's
// light, then kMarked, a thread for each time it marked, instants and
// exposed alike, with or without the light, its family's row
// (LeftPassKernel).
//
// JAXEXT_EXPOSED_PER_THREAD=1 builds instead a thread per exposed time (the
// exposure's mean in the thread): without the light a pass of
// LeftPassKernel over TransitRowElement (168 registers, 1,408 B of stack
// for the quadratic law; nvcc 13.5, sm_90), with it one kernel over every
// time (255 registers, 1,296 B), for a GPU to time the two
// (tools/gpu/kernel_variants.sh).
#ifndef JAXEXT_EXPOSED_PER_THREAD
#define JAXEXT_EXPOSED_PER_THREAD 0
#endif

enum Pass : int { kWindow, kInstant, kExposed, kLight, kLightExposed, kMarked };

// The exposures a pass's code handles (transit.h's SpanCode).
template <int kPass>
constexpr SpanCode kSpanOf = kPass == kInstant                              ? SpanCode::kInstant
                             : kPass == kExposed || kPass == kLightExposed ? SpanCode::kExposed
                                                                            : SpanCode::kEither;

// The planet's light a pass's code handles: the row's choice at run time
// in kMarked, fixed in the others.
template <int kPass>
constexpr LightCode kLightOf = kPass == kLight || kPass == kLightExposed ? LightCode::kOnly
                               : kPass == kMarked                        ? LightCode::kEither
                                                                         : LightCode::kNone;

// The batches of exposed times: 64 times and 64 threads a block, whose
// ExposureBatch is the block's shared memory (49,136 B without the light,
// 59,344 B with it, for the quadratic law); their marks read 4 a thread
// (the gathered indices, 2.5 KB more).
constexpr int kBatchSize = 64;
constexpr int kBatchPerThread = 4;
template <typename Curve, int kPass>
using BatchOf = ExposureBatch<Curve, kBatchSize, kPass == kLightExposed>;

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

// A call's rows, times and outputs (exposure_batch.h's CallTimes) in the
// dtype in use: `both` is cuda::BothDtypes's, so that one body computes
// either (cuda::OneBody, BothDtypes::Batch).
template <typename T>
__device__ CallTimes<T> TimesOf(const Params<T>& p) {
  return {p.rows, p.x, p.y, p.order, p.group_size, p.geometry, p.law, p.epochs, &p.out};
}
template <typename Both>
struct BothTimes {
  const Both* both;

  // f(CallTimes of the dtype in use).
  template <typename Function>
  __device__ auto With(Function f) const {
    if (both->is_float) return f(TimesOf(both->as_float));
    return f(TimesOf(both->as_double));
  }

  __device__ bool Derivatives() const {
    return With([](const auto& times) { return times.Derivatives(); });
  }

  template <typename Curve>
  __device__ void Load(int64_t i, bool light, PlanetOf<Curve>* planet, double* dt,
                       double* span) const {
    With([&](const auto& times) { times.Load(i, light, planet, dt, span); });
  }

  __device__ void Store(int64_t i, double value, const double* d, const double* du, bool light,
                        int n_du) const {
    With([&](const auto& times) { times.Store(i, value, d, du, light, n_du); });
  }

  __device__ void Mark(int64_t i, int mark) const {
    With([&](const auto& times) { times.Mark(i, mark); });
  }
};

template <typename Family, int kPass>
struct Element {
  // The row this pass holds (transit.h's WindowCurve, PassCurve).
  using Curve = std::conditional_t<kPass == kWindow, WindowCurve<Family>,
                                   PassCurve<Family, kPass == kInstant || kPass == kLight>>;

  // The light's first pass computes both dtypes in one body (RunBoth).
  static constexpr bool kOneBody = kPass == kLight && !JAXEXT_EXPOSED_PER_THREAD;

  template <typename T>
  __device__ static void Run(const Params<T>& p, int64_t i) {
    TransitRowElement<Curve, kLightOf<kPass>, kSpanOf<kPass>, kPass == kWindow>(
        p.rows, p.x, p.y, p.order, p.group_size, p.geometry, p.law, p.light, p.epochs, i,
        p.out);
  }

  template <typename Both>
  __device__ static void RunBoth(const Both& both, int64_t i) {
    LightInstantOrMark<Curve>(BothTimes<Both>{&both}, i);
  }

  // The left passes' test: an earlier pass marked the time for this pass
  // (kMarked: for either).
  template <typename T>
  __device__ static bool IsLeft(const Params<T>& p, int64_t i) {
    if constexpr (kPass == kMarked) return IsWindowMarked(p.out.flux[i]);
    return IsMarkedLeft(p.out.flux[i], WindowMarkOf(kSpanOf<kPass>));
  }

  // kExposed's and kLightExposed's batch of the times marked for them
  // (LeftBatchKernel).
  template <typename Both>
  __device__ static void Batch(const Both& both, const int64_t* index, int count,
                               BatchOf<Curve, kPass>* batch) {
    DeviceBlock block;
    const BothTimes<Both> times{&both};
    ExposedBatch(block, *batch, times, index, count, times.Derivatives());
  }
};

// The left passes read the marks of 16 times a thread, all in flight.
constexpr int kLeftPerThread = 16;

// The times without an exposure: at least 4 blocks a multiprocessor (128
// registers, nothing spilled, as ptxas chooses uncapped for the quadratic
// law; nvcc 13.5, sm_90). Capped so, the pass of the exposed times with a
// thread per time (168 registers, 8 B spilled) spills about 430 B in its
// exposure's mean, whose sums and plan are live across each node's call of
// the flux.
constexpr int kInstantMinBlocks = 4;

// A kernel of one pass over every time.
template <typename Curve, int kPass, typename T>
cudaError_t LaunchOver(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchGridStride<kBlockSize>(
      cuda::BothDtypes<Params, Element<Curve, kPass>>::Of(params), stream);
}

// The batches of the exposed times that an earlier pass marked for kPass.
template <typename Curve, int kPass, typename T>
cudaError_t LaunchBatches(const Params<T>& params, cudaStream_t stream) {
  return cuda::LaunchLeftBatch<kBatchSize, kBatchPerThread, BatchOf<Curve, kPass>>(
      cuda::BothDtypes<Params, Element<Curve, kPass>>::Of(params), stream);
}

// The passes of a family whose rows run in passes: with the planet's light
// (`light`, transit.h's IsLightPasses) two, without it three.
template <typename Curve, typename T>
cudaError_t LaunchPasses(const Params<T>& params, bool light, cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  if (light) {
    status = LaunchOver<Curve, kLight>(params, stream);
    if (status != cudaSuccess || JAXEXT_EXPOSED_PER_THREAD) return status;
    return LaunchBatches<Curve, kLightExposed>(params, stream);
  }
  status = LaunchOver<Curve, kWindow>(params, stream);
  if (status == cudaSuccess) {
    status = cuda::LaunchLeftPass<kBlockSize, kLeftPerThread, kInstantMinBlocks>(
        cuda::BothDtypes<Params, Element<Curve, kInstant>>::Of(params), stream);
  }
  if (status != cudaSuccess) return status;
  if constexpr (JAXEXT_EXPOSED_PER_THREAD) {
    return cuda::LaunchLeftPass<kBlockSize, kLeftPerThread>(
        cuda::BothDtypes<Params, Element<Curve, kExposed>>::Of(params), stream);
  } else {
    return LaunchBatches<Curve, kExposed>(params, stream);
  }
}

// The window pass, then the times it marked a thread each: the families
// whose batches would not fit shared memory.
template <typename Curve, typename T>
cudaError_t LaunchWindowAndMarked(const Params<T>& params, cudaStream_t stream) {
  const cudaError_t status = LaunchOver<Curve, kWindow>(params, stream);
  if (status != cudaSuccess) return status;
  return cuda::LaunchLeftPass<kBlockSize, kLeftPerThread>(
      cuda::BothDtypes<Params, Element<Curve, kMarked>>::Of(params), stream);
}

template <typename T>
cudaError_t Launch(const Params<T>& params, cudaStream_t stream) {
  const TransitPlan plan = PlanOf(params.law, params.order, params.light);
  switch (plan) {
    case TransitPlan::kPolynomial:
      return LaunchWindowAndMarked<PolynomialCurve>(params, stream);
    case TransitPlan::kTabulated:
      return LaunchWindowAndMarked<TableCurve>(params, stream);
    case TransitPlan::kLawsLight:
    case TransitPlan::kLawsPasses:
      return LaunchPasses<LawCurve>(params, IsLightPasses(plan), stream);
    case TransitPlan::kLowOrderLight:
    case TransitPlan::kLowOrderPasses:
      break;
  }
  return LaunchPasses<LowOrderCurve>(params, IsLightPasses(plan), stream);
}

template cudaError_t Launch<float>(const Params<float>&, cudaStream_t);
template cudaError_t Launch<double>(const Params<double>&, cudaStream_t);

}  // namespace jaxext::transit::kernel
