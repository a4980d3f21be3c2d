// The one memory formula (memory_footprint): hand-computed inference,
// mixed-precision training, ZeRO stages, recompute, sequence parallel, the
// pipeline's micro-batches in flight and the KV-cache split.
#include <gtest/gtest.h>

#include "model/model.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using workload::Task;

// A 1 B-parameter LLM of 1000 KV elements per token, prompts of 100 tokens
// generating 28.
workload::Workload small_llm() {
  workload::Workload w;
  w.params = 1e9;
  w.kv_elems_per_token = 1000;
  w.input_tokens = 100;
  w.output_tokens = 28;
  return w;
}

TEST(Memory, InferenceCountsWeightsKvAndActivations) {
  workload::Workload w = small_llm();
  w.activation_elems_per_sample = 5000;
  Plan p;
  p.mb = 4;
  Memory m = memory_footprint(w, Task::infer, Precision::fp16, p, nullptr);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2e9);
  // Paged KV: the live context, on average I + O/2 = 100 + 14 tokens per sequence.
  EXPECT_DOUBLE_EQ(m.kv_cache_bytes, 1000.0 * 114 * 4 * 2);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 5000.0 * 4 * 2);
  EXPECT_DOUBLE_EQ(m.required_bytes, m.weights_bytes + m.kv_cache_bytes + m.activations_bytes);
  // 4-bit KV is stored in one byte per element.
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::int4, p, nullptr).kv_cache_bytes, 1000.0 * 114 * 4);
}

TEST(Memory, StaticKvHoldsAWholeSlotPerSequence) {
  workload::Workload w = small_llm();
  w.kv_slot_tokens = 2048;
  Plan p;
  p.mb = 4;
  EXPECT_DOUBLE_EQ(kv_tokens(w, 4), 4 * 2048.0);
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::fp16, p, nullptr).kv_cache_bytes, 1000.0 * 2048 * 4 * 2);
  w.kv_slot_tokens = 0;  // paged: the live context
  EXPECT_DOUBLE_EQ(kv_tokens(w, 4), paged_kv_tokens(w, 4));
}

TEST(Memory, PagedKvHoldsTheLiveContextAndBeamsShareThePrompt) {
  workload::Workload w;
  w.kv_elems_per_token = 4000;  // 4 beams of 1000
  w.input_tokens = 800;
  w.output_tokens = 64;
  EXPECT_DOUBLE_EQ(paged_kv_tokens(w, 1), 800 + 32);
  EXPECT_DOUBLE_EQ(paged_kv_tokens(w, 10), 10 * 832.0);
  // Beam search: the four beams share the prompt's blocks, each holds its own output.
  w.beams = 4;
  EXPECT_DOUBLE_EQ(paged_kv_tokens(w, 1), 200 + 32);
  Plan p;
  p.mb = 3;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::fp16, p, nullptr).kv_cache_bytes, 4000.0 * 3 * 232 * 2);
}

TEST(Memory, LlmPrefillActivationsStopAtOneChunk) {
  workload::Workload w;
  w.kv_elems_per_token = 1000;
  w.input_tokens = 1024;
  w.output_tokens = 100;
  w.activation_elems_per_sample = 5000;  // one prompt's peak
  Plan p;
  p.mb = 4;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::fp16, p, nullptr).activations_bytes, 5000.0 * 4 * 2);
  // 8192 tokens per iteration = 8 prompts of 1024, however many sequences run.
  p.mb = 100;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::infer, Precision::fp16, p, nullptr).activations_bytes, 5000.0 * 8 * 2);
  EXPECT_DOUBLE_EQ(llm_prefill_samples(w), 8);
  w.input_tokens = 20000;  // a prompt longer than a chunk still holds one prompt
  EXPECT_DOUBLE_EQ(llm_prefill_samples(w), 1);
}

TEST(Memory, RecommenderInferenceShardsTablesOverEveryDevice) {
  workload::Workload w = testing::matmul_model(1e6);
  w.family = workload::Family::recsys;
  workload::Operator table;
  table.name = "embeddings";
  table.kind = workload::OpKind::embedding;
  table.weight_elems = table.params = 8e9;
  table.weight_elems_per_sample = 1000;
  table.out_elems = 1000;
  w.ops.push_back(table);
  w.params = 8e9 + 1e6;
  Plan p;
  p.dp = 8;
  p.mb = 10;
  Memory m = memory_footprint(w, Task::infer, Precision::fp16, p, nullptr);
  // Dense weights replicated (1e6 x 2 bytes), tables split 8 ways (8e9 x 2 / 8).
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2e6 + 2e9);
  // Activations follow the batch: 10 samples of the peak activation.
  EXPECT_DOUBLE_EQ(m.activations_bytes, 10 * w.activation_elems_per_sample * 2);
}

TEST(Memory, KvCacheIsNeverSplitOverMoreRanksThanKvHeads) {
  workload::Workload w;
  w.params = 1e9;
  w.kv_elems_per_token = 1000;
  w.input_tokens = 100;
  w.output_tokens = 28;
  w.heads = 64;
  w.kv_heads = 8;
  Plan p;
  p.tp = 16;
  Memory m = memory_footprint(w, Task::infer, Precision::fp16, p, nullptr);
  EXPECT_DOUBLE_EQ(m.kv_cache_bytes, 1000.0 * 114 * 2 / 8);  // 8 KV heads: each replicated on 2 ranks
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2e9 / 16);
}

TEST(Memory, MixedPrecisionTrainingIsSixteenBytesPerTrainableParameter) {
  workload::Workload w = testing::matmul_model(20000, 50);
  w.train_activation_elems_per_sample = 100;
  Plan p;
  p.mb = 2;
  Memory m = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  // 2 (bf16 weights) + 2 (bf16 grads) + 12 (fp32 master, m, v): ZeRO paper, arXiv:1910.02054 section 3.1.
  EXPECT_DOUBLE_EQ(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 16.0 * 20000);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 100.0 * 2 * 2);
  Memory f32 = memory_footprint(w, Task::train, Precision::fp32, p, nullptr);
  EXPECT_DOUBLE_EQ(f32.weights_bytes + f32.gradients_bytes + f32.optimizer_bytes, 16.0 * 20000);
  // A frozen operator keeps its weights but gets no gradients or optimizer state.
  w.ops[0].frozen = true;
  Memory frozen = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  EXPECT_DOUBLE_EQ(frozen.weights_bytes, 2.0 * 20000);
  EXPECT_DOUBLE_EQ(frozen.gradients_bytes + frozen.optimizer_bytes, 0);
}

TEST(Memory, ZeroStagesShardStatesOverDataParallelRanks) {
  workload::Workload w = testing::matmul_model(1e9);
  Plan p;
  p.dp = 8;
  auto at = [&](int zero) {
    p.zero = zero;
    return memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  };
  // Rajbhandari et al. (SC'20) Figure 1: 16 bytes/param; P_os 4 + 12/Nd; P_os+g 2 + 14/Nd; P_os+g+p 16/Nd.
  EXPECT_DOUBLE_EQ(at(0).weights_bytes + at(0).gradients_bytes + at(0).optimizer_bytes, 16e9);
  EXPECT_DOUBLE_EQ(at(1).weights_bytes + at(1).gradients_bytes + at(1).optimizer_bytes, 4e9 + 12e9 / 8);
  EXPECT_DOUBLE_EQ(at(2).weights_bytes + at(2).gradients_bytes + at(2).optimizer_bytes, 2e9 + 14e9 / 8);
  EXPECT_DOUBLE_EQ(at(3).weights_bytes + at(3).gradients_bytes + at(3).optimizer_bytes, 16e9 / 8);
}

// ZeRO-3 / FSDP unshard one layer at a time: the whole parameters (/ t) of
// the layer computing and of the prefetched next one, and that layer's whole
// gradient before its reduce-scatter, sit beside the shards.
TEST(Memory, ZeroThreeHoldsTheGatheredLayers) {
  workload::Workload w = testing::matmul_model(1e9);
  w.layers = 10;
  Plan p;
  p.dp = 8, p.tp = 2, p.zero = 3;
  const Memory m = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  const double layer = 1e9 / 10 / 2;  // one layer's parameters per tensor-parallel rank
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2.0 * (1e9 / 16 + 2 * layer));
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 2.0 * (1e9 / 16 + layer));
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 12.0 * 1e9 / 16);
  // ZeRO-2 keeps every parameter: nothing to gather.
  p.zero = 2;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::train, Precision::bf16, p, nullptr).weights_bytes, 2.0 * 1e9 / 2);
}

TEST(Memory, RecomputeAndSequenceParallelFollowKorthikanti) {
  // Korthikanti et al. 2022, Table 2: per layer s b h (34 + 5 a s / h); with
  // fused attention the 5 a s / h scores are never stored, so the count is
  // the 34 term and selective recompute (which drops the scores) keeps it all.
  workload::Workload w = testing::matmul_model(1e9, 1);
  w.layers = 10, w.hidden = 1000, w.heads = 10, w.seq_len = 2000;  // 5 a s / h = 100
  w.train_activation_elems_per_sample = 1e8;
  Plan p;
  EXPECT_DOUBLE_EQ(activation_fraction(w, p), 1);
  p.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(activation_fraction(w, p), 1);
  p.recompute = Recompute::none;
  p.tp = 4;
  EXPECT_DOUBLE_EQ(activation_fraction(w, p), (10 + 24.0 / 4) / 34);
  p.sp = true;
  EXPECT_DOUBLE_EQ(activation_fraction(w, p), 1.0 / 4);
  // Full: each layer's input (s h per sample per layer, / tp under sp) plus one layer recomputed.
  p.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(activation_fraction(w, p), (10.0 * 2000 * 1000 / 4 + 1e8 / 4 / 10) / 1e8);
}

TEST(Memory, PipelineStagesHoldTheirMicroBatchesInFlight) {
  workload::Workload w = testing::matmul_model(1e9, 1);
  w.layers = 8;
  w.train_activation_elems_per_sample = 1e6;
  Plan p;
  p.pp = 4;
  p.ga = 16;
  Memory m = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2e9 / 4);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 1e6 * 2);  // 4 micro-batches x 1/4 of the layers
  p.ga = 2;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::train, Precision::bf16, p, nullptr).activations_bytes, 1e6 * 2 * 2 / 4);
  // Interleaved (vp = 2): the warm-up keeps x (1 + (p - 1) / (p vp)) = 1 + 3/8 more in flight.
  p.ga = 16;
  p.vp = 2;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::train, Precision::bf16, p, nullptr).activations_bytes, 1e6 * 2 * 11.0 / 8);
}

TEST(Memory, AdagradKeepsOneStatePerParameter) {
  workload::Workload w = testing::matmul_model(20000, 50);
  w.optimizer = workload::Optimizer::adagrad;
  Plan p;
  // bf16: 2 (weights) + 2 (grads) + 4 (fp32 master) + 4 (accumulator) = 12 bytes, not Adam's 16.
  Memory m = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 8.0 * 20000);
  EXPECT_DOUBLE_EQ(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 12.0 * 20000);
  // fp32: the weights are the master copy; 4 + 4 + 4 = 12 bytes.
  Memory f32 = memory_footprint(w, Task::train, Precision::fp32, p, nullptr);
  EXPECT_DOUBLE_EQ(f32.optimizer_bytes, 4.0 * 20000);
}

TEST(Memory, ExpertParallelShardsTheExperts) {
  // 1,000 dense parameters and 8,000 in the experts.
  workload::Workload w = testing::moe_model(1000, 8000, 8);
  w.train_activation_elems_per_sample = 0;
  EXPECT_DOUBLE_EQ(expert_params(w), 8000);
  Plan p;
  p.dp = 8;
  p.ep = 4;
  // ZeRO 0: every rank holds the dense 1,000 and 8,000 / 4 expert parameters.
  Memory m = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2.0 * (1000 + 2000));
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 2.0 * (1000 + 2000));
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 12.0 * (1000 + 2000));
  // ZeRO 3: the dense part over dp = 8, the experts over their dp / ep = 2 replicas.
  p.zero = 3;
  Memory z = memory_footprint(w, Task::train, Precision::bf16, p, nullptr);
  EXPECT_DOUBLE_EQ(z.weights_bytes, 2.0 * (1000.0 / 8 + 2000.0 / 2));
  EXPECT_DOUBLE_EQ(z.optimizer_bytes, 12.0 * (1000.0 / 8 + 2000.0 / 2));
  // Without expert parallelism every rank holds all experts.
  p.ep = 1, p.zero = 0;
  EXPECT_DOUBLE_EQ(memory_footprint(w, Task::train, Precision::bf16, p, nullptr).weights_bytes, 2.0 * 9000);
}

}  // namespace
}  // namespace rooftop::model
