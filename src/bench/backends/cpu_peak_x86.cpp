// x86-64 peak kernels, one per instruction class: FMA (AVX2, AVX-512) in
// fp64/fp32, AVX512-FP16 FMA, AVX512-BF16 vdpbf16ps, AVX512-VNNI vpdpbusd and
// AMX tdpbf16ps/tdpbssd. Each function carries its own target attribute, so
// the file builds for baseline x86-64 and the kernels run only where
// cpu_features() found the instructions.
#include "bench/backends/amx.h"
#include "bench/backends/cpu_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>


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

// ---- AMX: 4 accumulator tiles C[i][j] += A[i] * B[j] (plan in amx.h) -------

// GCC does not model the memory that ldtilecfg/tileloadd read and
// tilestored writes: without these barriers it dropped the stores of the
// rows/colsb fields, and ldtilecfg raised #GP (SIGSEGV) the first time the
// kernel ran on a CPU with AMX.
#define RT_MEMORY_BARRIER(p) __asm__ volatile("" : : "r"(p) : "memory")

__attribute__((target("amx-tile"))) void amx_setup(AmxType t) {
  const TileConfig cfg = amx_kernel_config();
  alignas(64) const auto input = amx_kernel_input(t);
  RT_MEMORY_BARRIER(&cfg);
  RT_MEMORY_BARRIER(input.data());
  _tile_loadconfig(&cfg);
  static_assert(kAmxInputTiles[0] == 4 && kAmxInputTiles[3] == 7);
  _tile_loadd(4, input.data(), 64);
  _tile_loadd(5, input.data(), 64);
  _tile_loadd(6, input.data(), 64);
  _tile_loadd(7, input.data(), 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
}

__attribute__((target("amx-tile"))) double amx_collect(AmxType t) {
  alignas(64) std::uint8_t buf[4][kAmxTileBytes];
  _tile_stored(0, buf[0], 64);
  _tile_stored(1, buf[1], 64);
  _tile_stored(2, buf[2], 64);
  _tile_stored(3, buf[3], 64);
  RT_MEMORY_BARRIER(buf);
  _tile_release();
  return amx_checksum(buf, t);
}

// GCC's AMX intrinsics paste the tile numbers into the assembly text, so
// they are literals here, checked against the plan the emulation runs.
constexpr bool amx_op_is(std::size_t i, int c, int a, int b) {
  return kAmxOps[i].c == c && kAmxOps[i].a == a && kAmxOps[i].b == b;
}
static_assert(amx_op_is(0, 0, 4, 6) && amx_op_is(1, 1, 4, 7) && amx_op_is(2, 2, 5, 6) && amx_op_is(3, 3, 5, 7));
#define RT_AMX_BODY(INSN) INSN(0, 4, 6); INSN(1, 4, 7); INSN(2, 5, 6); INSN(3, 5, 7);

__attribute__((target("amx-tile,amx-bf16"))) double amx_bf16(std::uint64_t n) {
  amx_setup(AmxType::bf16);  // inputs built in another translation unit: nothing to fold
  for (std::uint64_t i = 0; i < n; ++i) {
    RT_AMX_BODY(_tile_dpbf16ps)
  }
  return amx_collect(AmxType::bf16);
}
// Each fp32 element += 32 products of 1*1 per tdpbf16ps; exact for small n.
double amx_bf16_ref(std::uint64_t n) { return 4.0 * 256.0 * 32.0 * static_cast<double>(n); }
double amx_bf16_emulated(std::uint64_t n) { return amx_emulate_kernel(AmxType::bf16, n); }

__attribute__((target("amx-tile,amx-int8"))) double amx_int8(std::uint64_t n) {
  amx_setup(AmxType::int8);
  for (std::uint64_t i = 0; i < n; ++i) {
    RT_AMX_BODY(_tile_dpbssd)
  }
  return amx_collect(AmxType::int8);
}
double amx_int8_ref(std::uint64_t n) {
  return 4.0 * 256.0 * static_cast<std::uint32_t>(64u * static_cast<std::uint32_t>(n));
}
double amx_int8_emulated(std::uint64_t n) { return amx_emulate_kernel(AmxType::int8, n); }
#undef RT_AMX_BODY
#undef RT_MEMORY_BARRIER

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
                   "Wikipedia 'Advanced Matrix Extensions')",
                   amx_bf16_emulated});
  if (f.amx_int8)
    out.push_back({"amx", Precision::int8, 4 * 32768, amx_int8, amx_int8_ref, 0, 2048,
                   "AMX-INT8: 2048 OP/cycle/core (one 16x16x64 tdpbssd per 16 cycles; Intel via Wikipedia "
                   "'Advanced Matrix Extensions')",
                   amx_int8_emulated});
  return out;
}

}  // namespace rooftop::bench::cpu

#else

namespace rooftop::bench::cpu {
std::vector<PeakKernel> x86_peak_kernels(const CpuFeatures&) { return {}; }
}  // namespace rooftop::bench::cpu

#endif
