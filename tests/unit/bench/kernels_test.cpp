// Work formulas of every kernel, kernel selection from CPU features, and
// the kernels this CPU can run checked against their scalar models.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "bench/backends/cpu_backend.h"
#include "bench/backends/cpu_kernels.h"

namespace rooftop::bench::cpu {
namespace {

CpuFeatures emerald_rapids() {
  CpuFeatures f;
  f.vendor = "GenuineIntel";
  f.family = 6;
  f.model = 0xcf;
  f.fma = f.avx2 = f.avx512f = f.avx512bw = f.avx512vl = true;
  f.avx512_vnni = f.avx512_bf16 = f.avx512_fp16 = true;
  f.amx_tile = f.amx_bf16 = f.amx_int8 = true;
  return f;
}

CpuFeatures zen3() {
  CpuFeatures f;
  f.vendor = "AuthenticAMD";
  f.family = 0x19;
  f.fma = f.avx2 = true;
  return f;
}

const PeakKernel* find(const std::vector<PeakKernel>& ks, Precision p, const std::string& unit) {
  for (const auto& k : ks)
    if (k.precision == p && k.unit == unit) return &k;
  return nullptr;
}

TEST(Kernels, StreamBytesFollowStreamCounting) {
  EXPECT_EQ(bytes_per_element(StreamKind::copy), 16);    // read b, write a
  EXPECT_EQ(bytes_per_element(StreamKind::triad), 24);   // read b, c, write a
  EXPECT_EQ(bytes_per_element(StreamKind::triad_nt), 24);
  EXPECT_EQ(arrays(StreamKind::copy), 2);
  EXPECT_EQ(to_string(StreamKind::triad_nt), "triad_nt");
}

#if defined(__x86_64__)
TEST(Kernels, EmeraldRapidsGetsEveryInstructionClassWithItsWork) {
  auto ks = peak_kernels(emerald_rapids());
  const PeakKernel* fp64 = find(ks, Precision::fp64, "avx512_fma");
  ASSERT_NE(fp64, nullptr);
  EXPECT_EQ(fp64->flops_per_iter, 16 * 8 * 2);      // 16 chains x 8 lanes x FMA
  EXPECT_EQ(*fp64->flop_per_cycle_per_core, 32);    // 2 units x 8 lanes x 2
  EXPECT_EQ(*find(ks, Precision::fp32, "avx512_fma")->flop_per_cycle_per_core, 64);
  EXPECT_EQ(find(ks, Precision::fp16, "avx512_fp16")->flops_per_iter, 16 * 32 * 2);
  EXPECT_EQ(*find(ks, Precision::fp16, "avx512_fp16")->flop_per_cycle_per_core, 128);
  const PeakKernel* bf16 = find(ks, Precision::bf16, "avx512_bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->flops_per_iter, 16 * 64);         // 16 lanes x 2 pairs x 2 per vdpbf16ps
  EXPECT_FALSE(bf16->flop_per_cycle_per_core);      // undocumented issue rate: unknown, not guessed
  EXPECT_EQ(*find(ks, Precision::int8, "avx512_vnni")->flop_per_cycle_per_core, 256);
  const PeakKernel* amx_bf16 = find(ks, Precision::bf16, "amx");
  ASSERT_NE(amx_bf16, nullptr);
  EXPECT_EQ(amx_bf16->flops_per_iter, 4 * 16 * 16 * 32 * 2);  // 4 tiles of 16x16x32
  EXPECT_EQ(*amx_bf16->flop_per_cycle_per_core, 1024);
  const PeakKernel* amx_int8 = find(ks, Precision::int8, "amx");
  ASSERT_NE(amx_int8, nullptr);
  EXPECT_EQ(amx_int8->flops_per_iter, 4 * 16 * 16 * 64 * 2);
  EXPECT_EQ(*amx_int8->flop_per_cycle_per_core, 2048);
  EXPECT_EQ(find(ks, Precision::fp64, "avx2_fma"), nullptr);  // the widest only
}

TEST(Kernels, Zen3GetsAvx2FmaOnly) {
  auto ks = peak_kernels(zen3());
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].unit, "avx2_fma");
  EXPECT_EQ(ks[0].flops_per_iter, 12 * 4 * 2);
  EXPECT_EQ(*ks[0].flop_per_cycle_per_core, 16);
  EXPECT_EQ(*ks[1].flop_per_cycle_per_core, 32);
}

TEST(Kernels, Zen4RunsAvx512OnHalfWidthPipes) {
  CpuFeatures f = zen3();
  f.avx512f = f.avx512bw = f.avx512vl = true;
  EXPECT_EQ(*find(peak_kernels(f), Precision::fp64, "avx512_fma")->flop_per_cycle_per_core, 16);
}
#endif

TEST(Kernels, NoSimdFallsBackToPortableKernels) {
  auto ks = peak_kernels(CpuFeatures{});
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].unit, "scalar");
  EXPECT_FALSE(ks[0].flop_per_cycle_per_core);
  for (const auto& k : ks) {
    for (std::uint64_t n : {0ull, 3ull, 1000ull}) EXPECT_NEAR(k.run(n), k.reference(n), 1e-6 * k.reference(n) + 1e-9);
  }
}

// Every kernel this machine can run computes what its scalar model says.
TEST(Kernels, RunnableKernelsMatchTheirReference) {
  auto ks = peak_kernels(cpu_features());
  ASSERT_FALSE(ks.empty());
  for (const auto& k : ks) {
    for (std::uint64_t n : {1ull, 5ull, 200ull}) {
      double want = k.reference(n);
      EXPECT_LE(std::fabs(k.run(n) - want), k.tolerance * std::max(1.0, std::fabs(want)))
          << to_string(k.precision) << " " << k.unit << " n=" << n;
    }
  }
}

// The narrower kernels a wider CPU never picks (AVX2 FMA on an AVX-512
// CPU) still run and verify wherever their instructions exist.
TEST(Kernels, NarrowerKernelsMatchTheirReferenceToo) {
  CpuFeatures f = cpu_features();
  f.avx512f = f.avx512bw = f.avx512vl = f.avx512_vnni = f.avx512_bf16 = f.avx512_fp16 = false;
  f.amx_tile = f.amx_bf16 = f.amx_int8 = false;
  for (const auto& k : peak_kernels(f))
    for (std::uint64_t n : {1ull, 5ull, 200ull}) {
      double want = k.reference(n);
      EXPECT_LE(std::fabs(k.run(n) - want), k.tolerance * std::max(1.0, std::fabs(want)))
          << to_string(k.precision) << " " << k.unit << " n=" << n;
    }
}

void check_stream_kernels(const CpuFeatures& f) {
  const std::size_t n = 256;
  auto* a = static_cast<double*>(std::aligned_alloc(64, n * 8));
  auto* b = static_cast<double*>(std::aligned_alloc(64, n * 8));
  auto* c = static_cast<double*>(std::aligned_alloc(64, n * 8));
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<double>(i);
    c[i] = 2.0;
  }
  for (StreamKind kind : {StreamKind::copy, StreamKind::triad, StreamKind::triad_nt}) {
    auto k = stream_kernel(kind, f);
    if (!k) continue;
    for (std::size_t i = 0; i < n; ++i) a[i] = -1;
    k->run(a, b, c, 0.5, n - 32, 2);
    for (std::size_t i = 0; i < n - 32; ++i)
      ASSERT_EQ(a[i], kind == StreamKind::copy ? b[i] : b[i] + 1.0) << to_string(kind) << " " << k->isa << " i=" << i;
    EXPECT_EQ(a[n - 1], -1);  // n elements only
  }
  std::free(a);
  std::free(b);
  std::free(c);
}

TEST(Kernels, StreamKernelsComputeTheStreamFormulas) {
  CpuFeatures no512 = cpu_features();  // AVX2 kernels where AVX-512 would be picked
  no512.avx512f = no512.avx512bw = no512.avx512vl = false;
  for (const CpuFeatures& f : {cpu_features(), no512, CpuFeatures{}})
    check_stream_kernels(f);
}

TEST(Kernels, OpenblasPrescottOnAvx512IsFixed) {
  // OpenMathLib/OpenBLAS#4267: 0.3.21 calls Emerald Rapids "Prescott".
  EXPECT_EQ(suggest_openblas_coretype("Prescott", emerald_rapids()), "SkylakeX");
  EXPECT_EQ(suggest_openblas_coretype("Haswell", emerald_rapids()), "SkylakeX");
  EXPECT_FALSE(suggest_openblas_coretype("SkylakeX", emerald_rapids()));
  EXPECT_FALSE(suggest_openblas_coretype("Cooperlake", emerald_rapids()));
  EXPECT_EQ(suggest_openblas_coretype("Prescott", zen3()), "Haswell");
  EXPECT_FALSE(suggest_openblas_coretype("Zen", zen3()));
  EXPECT_FALSE(suggest_openblas_coretype("Prescott", CpuFeatures{}));
}

}  // namespace
}  // namespace rooftop::bench::cpu
