// x86-64 peak kernels, one per instruction class: FMA (AVX2, AVX-512) in
// fp64/fp32, AVX512-FP16 FMA, AVX512-BF16 vdpbf16ps, AVX512-VNNI vpdpbusd and
// AMX tdpbf16ps/tdpbssd. Each function carries its own target attribute, so
// the file builds for baseline x86-64 and the kernels run only where
// cpu_features() found the instructions.
#include "bench/backends/cpu_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#define RT_REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define RT_REP16(X) RT_REP12(X) X(12) X(13) X(14) X(15)

namespace rooftop::bench::cpu {
namespace {

// Values the compiler cannot see, so it cannot fold the loops.
double opaque(double v) {
  volatile double x = v;
  return x;
}
int opaque_int(int v) {
  volatile int x = v;
  return x;
}

// ---- fp64 / fp32 FMA: chain k starts at k/chains, x = x*0.5 + 1 ----------

__attribute__((target("avx512f"))) double fp64_avx512(std::uint64_t n) {
  const __m512d m = _mm512_set1_pd(opaque(0.5)), a = _mm512_set1_pd(opaque(1.0));
#define DECL(k) __m512d c##k = _mm512_set1_pd((k) / 16.0);
  RT_REP16(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm512_fmadd_pd(c##k, m, a);
    RT_REP16(STEP)
#undef STEP
  }
  alignas(64) double buf[8];
  double s = 0;
#define SUM(k) _mm512_store_pd(buf, c##k); for (double v : buf) s += v;
  RT_REP16(SUM)
#undef SUM
  return s;
}

__attribute__((target("avx512f"))) double fp32_avx512(std::uint64_t n) {
  const __m512 m = _mm512_set1_ps(static_cast<float>(opaque(0.5))), a = _mm512_set1_ps(static_cast<float>(opaque(1.0)));
#define DECL(k) __m512 c##k = _mm512_set1_ps((k) / 16.0f);
  RT_REP16(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm512_fmadd_ps(c##k, m, a);
    RT_REP16(STEP)
#undef STEP
  }
  alignas(64) float buf[16];
  double s = 0;
#define SUM(k) _mm512_store_ps(buf, c##k); for (float v : buf) s += static_cast<double>(v);
  RT_REP16(SUM)
#undef SUM
  return s;
}

__attribute__((target("avx2,fma"))) double fp64_avx2(std::uint64_t n) {
  const __m256d m = _mm256_set1_pd(opaque(0.5)), a = _mm256_set1_pd(opaque(1.0));
#define DECL(k) __m256d c##k = _mm256_set1_pd((k) / 12.0);
  RT_REP12(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm256_fmadd_pd(c##k, m, a);
    RT_REP12(STEP)
#undef STEP
  }
  alignas(32) double buf[4];
  double s = 0;
#define SUM(k) _mm256_store_pd(buf, c##k); s += buf[0] + buf[1] + buf[2] + buf[3];
  RT_REP12(SUM)
#undef SUM
  return s;
}

__attribute__((target("avx2,fma"))) double fp32_avx2(std::uint64_t n) {
  const __m256 m = _mm256_set1_ps(static_cast<float>(opaque(0.5))), a = _mm256_set1_ps(static_cast<float>(opaque(1.0)));
#define DECL(k) __m256 c##k = _mm256_set1_ps((k) / 12.0f);
  RT_REP12(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm256_fmadd_ps(c##k, m, a);
    RT_REP12(STEP)
#undef STEP
  }
  alignas(32) float buf[8];
  double s = 0;
#define SUM(k) _mm256_store_ps(buf, c##k); for (float v : buf) s += static_cast<double>(v);
  RT_REP12(SUM)
#undef SUM
  return s;
}

template <typename T>
double fma_reference(std::uint64_t n, int chains, int lanes) {
  double s = 0;
  for (int k = 0; k < chains; ++k) {
    T x = static_cast<T>(static_cast<double>(k) / chains);
    for (std::uint64_t i = 0; i < n; ++i) {
      T next = static_cast<T>(x * static_cast<T>(0.5) + static_cast<T>(1.0));
      if (next == x) break;  // reached the fixed point 2: later steps change nothing
      x = next;
    }
    s += static_cast<double>(x) * lanes;
  }
  return s;
}
double fp64_avx512_ref(std::uint64_t n) { return fma_reference<double>(n, 16, 8); }
double fp32_avx512_ref(std::uint64_t n) { return fma_reference<float>(n, 16, 16); }
double fp64_avx2_ref(std::uint64_t n) { return fma_reference<double>(n, 12, 4); }
double fp32_avx2_ref(std::uint64_t n) { return fma_reference<float>(n, 12, 8); }

// ---- AVX512-FP16 FMA ----------------------------------------------------

__attribute__((target("avx512fp16,avx512bw,avx512vl,avx512f"))) double fp16_avx512(std::uint64_t n) {
  const __m512h m = _mm512_set1_ph(static_cast<_Float16>(opaque(0.5)));
  const __m512h a = _mm512_set1_ph(static_cast<_Float16>(opaque(1.0)));
#define DECL(k) __m512h c##k = _mm512_set1_ph(static_cast<_Float16>((k) / 16.0));
  RT_REP16(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm512_fmadd_ph(c##k, m, a);
    RT_REP16(STEP)
#undef STEP
  }
  _Float16 buf[32];
  double s = 0;
#define SUM(k) _mm512_storeu_si512(buf, _mm512_castph_si512(c##k)); for (_Float16 v : buf) s += static_cast<double>(v);
  RT_REP16(SUM)
#undef SUM
  return s;
}
double fp16_avx512_ref(std::uint64_t n) { return fma_reference<_Float16>(n, 16, 32); }

// ---- AVX512-BF16 dot product: each lane += 1*1 + 1*1 ----------------------

__attribute__((target("avx512bf16,avx512bw,avx512vl,avx512f"))) double bf16_dp(std::uint64_t n) {
  const __m512 one = _mm512_set1_ps(static_cast<float>(opaque(1.0)));
  const __m512bh a = _mm512_cvtne2ps_pbh(one, one);
#define DECL(k) __m512 c##k = _mm512_set1_ps(static_cast<float>(k));
  RT_REP16(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm512_dpbf16_ps(c##k, a, a);
    RT_REP16(STEP)
#undef STEP
  }
  alignas(64) float buf[16];
  double s = 0;
#define SUM(k) _mm512_store_ps(buf, c##k); for (float v : buf) s += static_cast<double>(v);
  RT_REP16(SUM)
#undef SUM
  return s;
}
// Exact while k + 2n < 2^24 (verify uses small n).
double bf16_dp_ref(std::uint64_t n) {
  double s = 0;
  for (int k = 0; k < 16; ++k) s += 16.0 * (k + 2.0 * static_cast<double>(n));
  return s;
}

// ---- AVX512-VNNI u8 x s8 -> s32: each lane += 4 * (1*1) --------------------

__attribute__((target("avx512vnni,avx512bw,avx512f"))) double int8_vnni(std::uint64_t n) {
  const __m512i u = _mm512_set1_epi8(static_cast<char>(opaque_int(1)));
#define DECL(k) __m512i c##k = _mm512_set1_epi32(k);
  RT_REP16(DECL)
#undef DECL
  for (std::uint64_t i = 0; i < n; ++i) {
#define STEP(k) c##k = _mm512_dpbusd_epi32(c##k, u, u);
    RT_REP16(STEP)
#undef STEP
  }
  alignas(64) std::uint32_t buf[16];
  double s = 0;
#define SUM(k) _mm512_store_si512(buf, c##k); for (std::uint32_t v : buf) s += v;
  RT_REP16(SUM)
#undef SUM
  return s;
}
// Lanes wrap modulo 2^32 like the hardware's int32.
double int8_vnni_ref(std::uint64_t n) {
  double s = 0;
  for (std::uint32_t k = 0; k < 16; ++k) s += 16.0 * static_cast<std::uint32_t>(k + 4u * static_cast<std::uint32_t>(n));
  return s;
}

// ---- AMX: 4 accumulator tiles C[i][j] += A[i] * B[j], i, j in {0, 1} -------

struct alignas(64) TileConfig {
  std::uint8_t palette_id = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

__attribute__((target("amx-tile"))) void amx_setup(const void* ones, int elem_bytes) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = 16;
    cfg.colsb[t] = 64;
  }
  _tile_loadconfig(&cfg);
  _tile_loadd(4, ones, 64);
  _tile_loadd(5, ones, 64);
  _tile_loadd(6, ones, 64);
  _tile_loadd(7, ones, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  (void)elem_bytes;
}

__attribute__((target("amx-tile"))) double amx_collect(bool integer) {
  alignas(64) unsigned char buf[4][1024];
  _tile_stored(0, buf[0], 64);
  _tile_stored(1, buf[1], 64);
  _tile_stored(2, buf[2], 64);
  _tile_stored(3, buf[3], 64);
  _tile_release();
  double s = 0;
  for (auto& tile : buf) {
    for (int i = 0; i < 256; ++i) {
      if (integer) {
        std::uint32_t v;
        std::memcpy(&v, tile + 4 * i, 4);
        s += v;
      } else {
        float v;
        std::memcpy(&v, tile + 4 * i, 4);
        s += static_cast<double>(v);
      }
    }
  }
  return s;
}

__attribute__((target("amx-tile,amx-bf16"))) double amx_bf16(std::uint64_t n) {
  alignas(64) std::uint16_t ones[512];
  for (auto& v : ones) v = static_cast<std::uint16_t>(opaque_int(0x3f80));  // bf16 1.0
  amx_setup(ones, 2);
  for (std::uint64_t i = 0; i < n; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  return amx_collect(false);
}
// Each fp32 element += 32 products of 1*1 per tdpbf16ps; exact for small n.
double amx_bf16_ref(std::uint64_t n) { return 4.0 * 256.0 * 32.0 * static_cast<double>(n); }

__attribute__((target("amx-tile,amx-int8"))) double amx_int8(std::uint64_t n) {
  alignas(64) std::uint8_t ones[1024];
  for (auto& v : ones) v = static_cast<std::uint8_t>(opaque_int(1));
  amx_setup(ones, 1);
  for (std::uint64_t i = 0; i < n; ++i) {
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6);
    _tile_dpbssd(3, 5, 7);
  }
  return amx_collect(true);
}
double amx_int8_ref(std::uint64_t n) {
  return 4.0 * 256.0 * static_cast<std::uint32_t>(64u * static_cast<std::uint32_t>(n));
}

// 512-bit FMA units per core: Intel server cores have two (Skylake-SP Gold
// 6xxx/Platinum and later, incl. Sapphire/Emerald Rapids); AMD Zen 4
// executes AVX-512 on 256-bit pipes (one 512-bit equivalent); Zen 5 has two.
double avx512_units(const CpuFeatures& f) {
  if (f.vendor == "AuthenticAMD" && f.family < 0x1a) return 1;
  return 2;
}

}  // namespace

std::vector<PeakKernel> x86_peak_kernels(const CpuFeatures& f) {
  std::vector<PeakKernel> out;
  const bool amd = f.vendor == "AuthenticAMD";
  const std::string units512 = amd && f.family < 0x1a
      ? "AMD Zen 4 runs 512-bit ops on 2x256-bit FMA pipes (assumed: 1 512-bit FMA/cycle)"
      : "2 x 512-bit FMA units per core assumed (Intel server cores since Skylake-SP; Chips and Cheese, "
        "'Sapphire Rapids: Golden Cove Hits Servers')";
  const double u = avx512_units(f);
  if (f.avx512f) {
    out.push_back({"avx512_fma", Precision::fp64, 16 * 8 * 2, fp64_avx512, fp64_avx512_ref, 1e-12, u * 8 * 2,
                   units512 + "; 8 fp64 lanes x 2 FLOP per FMA"});
    out.push_back({"avx512_fma", Precision::fp32, 16 * 16 * 2, fp32_avx512, fp32_avx512_ref, 1e-6, u * 16 * 2,
                   units512 + "; 16 fp32 lanes x 2 FLOP per FMA"});
  } else if (f.avx2 && f.fma) {
    const std::string units256 = "2 x 256-bit FMA units per core assumed (Intel since Haswell, AMD since Zen 2)";
    out.push_back({"avx2_fma", Precision::fp64, 12 * 4 * 2, fp64_avx2, fp64_avx2_ref, 1e-12, 2.0 * 4 * 2,
                   units256 + "; 4 fp64 lanes x 2 FLOP per FMA"});
    out.push_back({"avx2_fma", Precision::fp32, 12 * 8 * 2, fp32_avx2, fp32_avx2_ref, 1e-6, 2.0 * 8 * 2,
                   units256 + "; 8 fp32 lanes x 2 FLOP per FMA"});
  }
  if (f.avx512_fp16)
    out.push_back({"avx512_fp16", Precision::fp16, 16 * 32 * 2, fp16_avx512, fp16_avx512_ref, 1e-3, u * 32 * 2,
                   "vfmadd*ph on the FMA units (" + units512 + "); 32 fp16 lanes x 2 FLOP"});
  if (f.avx512_bf16)
    out.push_back({"avx512_bf16", Precision::bf16, 16 * 64, bf16_dp, bf16_dp_ref, 0, std::nullopt,
                   "vdpbf16ps: 16 lanes x 2 products x 2 FLOP per instruction; its issue rate is not documented "
                   "(measured ~0.45/cycle on Emerald Rapids), so no theoretical peak"});
  if (f.avx512_vnni)
    out.push_back({"avx512_vnni", Precision::int8, 16 * 128, int8_vnni, int8_vnni_ref, 0, u * 64 * 2,
                   "vpdpbusd: 64 u8*s8 MACs x 2 OP per instruction on the FMA units (" + units512 + ")"});
  if (f.amx_bf16)
    out.push_back({"amx", Precision::bf16, 4 * 16384, amx_bf16, amx_bf16_ref, 0, 1024,
                   "AMX-BF16: 1024 FLOP/cycle/core (one 16x16x32 tdpbf16ps per 16 cycles; Intel via "
                   "Wikipedia 'Advanced Matrix Extensions')"});
  if (f.amx_int8)
    out.push_back({"amx", Precision::int8, 4 * 32768, amx_int8, amx_int8_ref, 0, 2048,
                   "AMX-INT8: 2048 OP/cycle/core (one 16x16x64 tdpbssd per 16 cycles; Intel via Wikipedia "
                   "'Advanced Matrix Extensions')"});
  return out;
}

}  // namespace rooftop::bench::cpu

#else

namespace rooftop::bench::cpu {
std::vector<PeakKernel> x86_peak_kernels(const CpuFeatures&) { return {}; }
}  // namespace rooftop::bench::cpu

#endif
