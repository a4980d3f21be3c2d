// The AMX peak kernels' arithmetic on the scalar emulation, on every CPU:
// the kernel's tile configuration passes ldtilecfg's and the instructions'
// checks, broken ones do not, the emulated instructions compute a matrix
// product in the documented layouts, and the emulated kernels return their
// references. Where AMX is usable the hardware kernels must agree with the
// emulation too.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "bench/backends/amx.h"
#include "bench/backends/cpu_kernels.h"

namespace rooftop::bench::cpu {
namespace {

TEST(Amx, KernelConfigurationAndOpsAreLegal) {
  TileConfig cfg = amx_kernel_config();
  EXPECT_EQ(check_tile_config(cfg), "");
  for (const TileOp& op : kAmxOps) EXPECT_EQ(check_tile_op(cfg, op), "") << op.c << op.a << op.b;
}

TEST(Amx, BrokenConfigurationsAreRejected) {
  auto broken = [](auto edit) {
    TileConfig cfg = amx_kernel_config();
    edit(cfg);
    return check_tile_config(cfg);
  };
  EXPECT_NE(broken([](TileConfig& c) { c.palette_id = 2; }), "");
  EXPECT_NE(broken([](TileConfig& c) { c.rows[3] = 17; }), "");
  EXPECT_NE(broken([](TileConfig& c) { c.colsb[0] = 65; }), "");
  EXPECT_NE(broken([](TileConfig& c) { c.rows[9] = 1; }), "");
  EXPECT_NE(broken([](TileConfig& c) { c.reserved[2] = 1; }), "");
  EXPECT_NE(broken([](TileConfig& c) { c.colsb[1] = 0; }), "");

  TileConfig cfg = amx_kernel_config();
  cfg.rows[6] = 8;  // B with 8 rows does not match A's 64 bytes (16 pairs/quads)
  EXPECT_NE(check_tile_op(cfg, kAmxOps[0]), "");
  cfg = amx_kernel_config();
  cfg.rows[0] = 0;
  cfg.colsb[0] = 0;  // an unconfigured accumulator
  EXPECT_NE(check_tile_op(cfg, kAmxOps[0]), "");
  EXPECT_NE(check_tile_op(amx_kernel_config(), TileOp{0, 0, 6}), "");  // tiles must differ
  TileFile f;
  f.cfg = cfg;
  EXPECT_NE(emulate_tile_op(f, kAmxOps[0], AmxType::int8), "");  // refuses instead of computing
}

// C (16x16) += A (16xK) x B (Kx16), B packed in the VNNI layout: row k/g of
// the tile holds B[k..k+g-1][n] at bytes 4n.., g = 4 (int8) or 2 (bf16).
TEST(Amx, EmulatedInt8IsASignedMatrixProduct) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-128, 127);
  std::int8_t a[16][64], b[64][16];
  for (auto& row : a)
    for (auto& v : row) v = static_cast<std::int8_t>(d(rng));
  for (auto& row : b)
    for (auto& v : row) v = static_cast<std::int8_t>(d(rng));
  TileFile f;
  f.cfg = amx_kernel_config();
  std::memcpy(f.tile[4], a, sizeof a);
  for (int k = 0; k < 64; ++k)
    for (int n = 0; n < 16; ++n) f.tile[6][64 * (k / 4) + 4 * n + k % 4] = static_cast<std::uint8_t>(b[k][n]);
  ASSERT_EQ(emulate_tile_op(f, {0, 4, 6}, AmxType::int8), "");
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      std::int32_t want = 0, got;
      for (int k = 0; k < 64; ++k) want += a[m][k] * b[k][n];
      std::memcpy(&got, f.tile[0] + 64 * m + 4 * n, 4);
      ASSERT_EQ(got, want) << m << "," << n;
    }
}

TEST(Amx, EmulatedBf16IsAMatrixProduct) {
  // Small integers are exact in bf16 and in the fp32 sums.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-4, 4);
  auto bf16 = [](float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    return static_cast<std::uint16_t>(bits >> 16);
  };
  float a[16][32], b[32][16];
  for (auto& row : a)
    for (auto& v : row) v = static_cast<float>(d(rng));
  for (auto& row : b)
    for (auto& v : row) v = static_cast<float>(d(rng));
  TileFile f;
  f.cfg = amx_kernel_config();
  for (int m = 0; m < 16; ++m)
    for (int k = 0; k < 32; ++k) {
      std::uint16_t v = bf16(a[m][k]);
      std::memcpy(f.tile[5] + 64 * m + 2 * k, &v, 2);
    }
  for (int k = 0; k < 32; ++k)
    for (int n = 0; n < 16; ++n) {
      std::uint16_t v = bf16(b[k][n]);
      std::memcpy(f.tile[7] + 64 * (k / 2) + 4 * n + 2 * (k % 2), &v, 2);
    }
  ASSERT_EQ(emulate_tile_op(f, {3, 5, 7}, AmxType::bf16), "");
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      float want = 0, got;
      for (int k = 0; k < 32; ++k) want += a[m][k] * b[k][n];
      std::memcpy(&got, f.tile[3] + 64 * m + 4 * n, 4);
      ASSERT_EQ(got, want) << m << "," << n;
    }
}

TEST(Amx, EmulatedKernelsReturnTheKernelChecksums) {
  for (std::uint64_t n : {0ull, 1ull, 7ull, 100ull}) {
    const double nd = static_cast<double>(n);
    EXPECT_EQ(amx_emulate_kernel(AmxType::bf16, n), 4 * 256 * 32 * nd);  // 4 tiles x 256 elements += 32 per op
    EXPECT_EQ(amx_emulate_kernel(AmxType::int8, n), 4 * 256 * 64 * nd);
  }
}

#if defined(__x86_64__)
// Every AMX kernel (listed for an AMX CPU whatever this one is) matches its
// reference on the scalar path; where AMX is usable, the hardware agrees.
TEST(Amx, EveryAmxKernelIsEmulatedAndMatchesItsReference) {
  CpuFeatures amx;
  amx.vendor = "GenuineIntel";
  amx.fma = amx.avx2 = amx.avx512f = amx.avx512bw = amx.avx512vl = true;
  amx.amx_tile = amx.amx_bf16 = amx.amx_int8 = true;
  int seen = 0;
  for (const PeakKernel& k : peak_kernels(amx)) {
    if (k.unit != "amx") continue;
    ++seen;
    ASSERT_NE(k.emulate, nullptr) << to_string(k.precision);
    for (std::uint64_t n : {1ull, 7ull, 100ull}) EXPECT_EQ(k.emulate(n), k.reference(n)) << to_string(k.precision) << " n=" << n;
  }
  EXPECT_EQ(seen, 2);
  const CpuFeatures& here = cpu_features();
  for (const PeakKernel& k : peak_kernels(here))
    if (k.emulate) {
      for (std::uint64_t n : {1ull, 7ull, 100ull}) EXPECT_EQ(k.run(n), k.emulate(n)) << "hardware " << k.unit << " n=" << n;
    }
  if (!here.amx_tile) GTEST_LOG_(INFO) << "no usable AMX here (" << here.amx_note << "): emulation only";
}
#endif

}  // namespace
}  // namespace rooftop::bench::cpu
