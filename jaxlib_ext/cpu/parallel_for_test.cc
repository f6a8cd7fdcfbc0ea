// ChunkFor and HelperTasks, the split of ParallelFor and ParallelForRows, on
// pools of 0 to 127 threads (the caller counted as one of them): the
// properties parallel_for.h promises, over many sizes, row lengths and
// chunks a thread, checked from the chunk count that ParallelFor derives
// from the chunk size. The CI hosts have two cores; these are the many-core
// hosts' splits, which no timing here sees.
//
// Prints one line per failed case and ends with "N passed, M failed"; the
// exit status is nonzero if any check failed.

#include "jaxlib_ext/cpu/parallel_for.h"

#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int g_passed = 0;
int g_failed = 0;

void Check(bool ok, const char* what, size_t n, size_t threads, size_t per, size_t unit,
           size_t chunk) {
  if (ok) {
    ++g_passed;
    return;
  }
  ++g_failed;
  std::printf("FAIL %s: n %zu, pool threads %zu, chunks a thread %zu, unit %zu -> chunk %zu\n",
              what, n, threads, per, unit, chunk);
}

void CheckCase(size_t n, size_t threads, size_t per, size_t unit) {
  using jaxext::kChunkAlign;
  using jaxext::kChunkElements;
  const size_t chunk = jaxext::ChunkFor(n, threads, per, unit);
  // No chunk smaller than kChunkAlign elements (a scheduled task's cost
  // against its work), unless n is.
  Check(chunk >= std::min<size_t>(std::max<size_t>(n, 1), jaxext::kChunkAlign),
        "chunks of at least kChunkAlign", n, threads, per, unit, chunk);
  const size_t chunks = (n + chunk - 1) / chunk;
  const size_t helpers = jaxext::HelperTasks(threads, chunks);
  // The caller and its helpers never outnumber the pool's threads, nor the
  // chunks; a pool of one thread (or none) runs the loop serially.
  Check(helpers + 1 <= std::max<size_t>(threads, 1) && helpers + 1 <= std::max<size_t>(chunks, 1),
        "no more workers than threads or chunks", n, threads, per, unit, chunk);
  if (threads < 2) {
    Check(chunk >= n && helpers == 0, "a pool of one thread: one serial chunk", n, threads,
          per, unit, chunk);
    return;
  }
  // Every thread of the pool works where there are chunks for it.
  Check(helpers + 1 == std::min(threads, chunks) || chunks < 2, "a worker a thread", n, threads,
        per, unit, chunk);
  const size_t parts = threads * per;
  const bool whole_units = unit > 1 && n / unit >= threads;
  if (whole_units) {
    // No unit (a row: its set-up, such as the transit's contact times, once
    // a call) is split between chunks.
    Check(chunk % unit == 0, "whole units", n, threads, per, unit, chunk);
  } else {
    Check(chunk % kChunkAlign == 0, "aligned chunks", n, threads, per, unit, chunk);
    Check(chunk <= kChunkElements, "chunks of at most kChunkElements", n, threads, per, unit,
          chunk);
  }
  if (n >= parts * kChunkAlign) {
    // Enough work for every thread: at least half the chunks asked for, and
    // with whole units at least a unit a pool thread (a many-core host is
    // not left with a few long rows on a few threads).
    const size_t least = whole_units ? std::min(threads, parts / 2) : (parts + 1) / 2;
    Check(chunks >= least, "chunks for every thread", n, threads, per, unit, chunk);
  }
  // Not split finer than asked: at most the chunks asked for, or the
  // chunks of kChunkElements (or of whole units) that n needs.
  const size_t most_chunk = whole_units ? std::max(unit, kChunkElements) : kChunkElements;
  Check(chunks <= std::max(parts, (n + most_chunk - 1) / most_chunk) + 1, "not split finer",
        n, threads, per, unit, chunk);
}

}  // namespace

int main() {
  const size_t pools[] = {0, 1, 2, 3, 4, 8, 16, 32, 64, 127};
  const size_t per_thread[] = {1, 2, 4};
  // Row lengths: none, a cadence's worth, the demo's 489 exposures, up to
  // kChunkElements (ParallelForRows passes longer rows as unit 1).
  const size_t units[] = {1, 2, 64, 100, 489, 1000, 4096, 8192};
  std::mt19937_64 rng(20261130);
  std::vector<size_t> sizes = {0, 1, 63, 64, 65, 1000, 1100, 4096, 8192, 16384, 100000,
                               1000000};
  std::uniform_int_distribution<size_t> any_size(1, 3000000);
  for (int i = 0; i < 200; ++i) sizes.push_back(any_size(rng));
  for (size_t threads : pools) {
    for (size_t per : per_thread) {
      for (size_t unit : units) {
        for (size_t n : sizes) CheckCase(n, threads, per, unit);
        // Whole rows of every unit, few and many.
        for (size_t rows : {1, 2, 3, 8, 16, 64, 300}) CheckCase(rows * unit, threads, per, unit);
      }
    }
  }
  // Two rows of 8,192 times on a pool of 16 threads are split within rows,
  // into a chunk for every thread.
  const size_t chunk = jaxext::ChunkFor(2 * 8192, 16, 4, 8192);
  Check(chunk < 8192 && (2 * 8192 + chunk - 1) / chunk >= 16, "two long rows, 16 threads",
        2 * 8192, 16, 4, 8192, chunk);
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
