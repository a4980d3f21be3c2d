// Hand-computed cases for every formula of the roofline and the collectives
// (docs/model.md), and the efficiency table.
#include <gtest/gtest.h>

#include "model/internal.h"
#include "model/model.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::test_gpu;

Efficiency half() {
  Efficiency e;
  e.compute = 0.5;
  e.memory = 0.5;
  e.op_overhead_s = 1e-6;
  e.link = 0.8;
  e.link_latency_s = 1e-6;
  return e;
}

workload::Operator op(double flops, double weights, double in, double out, double repeat = 1) {
  workload::Operator o = testing::one_op(workload::OpKind::matmul, flops, weights, in, out);
  o.name = "op";
  o.repeat = repeat;
  return o;
}

TEST(Roofline, ComputeBound) {
  // 1 GFLOP at 100 TFLOP/s x 0.5 = 20 us; 2 MB at 1 TB/s x 0.5 = 4 us; +1 us.
  OpPrediction p = roofline(op(1e9, 1e6, 0, 0), 1, Precision::fp16, test_gpu(), half());
  EXPECT_NEAR(p.time_s, 21e-6, 1e-12);
  EXPECT_EQ(p.bound, Bound::compute);
  EXPECT_DOUBLE_EQ(p.bytes, 2e6);
  EXPECT_DOUBLE_EQ(p.intensity, 500);
}

TEST(Roofline, MemoryBound) {
  // 20 MB (1e7 fp16 elements) at 0.5 TB/s = 40 us; 1 MFLOP = 0.02 us; +1 us.
  OpPrediction p = roofline(op(1e6, 0, 1e7, 0), 1, Precision::fp16, test_gpu(), half());
  EXPECT_NEAR(p.time_s, 41e-6, 1e-12);
  EXPECT_EQ(p.bound, Bound::memory);
}

TEST(Roofline, OverheadBound) {
  OpPrediction p = roofline(op(1e3, 0, 10, 10), 1, Precision::fp16, test_gpu(), half());
  EXPECT_EQ(p.bound, Bound::overhead);
  EXPECT_GT(p.time_s, 1e-6);
}

TEST(Roofline, BatchAndRepeatScale) {
  // Batch 4: 4 GFLOP = 80 us; weights read once (2 MB = 4 us). Repeat 3: x3 incl. overhead.
  OpPrediction p = roofline(op(1e9, 1e6, 0, 0, 3), 4, Precision::fp16, test_gpu(), half());
  EXPECT_NEAR(p.time_s, 3 * (80e-6 + 1e-6), 1e-12);
  EXPECT_DOUBLE_EQ(p.flops, 12e9);
}

TEST(Roofline, PrecisionChangesBytes) {
  OpPrediction h = roofline(op(0, 0, 1e7, 0), 1, Precision::fp16, test_gpu(), half());
  OpPrediction f = roofline(op(0, 0, 1e7, 0), 1, Precision::fp32, test_gpu(), half());
  EXPECT_DOUBLE_EQ(f.bytes, 2 * h.bytes);
}

TEST(Collectives, RingAllReduce) {
  // 2 (n-1)/n x S / B + 2 (n-1) x a = 2 x 7/8 x 1 GB / 100 GB/s + 14 us.
  EXPECT_NEAR(ring_allreduce_s(1e9, 8, 100e9, 1e-6), 0.0175 + 14e-6, 1e-12);
  EXPECT_NEAR(ring_allreduce_s(1e9, 2, 100e9, 0), 0.01, 1e-12);
  EXPECT_EQ(ring_allreduce_s(1e9, 1, 100e9, 1e-6), 0);
}

TEST(Collectives, RingTrafficIsNearlyIndependentOfN) {
  // The seeds' "O(N)" is garbled: per-device traffic is 2 (N-1)/N x S, below 2 S for any N.
  double t8 = ring_allreduce_s(1e9, 8, 100e9, 0), t1024 = ring_allreduce_s(1e9, 1024, 100e9, 0);
  EXPECT_LT(t1024 / t8, 2.0 / 1.75 + 1e-9);
  EXPECT_LT(t1024, 2 * 1e9 / 100e9);
}

TEST(Collectives, BusBandwidthAndEta) {
  EXPECT_NEAR(allreduce_busbw(1e9, 8, 0.0175), 100e9, 1e-3);
  EXPECT_NEAR(bandwidth_utilisation(8, 80e9, 100e9), 0.7, 1e-12);
  EXPECT_EQ(bandwidth_utilisation(1, 80e9, 100e9), 0);
}

TEST(Stragglers, ExpectedMaxOfNormals) {
  EXPECT_EQ(expected_max_standard_normal(1), 0);
  // Exact values: n=2 1/sqrt(pi) = 0.5642, n=10 1.5388, n=100 2.5076 (Blom within 0.03).
  EXPECT_NEAR(expected_max_standard_normal(2), 0.5642, 0.03);
  EXPECT_NEAR(expected_max_standard_normal(10), 1.5388, 0.01);
  EXPECT_NEAR(expected_max_standard_normal(100), 2.5076, 0.01);
  EXPECT_NEAR(straggler_factor(10, 0.05), 1 + 0.05 * expected_max_standard_normal(10), 1e-12);
  EXPECT_EQ(straggler_factor(64, 0), 1);
}

TEST(Efficiency, PerKindAndCalibration) {
  catalog::Accelerator a = test_gpu();
  Efficiency e = efficiency_for(a);
  EXPECT_DOUBLE_EQ(e.compute, 0.78);
  EXPECT_DOUBLE_EQ(e.memory, 0.80);
  EXPECT_DOUBLE_EQ(e.link_latency_s, 0.6e-6);
  EXPECT_FALSE(e.source.empty());
  a.vendor = "amd";
  EXPECT_DOUBLE_EQ(efficiency_for(a).compute, 0.60);
  a.kind = catalog::Kind::npu;
  EXPECT_DOUBLE_EQ(efficiency_for(a).memory, 0.60);
  a.calibration.compute_efficiency = 1.0;
  a.calibration.source = "bench profile";
  EXPECT_DOUBLE_EQ(efficiency_for(a).compute, 1.0);
  EXPECT_NE(efficiency_for(a).source.find("calibrated"), std::string::npos);
}

TEST(Kernels, GemmStreamAndLinks) {
  catalog::Accelerator a = test_gpu();
  // 8192^3 GEMM: compute-bound; 1.1 TFLOP at 78 TFLOP/s = 14.1 ms + 3 us.
  double n = 8192, flops = 2 * n * n * n;
  double expect = flops / (flops / 78e12 + 3e-6);
  EXPECT_NEAR(*gemm_flop_per_s(a, Precision::fp16, n, n, n), expect, expect * 1e-9);
  EXPECT_FALSE(gemm_flop_per_s(a, Precision::fp8, n, n, n));
  EXPECT_NEAR(*stream_bytes_per_s(a, 3e9), 3e9 / (3e9 / 0.8e12 + 3e-6), 1e3);
  // Switched link: one ring uses the whole 100 GB/s x 0.8.
  EXPECT_NEAR(*copy_bytes_per_s(a, true), 160e9, 1);
  double bus = *allreduce_busbw_bytes_per_s(a, 8, 16e9);
  EXPECT_LT(bus, 80e9);
  EXPECT_GT(bus, 79.9e9);
  // Full mesh (from the catalog's topology, not the link's name): 2 devices
  // share one of 7 peer links.
  a.scale_up.name = "Infinity Fabric";
  a.scale_up.bytes_per_s_per_direction.value = 448e9;
  EXPECT_NEAR(*copy_bytes_per_s(a, false), 448e9 * 0.8, 1);  // no topology in the catalog: a switch
  a.domain.topology = catalog::Topology::full_mesh;
  a.domain.peers = {7, "test"};
  EXPECT_NEAR(*copy_bytes_per_s(a, false), 64e9 * 0.8, 1);
  EXPECT_NEAR(*allreduce_busbw_bytes_per_s(a, 8, 16e9), 448e9 * 0.8, 448e9 * 0.01);
}

TEST(Kernels, UnknownLinkIsAnError) {
  catalog::Accelerator a = test_gpu();
  a.scale_up = {};
  a.host = {};
  Result<double> r = allreduce_busbw_bytes_per_s(a, 2, 1e9);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("link"), std::string::npos);
}

TEST(Scenario, ParseAndPrint) {
  EXPECT_EQ(parse_scenario("SingleStream"), Scenario::single_stream);
  EXPECT_EQ(parse_scenario("single-stream"), Scenario::single_stream);
  EXPECT_EQ(parse_scenario("Offline"), Scenario::offline);
  EXPECT_EQ(parse_scenario("server"), Scenario::server);
  EXPECT_FALSE(parse_scenario("multistream"));
  EXPECT_EQ(to_string(Scenario::single_stream), "single-stream");
  EXPECT_EQ(to_string(Bound::communication), "communication");
}

}  // namespace
}  // namespace rooftop::model

namespace rooftop::model {
namespace {

TEST(Fusion, ElementwiseOpsRunInTheirProducerUnlessTheyNeedAKernelOfTheirOwn) {
  workload::Operator act = testing::one_op(workload::OpKind::elementwise, 5, 0, 2, 1);
  EXPECT_TRUE(detail::fused_in_inference(act, workload::Family::decoder_llm));
  act.own_kernel = true;  // SwiGLU: both halves of the up-projection meet
  EXPECT_FALSE(detail::fused_in_inference(act, workload::Family::decoder_llm));
  catalog::Accelerator a = testing::test_gpu();
  PrecisionMix p(Precision::fp16);
  detail::OpCost c = detail::op_cost(act, 1000, p, a, efficiency_for(a), 1, false);
  EXPECT_DOUBLE_EQ(c.bytes, 1000 * 3 * 2.0);  // reads both halves, writes one, 2 bytes each
}

}  // namespace
}  // namespace rooftop::model

namespace rooftop::model {
namespace {

// A batch norm in training (docs/model.md#batch-norm): its statistics reduce
// over the whole batch, so a GPU reads the input once for them and once more
// to normalize, except when one instance's input fits the last-level cache;
// TPUs and ASICs have no such kernel to read, and inference folds the norm.
TEST(BatchNorm, TrainingForwardReadsItsInputTwiceOnGpus) {
  workload::Operator bn = testing::one_op(workload::OpKind::norm, 2 * 1e6, 2 * 64, 1e6, 1e6);
  bn.batch_statistics = true;
  catalog::Accelerator a = testing::test_gpu();
  a.sram_bytes = {40e6, "test"};
  PrecisionMix p(Precision::bf16);
  const Efficiency e = efficiency_for(a);
  EXPECT_TRUE(e.batch_norm_reread);
  // 64 samples x 1e6 elements x 2 bytes = 128 MB in, over 40 MB: x, x again, y.
  const double weights = 2 * 64 * 2.0;
  EXPECT_DOUBLE_EQ(detail::op_cost(bn, 64, p, a, e, 1, false).bytes, weights + 64 * 1e6 * 2 * 3);
  // 16 samples: 32 MB fits the 40 MB cache, the second read stays on chip.
  EXPECT_DOUBLE_EQ(detail::op_cost(bn, 16, p, a, e, 1, false).bytes, weights + 16 * 1e6 * 2 * 2);
  EXPECT_DOUBLE_EQ(detail::op_cost(bn, 64, p, a, e, 1, true).bytes, 0);  // folded
  workload::Operator ln = bn;  // a layer norm's row fits a kernel: one pass
  ln.batch_statistics = false;
  EXPECT_DOUBLE_EQ(detail::op_cost(ln, 64, p, a, e, 1, false).bytes, weights + 64 * 1e6 * 2 * 2);
  for (catalog::Kind k : {catalog::Kind::tpu, catalog::Kind::asic, catalog::Kind::npu, catalog::Kind::cpu}) {
    catalog::Accelerator other = a;
    other.kind = k;
    EXPECT_DOUBLE_EQ(detail::op_cost(bn, 64, p, other, efficiency_for(other), 1, false).bytes,
                     weights + 64 * 1e6 * 2 * 2)
        << catalog::to_string(k);
  }
}

// The analysis `rooftop roofline` prints comes from the model: totals are
// the operators' sums, and a fusion is kept only when it saves time.
TEST(RooflineAnalysis, TotalsAndFusionsThatSaveTime) {
  catalog::Accelerator a = testing::test_gpu();
  const Efficiency e = efficiency_for(a);
  std::vector<workload::Operator> ops = {
      testing::one_op(workload::OpKind::matmul, 2e12, 1e6, 1e6, 1e6),   // compute-bound
      testing::one_op(workload::OpKind::elementwise, 1e6, 0, 1e8, 1e8),  // memory-bound
  };
  RooflineAnalysis r = analyse_roofline(ops, 1, Precision::fp16, a, e);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_NEAR(r.total_s, r.ops[0].time_s + r.ops[1].time_s, 1e-15);
  EXPECT_NEAR(r.bound_s[0] + r.bound_s[1] + r.bound_s[2] + r.bound_s[3], r.total_s, 1e-15);
  EXPECT_EQ(r.memory_bound(), (std::vector<bool>{false, true}));
  EXPECT_NEAR(r.ops[0].share + r.ops[1].share, 1, 1e-12);
  // The elementwise op folded into the matmul's epilogue: its traffic goes.
  FusionOption saves{0, {1}, ops[0]};
  // A "fusion" that costs more than the two kernels it replaces is dropped.
  workload::Operator worse = ops[0];
  worse.flops *= 10;
  FusionOption loses{0, {1}, worse};
  price_fusions(r, {loses, saves}, 1, Precision::fp16, a, e);
  ASSERT_EQ(r.fusions.size(), 1u);
  EXPECT_EQ(r.fusions[0].option.chain, std::vector<std::size_t>{1});
  EXPECT_NEAR(r.fusions[0].before_s, r.total_s, 1e-15);
  EXPECT_NEAR(r.saved_s, r.total_s - r.ops[0].time_s, 1e-12);
}

}  // namespace
}  // namespace rooftop::model
