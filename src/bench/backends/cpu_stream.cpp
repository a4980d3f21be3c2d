// STREAM-style copy and triad over 64-byte-aligned double arrays, with
// regular stores and (triad_nt) non-temporal stores that skip the
// write-allocate read. Written with intrinsics and loop distribution
// disabled, so GCC cannot replace a loop by a memcpy call.
#include "bench/backends/cpu_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define RT_NO_MEMCPY __attribute__((optimize("no-tree-loop-distribute-patterns"), noinline))

namespace rooftop::bench::cpu {

std::string_view to_string(StreamKind k) {
  switch (k) {
    case StreamKind::copy: return "copy";
    case StreamKind::triad: return "triad";
    case StreamKind::triad_nt: return "triad_nt";
  }
  return "?";
}

int arrays(StreamKind k) { return k == StreamKind::copy ? 2 : 3; }
double bytes_per_element(StreamKind k) { return 8.0 * arrays(k); }

namespace {

RT_NO_MEMCPY void copy_scalar(double* a, const double* b, const double*, double, std::size_t n, std::uint64_t reps) {
  for (std::uint64_t r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i];
    __asm__ volatile("" : : "r"(a) : "memory");
  }
}

RT_NO_MEMCPY void triad_scalar(double* a, const double* b, const double* c, double s, std::size_t n, std::uint64_t reps) {
  for (std::uint64_t r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    __asm__ volatile("" : : "r"(a) : "memory");
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) RT_NO_MEMCPY void copy_avx512(double* a, const double* b, const double*, double,
                                                                 std::size_t n, std::uint64_t reps) {
  for (std::uint64_t r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < n; i += 32) {
      __m512d x0 = _mm512_load_pd(b + i), x1 = _mm512_load_pd(b + i + 8);
      __m512d x2 = _mm512_load_pd(b + i + 16), x3 = _mm512_load_pd(b + i + 24);
      _mm512_store_pd(a + i, x0);
      _mm512_store_pd(a + i + 8, x1);
      _mm512_store_pd(a + i + 16, x2);
      _mm512_store_pd(a + i + 24, x3);
      if (i + 32 >= n) __asm__ volatile("" : : "r"(a) : "memory");
    }
}

template <bool kNt>
__attribute__((target("avx512f"))) RT_NO_MEMCPY void triad_avx512(double* a, const double* b, const double* c,
                                                                  double s, std::size_t n, std::uint64_t reps) {
  const __m512d vs = _mm512_set1_pd(s);
  for (std::uint64_t r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < n; i += 32) {
      for (std::size_t j = 0; j < 32; j += 8) {
        __m512d v = _mm512_fmadd_pd(vs, _mm512_load_pd(c + i + j), _mm512_load_pd(b + i + j));
        if constexpr (kNt) _mm512_stream_pd(a + i + j, v);
        else _mm512_store_pd(a + i + j, v);
      }
    }
    if constexpr (kNt) _mm_sfence();
    __asm__ volatile("" : : "r"(a) : "memory");
  }
}

__attribute__((target("avx2"))) RT_NO_MEMCPY void copy_avx2(double* a, const double* b, const double*, double,
                                                            std::size_t n, std::uint64_t reps) {
  for (std::uint64_t r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < n; i += 16) {
      __m256d x0 = _mm256_load_pd(b + i), x1 = _mm256_load_pd(b + i + 4);
      __m256d x2 = _mm256_load_pd(b + i + 8), x3 = _mm256_load_pd(b + i + 12);
      _mm256_store_pd(a + i, x0);
      _mm256_store_pd(a + i + 4, x1);
      _mm256_store_pd(a + i + 8, x2);
      _mm256_store_pd(a + i + 12, x3);
      if (i + 16 >= n) __asm__ volatile("" : : "r"(a) : "memory");
    }
}

template <bool kNt>
__attribute__((target("avx2,fma"))) RT_NO_MEMCPY void triad_avx2(double* a, const double* b, const double* c,
                                                                 double s, std::size_t n, std::uint64_t reps) {
  const __m256d vs = _mm256_set1_pd(s);
  for (std::uint64_t r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < n; i += 16) {
      for (std::size_t j = 0; j < 16; j += 4) {
        __m256d v = _mm256_fmadd_pd(vs, _mm256_load_pd(c + i + j), _mm256_load_pd(b + i + j));
        if constexpr (kNt) _mm256_stream_pd(a + i + j, v);
        else _mm256_store_pd(a + i + j, v);
      }
    }
    if constexpr (kNt) _mm_sfence();
    __asm__ volatile("" : : "r"(a) : "memory");
  }
}
#endif

}  // namespace

std::optional<StreamKernel> stream_kernel(StreamKind k, const CpuFeatures& f) {
#if defined(__x86_64__)
  if (f.avx512f) {
    switch (k) {
      case StreamKind::copy: return StreamKernel{k, "avx512", copy_avx512};
      case StreamKind::triad: return StreamKernel{k, "avx512", triad_avx512<false>};
      case StreamKind::triad_nt: return StreamKernel{k, "avx512", triad_avx512<true>};
    }
  }
  if (f.avx2 && f.fma) {
    switch (k) {
      case StreamKind::copy: return StreamKernel{k, "avx2", copy_avx2};
      case StreamKind::triad: return StreamKernel{k, "avx2", triad_avx2<false>};
      case StreamKind::triad_nt: return StreamKernel{k, "avx2", triad_avx2<true>};
    }
  }
#else
  (void)f;
#endif
  switch (k) {
    case StreamKind::copy: return StreamKernel{k, "scalar", copy_scalar};
    case StreamKind::triad: return StreamKernel{k, "scalar", triad_scalar};
    case StreamKind::triad_nt: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace rooftop::bench::cpu
