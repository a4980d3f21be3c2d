// Memory footprint per device, the one formula every command uses:
// weights, KV cache and activations for inference; weights, gradients,
// optimizer states (ZeRO-sharded) and saved activations (recompute,
// sequence parallel, pipeline in flight) for training. Formulas and
// sources: docs/model.md#memory.
#include <algorithm>
#include <limits>

#include "model/internal.h"

namespace rooftop::model {

namespace {
// Optimizer bytes per parameter: the optimizer's fp32 states (Adam: m and
// v; Adagrad: one accumulator), plus an fp32 master copy when the weights
// are kept in a narrower format.
double optimizer_bytes_per_param(Precision p, workload::Optimizer o) {
  const double bpe = bytes_per_element(p), states = workload::optimizer_states(o);
  return bpe >= 4 ? states * bpe : 4 * (states + 1);
}
// The KV cache is stored in at least one byte per element (no 4-bit KV).
double kv_bytes_per_elem(Precision p) { return std::max(1.0, bytes_per_element(p)); }
}  // namespace

double paged_kv_tokens(const workload::Workload& w, double batch) {
  // Paged KV (vLLM's PagedAttention): blocks are allocated as the context
  // grows and freed when a sequence ends, so under continuous batching the
  // sequences in flight hold their live context, on average I + O / 2.
  // Beam search shares the prompt's blocks between the beams (copy on
  // write; Kwon et al., SOSP'23, section 4.4): kv_elems_per_token counts
  // every beam, so the prompt weighs 1 / beams of that.
  return batch * (double(w.input_tokens) / std::max(1, w.beams) + w.output_tokens / 2.0);
}

double kv_tokens(const workload::Workload& w, double batch) {
  return w.kv_slot_tokens > 0 ? batch * w.kv_slot_tokens : paged_kv_tokens(w, batch);
}

namespace {
// KV-cache elements `batch` sequences hold (kv_tokens of every layer, less
// what windowed layers do not keep).
double kv_cache_elems(const workload::Workload& w, double batch) {
  const double all = w.kv_elems_per_token * kv_tokens(w, batch);
  if (w.kv_window_elems_per_token <= 0 || w.kv_window <= 0) return all;
  // Windowed layers hold at most their window of each sequence: at a static
  // slot its span, paged the mean span over the live contexts [I, I + O]
  // (docs/workloads.md#windows).
  const double windowed = w.kv_window_elems_per_token, limit = w.kv_window;
  double held = 0;
  if (w.kv_slot_tokens > 0) {
    held = workload::attention_span(w.kv_slot_tokens, limit, w.kv_window_chunked);
  } else {
    const double from = double(w.input_tokens) / std::max(1, w.beams), to = from + w.output_tokens;
    held = to > from ? (workload::span_area(to, limit, w.kv_window_chunked) -
                        workload::span_area(from, limit, w.kv_window_chunked)) / (to - from)
                     : workload::attention_span(from, limit, w.kv_window_chunked);
  }
  return all - windowed * kv_tokens(w, batch) + windowed * held * batch;
}

double weight_bytes(const workload::Workload& w, double params, Precision p) {
  // Operators the checkpoint stores narrower (Operator::stored_as) save the
  // difference on their parameters.
  double bytes = params * bytes_per_element(p);
  for (const workload::Operator& op : w.ops)
    if (op.stored_as) bytes -= op.params * op.repeat * (bytes_per_element(p) - workload::weight_bytes_per_element(op, p));
  return bytes;
}
}  // namespace

double llm_prefill_samples(const workload::Workload& w) {
  // LLM engines prefill at most a fixed number of tokens per iteration
  // (TensorRT-LLM's max_num_tokens, default 8192; vLLM's
  // max_num_batched_tokens), so the live prefill activations are those of
  // at most that many tokens, however many sequences are in flight.
  if (w.kv_elems_per_token <= 0 || w.input_tokens <= 0) return std::numeric_limits<double>::infinity();
  return std::max(1.0, kPrefillChunkTokens / w.input_tokens);
}

double trainable_params(const workload::Workload& w) {
  const bool own = !w.train_forward_ops.empty();
  double n = 0;
  for (const workload::Operator& op : own ? w.train_forward_ops : w.ops) {
    if (!own && op.phase != workload::Phase::forward) continue;
    if (!op.frozen && !op.adapter_only) n += op.params * op.repeat;
  }
  return n;
}

double table_params(const workload::Workload& w) {
  if (w.family != workload::Family::recsys) return 0;
  const bool own = !w.train_forward_ops.empty();
  double n = 0;
  for (const workload::Operator& op : own ? w.train_forward_ops : w.ops) {
    if (!own && op.phase != workload::Phase::forward) continue;
    if (op.kind == workload::OpKind::embedding && op.weight_elems_per_sample > 0 && !op.frozen) n += op.params * op.repeat;
  }
  return n;
}

double expert_params(const workload::Workload& w) {
  if (w.experts <= 0) return 0;
  const bool own = !w.train_forward_ops.empty();
  double n = 0;
  for (const workload::Operator& op : own ? w.train_forward_ops : w.ops) {
    if (!own && op.phase != workload::Phase::forward) continue;
    if (op.role == workload::Role::routed_expert) n += op.params * op.repeat;
  }
  return n;
}

double activation_fraction(const workload::Workload& w, const Plan& plan) {
  // Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
  // Transformer Models", Table 2): per layer s b h (34 + 5 a s / h) bytes at
  // 16 bits, the 5 a s / h term being the attention scores. The workloads'
  // attention is fused (FlashAttention): the scores never reach memory, so
  // the per-sample count is the 34 s b h term alone, and selective recompute
  // (which drops only the score term) keeps all of it. Tensor parallel
  // without sequence parallel shards 24 of the 34; sequence parallel shards
  // all of it.
  const double t = plan.tp;
  const bool shape = w.layers > 0 && w.hidden > 0 && w.heads > 0 && w.seq_len > 0;
  const double shard = plan.sp || t <= 1 ? 1 / t : (10.0 + 24.0 / t) / 34;
  if (plan.recompute == Recompute::full && shape) {
    // Only each layer's input (s b h elements) is kept, plus one layer
    // recomputed at a time.
    const double per_sample = w.train_activation_elems_per_sample;
    const double inputs = double(w.layers) * w.seq_len * w.hidden / (plan.sp ? t : 1);
    return per_sample > 0 ? std::min(shard, (inputs + per_sample * shard / w.layers) / per_sample) : shard;
  }
  return shard;
}

Memory memory_footprint(const workload::Workload& w, workload::Task task, const PrecisionMix& mix, const Plan& plan,
                        const catalog::Accelerator* a) {
  const Precision p = mix.compute;
  const double bpe = bytes_per_element(p);
  const double model_shard = double(plan.tp) * plan.pp;
  const double b = plan.mb;
  Memory m;
  if (task == workload::Task::train) {
    // Recommender tables are sharded over every device and have no dense
    // gradient buffer (docs/model.md#memory).
    // Mixture of experts: each expert-parallel rank holds experts / ep of
    // every MoE layer, replicated over the dp / ep ranks that hold the same
    // experts; ZeRO shards the dense part over dp and the experts over those
    // dp / ep replicas (docs/model.md#memory).
    const double tables = table_params(w);
    const double trainable = trainable_params(w) - tables;
    const double experts = expert_params(w), trainable_experts = std::min(experts, trainable);
    const double dp = plan.dp, all = plan.devices(), ep = plan.ep;
    const double opt = optimizer_bytes_per_param(p, w.optimizer);
    // Per device: the dense part / (tp x pp) and the experts / (tp x pp x ep),
    // each divided by its ZeRO group when `sharded`.
    auto per_device = [&](double total, double expert_part, bool sharded) {
      return (total - expert_part) / model_shard / (sharded ? dp : 1) +
             expert_part / (model_shard * ep) / (sharded ? dp / ep : 1);
    };
    m.weights_bytes = per_device(w.params - tables, experts, plan.zero >= 3) * bpe + tables * bpe / all;
    m.gradients_bytes = per_device(trainable, trainable_experts, plan.zero >= 2) * bpe;
    // ZeRO-3 / FSDP gather a layer's parameters just before it computes and
    // free them after: beside the shards sit the whole parameters (/ t) of
    // the layer in use and of the next one, prefetched, and the layer's
    // whole gradient until its reduce-scatter (PyTorch FSDP, Zhao et al.,
    // VLDB 2023, section 3: one unit per layer, backward prefetch).
    if (plan.zero >= 3 && plan.dp > 1 && w.layers > 0) {
      const double layer = (w.params - tables) / w.layers / plan.tp;
      m.weights_bytes += 2 * layer * bpe;
      if (trainable > 0) m.gradients_bytes += std::min(trainable, w.params - tables) / w.layers / plan.tp * bpe;
    }
    m.optimizer_bytes = per_device(trainable, trainable_experts, plan.zero >= 1) * opt + tables * opt / all;
    // 1F1B: the first stage holds min(pp, ga) micro-batches of its 1/pp of the
    // layers; the interleaved schedule (vp chunks per rank) warms up with more
    // micro-batches in flight: x (1 + (pp - 1) / (pp x vp)) (Korthikanti et al.,
    // "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023, pipeline parallelism).
    double in_flight = plan.pp > 1 ? double(std::min(plan.pp, plan.ga)) / plan.pp : 1;
    if (plan.pp > 1 && plan.vp > 1) in_flight *= 1 + double(plan.pp - 1) / (double(plan.pp) * plan.vp);
    m.activations_bytes = w.train_activation_elems_per_sample * b * bpe * activation_fraction(w, plan) * in_flight;
  } else {
    // Inference engines shard weights, KV heads and activations over the
    // tensor-parallel ranks; a KV head is never split, so the KV cache is
    // divided by at most the number of KV heads.
    const double t = plan.tp;
    const double kv_split = w.kv_heads > 0 ? std::min<double>(t, w.kv_heads) : t;
    // Recommenders shard their embedding tables over every device (TorchRec
    // row/table-wise sharding); the dense part follows the plan.
    const double tables = table_params(w);
    const double wbpe = bytes_per_element(mix.weights);
    m.weights_bytes = weight_bytes(w, w.params - tables, mix.weights) / model_shard + tables * wbpe / plan.devices();
    m.kv_cache_bytes = kv_cache_elems(w, b) * kv_bytes_per_elem(mix.kv) / kv_split / plan.pp;
    m.activations_bytes = w.activation_elems_per_sample * std::min(b, llm_prefill_samples(w)) * bpe / t;
  }
  m.required_bytes = m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes + m.optimizer_bytes;
  m.capacity_bytes = a ? a->memory_bytes.or_else(0) : 0;
  m.usable_bytes = m.capacity_bytes * kUsableMemoryFraction;
  m.fits = m.required_bytes <= m.usable_bytes;
  return m;
}

}  // namespace rooftop::model
