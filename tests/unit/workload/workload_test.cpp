// Operator arithmetic (bytes, totals, training step, memory footprint) on
// hand-computed cases, and strict parsing of custom model YAML.
#include <gtest/gtest.h>

#include "workload/workload.h"

namespace rooftop::workload {
namespace {

Operator matmul() {
  Operator op;
  op.name = "fc";
  op.kind = OpKind::matmul;
  op.flops = 2.0 * 100 * 200;  // 100 -> 200 features
  op.weight_elems = 100 * 200;
  op.params = 100 * 200;
  op.in_elems = 100;
  op.out_elems = 200;
  return op;
}

TEST(OpBytes, WeightsOncePerBatchActivationsPerSample) {
  Operator op = matmul();
  // fp16: (20000 + 4 x 300) x 2 bytes.
  EXPECT_DOUBLE_EQ(op_bytes(op, 4, Precision::fp16), (20000 + 4 * 300) * 2.0);
  EXPECT_DOUBLE_EQ(op_bytes(op, 1, Precision::fp32), (20000 + 300) * 4.0);
  EXPECT_DOUBLE_EQ(op_bytes(op, 1, Precision::int4), (20000 + 300) * 0.5);
  EXPECT_DOUBLE_EQ(op_flops(op, 3), 3 * 40000.0);
}

TEST(OpBytes, PerSampleWeightsGrowUntilAllAreRead) {
  Operator op;
  op.kind = OpKind::embedding;
  op.weight_elems = 1000;
  op.weight_elems_per_sample = 64;
  EXPECT_DOUBLE_EQ(op_bytes(op, 1, Precision::fp32), 64 * 4.0);
  EXPECT_DOUBLE_EQ(op_bytes(op, 10, Precision::fp32), 640 * 4.0);
  EXPECT_DOUBLE_EQ(op_bytes(op, 100, Precision::fp32), 1000 * 4.0);
}

TEST(Totals, RepeatMultipliesAndIntensityIsTheRatio) {
  Operator op = matmul();
  op.repeat = 3;
  Totals t = totals({op}, 2, Precision::fp16);
  EXPECT_DOUBLE_EQ(t.flops, 3 * 2 * 40000.0);
  EXPECT_DOUBLE_EQ(t.bytes, 3 * (20000 + 2 * 300) * 2.0);
  EXPECT_DOUBLE_EQ(t.intensity, t.flops / t.bytes);
  EXPECT_DOUBLE_EQ(totals({}, 1, Precision::fp16).intensity, 0);
}

TEST(TrainingOps, BackwardIsTwiceForwardAndAdamTouchesEveryParameter) {
  Workload w;
  w.ops = {matmul()};
  w.params = 20000;
  std::vector<Operator> t = training_ops(w);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].phase, Phase::forward);
  EXPECT_EQ(t[1].phase, Phase::backward);
  EXPECT_DOUBLE_EQ(t[1].flops, 2 * t[0].flops);
  // Backward reads weights, writes weight gradients; reads input + output grad, writes input grad.
  EXPECT_DOUBLE_EQ(t[1].weight_elems, 40000);
  EXPECT_DOUBLE_EQ(t[1].in_elems, 300);
  EXPECT_DOUBLE_EQ(t[1].out_elems, 100);
  EXPECT_EQ(t[2].phase, Phase::optimizer);
  // Adam: 7 fp32 accesses per parameter = 28 bytes, whatever the precision.
  EXPECT_DOUBLE_EQ(op_bytes(t[2], 64, Precision::bf16), 28.0 * 20000);
  EXPECT_DOUBLE_EQ(totals(t, 1, Precision::bf16).flops, 3 * t[0].flops);
}

TEST(TrainingOps, FrozenOpsRunForwardOnly) {
  Workload w;
  Operator frozen = matmul();
  frozen.frozen = true;
  w.ops = {frozen, matmul()};
  std::vector<Operator> t = training_ops(w);
  ASSERT_EQ(t.size(), 4u);  // 2 forward, 1 backward, optimizer
  EXPECT_DOUBLE_EQ(t[3].weight_elems, 7.0 * 20000);
}

TEST(Enums, RoundTrip) {
  EXPECT_EQ(parse_task("train"), Task::train);
  EXPECT_EQ(parse_task("infer"), Task::infer);
  EXPECT_FALSE(parse_task("serve"));
  EXPECT_EQ(parse_op_kind(to_string(OpKind::attention)), OpKind::attention);
  EXPECT_FALSE(parse_op_kind("gemm"));
  EXPECT_EQ(to_string(Phase::decode), "decode");
  EXPECT_EQ(to_string(Family::decoder_llm), "decoder_llm");
}

}  // namespace
}  // namespace rooftop::workload
