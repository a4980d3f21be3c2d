// KV-cache bytes per token and weight bytes of the newer LLM zoo entries,
// against hand computations: latent attention (DeepSeek), grouped-query
// attention (Llama 3.3), sliding windows (gpt-oss) and chunked attention
// (Llama 4); checkpoint formats (gpt-oss's MXFP4 experts); the routed
// experts expert parallel shards, found by role.
#include <gtest/gtest.h>

#include "model/model.h"
#include "unit/workload/zoo_helpers.h"

namespace rooftop::model {
namespace {

using workload::BuildOptions;
using workload::Operator;
using workload::Phase;
using workload::Role;
using workload::Task;
using workload::Workload;
using workload::testing::zoo;

// The KV cache is the model's per-token figure times the live context (paged,
// at batch 1: I + O / 2), less what windowed layers do not keep; 16-bit here.
double kv_bytes(const Workload& w) {
  Plan one;
  return memory_footprint(w, Task::infer, Precision::bf16, one, nullptr).kv_cache_bytes;
}

TEST(KvCache, LatentAttentionHoldsTheLatentAndTheRotaryKey) {
  // DeepSeek-R1: 61 layers x (512 latent + 64 rotary) = 35,136 elements,
  // 70,272 bytes per token at bf16; grouped-query accounting of its 128 heads
  // of 192 / 128 would hold 2,998,272 (42.7x more).
  const Workload w = zoo("deepseek-r1");
  EXPECT_DOUBLE_EQ(w.kv_elems_per_token, 61.0 * 576);
  EXPECT_DOUBLE_EQ(kv_bytes(w), 70272.0 * (1024 + 512));
  // Tensor parallel does not split the one latent head.
  Plan tp8;
  tp8.tp = 8;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::bf16, tp8, nullptr).kv_cache_bytes, kv_bytes(w));
}

TEST(KvCache, GroupedQueryAttentionHoldsKeysAndValuesOfTheKvHeads) {
  // Llama 3.3 70B: 2 x 80 layers x 8 KV heads x 128 = 163,840 elements, 327,680 bytes per token.
  const Workload w = zoo("llama-3.3-70b");
  EXPECT_DOUBLE_EQ(w.kv_elems_per_token, 163840);
  EXPECT_DOUBLE_EQ(kv_bytes(w), 327680.0 * (1024 + 512));
}

TEST(KvCache, SlidingWindowLayersHoldAtMostTheirWindow) {
  // gpt-oss-120b: 18 full and 18 sliding layers of 2 x 8 x 64 = 1,024
  // elements a token; the sliding ones hold the last 128 positions. At 1,024
  // input and 1,024 output tokens every live context exceeds 128:
  // 18,432 x 1,536 + 18,432 x 128 elements, at 2 bytes.
  const Workload w = zoo("gpt-oss-120b");
  EXPECT_DOUBLE_EQ(w.kv_elems_per_token, 36864);
  EXPECT_DOUBLE_EQ(w.kv_window_elems_per_token, 18432);
  EXPECT_DOUBLE_EQ(kv_bytes(w), 2.0 * 18432 * (1536 + 128));
  // Per sequence at a context of 100 tokens (within the window) and of 10,000.
  EXPECT_DOUBLE_EQ(workload::kv_elems_at(w, 100), 36864.0 * 100);
  EXPECT_DOUBLE_EQ(workload::kv_elems_at(w, 10000), 18432.0 * 10000 + 18432.0 * 128);
  // Prompts of 64 generating 32: the contexts stay within the window, as if full.
  BuildOptions shortp;
  shortp.input_tokens = 64, shortp.output_tokens = 32;
  EXPECT_DOUBLE_EQ(kv_bytes(zoo("gpt-oss-120b", shortp)), 2.0 * 36864 * (64 + 16));
  // Contexts crossing the window: the mean of min(x, 128) over [100, 200]
  // is (128^2 / 2 + 72 x 128 - 100^2 / 2) / 100 = (8192 + 9216 - 5000) / 100 = 124.08.
  shortp.input_tokens = 100, shortp.output_tokens = 100;
  EXPECT_NEAR(kv_bytes(zoo("gpt-oss-120b", shortp)), 2.0 * (18432 * 150 + 18432 * 124.08), 1e-3);
}

TEST(KvCache, ChunkedLayersHoldTheCurrentChunk) {
  // Llama 4 Maverick: 36 of 48 layers attend within 8,192-token chunks. At
  // a 16,384-token prompt generating 8,192 the chunked layers hold, on
  // average over the contexts [16384, 24576], half a chunk.
  BuildOptions o;
  o.input_tokens = 16384, o.output_tokens = 8192;
  const Workload w = zoo("llama-4-maverick", o);
  const double per_layer = 2.0 * 8 * 128;
  EXPECT_DOUBLE_EQ(w.kv_window_elems_per_token, 36 * per_layer);
  EXPECT_DOUBLE_EQ(kv_bytes(w), 2.0 * (12 * per_layer * (16384 + 4096) + 36 * per_layer * 4096));
}

TEST(ExpertParams, AreTheRoutedExpertsFoundByRole) {
  const Workload w = zoo("deepseek-r1");
  double routed = 0;
  for (const Operator& op : w.ops)
    if (op.role == Role::routed_expert && op.phase == Phase::prefill) routed += op.params * op.repeat;
  EXPECT_DOUBLE_EQ(routed, 58 * 256 * 3.0 * 7168 * 2048);
  EXPECT_DOUBLE_EQ(expert_params(w), routed);  // the shared expert is replicated, not sharded
}

TEST(Formats, CheckpointWeightsAreNeverReadWiderThanStored) {
  // gpt-oss-120b asked at fp16: its MXFP4 experts stay at half a byte, the
  // rest is 2 bytes; asked at int4, everything is half a byte.
  const Workload w = zoo("gpt-oss-120b");
  double experts = 0;
  for (const Operator& op : w.ops)
    if (op.role == Role::routed_expert && op.phase == Phase::prefill) experts += op.params * op.repeat;
  Plan one;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::fp16, one, nullptr).weights_bytes,
                   (w.params - experts) * 2 + experts * 0.5);
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::int4, one, nullptr).weights_bytes, w.params * 0.5);
  for (const Operator& op : w.ops)
    if (op.role == Role::routed_expert && op.phase == Phase::decode) {
      EXPECT_EQ(op.stored_as, Precision::fp4);
      EXPECT_DOUBLE_EQ(workload::op_bytes(op, 1, Precision::fp16, Precision::fp16, Precision::fp16),
                       op.weight_elems_per_sample * 0.5 + (op.in_elems + op.out_elems) * 2);
    }
  // Training keeps 16-bit weights.
  for (const Operator& op : w.train_forward_ops) EXPECT_FALSE(op.stored_as) << op.name;
}

}  // namespace
}  // namespace rooftop::model
