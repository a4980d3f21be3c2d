// Transformer zoo entries against published parameter counts and FLOP
// formulas, plus the shape properties the performance model relies on.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/workload/zoo_helpers.h"
#include "workload/workload.h"

namespace rooftop::workload {
namespace {

using testing::expect_near_rel;
using testing::zoo;

std::vector<Operator> phase_ops(const Workload& w, Phase p) {
  std::vector<Operator> out;
  for (const Operator& op : w.ops)
    if (op.phase == p) out.push_back(op);
  return out;
}

double flops(const Workload& w, Phase p) { return totals(phase_ops(w, p), 1, Precision::fp16).flops; }

TEST(TransformerZoo, ParameterCountsMatchPublishedFigures) {
  // BERT paper (arXiv:1810.04805) section 3: BASE 110M, LARGE 340M (with the
  // pooler; the SQuAD span head replaces it, 1M less).
  expect_near_rel(zoo("bert-base").params, 110e6, 0.02, "bert-base");
  expect_near_rel(zoo("bert-large").params, 340e6, 0.03, "bert-large");
  // ViT paper (arXiv:2010.11929) Table 1: ViT-Base 86M.
  expect_near_rel(zoo("vit-b-16").params, 86e6, 0.02, "vit-b-16");
  // EleutherAI/gpt-j-6b model card: 6,053,381,344.
  expect_near_rel(zoo("gpt-j-6b").params, 6053381344.0, 0.001, "gpt-j-6b");
  // Llama 2 model cards / arXiv:2307.09288: 6.74B, 13.0B, 69B.
  expect_near_rel(zoo("llama-2-7b").params, 6.74e9, 0.01, "llama-2-7b");
  expect_near_rel(zoo("llama-2-13b").params, 13.0e9, 0.01, "llama-2-13b");
  expect_near_rel(zoo("llama-2-70b").params, 69e9, 0.01, "llama-2-70b");
  // Mistral-7B-v0.1 config (arXiv:2310.06825 Table 1): 7.24B.
  expect_near_rel(zoo("mistral-7b").params, 7.24e9, 0.01, "mistral-7b");
  // Llama 3.1 model cards: 8.03B, 70.6B, 405B; Llama 3 (April 2024) has
  // the same shapes (arXiv:2407.21783 Table 3), so its names resolve here.
  expect_near_rel(zoo("llama-3.1-8b").params, 8.03e9, 0.01, "llama-3.1-8b");
  EXPECT_EQ(zoo("llama-3-8b").id, "llama-3.1-8b");
  EXPECT_EQ(zoo("llama3-70b").id, "llama-3.1-70b");
  expect_near_rel(zoo("llama-3.1-70b").params, 70.6e9, 0.01, "llama-3.1-70b");
  expect_near_rel(zoo("llama-3.1-405b").params, 405e9, 0.01, "llama-3.1-405b");
  // Another tokenizer (MLPerf's 405B pretraining uses Mixtral's 32,000
  // tokens): the untied embedding and LM head shrink by 96,256 rows of 16,384.
  workload::BuildOptions mixtral_tokens;
  mixtral_tokens.vocab = 32000;
  EXPECT_NEAR(zoo("llama-3.1-405b").params - zoo("llama-3.1-405b", mixtral_tokens).params, 2.0 * 96256 * 16384, 1e3);
  // Mixtral paper (arXiv:2401.04088) section 2.1: 46.7B total, 12.9B active.
  Workload mixtral = zoo("mixtral-8x7b");
  expect_near_rel(mixtral.params, 46.7e9, 0.01, "mixtral total");
  expect_near_rel(mixtral.active_params, 12.9e9, 0.01, "mixtral active");
  // GPT-3 paper (arXiv:2005.14165) Table 2.1: 175B.
  expect_near_rel(zoo("gpt-3-175b").params, 175e9, 0.01, "gpt-3-175b");
}

TEST(TransformerZoo, VitFlopsMatchDeit) {
  // DeiT (arXiv:2012.12877) Table 1 lists ViT-B/16 at 17.6 "GFLOPs" counted
  // as multiply-adds (fvcore convention), so FLOPs = 2 x 17.6e9.
  Workload w = zoo("vit-b-16");
  EXPECT_EQ(w.seq_len, 197);
  expect_near_rel(flops(w, Phase::forward) / 2, 17.6e9, 0.03, "vit-b-16 MACs");
}

TEST(TransformerZoo, BertLargeFlopsMatchMegatronFormula) {
  // Narayanan et al. (arXiv:2104.04473) section 5.1: a transformer forward
  // pass is 24 s l h^2 + 4 s^2 l h FLOPs (FFN = 4h, full attention);
  // BERT-Large at MLPerf's 384 tokens: about 246 GFLOPs.
  Workload w = zoo("bert-large", {.seq_len = 384, .input_tokens = {}, .output_tokens = {}, .image_size = {}});
  const double s = 384, l = 24, h = 1024;
  EXPECT_EQ(w.seq_len, 384);
  expect_near_rel(flops(w, Phase::forward), 24 * s * l * h * h + 4 * s * s * l * h, 0.02, "bert-large");
}

TEST(TransformerZoo, BertInferenceRunsUnpaddedAndTrainingPadded) {
  // SQuAD v1.1 at 384: 54 % of the tokens are padding, so inference runtimes
  // that drop it compute on 177 tokens a feature; training keeps 384.
  Workload w = zoo("bert-large");
  const double u = 177, s = 384, l = 24, h = 1024;
  EXPECT_EQ(w.seq_len, 384);
  expect_near_rel(flops(w, Phase::forward), 24 * u * l * h * h + 4 * u * u * l * h, 0.02, "bert-large unpadded");
  std::vector<Operator> fwd;
  for (const Operator& op : training_ops(w)) {
    if (op.phase == Phase::forward) fwd.push_back(op);
  }
  expect_near_rel(totals(fwd, 1, Precision::fp16).flops, 24 * s * l * h * h + 4 * s * s * l * h, 0.02, "bert-large training");
  EXPECT_NE(w.sample.find("177 real tokens"), std::string::npos) << w.sample;
}

TEST(TransformerZoo, LlmPrefillIsTwoFlopsPerParameterPerTokenPlusAttention) {
  // Kaplan et al. (arXiv:2001.08361) eq. 2.2: forward ~ 2N per token plus
  // attention over the context (causal: each query scores its prefix).
  Workload w = zoo("llama-2-7b", {.seq_len = {}, .input_tokens = 1000, .output_tokens = 200, .image_size = {}});
  const double n_embed = 2.0 * 32000 * 4096;  // token table + LM head
  const double t = 1000, l = 32, d = 4096;
  double want = 2 * (w.params - n_embed) * t + 2 * l * t * t * d + 2 * 32000 * 4096;
  expect_near_rel(flops(w, Phase::prefill), want, 0.02, "llama-2-7b prefill");
  // Decode: one token at mean context 1000 + 200/2 = 1100.
  double ctx = 1100;
  double decode_want = 2 * (w.params - 32000.0 * 4096) + 4 * l * ctx * d;
  expect_near_rel(flops(w, Phase::decode), decode_want, 0.02, "llama-2-7b decode");
}

TEST(TransformerZoo, MoeDecodeRunsTopKExperts) {
  Workload w = zoo("mixtral-8x7b");
  // Per token: 2 x active parameters (minus the token table, a gather) + attention.
  double attention = 4.0 * 32 * (427 + 145 / 2.0) * 4096;
  expect_near_rel(flops(w, Phase::decode), 2 * (w.active_params - 32000.0 * 4096) + attention, 0.02, "mixtral");
  // Batch 1 decode reads 2 of 8 experts; a large batch reads them all.
  for (const Operator& op : phase_ops(w, Phase::decode)) {
    if (op.name != "layers.moe.experts.up") continue;
    double one = op_bytes(op, 1, Precision::fp16) - (op.in_elems + op.out_elems) * 2;
    EXPECT_NEAR(one, op.weight_elems * 2 * 2 / 8, 1);
    double many = op_bytes(op, 1024, Precision::fp16) - 1024 * (op.in_elems + op.out_elems) * 2;
    EXPECT_NEAR(many, op.weight_elems * 2, 1);
  }
}

TEST(TransformerZoo, KvCachePerToken) {
  // 2 (K and V) x layers x kv_heads x head_dim.
  EXPECT_DOUBLE_EQ(zoo("llama-2-70b").kv_elems_per_token, 2.0 * 80 * 8 * 128);
  EXPECT_DOUBLE_EQ(zoo("llama-2-7b").kv_elems_per_token, 2.0 * 32 * 32 * 128);
  EXPECT_DOUBLE_EQ(zoo("bert-large").kv_elems_per_token, 0);
}

TEST(TransformerZoo, StaticKvSlotHoldsTheLongestPromptAndGeneration) {
  // llama-2-70b: MLPerf's 1024-token prompts and 1024 new tokens make a
  // 2048-token slot; decode attention reads all of it (2 x kv x slot).
  BuildOptions o;
  o.static_kv = true;
  Workload paged = zoo("llama-2-70b"), fixed = zoo("llama-2-70b", o);
  EXPECT_DOUBLE_EQ(paged.kv_slot_tokens, 0);
  EXPECT_DOUBLE_EQ(fixed.kv_slot_tokens, 2048);
  auto decode_attention_in = [](const Workload& w) {
    for (const Operator& op : w.ops)
      if (op.phase == Phase::decode && op.kind == OpKind::attention) return op.in_elems;
    return 0.0;
  };
  const double q = 64 * 128, kv = 8 * 128;
  EXPECT_DOUBLE_EQ(decode_attention_in(fixed), q + 2 * kv * 2048);
  EXPECT_DOUBLE_EQ(decode_attention_in(paged), q + 2 * kv * (222 + 294 / 2.0));
  // Beam search (gpt-j, 4 beams): the 1919-token prompt part is shared, each
  // beam holds its 128 generated tokens.
  EXPECT_DOUBLE_EQ(zoo("gpt-j-6b", o).kv_slot_tokens, 1919.0 / 4 + 128);
}

TEST(TransformerZoo, GatedActivationIsAKernelOfItsOwn) {
  // SwiGLU needs both halves of the up-projection's output: serving stacks
  // run it apart; a plain GELU stays in the GEMM epilogue.
  auto act = [](const Workload& w) {
    for (const Operator& op : w.ops)
      if (op.name == "layers.ffn.act") return op.own_kernel;
    ADD_FAILURE() << "no layers.ffn.act in " << w.id;
    return false;
  };
  EXPECT_TRUE(act(zoo("llama-2-7b")));
  EXPECT_FALSE(act(zoo("gpt-j-6b")));
}

TEST(TransformerZoo, MlperfDefaultShapes) {
  Workload w = zoo("llama-2-70b");
  EXPECT_EQ(w.input_tokens, 222);  // mlperf-workloads.md 2.5
  EXPECT_EQ(w.output_tokens, 294);
  EXPECT_EQ(w.throughput_unit, "tokens/s");
  EXPECT_EQ(zoo("llama-3.1-405b").input_tokens, 9429);  // 2.7
  EXPECT_EQ(zoo("mixtral-8x7b").output_tokens, 145);    // 2.6
  EXPECT_EQ(zoo("bert-large").seq_len, 384);            // 2.3
  EXPECT_FALSE(zoo("gpt-j-6b").references.empty());
}

TEST(TransformerProperties, FlopsScaleLinearlyWithBatch) {
  for (const char* id : {"bert-base", "llama-2-7b", "mixtral-8x7b", "vit-b-16"}) {
    Workload w = zoo(id);
    double one = totals(w.ops, 1, Precision::bf16).flops;
    EXPECT_DOUBLE_EQ(totals(w.ops, 8, Precision::bf16).flops, 8 * one) << id;
  }
}

TEST(TransformerProperties, PrefillFlopsGrowWithInputTokens) {
  double last = 0;
  for (int in : {16, 128, 512, 2048}) {
    Workload w = zoo("llama-3.1-8b", {.seq_len = {}, .input_tokens = in, .output_tokens = {}, .image_size = {}});
    double f = flops(w, Phase::prefill);
    EXPECT_GT(f, last) << in;
    last = f;
  }
}

TEST(TransformerProperties, DecodeBytesGrowWithContext) {
  double last = 0;
  for (int in : {16, 128, 512, 2048}) {
    Workload w = zoo("llama-2-70b", {.seq_len = {}, .input_tokens = in, .output_tokens = {}, .image_size = {}});
    double b = totals(phase_ops(w, Phase::decode), 1, Precision::fp16).bytes;
    EXPECT_GT(b, last) << in;
    last = b;
  }
}

TEST(TransformerProperties, DecodeAtBatchOneReadsTheWeightsAndTheCache) {
  Workload w = zoo("llama-2-7b");
  double bytes = totals(phase_ops(w, Phase::decode), 1, Precision::fp16).bytes;
  double ctx = 222 + 294 / 2.0;
  double weights = (w.params - 32000.0 * 4096) * 2;  // token table: one row gathered
  double kv = w.kv_elems_per_token * ctx * 2;
  expect_near_rel(bytes, weights + kv, 0.02, "decode bytes");
}

TEST(TransformerProperties, ParamsEqualSumOfFirstPhaseOps) {
  for (const char* id : {"llama-2-7b", "bert-base", "gpt-3-175b"}) {
    Workload w = zoo(id);
    double sum = 0;
    for (const Operator& op : w.ops) sum += op.params * op.repeat;
    EXPECT_DOUBLE_EQ(sum, w.params) << id;  // decode ops carry no parameters of their own
  }
}

TEST(TransformerProperties, TrainingSequenceUsesSeqLenAndFullHead) {
  Workload w = zoo("gpt-3-175b");
  double f = totals(train_forward(w), 1, Precision::bf16).flops;
  // Narayanan et al. (arXiv:2104.04473): forward = 24 s l h^2 (1 + s/(6h) + V/(12 l h));
  // with causal attention the s/(6h) term halves.
  const double s = 2048, l = 96, h = 12288, v = 50257;
  double want = 24 * s * l * h * h * (1 + s / (12 * h) + v / (12 * l * h));
  expect_near_rel(f, want, 0.02, "gpt-3 training forward");
}

TEST(TransformerProperties, ShapeOptionsOverrideDefaults) {
  Workload w = zoo("bert-base", {.seq_len = 128, .input_tokens = {}, .output_tokens = {}, .image_size = {}});
  EXPECT_EQ(w.seq_len, 128);
  Workload v = zoo("vit-b-16", {.seq_len = {}, .input_tokens = {}, .output_tokens = {}, .image_size = 384});
  EXPECT_EQ(v.seq_len, 24 * 24 + 1);
}

}  // namespace
}  // namespace rooftop::workload
