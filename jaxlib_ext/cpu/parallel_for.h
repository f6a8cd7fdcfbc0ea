// ParallelFor: an elementwise loop split across the intra-op thread pool that
// XLA hands FFI handlers (xla::ffi::ThreadPool), for any op's CPU handler.
#ifndef JAXLIB_EXT_CPU_PARALLEL_FOR_H_
#define JAXLIB_EXT_CPU_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "xla/ffi/api/ffi.h"

namespace jaxext {

// Work is handed out in chunks of at most this many elements, and of a
// multiple of kChunkAlign (so that every chunk starts on a cache-line and
// vector boundary); smaller arrays are split into one chunk per thread.
inline constexpr size_t kChunkElements = 8 * 1024;
inline constexpr size_t kChunkAlign = 64;
static_assert(kChunkElements % kChunkAlign == 0, "chunks must be aligned");

// The chunk size for n elements on `threads` threads (the caller included),
// `per_thread` chunks each: n split evenly, rounded up to kChunkAlign, at
// most kChunkElements.
inline size_t ChunkElements(size_t n, size_t threads, size_t per_thread = 1) {
  const size_t parts = threads * per_thread;
  const size_t even = (n + parts - 1) / parts;
  const size_t aligned = (even + kChunkAlign - 1) / kChunkAlign * kChunkAlign;
  return std::min(kChunkElements, std::max(kChunkAlign, aligned));
}

// The chunk size of ParallelFor for n elements and a pool of pool_threads
// threads, the caller counted as one of them (0 or 1, or below the op's
// threshold: one chunk of n, run serially): ChunkElements(n, pool_threads,
// chunks_per_thread); or, where n holds at least pool_threads units (rows),
// whole units: n's even share of that many chunks (at least kChunkAlign, at
// most kChunkElements) rounded up to a multiple of `unit`. With fewer units
// than threads, units are split (a few long rows would leave threads idle).
inline size_t ChunkFor(size_t n, size_t pool_threads, size_t chunks_per_thread = 1,
                       size_t unit = 1) {
  if (pool_threads < 2) return std::max<size_t>(n, 1);
  if (unit > 1 && n / unit >= pool_threads) {
    const size_t parts = pool_threads * chunks_per_thread;
    const size_t share =
        std::min(kChunkElements, std::max(kChunkAlign, (n + parts - 1) / parts));
    return (share + unit - 1) / unit * unit;
  }
  return ChunkElements(n, pool_threads, chunks_per_thread);
}

// The pool tasks ParallelFor schedules besides the caller for num_chunks
// chunks on a pool of pool_threads threads: the caller counts as one of the
// pool's threads (XLA's pool has a thread per CPU, and the caller is another
// thread on one of those CPUs: one more would share a CPU), and no task is
// scheduled for a chunk the caller can take itself.
inline size_t HelperTasks(size_t pool_threads, size_t num_chunks) {
  return pool_threads < 2 || num_chunks < 2 ? 0 : std::min(pool_threads, num_chunks) - 1;
}

namespace detail {

// The calling thread and up to `helpers` pool tasks claim chunks from
// `next_chunk` until none is left; the calling thread then waits only for
// chunks that another thread has already claimed, i.e. that are being worked
// on right now. It never waits for a task merely scheduled, so nothing
// deadlocks when the pool has no free thread (or no thread at all, or the
// caller is itself a pool thread). Tasks that start after the work is gone
// find no chunk and return without calling `body`; the shared_ptr keeps this
// state (and the copy of `body`) alive for them after the caller returned.
//
// Waking a pool thread can put it on the caller's own CPU and preempt the
// caller before it claims a chunk (seen on Linux 6.18 on a 2-core VM, every
// other call: one thread then did all the work while the other CPU idled).
// So a helper that starts before the caller has begun its own work
// schedules the helpers the caller has not yet scheduled, and one more to
// stand in for the caller; it touches the pool only while the caller is
// inside ParallelFor (`open`, `launching`), since the pool is the caller's
// handler argument.
template <typename Body>
struct ParallelJob {
  explicit ParallelJob(Body b, size_t count, size_t chunk_elements, size_t chunk_count,
                       size_t helper_tasks, xla::ffi::ThreadPool* thread_pool)
      : body(std::move(b)),
        n(count),
        chunk(chunk_elements),
        num_chunks(chunk_count),
        helpers(helper_tasks),
        pool(thread_pool) {}

  Body body;
  const size_t n;
  const size_t chunk;
  const size_t num_chunks;
  const size_t helpers;
  xla::ffi::ThreadPool* const pool;
  std::atomic<size_t> next_chunk{0};
  std::atomic<size_t> chunks_done{0};
  std::atomic<size_t> scheduled{0};  // helper tasks scheduled so far
  std::atomic<bool> caller_working{false};
  std::atomic<bool> open{true};      // the caller is in ParallelFor: `pool` is valid
  std::atomic<size_t> launching{0};  // helpers in Launch now
  std::mutex mu;
  std::condition_variable all_done;

  // Schedules helper tasks until `limit` are scheduled or no chunk is left.
  void Launch(const std::shared_ptr<ParallelJob>& self, size_t limit) {
    size_t s = scheduled.load();
    while (s < limit && next_chunk.load() < num_chunks) {
      if (scheduled.compare_exchange_weak(s, s + 1)) {
        pool->Schedule([self] { self->Help(self); });
        ++s;
      }
    }
  }

  void Help(const std::shared_ptr<ParallelJob>& self) {
    if (!caller_working.load()) {
      launching.fetch_add(1);
      if (open.load()) Launch(self, helpers + 1);
      if (launching.fetch_sub(1) == 1 && !open.load()) Notify();
    }
    Work();
  }

  void Work() {
    for (size_t c = next_chunk.fetch_add(1); c < num_chunks;
         c = next_chunk.fetch_add(1)) {
      const size_t begin = c * chunk;
      body(begin, std::min(n, begin + chunk));
      if (chunks_done.fetch_add(1) + 1 == num_chunks) Notify();
    }
  }

  void Notify() {
    std::lock_guard<std::mutex> lock(mu);
    all_done.notify_all();
  }

  // The caller's part: its helpers, its share of the chunks, then the wait
  // for every chunk and for every helper still using the pool.
  void Run(const std::shared_ptr<ParallelJob>& self) {
    Launch(self, helpers);
    caller_working.store(true);
    Work();
    std::unique_lock<std::mutex> lock(mu);
    all_done.wait(lock, [this] { return chunks_done.load() == num_chunks; });
    open.store(false);
    all_done.wait(lock, [this] { return launching.load() == 0; });
  }
};

}  // namespace detail

// Calls body(begin, end) on disjoint ranges covering [0, n), on the calling
// thread alone when n < min_parallel (an op's own threshold: where its
// per-element cost outweighs scheduling), else on it and the pool's threads,
// in chunks of ChunkFor(n, pool threads, chunks_per_thread, unit): more than
// one a thread where the elements' costs differ along the array (a transit's
// times in one stretch of a sorted light curve), so that the threads share
// the dear ones; whole units where there are as many as the pool has
// threads; HelperTasks(pool threads, chunks) pool tasks besides the caller
// (none on a pool of one thread). Returns when every range is done. `body`
// is copied; it must not throw.
template <typename Body>
void ParallelFor(xla::ffi::ThreadPool& thread_pool, size_t n, size_t min_parallel, Body body,
                 size_t chunks_per_thread = 1, size_t unit = 1) {
  const int64_t pool_threads =
      n < min_parallel ? 0 : std::max<int64_t>(0, thread_pool.num_threads());
  const size_t chunk =
      ChunkFor(n, static_cast<size_t>(pool_threads), chunks_per_thread, unit);
  const size_t num_chunks = (n + chunk - 1) / chunk;
  const size_t helpers = HelperTasks(static_cast<size_t>(pool_threads), num_chunks);
  if (helpers == 0) {
    body(size_t{0}, n);
    return;
  }
  auto job = std::make_shared<detail::ParallelJob<Body>>(std::move(body), n, chunk, num_chunks,
                                                         helpers, &thread_pool);
  job->Run(job);
}

// ParallelFor over the elements of an op whose elements come in rows (a
// shared operand's row serving group_size consecutive elements): calls
// body(row, begin, end) on runs [begin, end) that lie within one row. With
// rows of at most kChunkElements, as many as the pool has threads, the
// chunks are whole rows (a row's set-up, such as the transit's contact
// times, then runs once a call: vmapped chains or planets); fewer rows, or
// longer ones, are split within rows (their set-up is small beside a
// chunk's work, and every thread gets some).
template <typename Body>
void ParallelForRows(xla::ffi::ThreadPool& thread_pool, size_t n, size_t group_size,
                     size_t min_parallel, Body body, size_t chunks_per_thread = 1) {
  const size_t unit = group_size > 0 && group_size <= kChunkElements ? group_size : 1;
  ParallelFor(
      thread_pool, n, min_parallel,
      [=](size_t begin, size_t end) {
        while (begin < end) {
          const size_t row = begin / group_size;
          const size_t stop = std::min(end, (row + 1) * group_size);
          body(row, begin, stop);
          begin = stop;
        }
      },
      chunks_per_thread, unit);
}

}  // namespace jaxext

#endif  // JAXLIB_EXT_CPU_PARALLEL_FOR_H_
