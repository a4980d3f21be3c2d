// Fusion advice: chains of memory-bound element-wise/normalisation ops after
// a GEMM or convolution, along real ONNX edges or in operator order.
#include <gtest/gtest.h>

#include "onnx/onnx.h"
#include "unit/onnx/models.h"

namespace rooftop::onnx {
namespace {

using workload::OpKind;
using workload::Operator;

Operator op(const std::string& name, OpKind kind, double in, double out, double flops = 0) {
  Operator o;
  o.name = name;
  o.kind = kind;
  o.in_elems = in;
  o.out_elems = out;
  o.flops = flops;
  return o;
}

TEST(OnnxFusion, ConvBatchNormReluResidualAlongGraphEdges) {
  ROOFTOP_NEED_ONNX_MODELS();
  Result<ImportedModel> m = import_file(test::model_path("conv_bn_relu.onnx"), {});
  ASSERT_TRUE(m.has_value()) << m.error().what();
  const auto& ops = m->workload.ops;
  ASSERT_EQ(ops.size(), 4u);
  std::vector<FusionCandidate> f = find_fusions(ops, m->producers, m->consumer_count, std::vector<bool>(4, true));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].anchor, 0u);
  EXPECT_EQ(f[0].chain, (std::vector<std::size_t>{1, 2, 3}));
  const double x = 64.0 * 56 * 56;
  // The fused kernel reads x once for the conv and once more as the residual, writes y once.
  EXPECT_DOUBLE_EQ(f[0].fused.in_elems, 2 * x);
  EXPECT_DOUBLE_EQ(f[0].fused.out_elems, x);
  EXPECT_DOUBLE_EQ(f[0].fused.flops, ops[0].flops + ops[1].flops + ops[2].flops + ops[3].flops);
  EXPECT_DOUBLE_EQ(f[0].fused.weight_elems, ops[0].weight_elems + ops[1].weight_elems);
}

TEST(OnnxFusion, ChainStopsAtAComputeBoundOp) {
  std::vector<Operator> ops = {op("gemm", OpKind::matmul, 10, 10, 1e6), op("bias", OpKind::elementwise, 10, 10),
                               op("gelu", OpKind::elementwise, 10, 10), op("out", OpKind::elementwise, 10, 10)};
  Adjacency g = sequential_graph(ops.size());
  std::vector<FusionCandidate> f = find_fusions(ops, g.producers, g.consumer_count, {false, true, false, true});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].chain, (std::vector<std::size_t>{1}));
  EXPECT_EQ(f[0].fused.name, "gemm+bias");
}

TEST(OnnxFusion, NoFusionWhenTheOutputHasTwoConsumersOrAfterNonFusableOps) {
  std::vector<Operator> ops = {op("conv", OpKind::conv, 10, 10, 1e6), op("relu", OpKind::elementwise, 10, 10),
                               op("pool", OpKind::pool, 10, 10), op("relu2", OpKind::elementwise, 10, 10)};
  Adjacency g = sequential_graph(ops.size());
  g.consumer_count[0] = 2;  // conv's output also feeds something else
  EXPECT_TRUE(find_fusions(ops, g.producers, g.consumer_count, std::vector<bool>(4, true)).empty());
  g.consumer_count[0] = 1;
  std::vector<FusionCandidate> f = find_fusions(ops, g.producers, g.consumer_count, std::vector<bool>(4, true));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].chain, (std::vector<std::size_t>{1}));  // stops at the pool
}

TEST(OnnxFusion, RepeatMustMatch) {
  std::vector<Operator> ops = {op("qkv", OpKind::matmul, 10, 30, 1e6), op("bias", OpKind::elementwise, 30, 30)};
  ops[0].repeat = 12;
  Adjacency g = sequential_graph(ops.size());
  EXPECT_TRUE(find_fusions(ops, g.producers, g.consumer_count, {false, true}).empty());
  ops[1].repeat = 12;
  EXPECT_EQ(find_fusions(ops, g.producers, g.consumer_count, {false, true}).size(), 1u);
}

TEST(OnnxFusion, MismatchedSizesGiveNothing) {
  std::vector<Operator> ops = {op("a", OpKind::matmul, 1, 1)};
  EXPECT_TRUE(find_fusions(ops, {}, {}, {}).empty());
}

TEST(OnnxFusion, SequentialGraph) {
  Adjacency g = sequential_graph(3);
  EXPECT_TRUE(g.producers[0].empty());
  EXPECT_EQ(g.producers[2], (std::vector<std::size_t>{1}));
  EXPECT_EQ(g.consumer_count, (std::vector<std::size_t>{1, 1, 1}));
}

}  // namespace
}  // namespace rooftop::onnx
