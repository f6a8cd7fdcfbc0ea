// What the kernel-variant programs share (tools/gpu/kernel_variants.cu, the
// light curve's; tools/gpu/transit_variants.cu, the transit model's): the
// CUDA calls checked, the outputs of a checked launch read back, a launch
// timed, and their line of results (the header's columns), which
// tools/gpu/kernel_variants.sh collects and compares.
#ifndef TOOLS_GPU_VARIANT_CHECKS_H_
#define TOOLS_GPU_VARIANT_CHECKS_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "jaxlib_ext/host_device.h"

#define CHECK_CUDA(call)                                                             \
  do {                                                                               \
    const cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorString(e_));                                          \
      std::exit(2);                                                                  \
    }                                                                                \
  } while (0)

namespace variant_checks {

// The `count` outputs at d_out of a launch on outputs poisoned before (all
// bits set: cudaMemset 0xff), copied back: the values, how many were left
// poisoned or marked (jaxext::MarkLeft) and an FNV-1a hash of their bits.
template <typename T>
struct ReadBack {
  std::vector<T> values;
  int64_t bad = 0;
  uint64_t hash = 0xcbf29ce484222325ULL;
};

template <typename T>
ReadBack<T> ReadOutputs(const T* d_out, int64_t count) {
  using Bits = typename jaxext::LeftMark<T>::Bits;
  std::vector<Bits> bits(count);
  CHECK_CUDA(cudaMemcpy(bits.data(), d_out, count * sizeof(T), cudaMemcpyDeviceToHost));
  ReadBack<T> r;
  r.values.resize(count);
  std::memcpy(r.values.data(), bits.data(), count * sizeof(T));
  for (int64_t i = 0; i < count; ++i) {
    r.bad += bits[i] == static_cast<Bits>(~Bits{0});
    r.bad += bits[i] - jaxext::LeftMark<T>::kBits < Bits(jaxext::LeftMark<T>::kMarks);
    r.hash = (r.hash ^ bits[i]) * 0x100000001b3ULL;
  }
  return r;
}

// The median time (ms, CUDA events) of 20 launches after 3.
template <typename Launch>
float MedianMs(Launch&& launch) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int k = 0; k < 23; ++k) {
    CHECK_CUDA(cudaEventRecord(start));
    launch();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float t;
    CHECK_CUDA(cudaEventElapsedTime(&t, start, stop));
    if (k >= 3) ms.push_back(t);
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The columns of the results; `time`: the kernel's time column's name
// (ns/point, ns/time).
inline void PrintHeader(const char* time) {
  std::printf("%-14s %-9s %-7s %10s %9s %9s %7s %8s %16s %9s\n", "variant", "case", "dtype",
              "N", time, "copy ns", "of copy", "bad", "output hash", "vs host");
}

// A case's line: the kernel's and a copy's time per element (copy_ms 0:
// none timed), the outputs' check (ReadBack's `bad` and `hash`), the
// largest difference from the host (`worst`), and its verdict, which it
// returns: no output left poisoned or marked, and within 1e-12 of the host
// in float64, 2e-7 in float32 (the host and the device each round the same
// double once).
template <typename T>
bool Report(const char* variant, const char* name, int64_t n, float kernel_ms, float copy_ms,
            const ReadBack<T>& r, double worst) {
  const bool ok = r.bad == 0 && worst <= (sizeof(T) == 8 ? 1e-12 : 2e-7);
  std::printf("%-14s %-9s %-7s %10.3g %9.4f %9.4f %6.1f%% %8lld %016llx %9.2e %s\n", variant,
              name, sizeof(T) == 8 ? "float64" : "float32", static_cast<double>(n),
              1e6 * kernel_ms / n, 1e6 * copy_ms / n,
              copy_ms > 0 ? 100.0 * copy_ms / (2 * kernel_ms) : 0.0,
              static_cast<long long>(r.bad), static_cast<unsigned long long>(r.hash), worst,
              ok ? "ok" : "FAILED");
  std::fflush(stdout);
  return ok;
}

}  // namespace variant_checks

#endif  // TOOLS_GPU_VARIANT_CHECKS_H_
