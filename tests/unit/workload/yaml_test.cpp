// Custom model YAML (docs/workloads.md) and the zoo lookup: valid files
// build, and every malformed one is an error naming file and line.
#include <gtest/gtest.h>

#include "embedded/embedded.h"
#include "workload/workload.h"

namespace rooftop::workload {
namespace {

const char* kOps = R"(name: tiny mlp
sample: one feature vector of 1024 values
ops:
  - name: fc1
    kind: matmul
    flops: 2097152
    weight_elems: 1048576
    in_elems: 1024
    out_elems: 1024
    repeat: 3
  - {name: relu, kind: elementwise, flops: 1024, in_elems: 1024, out_elems: 1024, repeat: 3}
)";

TEST(CustomYaml, ExplicitOperatorList) {
  Result<Workload> w = parse_workload_yaml(kOps, "tiny.yaml", {});
  ASSERT_TRUE(w) << w.error().what();
  EXPECT_EQ(w->id, "tiny");
  EXPECT_EQ(w->name, "tiny mlp");
  EXPECT_EQ(w->family, Family::custom);
  ASSERT_EQ(w->ops.size(), 2u);
  EXPECT_DOUBLE_EQ(w->params, 3 * 1048576.0);
  EXPECT_DOUBLE_EQ(totals(w->ops, 1, Precision::fp32).flops, 3 * (2097152.0 + 1024));
  EXPECT_DOUBLE_EQ(w->activation_elems_per_sample, 2048);
  EXPECT_DOUBLE_EQ(w->ops[0].groups, 1);
}

TEST(CustomYaml, GroupedConvolutionKeepsItsGroups) {
  const char* text = "name: g\nsample: s\nops:\n  - {name: c, kind: conv, flops: 100, weight_elems: 10, "
                     "out_elems: 10, groups: 8}\n";
  Result<Workload> w = parse_workload_yaml(text, "g.yaml", {});
  ASSERT_TRUE(w) << w.error().what();
  EXPECT_DOUBLE_EQ(w->ops[0].groups, 8);
  EXPECT_FALSE(parse_workload_yaml("name: g\nsample: s\nops:\n  - {name: c, kind: conv, groups: 0}\n", "g.yaml", {}));
}

TEST(CustomYaml, BuilderConfig) {
  const char* text = R"(name: small decoder
builder: transformer
config:
  kind: decoder
  layers: 2
  hidden: 256
  heads: 4
  kv_heads: 2
  ffn: 1024
  gated: true
  vocab: 1000
  seq_len: 512
  input_tokens: 100
  output_tokens: 50
)";
  Result<Workload> w = parse_workload_yaml(text, "small.yaml", {});
  ASSERT_TRUE(w) << w.error().what();
  EXPECT_EQ(w->family, Family::decoder_llm);
  // 2 x (256 x (256 + 2 x 128) + 256 x 256 + 3 x 256 x 1024 + 2 x 256) + 2 x 1000 x 256 + 256
  EXPECT_DOUBLE_EQ(w->params, 2 * (256.0 * 512 + 65536 + 3 * 262144 + 512) + 512000 + 256);
}

void expect_error(const std::string& text, const std::string& where, const std::string& words) {
  Result<Workload> w = parse_workload_yaml(text, "bad.yaml", {});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, Errc::invalid_input);
  EXPECT_NE(w.error().what().find(where), std::string::npos) << w.error().what();
  EXPECT_NE(w.error().what().find(words), std::string::npos) << w.error().what();
}

TEST(CustomYaml, Errors) {
  expect_error("name: x\nsample: s\nops:\n  - name: a\n    kind: matmul\n    flopz: 3\n", "bad.yaml:6",
               "unknown key 'flopz'");
  expect_error("name: x\nsample: s\nops:\n  - name: a\n    kind: matmul\n    flops: -3\n", "bad.yaml:6",
               "out of range");
  expect_error("name: x\nsample: s\nops:\n  - name: a\n    kind: gemm\n", "bad.yaml:5", "must be one of");
  expect_error("name: x\nsample: s\nops: []\n", "bad.yaml", "non-empty list");
  expect_error("name: x\nops: [\n", "bad.yaml:", "malformed YAML");
  expect_error("name: x\n", "bad.yaml", "needs 'builder'");
  expect_error("builder: transformer\nconfig:\n  kind: decoder\n  layers: 2\n  hidden: 100\n  heads: 3\n"
               "  ffn: 10\n  vocab: 5\n  seq_len: 8\n  input_tokens: 4\n  output_tokens: 4\n",
               "bad.yaml:3", "heads (3) must divide hidden (100)");
  expect_error("builder: transformer\nconfig:\n  kind: decoder\n  layers: 0\n", "bad.yaml:4", "out of range");
  expect_error("builder: cnn\n", "bad.yaml:1", "'builder' must be one of");
  expect_error("name: x\noptimizer: sgd\nsample: s\nops:\n  - {name: a, kind: matmul, flops: 2}\n", "bad.yaml:2",
               "must be one of");
}

TEST(CustomYaml, OptimizerKey) {
  Result<Workload> w = parse_workload_yaml(std::string(kOps) + "optimizer: adagrad\n", "tiny.yaml", {});
  ASSERT_TRUE(w) << w.error().what();
  EXPECT_EQ(w->optimizer, Optimizer::adagrad);
  EXPECT_EQ(parse_workload_yaml(kOps, "tiny.yaml", {})->optimizer, Optimizer::adam);
}

TEST(CustomYaml, FixedShapeRejectsShapeOptions) {
  Result<Workload> w = parse_workload_yaml(kOps, "tiny.yaml", {.seq_len = 5, .input_tokens = {}, .output_tokens = {}, .image_size = {}});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("fixed shape"), std::string::npos);
}

TEST(Zoo, IdsAliasesAndDidYouMean) {
  std::vector<std::string> ids = zoo_ids();
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  Result<Workload> a = build_zoo("llama2-70b", {});  // MLPerf's name is an alias
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "llama-2-70b");
  Result<Workload> b = build_zoo("lama-2-70b", {});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, Errc::not_found);
  EXPECT_NE(b.error().message.find("did you mean"), std::string::npos);
  EXPECT_NE(b.error().message.find("llama-2-70b"), std::string::npos);
  Result<Workload> c = build_zoo("bert-base", {.seq_len = 0, .input_tokens = {}, .output_tokens = {}, .image_size = {}});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().context, "--seq");
}

TEST(Zoo, EveryEntryBuildsWithReferencesAndASample) {
  for (const std::string& id : zoo_ids()) {
    Result<Workload> w = build_zoo(id, {});
    ASSERT_TRUE(w) << id << ": " << w.error().what();
    EXPECT_EQ(w->id, id);
    EXPECT_FALSE(w->references.empty()) << id;
    EXPECT_FALSE(w->sample.empty()) << id;
    EXPECT_GT(w->params, 0) << id;
    EXPECT_GT(w->activation_elems_per_sample, 0) << id;
    EXPECT_GT(w->train_activation_elems_per_sample, 0) << id;
    for (const Operator& op : w->ops) {
      EXPECT_GE(op.flops, 0) << id << " " << op.name;
      EXPECT_GE(op.in_elems + op.out_elems + op.weight_elems, 0) << id << " " << op.name;
    }
  }
}

// Found by fuzz_model_yaml: a list item past long long's range (5.5e101
// lookups) was cast to long long (undefined behaviour) before being checked.
TEST(WorkloadYaml, HugeListItemsAreErrorsNotCasts) {
  std::string text;
  for (const EmbeddedFile& f : embedded_files_under("models/dlrm-v2.yaml")) text = std::string(f.content);
  ASSERT_NE(text.find("lookups: [3,"), std::string::npos);
  ASSERT_TRUE(parse_workload_yaml(text, "dlrm.yaml", {}));
  for (const char* item : {"5.5e101", "-9.3e18", "2.5"}) {
    std::string odd = text;
    odd.replace(odd.find("lookups: [3,"), 12, std::string("lookups: [") + item + ",");
    Result<Workload> w = parse_workload_yaml(odd, "dlrm.yaml", {});
    ASSERT_FALSE(w) << item;
    EXPECT_NE(w.error().what().find("items must be whole numbers"), std::string::npos) << w.error().what();
  }
}

}  // namespace
}  // namespace rooftop::workload
