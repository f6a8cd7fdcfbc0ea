#include "jaxlib_ext/cpu/kepler_cpu.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "jaxlib_ext/cpu/kepler_cpu_loops.h"
#include "jaxlib_ext/ffi_helpers.h"
#include "xla/ffi/api/ffi.h"

namespace kepler_ext {
namespace {

// Inputs below this many elements are solved on the calling thread alone.
constexpr size_t kParallelMinElements = 32 * 1024;
// Work is handed out in chunks of this many elements (a multiple of 64, so
// that every chunk starts on a cache-line and vector boundary).
constexpr size_t kChunkElements = 8 * 1024;
static_assert(kChunkElements % 64 == 0, "chunks must be 64-element aligned");

// One parallel solve. The calling thread and up to num_threads pool tasks
// claim chunks from `next_chunk` until none is left; the calling thread then
// waits only for chunks that another thread has already claimed, i.e. that
// are being solved right now. It never waits for a task merely scheduled, so
// nothing deadlocks when the pool has no free thread (or no thread at all,
// or the caller is itself a pool thread). Tasks that start after the work is
// gone find no chunk and return without touching the buffers; the shared_ptr
// keeps this state alive for them after the handler has returned.
template <typename T>
struct ParallelSolve {
  SolveLoop<T> loop;
  const T* mean_anomaly;
  const T* ecc;
  T* out_sin;
  T* out_cos;
  size_t n;
  size_t num_chunks;
  bool true_anomaly;

  std::atomic<size_t> next_chunk{0};
  std::atomic<size_t> chunks_done{0};
  std::mutex mu;
  std::condition_variable all_done;

  // Solves chunks until none is left to claim.
  void Work() {
    for (size_t c = next_chunk.fetch_add(1); c < num_chunks;
         c = next_chunk.fetch_add(1)) {
      const size_t begin = c * kChunkElements;
      const size_t len = std::min(kChunkElements, n - begin);
      loop(mean_anomaly + begin, ecc + begin, out_sin + begin,
           out_cos + begin, len, true_anomaly);
      if (chunks_done.fetch_add(1) + 1 == num_chunks) {
        std::lock_guard<std::mutex> lock(mu);
        all_done.notify_all();
      }
    }
  }

  void WaitForAll() {
    std::unique_lock<std::mutex> lock(mu);
    all_done.wait(lock, [this] { return chunks_done.load() == num_chunks; });
  }
};

template <typename T>
void Solve(SolveLoop<T> loop, const T* mean_anomaly, const T* ecc, T* out_sin,
           T* out_cos, size_t n, bool true_anomaly,
           ffi::ThreadPool& thread_pool) {
  const int64_t pool_threads =
      n < kParallelMinElements ? 0 : thread_pool.num_threads();
  if (pool_threads <= 0) {
    loop(mean_anomaly, ecc, out_sin, out_cos, n, true_anomaly);
    return;
  }
  auto job = std::make_shared<ParallelSolve<T>>();
  job->loop = loop;
  job->mean_anomaly = mean_anomaly;
  job->ecc = ecc;
  job->out_sin = out_sin;
  job->out_cos = out_cos;
  job->n = n;
  job->num_chunks = (n + kChunkElements - 1) / kChunkElements;
  job->true_anomaly = true_anomaly;
  // The calling thread takes part, so at most num_chunks - 1 helpers.
  const int64_t helpers = std::min<int64_t>(
      pool_threads, static_cast<int64_t>(job->num_chunks) - 1);
  for (int64_t t = 0; t < helpers; ++t) {
    thread_pool.Schedule([job] { job->Work(); });
  }
  job->Work();
  job->WaitForAll();
}

ffi::Error KeplerSolveImpl(ffi::ThreadPool thread_pool,
                           ffi::AnyBuffer mean_anomaly, ffi::AnyBuffer ecc,
                           ffi::Result<ffi::AnyBuffer> out_sin,
                           ffi::Result<ffi::AnyBuffer> out_cos,
                           bool true_anomaly) {
  if (ffi::Error err =
          CheckSameShapeAndType(mean_anomaly, ecc, *out_sin, *out_cos);
      err.failure()) {
    return err;
  }
  const IsaChoice& isa = ActiveCpuIsa();
  if (!isa.error.empty()) return ffi::Error::InvalidArgument(isa.error);
  const SolveLoops& loops = LoopsFor(isa.isa);
  const size_t n = mean_anomaly.element_count();
  return DispatchFloat(mean_anomaly.element_type(), [&](auto zero) {
    using T = decltype(zero);
    Solve<T>(loops.get(zero), mean_anomaly.typed_data<T>(), ecc.typed_data<T>(),
             out_sin->typed_data<T>(), out_cos->typed_data<T>(), n,
             true_anomaly, thread_pool);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace kepler_ext

XLA_FFI_DEFINE_HANDLER_SYMBOL(KeplerSolveCpu, kepler_ext::KeplerSolveImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("true_anomaly"));
