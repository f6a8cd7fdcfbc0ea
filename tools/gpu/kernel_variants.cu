// Kernel-shape experiments for the Kepler solve on a GPU (not part of the
// build): times launch shapes of the same solver against a copy kernel that
// moves the same bytes (two arrays in, two out), at one N, float32 and
// float64, with CUDA events; checks every variant gives the baseline's bits.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. tools/gpu/kernel_variants.cu -o /tmp/kv && /tmp/kv [N]
//
// Results are recorded in benchmarks/BENCHMARKS.md (GPU section).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "jaxlib_ext/solver/kepler_solver.h"

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t err_ = (x);                                                           \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
                   cudaGetErrorString(err_));                                         \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

using kepler_ext::solve_eccentric;

// V0: today's kernel: grid-stride loop, at most 65536 blocks of 256.
template <typename T>
__global__ void v0(const T* m, const T* e, T* s, T* c, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    T a, b;
    solve_eccentric(m[i], e[i], &a, &b);
    s[i] = a;
    c[i] = b;
  }
}

// V1: one element per thread, restrict + read-only loads.
template <typename T>
__global__ void v1(const T* __restrict__ m, const T* __restrict__ e, T* __restrict__ s,
                   T* __restrict__ c, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    T a, b;
    solve_eccentric(__ldg(m + i), __ldg(e + i), &a, &b);
    s[i] = a;
    c[i] = b;
  }
}

// V2: K consecutive-in-stride elements per thread, all loads issued first.
template <typename T, int K>
__global__ void v2(const T* __restrict__ m, const T* __restrict__ e, T* __restrict__ s,
                   T* __restrict__ c, int64_t n) {
  const int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * K + threadIdx.x;
  T mm[K], ee[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int64_t i = base + static_cast<int64_t>(k) * blockDim.x;
    mm[k] = i < n ? __ldg(m + i) : T(0);
    ee[k] = i < n ? __ldg(e + i) : T(0);
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int64_t i = base + static_cast<int64_t>(k) * blockDim.x;
    T a, b;
    solve_eccentric(mm[k], ee[k], &a, &b);
    if (i < n) {
      s[i] = a;
      c[i] = b;
    }
  }
}

// V3: grid-stride over a grid sized to fill the GPU (SMs x resident blocks).
template <typename T>
__global__ void v3(const T* __restrict__ m, const T* __restrict__ e, T* __restrict__ s,
                   T* __restrict__ c, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    T a, b;
    solve_eccentric(__ldg(m + i), __ldg(e + i), &a, &b);
    s[i] = a;
    c[i] = b;
  }
}

template <typename T>
__global__ void copy2(const T* __restrict__ m, const T* __restrict__ e, T* __restrict__ s,
                      T* __restrict__ c, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    s[i] = __ldg(m + i);
    c[i] = __ldg(e + i);
  }
}

// Compute only: inputs made from the index, no loads; one store per 1024 solves.
template <typename T>
__global__ void compute_only(T* sink, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const T m = T(i % 6283) * T(0.001);
    const T e = T(i % 950) * T(0.001);
    T a, b;
    solve_eccentric(m, e, &a, &b);
    if (a == T(12345)) sink[0] = b;  // never true; keeps the work
  }
}

template <typename T>
__global__ void fill(T* m, T* e, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    m[i] = T((h & 0xFFFFFF) / 16777216.0 * 6.283185307179586);
    e[i] = T(((h >> 24) & 0xFFFFFF) / 16777216.0 * 0.95);
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
};

template <typename F>
float median_ms(F launch, int reps = 21) {
  Timer t;
  launch();
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(t.a));
    launch();
    CHECK(cudaEventRecord(t.b));
    CHECK(cudaEventSynchronize(t.b));
    CHECK(cudaGetLastError());
    float x;
    CHECK(cudaEventElapsedTime(&x, t.a, t.b));
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <typename T>
void run(int64_t n, int sms) {
  const char* name = sizeof(T) == 4 ? "float32" : "float64";
  T *m, *e, *s, *c, *s0, *c0;
  const size_t bytes = n * sizeof(T);
  CHECK(cudaMalloc(&m, bytes));
  CHECK(cudaMalloc(&e, bytes));
  CHECK(cudaMalloc(&s, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMalloc(&s0, bytes));
  CHECK(cudaMalloc(&c0, bytes));
  const int b = 256;
  const unsigned full = static_cast<unsigned>((n + b - 1) / b);
  fill<T><<<full, b>>>(m, e, n);
  CHECK(cudaGetLastError());
  const double moved = 4.0 * bytes;
  auto report = [&](const char* what, float ms, float copy_ms) {
    std::printf("%s %-34s %8.3f ms %7.1f GB/s %6.1f%% of copy2\n", name, what, ms,
                moved / ms / 1e6, 100.0 * copy_ms / ms);
  };
  const float copy_ms = median_ms([&] { copy2<T><<<full, b>>>(m, e, s, c, n); });
  const float memcpy_ms = median_ms([&] {
    CHECK(cudaMemcpyAsync(s, m, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpyAsync(c, e, bytes, cudaMemcpyDeviceToDevice));
  });
  report("copy2 kernel (ceiling)", copy_ms, copy_ms);
  report("2x cudaMemcpy D2D", memcpy_ms, copy_ms);
  const unsigned g0 = std::min<int64_t>(full, 65536);
  report("v0 today (grid-stride, <=65536 blk)",
         median_ms([&] { v0<T><<<g0, b>>>(m, e, s0, c0, n); }), copy_ms);
  auto check = [&](const char* what) {
    std::vector<T> a(n), a0(n);
    CHECK(cudaMemcpy(a.data(), s, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(a0.data(), s0, bytes, cudaMemcpyDeviceToHost));
    if (std::memcmp(a.data(), a0.data(), bytes) != 0) std::printf("  %s: DIFFERS from v0\n", what);
    CHECK(cudaMemset(s, 0xFF, bytes));
  };
  report("v1 one per thread", median_ms([&] { v1<T><<<full, b>>>(m, e, s, c, n); }), copy_ms);
  check("v1");
  for (int bs : {128, 512}) {
    const unsigned g = static_cast<unsigned>((n + bs - 1) / bs);
    char label[64];
    std::snprintf(label, sizeof label, "v1 one per thread, block %d", bs);
    report(label, median_ms([&] { v1<T><<<g, bs>>>(m, e, s, c, n); }), copy_ms);
    check(label);
  }
  {
    const unsigned g = static_cast<unsigned>((n + 2 * b - 1) / (2 * b));
    report("v2 K=2", median_ms([&] { v2<T, 2><<<g, b>>>(m, e, s, c, n); }), copy_ms);
    check("v2 K=2");
  }
  {
    const unsigned g = static_cast<unsigned>((n + 4 * b - 1) / (4 * b));
    report("v2 K=4", median_ms([&] { v2<T, 4><<<g, b>>>(m, e, s, c, n); }), copy_ms);
    check("v2 K=4");
  }
  for (int per_sm : {4, 8, 16, 32}) {
    char label[64];
    std::snprintf(label, sizeof label, "v3 grid-stride, %d blk/SM", per_sm);
    report(label, median_ms([&] { v3<T><<<sms * per_sm, b>>>(m, e, s, c, n); }), copy_ms);
    check(label);
  }
  const float comp = median_ms([&] { compute_only<T><<<full, b>>>(s, n); });
  std::printf("%s %-34s %8.3f ms (no memory traffic: the arithmetic alone)\n", name,
              "compute only", comp);
  for (T* p : {m, e, s, c, s0, c0}) CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000000;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, N = %lld\n", prop.name, prop.multiProcessorCount,
              static_cast<long long>(n));
  run<float>(n, prop.multiProcessorCount);
  run<double>(n, prop.multiProcessorCount);
  return 0;
}
