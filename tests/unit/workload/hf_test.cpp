// Hugging Face config.json reading and the operators the newer LLMs run:
// latent attention, shared experts and dense-first MoE, sliding and chunked
// windows, attention sinks, checkpoint formats. Each zoo model built from a
// published config.json matches its model card, and reading that
// config.json (tests/data/hf/<id>/config.json) gives the zoo entry's
// operators. KV-cache bytes: tests/unit/model/kv_cache_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "core/yaml.h"
#include "zoo_helpers.h"

namespace rooftop::workload {
namespace {

using testing::expect_near_rel;
using testing::zoo;

Result<Workload> hf(const std::string& id, BuildOptions o = {}) {
  const std::string file = std::string(ROOFTOP_SOURCE_DIR) + "/tests/data/hf/" + id + "/config.json";
  Result<std::string> text = read_file(file);
  if (!text) return make_error(text.error());
  return parse_hf_config(*text, file, o);
}

Workload hf_ok(const std::string& id, BuildOptions o = {}) {
  Result<Workload> w = hf(id, o);
  EXPECT_TRUE(w) << id << ": " << (w ? "" : w.error().what());
  return w ? *w : Workload{};
}

// Parameters as a card states them: "37B" is known to +-0.5B, so a figure
// given to fewer digits than 1 % can resolve is checked to its last digit.
void expect_card(double got, double card, double last_digit, const std::string& what) {
  const double tolerance = std::max(0.01 * card, last_digit / 2);
  EXPECT_NEAR(got, card, tolerance) << what << ": got " << got << ", card " << card;
}

double input_embedding(const Workload& w) {
  for (const Operator& op : w.ops)
    if (op.role == Role::embedding) return op.params * op.repeat;
  return 0;
}

TEST(HfZoo, ParametersMatchTheModelCards) {
  // DeepSeek-R1 card: 671B total, 37B activated (the embedding not counted:
  // 37.55B with it would round to 38B).
  const Workload r1 = zoo("deepseek-r1");
  expect_near_rel(r1.params, 671e9, 0.01, "deepseek-r1 total");
  expect_card(r1.active_params - input_embedding(r1), 37e9, 1e9, "deepseek-r1 active");
  // gpt-oss model card Table 1: 116.83B / 5.13B and 20.91B / 3.61B, active
  // counting the unembedding and not the embedding.
  const Workload big = zoo("gpt-oss-120b"), small = zoo("gpt-oss-20b");
  expect_near_rel(big.params, 116.83e9, 0.001, "gpt-oss-120b total");
  expect_near_rel(big.active_params - input_embedding(big), 5.13e9, 0.002, "gpt-oss-120b active");
  expect_near_rel(small.params, 20.91e9, 0.001, "gpt-oss-20b total");
  expect_near_rel(small.active_params - input_embedding(small), 3.61e9, 0.002, "gpt-oss-20b active");
  // Qwen3 cards: 235B total, 22B activated; 32.8B (31.2B without embeddings).
  const Workload moe = zoo("qwen3-235b-a22b");
  expect_near_rel(moe.params, 235e9, 0.01, "qwen3-235b-a22b total");
  expect_near_rel(moe.active_params, 22e9, 0.01, "qwen3-235b-a22b active");
  const Workload q32 = zoo("qwen3-32b");
  expect_near_rel(q32.params, 32.8e9, 0.01, "qwen3-32b total");
  expect_near_rel(q32.params - 2 * input_embedding(q32), 31.2e9, 0.01, "qwen3-32b non-embedding");
  EXPECT_DOUBLE_EQ(q32.active_params, q32.params);
  expect_near_rel(zoo("llama-3.3-70b").params, 70.6e9, 0.01, "llama-3.3-70b");
  // Llama 4 Maverick card: 400B total, 17B activated (the language model).
  const Workload mav = zoo("llama-4-maverick");
  expect_near_rel(mav.params, 400e9, 0.01, "llama-4-maverick total");
  expect_card(mav.active_params, 17e9, 1e9, "llama-4-maverick active");
}

TEST(HfZoo, DeepSeekCountsItsLayersByHand) {
  // Per layer: q_a 7168x1536, q_b 1536x128x192, kv_a 7168x576, kv_b
  // 512x128x256, o 128x128x7168, norms 1536 + 512 + 2 x 7168; 3 dense FFNs
  // of 3 x 7168 x 18432; 58 MoE layers of 257 experts (256 routed + 1
  // shared) of 3 x 7168 x 2048 and a 7168 x 256 router; embedding and LM
  // head 129280 x 7168 each; the final norm.
  const double attn = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168 +
                      1536 + 512 + 2 * 7168;
  const double expert = 3.0 * 7168 * 2048;
  const double want = 61 * attn + 3 * 3.0 * 7168 * 18432 + 58 * (257 * expert + 7168.0 * 256) + 2 * 129280.0 * 7168 + 7168;
  const Workload w = zoo("deepseek-r1");
  EXPECT_DOUBLE_EQ(w.params, want);
  EXPECT_DOUBLE_EQ(w.active_params, want - 58 * 248 * expert);
  EXPECT_EQ(w.moe_layers, 58);
  EXPECT_EQ(w.shared_experts, 1);
  EXPECT_EQ(w.mtp_layers, 1);
  EXPECT_EQ(w.kv_heads, 1);  // the latent is shared by the heads: tensor parallel replicates it
}

// Reading a zoo model's published config.json gives the zoo entry's model.
TEST(HfConfig, EachArchitectureMatchesTheZooEntryBuiltFromIt) {
  for (const char* id : {"deepseek-r1", "gpt-oss-120b", "gpt-oss-20b", "qwen3-235b-a22b", "qwen3-32b", "llama-3.3-70b",
                         "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mistral-7b", "mixtral-8x7b"}) {
    const Workload z = zoo(id);
    BuildOptions same;
    same.seq_len = z.seq_len, same.input_tokens = z.input_tokens, same.output_tokens = z.output_tokens;
    const Workload h = hf_ok(id, same);
    EXPECT_EQ(h.id, id);
    EXPECT_DOUBLE_EQ(h.params, z.params) << id;
    EXPECT_DOUBLE_EQ(h.active_params, z.active_params) << id;
    EXPECT_DOUBLE_EQ(h.kv_elems_per_token, z.kv_elems_per_token) << id;
    EXPECT_DOUBLE_EQ(h.kv_window_elems_per_token, z.kv_window_elems_per_token) << id;
    EXPECT_DOUBLE_EQ(h.kv_window, z.kv_window) << id;
    EXPECT_EQ(h.quantization, z.quantization) << id;
    EXPECT_EQ(std::tie(h.layers, h.hidden, h.heads, h.kv_heads, h.experts, h.top_k, h.moe_layers, h.mtp_layers),
              std::tie(z.layers, z.hidden, z.heads, z.kv_heads, z.experts, z.top_k, z.moe_layers, z.mtp_layers))
        << id;
    for (auto ops : {&Workload::ops, &Workload::train_forward_ops}) {
      const std::vector<Operator>& a = h.*ops;
      const std::vector<Operator>& b = z.*ops;
      ASSERT_EQ(a.size(), b.size()) << id;
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name) << id;
        EXPECT_EQ(a[i].role, b[i].role) << id << " " << a[i].name;
        EXPECT_EQ(a[i].stored_as, b[i].stored_as) << id << " " << a[i].name;
        EXPECT_DOUBLE_EQ(a[i].flops, b[i].flops) << id << " " << a[i].name;
        EXPECT_DOUBLE_EQ(a[i].weight_elems, b[i].weight_elems) << id << " " << a[i].name;
        EXPECT_DOUBLE_EQ(a[i].in_elems, b[i].in_elems) << id << " " << a[i].name;
        EXPECT_DOUBLE_EQ(a[i].repeat, b[i].repeat) << id << " " << a[i].name;
      }
    }
  }
}

TEST(HfConfig, ArchitecturesWithoutAZooEntryMatchTheirCards) {
  // Qwen2.5-7B card: 7.61B parameters, 6.53B non-embedding; q, k, v carry biases.
  const Workload q = hf_ok("qwen2.5-7b");
  expect_near_rel(q.params, 7.61e9, 0.01, "qwen2.5-7b");
  expect_near_rel(q.params - 2 * input_embedding(q), 6.53e9, 0.01, "qwen2.5-7b non-embedding");
  // DeepSeek-V2-Lite card: 15.7B total; no query compression (q_lora_rank null).
  const Workload lite = hf_ok("deepseek-v2-lite");
  expect_near_rel(lite.params, 15.7e9, 0.01, "deepseek-v2-lite");
  EXPECT_EQ(lite.shared_experts, 2);
  EXPECT_EQ(lite.moe_layers, 26);
  // Gemma 2 9B (9.24B on the Hub; tied embeddings, four norms a layer) and
  // Gemma 3 1B (999,885,952 on the Hub).
  expect_near_rel(hf_ok("gemma-2-9b").params, 9.24e9, 0.005, "gemma-2-9b");
  expect_near_rel(hf_ok("gemma-3-1b").params, 999885952.0, 0.001, "gemma-3-1b");
}

TEST(Windows, SpansAndPairsByHand) {
  EXPECT_DOUBLE_EQ(span_pairs(10, 0, false), 55);
  EXPECT_DOUBLE_EQ(span_pairs(10, 4, false), 10 + 6 * 4);          // 1+2+3+4, then 4 per position
  EXPECT_DOUBLE_EQ(span_pairs(10, 4, true), 10 + 10 + 3);          // chunks 1..4, 1..4, 1..2
  EXPECT_DOUBLE_EQ(span_area(10, 4, false), 8 + 6 * 4);
  EXPECT_DOUBLE_EQ(span_area(10, 4, true), 8 + 8 + 2);
  EXPECT_DOUBLE_EQ(attention_span(10, 4, false), 4);
  EXPECT_DOUBLE_EQ(attention_span(10, 4, true), 2);
}

double op_named(const Workload& w, const std::string& name, Phase p, double Operator::*field) {
  for (const Operator& op : w.ops)
    if (op.name == name && op.phase == p) return op.*field;
  ADD_FAILURE() << "no operator " << name;
  return 0;
}

TEST(Operators, AbsorbedLatentAttentionReadsTheLatentAtDecode) {
  // Decode at the mean context of 1,536: the query (128 heads x 576) and the
  // cached latent (576 per position); scores over 576 and context over 512
  // per head and position, 5 FLOPs per score for the softmax.
  const Workload w = zoo("deepseek-r1");
  const double ctx = 1536;
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa", Phase::decode, &Operator::in_elems), 128.0 * 576 + 576 * ctx);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa", Phase::decode, &Operator::flops),
                   2 * 128.0 * 576 * ctx + 2 * 128.0 * 512 * ctx + 5 * 128.0 * ctx);
  // Prefill decompresses: heads of 192 for keys and 128 for values.
  const double pairs = 1024.0 * 1025 / 2;
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa", Phase::prefill, &Operator::flops),
                   2 * 128.0 * 192 * pairs + 2 * 128.0 * 128 * pairs + 5 * 128.0 * pairs);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.kv_b", Phase::prefill, &Operator::weight_elems), 512.0 * 128 * 256);
}

TEST(Operators, SlidingLayersReadAtMostTheWindowAndSinksAddOneLogitPerHead) {
  const Workload w = zoo("gpt-oss-120b");
  // 64 query heads of 64: q 4096, KV 2 x 512. Decode on a sliding layer reads 128 positions.
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa_window", Phase::decode, &Operator::in_elems), 4096 + 1024.0 * 128);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa", Phase::decode, &Operator::in_elems), 4096 + 1024.0 * 1536);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa_window", Phase::decode, &Operator::repeat), 18);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa_window", Phase::prefill, &Operator::flops),
                   (4 * 4096.0 + 5 * 64) * (128.0 * 129 / 2 + 896.0 * 128) + 5 * 64.0 * 1024);
  EXPECT_DOUBLE_EQ(op_named(w, "layers.attn.sdpa", Phase::prefill, &Operator::params), 64);  // sinks
}

TEST(Operators, RolesNameWhatTheModelAsks) {
  const Workload w = zoo("deepseek-r1");
  double routed = 0, shared = 0, routers = 0;
  for (const Operator& op : w.ops) {
    if (op.phase != Phase::prefill) continue;
    if (op.role == Role::routed_expert) routed += op.params * op.repeat;
    if (op.role == Role::shared_expert) shared += op.params * op.repeat;
    if (op.role == Role::moe_router) routers += op.repeat;
  }
  EXPECT_DOUBLE_EQ(routed, 58 * 256 * 3.0 * 7168 * 2048);
  EXPECT_DOUBLE_EQ(shared, 58 * 3.0 * 7168 * 2048);
  EXPECT_DOUBLE_EQ(routers, 58);
  for (const Operator& op : w.ops)  // the layer stack, whatever each operator's repeat
    EXPECT_EQ(op.in_layer_stack, op.name.rfind("layers.", 0) == 0) << op.name;
  EXPECT_TRUE(generates_tokens(w));
  EXPECT_FALSE(generates_tokens(zoo("resnet50")));
  EXPECT_FALSE(generates_tokens(zoo("bert-large")));
}

TEST(HfConfig, WhatItDoesNotUnderstandIsAnErrorNamingIt) {
  auto bad = [](const std::string& json, const std::string& want) {
    Result<Workload> w = parse_hf_config(json, "m/config.json", {});
    ASSERT_FALSE(w) << json;
    EXPECT_EQ(w.error().code, Errc::invalid_input);
    EXPECT_NE(w.error().what().find(want), std::string::npos) << w.error().what();
    EXPECT_NE(w.error().what().find("m/config.json"), std::string::npos) << w.error().what();
  };
  const std::string llama = R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100)";
  bad(R"({"architectures": ["Phi3ForCausalLM"], )" + llama + "}", "architecture 'Phi3ForCausalLM' is not modelled");
  bad("{" + llama + "}", "architecture '(none)'");
  bad(R"({"architectures": ["LlamaForCausalLM", "MistralForCausalLM"], )" + llama + "}", "'architectures' must name one");
  bad(R"({"architectures": ["LlamaForCausalLM"], "num_frobs": 3, )" + llama + "}", "field 'num_frobs' is not understood");
  bad(R"({"architectures": ["LlamaForCausalLM"], "sliding_window": 64, )" + llama + "}", "'sliding_window'");
  bad(R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "relu", )" + llama + "}", "'hidden_act' = 'relu'");
  bad(R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "awq"}, )" + llama + "}",
      "quant_method 'awq' is not understood");
  bad(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2})", "missing 'hidden_size'");
  bad(R"({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": {}})", "'text_config'");
  bad(R"({"architectures": ["Qwen3MoeForCausalLM"], "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 32, "decoder_sparse_step": 2, )" + llama + "}",
      "'decoder_sparse_step' = 2 is not modelled");
  bad("[1, 2]", "not a JSON object");
  bad("{ not json", "not a JSON object");
}

TEST(HfConfig, WindowsFollowEachArchitecturesPattern) {
  // Gemma 3 1B: one global layer in every 6 of 26 (4), 22 sliding at 512;
  // Gemma 2 9B: every other layer of 42 at 4,096; Mistral 7B: every layer.
  EXPECT_DOUBLE_EQ(hf_ok("gemma-3-1b").kv_window_elems_per_token, 22 * 2.0 * 1 * 256);
  EXPECT_DOUBLE_EQ(hf_ok("gemma-2-9b").kv_window_elems_per_token, 21 * 2.0 * 8 * 256);
  const Workload m = hf_ok("mistral-7b");
  EXPECT_DOUBLE_EQ(m.kv_window_elems_per_token, m.kv_elems_per_token);
  EXPECT_DOUBLE_EQ(m.kv_window, 4096);
  // Qwen2.5 keeps sliding_window in the file with use_sliding_window false: no window.
  EXPECT_DOUBLE_EQ(hf_ok("qwen2.5-7b").kv_window, 0);
}

}  // namespace
}  // namespace rooftop::workload
