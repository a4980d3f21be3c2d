// ONNX import: hand-computed costs of one-operator models, shapes and batch,
// unknown operators listed, and ResNet-50 against the zoo's resnet50.
#include <gtest/gtest.h>

#include <numeric>

#include "onnx/onnx.h"
#include "unit/onnx/models.h"
#include "workload/workload.h"

namespace rooftop::onnx {
namespace {

using test::model_path;
using workload::OpKind;

ImportedModel load(const std::string& file, ImportOptions opts = {}) {
  Result<ImportedModel> m = import_file(model_path(file), opts);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().what());
  return m ? std::move(*m) : ImportedModel{};
}

double total_flops(const std::vector<workload::Operator>& ops) {
  return std::accumulate(ops.begin(), ops.end(), 0.0,
                         [](double s, const workload::Operator& o) { return s + o.flops * o.repeat; });
}

TEST(OnnxImport, ConvCountsMacsBiasAndTraffic) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportedModel m = load("conv.onnx");
  ASSERT_EQ(m.workload.ops.size(), 1u);
  const workload::Operator& op = m.workload.ops[0];
  EXPECT_EQ(op.kind, OpKind::conv);
  // 4x16x16 outputs x (8 channels x 3x3) MACs x 2, plus one bias add per output.
  EXPECT_DOUBLE_EQ(op.flops, 2.0 * 1024 * 72 + 1024);
  EXPECT_DOUBLE_EQ(op.weight_elems, 4 * 8 * 9 + 4);
  EXPECT_DOUBLE_EQ(op.in_elems, 8 * 256);
  EXPECT_DOUBLE_EQ(op.out_elems, 4 * 256);
  EXPECT_EQ(m.workload.family, workload::Family::onnx);
  EXPECT_DOUBLE_EQ(m.workload.params, 292);
  EXPECT_EQ(m.batch, 1);
}

TEST(OnnxImport, BatchFillsTheSymbolicDimensionAndCountsStayPerSample) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportOptions o;
  o.batch = 4;
  ImportedModel m = load("conv.onnx", o);
  EXPECT_EQ(m.batch, 4);
  ASSERT_EQ(m.workload.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(m.workload.ops[0].flops, 2.0 * 1024 * 72 + 1024);
  EXPECT_DOUBLE_EQ(m.workload.ops[0].weight_elems, 292);  // weights are per batch, not per sample
}

TEST(OnnxImport, GroupedAndTransposedConvolutions) {
  ROOFTOP_NEED_ONNX_MODELS();
  const workload::Operator g = load("group_conv.onnx").workload.ops.at(0);  // a copy: load() returns a temporary
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 8 * 256 * 9);
  EXPECT_DOUBLE_EQ(g.groups, 8);  // the GEMM-shape factor runs one GEMM per group
  // ConvTranspose: every input point scatters into Cout/group x kernel outputs.
  EXPECT_DOUBLE_EQ(load("conv_transpose.onnx").workload.ops.at(0).flops, 2.0 * 8 * 256 * 4 * 4);
}

TEST(OnnxImport, GemmMatMulAndEinsum) {
  ROOFTOP_NEED_ONNX_MODELS();
  EXPECT_DOUBLE_EQ(load("gemm.onnx").workload.ops.at(0).flops, 2.0 * 32 * 64 + 32);
  ImportedModel mm = load("matmul.onnx");  // [2,3,5,7] x [2,3,7,11], batch 2
  EXPECT_EQ(mm.batch, 2);
  EXPECT_DOUBLE_EQ(mm.workload.ops.at(0).flops, 2.0 * 2 * 3 * 5 * 11 * 7 / 2);
  const workload::Operator e = load("einsum.onnx").workload.ops.at(0);  // a copy: load() returns a temporary
  EXPECT_EQ(e.kind, OpKind::matmul);
  EXPECT_DOUBLE_EQ(e.flops, 2.0 * 4 * 16 * 32 * 8);
}

TEST(OnnxImport, GatherOnAnInitializerIsAnEmbeddingLookup) {
  ROOFTOP_NEED_ONNX_MODELS();
  const workload::Operator op = load("embedding.onnx").workload.ops.at(0);  // a copy: load() returns a temporary
  EXPECT_EQ(op.kind, OpKind::embedding);
  EXPECT_DOUBLE_EQ(op.flops, 0);
  EXPECT_DOUBLE_EQ(op.weight_elems, 16000);
  EXPECT_DOUBLE_EQ(op.weight_elems_per_sample, 160);
}

TEST(OnnxImport, UnknownOperatorsAreListedNotZero) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportedModel m = load("unknown_op.onnx");
  EXPECT_EQ(m.workload.ops.size(), 1u);  // the Relu
  ASSERT_EQ(m.workload.unsupported_ops.size(), 1u);
  EXPECT_EQ(m.workload.unsupported_ops[0], "NonMaxSuppression x1 (unknown operator)");
}

TEST(OnnxImport, MicrosoftAttentionIsProjectionPlusAttention) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportedModel m = load("ms_attention.onnx");  // x [2,16,64], 4 heads, batch 2
  ASSERT_EQ(m.workload.ops.size(), 2u);
  EXPECT_EQ(m.workload.ops[0].kind, OpKind::matmul);
  EXPECT_DOUBLE_EQ(m.workload.ops[0].flops, (2.0 * 2 * 16 * 64 * 192 + 2 * 16 * 192) / 2);
  EXPECT_EQ(m.workload.ops[1].kind, OpKind::attention);
  EXPECT_DOUBLE_EQ(m.workload.ops[1].flops, (4.0 * 2 * 16 * 16 * 64 + 5.0 * 2 * 4 * 16 * 16) / 2);
  EXPECT_EQ(m.op_types[1], "com.microsoft.Attention");
}

TEST(OnnxImport, ResNet50MatchesTheZooWithinTwoPercent) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportedModel m = load("resnet50.onnx");
  EXPECT_TRUE(m.workload.unsupported_ops.empty());
  EXPECT_DOUBLE_EQ(m.workload.params, 25557032);  // torchvision resnet50, BN running stats excluded
  Result<workload::Workload> zoo = workload::build_zoo("resnet50", {});
  ASSERT_TRUE(zoo.has_value()) << zoo.error().what();
  double onnx_flops = total_flops(m.workload.ops), zoo_flops = total_flops(zoo->ops);
  EXPECT_NEAR(onnx_flops / zoo_flops, 1.0, 0.02) << onnx_flops << " vs " << zoo_flops;
  EXPECT_NEAR(onnx_flops, 8.2e9, 0.1e9);  // about 4.1 GMACs
}

// One BERT-Base encoder layer at 384 tokens, as the transformer builder
// sees it (no head, no final norm; the embedding lookup costs no FLOPs).
constexpr const char* kBertLayerYaml = R"(id: bert-layer
name: one BERT-Base encoder layer
builder: transformer
sample_note: "one sequence of 384 tokens"
config:
  kind: encoder
  causal: false
  layers: 1
  hidden: 768
  heads: 12
  ffn: 3072
  norm: layernorm
  final_norm: false
  attn_bias: true
  mlp_bias: true
  vocab: 30522
  head: none
  seq_len: 384
)";

TEST(OnnxImport, TransformerLayerMatchesTheTransformerBuilder) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportOptions o;
  o.inputs.push_back({"hidden", {1, 384, 768}});
  ImportedModel m = load("bert_layer.onnx", o);
  EXPECT_TRUE(m.workload.unsupported_ops.empty());
  Result<workload::Workload> built = workload::parse_workload_yaml(kBertLayerYaml, "bert-layer.yaml", {});
  ASSERT_TRUE(built.has_value()) << built.error().what();
  double onnx_flops = total_flops(m.workload.ops), builder_flops = total_flops(built->ops);
  EXPECT_NEAR(onnx_flops / builder_flops, 1.0, 0.02) << onnx_flops << " vs " << builder_flops;
  // Q K^T and P V are recognised as attention, not as weight GEMMs.
  int attention = 0;
  for (const workload::Operator& op : m.workload.ops) attention += op.kind == OpKind::attention;
  EXPECT_EQ(attention, 2);
  EXPECT_DOUBLE_EQ(m.workload.params, 4.0 * (768 * 768 + 768) + 2.0 * 768 * 3072 + 3072 + 768 + 4 * 768 + 4);
}

TEST(OnnxImport, SymbolicSequenceNeedsAnInputShape) {
  ROOFTOP_NEED_ONNX_MODELS();
  Result<ImportedModel> m = import_file(model_path("bert_layer.onnx"), {});
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message.find("dimension 1 ('seq') is symbolic"), std::string::npos) << m.error().message;
}

TEST(OnnxImport, UnknownInputNameSuggestsTheRealOne) {
  ROOFTOP_NEED_ONNX_MODELS();
  ImportOptions o;
  o.inputs.push_back({"hiden", {1, 384, 768}});
  Result<ImportedModel> m = import_file(model_path("bert_layer.onnx"), o);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().context, "--input");
  EXPECT_NE(m.error().message.find("hidden"), std::string::npos) << m.error().message;
}

TEST(OnnxImport, ParseInputShape) {
  Result<InputShape> s = parse_input_shape("input=8x3x224x224");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->name, "input");
  EXPECT_EQ(s->dims, (std::vector<std::int64_t>{8, 3, 224, 224}));
  EXPECT_FALSE(parse_input_shape("input").has_value());
  EXPECT_FALSE(parse_input_shape("input=8x-3").has_value());
  EXPECT_FALSE(parse_input_shape("input=8xx3").has_value());
  EXPECT_FALSE(parse_input_shape("=8").has_value());
  EXPECT_FALSE(parse_input_shape("x=99999999999999999999").has_value());
}

}  // namespace
}  // namespace rooftop::onnx
