// Per-operator efficiency (model/efficiency.h): hand-computed GEMM tile and
// wave counts, the shapes operators run, attention and gathers, the Jetson
// DLA rule, mixed-precision byte counts, and the properties every shape
// factor keeps (never above 1; a smaller m, n or k never raises it).
#include <gtest/gtest.h>

#include <random>

#include "model/efficiency.h"
#include "model/internal.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::test_gpu;

// An H100-like part: 132 units, 128 x 128 tiles, k step 64.
GemmUnits h100_like() { return {132, 128, 128, 64}; }

// test_gpu with those units in its catalog entry (tiles down to tile_min).
catalog::Accelerator tiled_gpu(double tile_min = 0) {
  catalog::Accelerator a = test_gpu();
  a.compute_units = {132.0, "test"};
  a.tile_m = {128.0, "test"};
  a.tile_n = {128.0, "test"};
  a.tile_k = {64.0, "test"};
  if (tile_min > 0) a.tile_min = {tile_min, "test"};
  return a;
}

TEST(GemmShape, LargeSquareFillsEveryUnit) {
  GemmShapeFactor f = gemm_shape_factor({8192, 8192, 8192}, h100_like());
  EXPECT_DOUBLE_EQ(f.fill, 1);
  EXPECT_DOUBLE_EQ(f.tiles, 64.0 * 64);  // ceil(8192/128)^2
  EXPECT_DOUBLE_EQ(f.occupancy, 1);
  EXPECT_DOUBLE_EQ(f.factor(), 1);
}

TEST(GemmShape, BatchEightDecodeFillsOneSixteenthOfATile) {
  // m = 8 of a 128-row tile; 1 x 32 tiles, split-K 4096 / 256 = 16 slices:
  // 512 work units cover the 132 units.
  GemmShapeFactor f = gemm_shape_factor({8, 4096, 4096}, h100_like());
  EXPECT_DOUBLE_EQ(f.fill, 8.0 / 128);
  EXPECT_DOUBLE_EQ(f.tiles, 32);
  EXPECT_DOUBLE_EQ(f.splits, 16);
  EXPECT_DOUBLE_EQ(f.occupancy, 1);
  EXPECT_DOUBLE_EQ(f.factor(), 0.0625);
  // The same GEMM at batch 8 is priced far below an 8192^3 one.
  EXPECT_LT(f.factor(), 0.1 * gemm_shape_factor({8192, 8192, 8192}, h100_like()).factor());
}

TEST(GemmShape, FewTilesAndShortKLeaveUnitsIdle) {
  // 2 x 8 = 16 tiles, k = 128 < 4 x 64: no split; 16 of 132 units busy.
  GemmShapeFactor f = gemm_shape_factor({256, 1024, 128}, h100_like());
  EXPECT_DOUBLE_EQ(f.fill, 1);
  EXPECT_DOUBLE_EQ(f.tiles, 16);
  EXPECT_DOUBLE_EQ(f.splits, 1);
  EXPECT_DOUBLE_EQ(f.occupancy, 16.0 / 132);
}

TEST(GemmShape, DepthwiseConvolutionRunsAtItsThinK) {
  // A 3x3 depthwise conv over 112 x 112 pixels, 32 channels as a GEMM:
  // m = 12544, n = 32, k = 9. fill = 1 x 32/128 x 9/64; 98 x 1 tiles.
  GemmShapeFactor f = gemm_shape_factor({12544, 32, 9}, h100_like());
  EXPECT_DOUBLE_EQ(f.fill, 0.25 * 9.0 / 64);
  EXPECT_DOUBLE_EQ(f.tiles, 98);
  EXPECT_DOUBLE_EQ(f.occupancy, 98.0 / 132);
  EXPECT_NEAR(f.factor(), 0.25 * 9.0 / 64 * 98.0 / 132, 1e-15);
}

TEST(GemmShape, LibrariesPickASmallerTileForThinShapes) {
  // An Ampere-like part: 16 units, 128 x 256 tiles down to 64. A 1x1 conv
  // with 64 output channels over 56 x 56 pixels x 8 images (m = 25088):
  // the 128 x 256 tile fills n = 64 of 256; the 128 x 64 tile fills it all
  // with 196 x 1 tiles on 16 units.
  GemmUnits u{16, 128, 256, 64, 64};
  GemmShapeFactor fixed = gemm_shape_factor({25088, 64, 256}, GemmUnits{16, 128, 256, 64, 0});
  EXPECT_DOUBLE_EQ(fixed.fill, 0.25);
  GemmShapeFactor f = gemm_shape_factor({25088, 64, 256}, u);
  EXPECT_DOUBLE_EQ(f.fill, 1);
  EXPECT_DOUBLE_EQ(f.tiles, 196);
  EXPECT_DOUBLE_EQ(f.factor(), 1);
  // Few tiles: 256 x 256 x 64 is 2 x 1 large tiles; 64 x 64 tiles give 16,
  // one per unit.
  EXPECT_DOUBLE_EQ(gemm_shape_factor({256, 256, 64}, GemmUnits{16, 128, 256, 64, 0}).factor(), 2.0 / 16);
  EXPECT_DOUBLE_EQ(gemm_shape_factor({256, 256, 64}, u).factor(), 1);
}

TEST(GemmShape, UnknownUnitsChargeNothing) {
  EXPECT_DOUBLE_EQ(gemm_shape_factor({8, 8, 8}, GemmUnits{}).factor(), 1);
  EXPECT_FALSE(gemm_units(test_gpu()).known());
}

TEST(GemmShape, SystolicArrayWithoutKStepStreamsK) {
  catalog::Accelerator a = test_gpu();
  a.compute_units = {4.0, "test"};
  a.tile_m = {128.0, "test"};
  a.tile_n = {128.0, "test"};
  GemmUnits u = gemm_units(a);
  ASSERT_TRUE(u.known());
  EXPECT_DOUBLE_EQ(u.tile_k, 1);
  // 512 x 512 x 16: 4 x 4 = 16 tiles on 4 units, k never below one step.
  EXPECT_DOUBLE_EQ(gemm_shape_factor({512, 512, 16}, u).factor(), 1);
}

TEST(GemmShape, OperatorsGiveTheirGemm) {
  // A linear layer over 384 tokens, 1024 -> 4096, at batch 8 split over 2 ranks.
  workload::Operator fc;
  fc.kind = workload::OpKind::matmul;
  fc.flops = 2.0 * 384 * 1024 * 4096;
  fc.weight_elems = 1024.0 * 4096;
  fc.in_elems = 384.0 * 1024;
  fc.out_elems = 384.0 * 4096;
  std::optional<GemmShape> g = op_gemm_shape(fc, 8, 2);
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->m, 8 * 384);
  EXPECT_DOUBLE_EQ(g->n, 2048);
  EXPECT_DOUBLE_EQ(g->k, 1024);
  // A 3x3 conv 64 -> 64 over 56 x 56: m = pixels, n = out channels, k = 64 x 9.
  workload::Operator conv;
  conv.kind = workload::OpKind::conv;
  conv.flops = 2.0 * 56 * 56 * 64 * 64 * 9;
  conv.weight_elems = 64.0 * 64 * 9;
  conv.in_elems = 64.0 * 56 * 56;
  conv.out_elems = 64.0 * 56 * 56;
  g = op_gemm_shape(conv, 1, 1);
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->m, 3136);
  EXPECT_DOUBLE_EQ(g->n, 64);
  EXPECT_DOUBLE_EQ(g->k, 576);
  workload::Operator norm;
  norm.kind = workload::OpKind::norm;
  norm.flops = 10;
  EXPECT_FALSE(op_gemm_shape(norm, 1, 1));
}

// A 3x3 convolution over `pixels`, 32 groups `width` channels wide.
workload::Operator grouped_conv(double pixels, double width) {
  workload::Operator conv;
  conv.kind = workload::OpKind::conv;
  conv.groups = 32;
  conv.flops = 2.0 * pixels * width * 9 * 32 * width;
  conv.weight_elems = 9.0 * width * 32 * width;
  conv.in_elems = conv.out_elems = 32 * width * pixels;
  return conv;
}

TEST(GemmShape, GroupedConvolutionRunsOneGemmPerGroup) {
  // ResNeXt's 3x3 conv, 32 groups of 32 channels (1024 -> 1024) over 25 x 25
  // pixels: 32 GEMMs of m = 625, n = 32, k = 32 x 9 = 288.
  const workload::Operator conv = grouped_conv(625, 32);
  std::optional<GemmShape> g = op_gemm_shape(conv, 1, 1);
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->m, 625);
  EXPECT_DOUBLE_EQ(g->n, 32);
  EXPECT_DOUBLE_EQ(g->k, 288);
  EXPECT_DOUBLE_EQ(g->groups, 32);
  // 128 x 128 tiles down to 64: a 128 x 64 tile fills n = 32 of its 64
  // columns; 5 x 1 tiles per group x 32 groups = 160 tiles, a full wave.
  GemmShapeFactor f = gemm_shape_factor(*g, GemmUnits{132, 128, 128, 64, 64});
  EXPECT_DOUBLE_EQ(f.fill, 0.5);
  EXPECT_DOUBLE_EQ(f.tiles, 160);
  EXPECT_DOUBLE_EQ(f.factor(), 0.5);
  // Ungrouped, the same weights would be one GEMM of n = 1024: full tiles.
  g->n = 1024, g->groups = 1;
  EXPECT_DOUBLE_EQ(gemm_shape_factor(*g, GemmUnits{132, 128, 128, 64, 64}).factor(), 1);
}

TEST(OpEfficiency, ThinGroupsRunAtLeastAtTheVectorRate) {
  // Groups 4 channels wide (ResNeXt 32x4d's first stage): the matrix units'
  // tiles are 4/64 full; the vector units (fp32 25 of 100 TFLOP/s) do better.
  catalog::Accelerator a = tiled_gpu(64);
  Efficiency e = efficiency_for(a);
  workload::Operator conv = grouped_conv(40000, 4);
  EXPECT_DOUBLE_EQ(op_efficiency(conv, 1, 1, Precision::fp16, a, e).compute, e.compute * 0.25);
  // The same conv ungrouped (a dense 3x3, k = 36) stays on the matrix units.
  conv.groups = 1;
  EXPECT_GT(op_efficiency(conv, 1, 1, Precision::fp16, a, e).compute, e.compute * 0.25);
}

TEST(OpEfficiency, AttentionAtThePublishedFraction) {
  catalog::Accelerator a = test_gpu();
  Efficiency e = efficiency_for(a);
  workload::Operator attn;
  attn.kind = workload::OpKind::attention;
  attn.flops = 1e9;
  EXPECT_DOUBLE_EQ(op_efficiency(attn, 1, 1, Precision::fp16, a, e).compute, e.compute);  // no table: the GEMM factor
  a.attention_fraction = {0.75, "test"};
  EXPECT_DOUBLE_EQ(op_efficiency(attn, 1, 1, Precision::fp16, a, e).compute, 0.75);
}

TEST(OpEfficiency, EightBitGemmsOnNvidiaTensorCores) {
  // fp8 GEMMs reach 0.88 of the 16-bit fraction on NVIDIA GPUs (H100/H200
  // fp8 vs H100/GH200 bf16 GEMM tables); Jetson's GPU gets the GPU factor;
  // other vendors keep theirs at every precision.
  catalog::Accelerator a = test_gpu();
  a.vendor = "nvidia";
  Efficiency e = efficiency_for(a);
  EXPECT_DOUBLE_EQ(e.compute_8bit, 0.88);
  // No units in the catalog: shape factor 1; depth 4,096 pays its tiles' fixed cost.
  workload::Operator mm = testing::one_op(workload::OpKind::matmul, 2 * 4096.0 * 4096, 4096.0 * 4096, 4096, 4096);
  const double depth = gemm_depth_factor(4096, e.gemm_tile_fixed_k);
  EXPECT_DOUBLE_EQ(op_efficiency(mm, 64, 1, Precision::fp8, a, e).compute, e.compute * 0.88 * depth);
  EXPECT_DOUBLE_EQ(op_efficiency(mm, 64, 1, Precision::int8, a, e).compute, e.compute * 0.88 * depth);
  EXPECT_DOUBLE_EQ(op_efficiency(mm, 64, 1, Precision::bf16, a, e).compute, e.compute * depth);
  catalog::Accelerator jetson = a;
  jetson.kind = catalog::Kind::edge;
  EXPECT_DOUBLE_EQ(efficiency_for(jetson).compute, e.compute);
  EXPECT_DOUBLE_EQ(efficiency_for(jetson).compute_8bit, 0.88);
  catalog::Accelerator other = test_gpu();
  other.kind = catalog::Kind::asic;
  other.vendor = "intel";
  Efficiency eo = efficiency_for(other);
  EXPECT_DOUBLE_EQ(op_efficiency(mm, 64, 1, Precision::fp8, other, eo).compute, eo.compute);
}

// A normalization's backward pass on a GPU streams its x, dy and dx at half
// the memory factor (layer norm backward vs forward on H100, docs/model.md
// #norm-backward); its forward pass and the other kinds keep the factor, and
// TPUs and ASICs have no such measurement.
TEST(OpEfficiency, NormBackwardOnGpusAtHalfTheStreamingRate) {
  workload::Operator norm = testing::one_op(workload::OpKind::norm, 8 * 4096.0, 2 * 4096.0, 4096, 4096);
  workload::Operator back = norm;
  back.phase = workload::Phase::backward;
  workload::Operator act = testing::one_op(workload::OpKind::elementwise, 4096, 0, 4096, 4096);
  act.phase = workload::Phase::backward;
  catalog::Accelerator gpu = test_gpu();
  const Efficiency e = efficiency_for(gpu);
  EXPECT_DOUBLE_EQ(e.norm_backward, 0.5);
  EXPECT_DOUBLE_EQ(op_efficiency(norm, 8, 1, Precision::bf16, gpu, e).memory, e.memory);
  EXPECT_DOUBLE_EQ(op_efficiency(back, 8, 1, Precision::bf16, gpu, e).memory, e.memory * 0.5);
  EXPECT_DOUBLE_EQ(op_efficiency(act, 8, 1, Precision::bf16, gpu, e).memory, e.memory);
  // Training predictions name the factor under `assumptions`; inference ones do not.
  auto names = [&](bool training) {
    std::string all;
    for (const Assumption& x : op_efficiency_assumptions(gpu, e, training)) all += x.name + " ";
    return all;
  };
  EXPECT_NE(names(true).find("norm_backward_efficiency"), std::string::npos);
  EXPECT_EQ(names(false).find("norm_backward_efficiency"), std::string::npos);
  catalog::Accelerator jetson = gpu;
  jetson.kind = catalog::Kind::edge;
  EXPECT_DOUBLE_EQ(efficiency_for(jetson).norm_backward, 0.5);
  for (catalog::Kind k : {catalog::Kind::tpu, catalog::Kind::asic, catalog::Kind::npu, catalog::Kind::cpu}) {
    catalog::Accelerator other = gpu;
    other.kind = k;
    const Efficiency eo = efficiency_for(other);
    EXPECT_DOUBLE_EQ(op_efficiency(back, 8, 1, Precision::bf16, other, eo).memory, eo.memory) << catalog::to_string(k);
  }
}

// GEMM depth (docs/model.md#gemm-depth): every output tile pays about 100
// of k in pipeline fill and write-out on NVIDIA tensor cores. Checked against
// XLA's measured H100 bf16 table (xla/service/gpu/model/
// matmul_interpolator_data.h, sm_90; batch 4 x 4096 rows): 16,384 x 4,096
// GEMMs of depth 256, 512, 1,024 and 4,096 ran at 503.9, 619.9, 725.5 and
// 793.1 TFLOP/s. Without the depth cost the model priced them all alike.
TEST(OpEfficiency, ShallowGemmsPayTheirTilesFixedCost) {
  EXPECT_DOUBLE_EQ(gemm_depth_factor(4096, 0), 1);
  EXPECT_DOUBLE_EQ(gemm_depth_factor(256, 100), 256.0 / 356 * 8292 / 8192);
  EXPECT_DOUBLE_EQ(gemm_depth_factor(20000, 100), 1);  // deeper than the reference: capped
  catalog::Accelerator h100 = tiled_gpu(64);
  h100.vendor = "nvidia";
  h100.peak_flop_per_s[static_cast<std::size_t>(Precision::bf16)] = {989e12, "test"};
  h100.memory_bytes_per_s = {3.35e12, "test"};
  EXPECT_DOUBLE_EQ(efficiency_for(h100).gemm_tile_fixed_k, 100);
  const double measured[][2] = {{256, 503.9e12}, {512, 619.9e12}, {1024, 725.5e12}, {4096, 793.1e12}};
  for (const auto& [k, tflops] : measured) {
    const double model = *gemm_flop_per_s(h100, Precision::bf16, 16384, 4096, k);
    EXPECT_NEAR(model / tflops, 1, 0.08) << "k " << k;
  }
  // The shallowest is the slowest, by about the measured ratio (0.64).
  EXPECT_NEAR(*gemm_flop_per_s(h100, Precision::bf16, 16384, 4096, 256) /
                  *gemm_flop_per_s(h100, Precision::bf16, 16384, 4096, 4096), 503.9 / 793.1, 0.1);
  // Other vendors keep no depth cost (no measurement).
  catalog::Accelerator other = h100;
  other.vendor = "amd";
  EXPECT_DOUBLE_EQ(efficiency_for(other).gemm_tile_fixed_k, 0);
}

TEST(OpEfficiency, GathersMoveWholeSectors) {
  EXPECT_DOUBLE_EQ(gather_sector_efficiency(64), 1);
  EXPECT_DOUBLE_EQ(gather_sector_efficiency(48), 48.0 / 64);   // 2 sectors
  EXPECT_DOUBLE_EQ(gather_sector_efficiency(8), 8.0 / 32);
  catalog::Accelerator a = test_gpu();
  Efficiency e = efficiency_for(a);
  workload::Operator emb;  // 4 lookups of rows of 12 fp16 elements (24 bytes -> one 32-byte sector)
  emb.kind = workload::OpKind::embedding;
  emb.in_elems = 4;
  emb.out_elems = 48;
  EXPECT_DOUBLE_EQ(op_efficiency(emb, 1, 1, Precision::fp16, a, e).memory, e.memory * 24 / 32);
}

TEST(OpEfficiency, JetsonDlasOnlyServeCnns) {
  catalog::Accelerator a = test_gpu();
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::int8)] = {137.5e12, "test"};
  a.dla_int8_ops = {52.5e12, "test"};
  EXPECT_DOUBLE_EQ(workload_peak(a, Precision::int8, workload::Family::cnn), 137.5e12);
  EXPECT_DOUBLE_EQ(workload_peak(a, Precision::int8, workload::Family::decoder_llm), 85e12);
  EXPECT_DOUBLE_EQ(workload_peak(a, Precision::int8, workload::Family::encoder), 85e12);
  EXPECT_DOUBLE_EQ(workload_peak(a, Precision::fp16, workload::Family::decoder_llm), 100e12);
}

TEST(MixedPrecision, BytesOfEachTensorFollowItsFormat) {
  // 100 weights in int4 (50 bytes) + 10 in and 10 out activations in fp16 (40 bytes).
  workload::Operator fc;
  fc.kind = workload::OpKind::matmul;
  fc.weight_elems = 100;
  fc.in_elems = 10;
  fc.out_elems = 10;
  EXPECT_DOUBLE_EQ(workload::op_bytes(fc, 1, Precision::int4, Precision::fp16, Precision::fp8), 90);
  // Decode attention reads the KV cache: 1000 cached elements x 2 sequences in
  // fp8 (1 byte) and writes 10 fp16 outputs each.
  workload::Operator attn;
  attn.kind = workload::OpKind::attention;
  attn.phase = workload::Phase::decode;
  attn.in_elems = 1000;
  attn.out_elems = 10;
  EXPECT_DOUBLE_EQ(workload::op_bytes(attn, 2, Precision::fp16, Precision::fp16, Precision::fp8), 2 * (1000 + 20));
  // A 4-bit KV cache still takes one byte per element.
  EXPECT_DOUBLE_EQ(workload::op_bytes(attn, 1, Precision::fp16, Precision::fp16, Precision::fp4), 1000 + 20);
  // One precision for all is the old formula.
  EXPECT_DOUBLE_EQ(workload::op_bytes(fc, 3, Precision::bf16), (100 + 3 * 20) * 2.0);
}

TEST(MixedPrecision, MemoryCountsWeightsAndKvApart) {
  workload::Workload w = testing::matmul_model(1e9);
  w.kv_elems_per_token = 1000;
  w.input_tokens = 100;
  w.output_tokens = 28;
  Plan p;
  p.mb = 4;
  PrecisionMix mix(Precision::fp16);
  mix.weights = Precision::int4;
  mix.kv = Precision::fp8;
  Memory m = memory_footprint(w, workload::Task::infer, mix, p, nullptr);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 1e9 * 0.5);
  // Paged KV: the live context, 100 + 28/2 tokens per sequence, one byte each.
  EXPECT_DOUBLE_EQ(m.kv_cache_bytes, 1000.0 * 114 * 4 * 1);
  EXPECT_DOUBLE_EQ(m.activations_bytes, memory_footprint(w, workload::Task::infer, Precision::fp16, p, nullptr).activations_bytes);
}

TEST(MixedPrecision, W4A16UsesTheFp16PeakAndHalfByteWeights) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = testing::matmul_model(1e9);
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  r.precision = Precision::fp16;
  r.weight_precision = Precision::int4;
  r.batch = 1;
  Result<Prediction> mixed = predict(r);
  ASSERT_TRUE(mixed) << mixed.error().message;
  EXPECT_EQ(mixed->precision, Precision::fp16);
  EXPECT_EQ(mixed->precisions.weights, Precision::int4);
  EXPECT_DOUBLE_EQ(mixed->memory.weights_bytes, 0.5e9);
  r.weight_precision.reset();
  Result<Prediction> plain = predict(r);
  ASSERT_TRUE(plain);
  // Batch 1 is weight-bound: int4 weights read a quarter of the fp16 bytes.
  EXPECT_LT(mixed->latency_s, 0.3 * plain->latency_s);
  bool said = false;
  for (const Assumption& x : mixed->assumptions) said |= x.name == "precisions";
  EXPECT_TRUE(said);
  // Integer weights named alone are weight-only quantization: 16-bit math.
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::int8)] = {400e12, "test"};
  r.precision.reset();
  r.weight_precision = Precision::int4;
  Result<Prediction> w4 = predict(r);
  ASSERT_TRUE(w4);
  EXPECT_EQ(w4->precision, Precision::fp16);
  r.weight_precision.reset();
  EXPECT_EQ(predict(r)->precision, Precision::int8);  // the default without weights named
}

// ---- properties -------------------------------------------------------------

TEST(GemmShapeProperty, NeverAboveOneAndNeverRaisedByASmallerDimension) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> dim(1, 20000);
  const GemmUnits units[] = {h100_like(), {108, 128, 256, 64, 64}, {16, 128, 256, 64, 64}, {132, 128, 128, 64, 64},
                             {2, 256, 256, 1}, {4, 128, 128, 1}};
  for (const GemmUnits& u : units) {
    for (int i = 0; i < 3000; ++i) {
      GemmShape s{double(dim(rng)), double(dim(rng)), double(dim(rng))};
      double f = gemm_shape_factor(s, u).factor();
      ASSERT_GT(f, 0);
      ASSERT_LE(f, 1);
      GemmShape smaller = s;
      smaller.m = std::max(1.0, s.m - double(1 + rng() % 300));
      ASSERT_LE(gemm_shape_factor(smaller, u).factor(), f) << s.m << " " << s.n << " " << s.k;
      smaller = s;
      smaller.n = std::max(1.0, s.n - 1);
      ASSERT_LE(gemm_shape_factor(smaller, u).factor(), f);
      smaller = s;
      smaller.k = std::max(1.0, s.k - 1);
      ASSERT_LE(gemm_shape_factor(smaller, u).factor(), f);
    }
    // Every m from 1 to 4096 at a decode-like n, k.
    double last = 0;
    for (int m = 1; m <= 4096; ++m) {
      double f = gemm_shape_factor({double(m), 4096, 4096}, u).factor();
      ASSERT_GE(f, last) << m;
      last = f;
    }
  }
}

TEST(GemmShapeProperty, OperatorEfficiencyNeverExceedsOne) {
  catalog::Accelerator a = tiled_gpu();
  a.attention_fraction = {0.75, "test"};
  Efficiency e = efficiency_for(a);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exp10(0, 10);
  const workload::OpKind kinds[] = {workload::OpKind::matmul, workload::OpKind::conv, workload::OpKind::attention,
                                    workload::OpKind::embedding, workload::OpKind::norm};
  for (int i = 0; i < 5000; ++i) {
    workload::Operator op;
    op.kind = kinds[i % 5];
    op.flops = std::pow(10, exp10(rng));
    op.weight_elems = std::pow(10, exp10(rng) * 0.8);
    op.in_elems = std::pow(10, exp10(rng) * 0.7);
    op.out_elems = std::pow(10, exp10(rng) * 0.7);
    OpEfficiency oe = op_efficiency(op, 1 + rng() % 512, 1 + rng() % 8, Precision::fp16, a, e);
    ASSERT_GT(oe.compute, 0);
    ASSERT_LE(oe.compute, 1);
    ASSERT_GT(oe.memory, 0);
    ASSERT_LE(oe.memory, 1);
  }
}

}  // namespace
}  // namespace rooftop::model
