// The one place a prediction is composed. evaluate() prices one parallel
// plan: inference (one forward pass per batch, or LLM prefill + decode
// under continuous batching) or a training step (1F1B pipeline with its
// bubble, tensor-parallel all-reduces, pipeline sends, expert all-to-all,
// the data-parallel gradient sync under ZeRO, recompute, stragglers).
// predict() searches the plan keys the request leaves open and evaluates
// the best plan. docs/model.md has every formula and its source.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/text.h"
#include "model/efficiency.h"
#include "model/internal.h"

namespace rooftop::model {

namespace {

using workload::Operator;
using workload::OpKind;
using workload::Phase;
using workload::Task;

constexpr double kServerLatencyS = 0.1;   // one sample, server scenario
constexpr double kLlmTtftS = 2.0;         // MLPerf llama2-70b server bound
constexpr double kLlmTpotS = 0.2;         // MLPerf llama2-70b server bound
constexpr double kNearBest = 0.99;        // smallest batch / simplest plan within 1 % of the best throughput
constexpr double kMaxBatch = 65536;
// Gradients are synchronised in buckets of this size as the backward pass
// produces them (PyTorch DistributedDataParallel's bucket_cap_mb default,
// 25 MiB; Li et al., VLDB 2020): the last bucket cannot overlap.
constexpr double kGradBucketBytes = 25.0 * 1024 * 1024;

bool is_inference(Phase p) { return p == Phase::forward || p == Phase::prefill; }
bool is_prefill(Phase p) { return p == Phase::prefill; }
bool is_decode(Phase p) { return p == Phase::decode; }
bool is_forward(Phase p) { return p == Phase::forward; }
bool is_backward(Phase p) { return p == Phase::backward; }
bool is_optimizer(Phase p) { return p == Phase::optimizer; }

struct Sums {
  double time_s = 0, compute_s = 0, memory_s = 0, overhead_s = 0, comm_s = 0;
  void add(const Sums& o, double k = 1) {
    time_s += k * o.time_s, compute_s += k * o.compute_s, memory_s += k * o.memory_s;
    overhead_s += k * o.overhead_s, comm_s += k * o.comm_s;
  }
};

// Operators Megatron-style tensor parallelism splits (GEMMs, attention heads
// and their softmax, embedding tables, convolutions); norms, residual adds
// and activations are split only under sequence parallelism.
bool tp_sharded(OpKind k) {
  return k == OpKind::matmul || k == OpKind::attention || k == OpKind::conv || k == OpKind::softmax ||
         k == OpKind::embedding;
}


std::string gib(double bytes) { return plain(bytes / (1024.0 * 1024 * 1024)) + " GiB"; }

}  // namespace

// What stays fixed while plans are evaluated.
struct Evaluator::Setup {
  const catalog::Accelerator* a = nullptr;
  const workload::Workload* w = nullptr;
  Request req;
  Precision p = Precision::fp16;     // compute precision (mix.compute)
  PrecisionMix mix;                  // compute, weights, KV cache
  catalog::Accelerator gpu_only;     // `a` without its DLAs, when the workload cannot use them
  Task task = Task::infer;
  Efficiency e;
  bool llm = false;
  double out_tokens = 1;
  std::vector<Operator> ops;         // training: forward + backward + optimizer; inference: w.ops
  bool batch_norms = false;          // training: some op computes batch statistics (docs/model.md#batch-norm)
  double trainable = 0;              // training: parameters updated
  double boundary_elems = 0;         // activation per sample between layers (pipeline sends)
  double moe_layers = 0;             // MoE layers (expert all-to-all)
  double expert_params = 0;          // MoE expert FFN parameters (sharded by ep)
  double backward_second_kernels = 0;  // training: backward GEMMs/convs launched as two kernels, per sample pass
  double table_out_elems = 0;        // recommenders: pooled embedding outputs per sample (all-to-all)
  Result<detail::Fabric> fabric = make_error(Errc::internal, "no fabric");
};

namespace {

using Setup = Evaluator::Setup;

// One operator of the step on one rank at `batch`. Inference compilers fuse
// elementwise ops (and fold a CNN's batch norm); training stacks fuse the
// elementwise epilogues too (bias + activation, dropout + residual add:
// cuDNN/apex/XLA fusions), but batch norm needs batch statistics and stays a
// kernel of its own (docs/model.md#fusion). Training shards each op by tp
// (sharded kinds, or all under sequence parallel); inference every op. The
// dense optimizer is sharded like the weights (`optimizer_shard`); a sparse
// row-wise one (recommender tables) updates the rows this rank's samples touched.
detail::OpCost step_op_cost(const Setup& s, const Plan& plan, const Operator& op, double batch, double optimizer_shard) {
  const bool fused = s.task == Task::infer ? detail::fused_in_inference(op, s.w->family)
                                           : op.kind == OpKind::elementwise && op.phase != Phase::optimizer;
  double shard = s.task == Task::infer || plan.sp || tp_sharded(op.kind) ? plan.tp : 1;
  if (op.phase == Phase::optimizer) shard = op.kind == OpKind::embedding ? 1 : optimizer_shard;
  return detail::op_cost(op, batch, s.mix, *s.a, s.e, shard, fused);
}

// Roofline of the ops in `in_phase` at `batch` (step_op_cost), times `scale`
// (docs/model.md#parallelism).
Sums eval_ops(const Setup& s, const Plan& plan, bool (*in_phase)(Phase), double batch, double scale,
              std::vector<OpPrediction>* detail, double extra_shard = 1) {
  Sums out;
  for (const Operator& op : s.ops) {
    if (!in_phase(op.phase)) continue;
    detail::OpCost c = step_op_cost(s, plan, op, batch, extra_shard);
    double t = c.time_s * scale;
    out.time_s += t;
    (c.bound == Bound::compute ? out.compute_s : c.bound == Bound::memory ? out.memory_s : out.overhead_s) += t;
    if (detail) {
      OpPrediction o;
      o.name = op.name;
      o.kind = op.kind;
      o.phase = op.phase;
      o.flops = c.flops * scale;
      o.bytes = c.bytes * scale;
      o.intensity = c.bytes > 0 ? c.flops / c.bytes : 0;
      o.time_s = t;
      o.bound = c.bound;
      detail->push_back(std::move(o));
    }
  }
  return out;
}

// Pipeline stages split the layer stack evenly; the operators outside it sit
// whole on the first stage (those before the stack in the forward pass: the
// embeddings) or the last (after it: final norm, LM head, loss). One
// micro-batch of `in_phase` on each end stage, beyond its share of the stack.
struct StageEnds {
  double first_s = 0, last_s = 0;
};
StageEnds stage_ends(const Setup& s, const Plan& plan, bool (*in_phase)(Phase), double batch) {
  StageEnds out;
  const double layers = s.w->layers;
  if (plan.pp <= 1 || layers < 2) return out;
  bool seen_stack = false;
  for (const Operator& op : s.ops) {
    if (!in_phase(op.phase)) continue;
    if (op.repeat >= layers) {
      seen_stack = true;
      continue;
    }
    // The backward pass runs the stack in reverse: what follows it is the embeddings.
    ((op.phase == Phase::backward) == seen_stack ? out.first_s : out.last_s) += step_op_cost(s, plan, op, batch, 1).time_s;
  }
  // Without a repeated layer stack (an unrolled graph: one operator per
  // layer) the stages cannot be told apart: keep the even split.
  return seen_stack ? out : StageEnds{};
}

// Forward attention (score/softmax) ops: what selective recompute runs again.
bool is_attention_forward(Phase p) { return p == Phase::forward; }
Sums eval_selective(const Setup& s, const Plan& plan, double batch) {
  Sums out;
  for (const Operator& op : s.ops) {
    if (!is_attention_forward(op.phase) || (op.kind != OpKind::attention && op.kind != OpKind::softmax)) continue;
    detail::OpCost c = detail::op_cost(op, batch, s.mix, *s.a, s.e, plan.tp, false);
    out.time_s += c.time_s;
    (c.bound == Bound::compute ? out.compute_s : c.bound == Bound::memory ? out.memory_s : out.overhead_s) += c.time_s;
  }
  return out;
}

// The residual stream, which tensor parallel all-reduces, stays 16-bit under
// 8-bit (or narrower) math: fp8 GEMMs write bf16/fp16, int8 GEMMs accumulate
// in int32 and dequantize, and the residual adds run at 16 bits
// (TensorRT-LLM and vLLM all-reduce the GEMM outputs in the model's dtype).
double residual_bytes_per_element(Precision p) { return std::max(2.0, bytes_per_element(p)); }

// Megatron-style tensor parallelism all-reduces the residual stream twice per
// transformer layer, right before each norm: one all-reduce per norm op of
// its output (sequence parallel: a reduce-scatter plus an all-gather, the
// same volume). Without norm ops, half of the matmuls' outputs.
double tensor_comm_s(const Setup& s, const Plan& plan, bool (*in_phase)(Phase), double batch) {
  if (plan.tp <= 1 || !s.fabric) return 0;  // no fabric: run() reports it
  const double bpe = residual_bytes_per_element(s.mix.compute);
  double norm_s = 0, matmul_s = 0;
  bool any_norm = false;
  for (const Operator& op : s.ops) {
    if (!in_phase(op.phase)) continue;
    double one = detail::collective_s(detail::Collective::all_reduce, op.out_elems * batch * bpe, plan.tp, 1, *s.fabric);
    if (op.kind == OpKind::norm) any_norm = true, norm_s += op.repeat * one;
    if (op.kind == OpKind::matmul) matmul_s += 0.5 * op.repeat * one;
  }
  return any_norm ? norm_s : matmul_s;
}

// Payload of one tensor-parallel all-reduce (the first norm's output).
double tensor_payload_bytes(const Setup& s, double batch) {
  for (const Operator& op : s.ops)
    if (op.kind == OpKind::norm && (s.llm ? op.phase == Phase::decode : true))
      return op.out_elems * batch * residual_bytes_per_element(s.mix.compute);
  return 0;
}

struct Outcome {
  double throughput = 0, samples_per_s = 0, latency_s = 0, ttft_s = 0, tpot_s = 0;
  double grad_bytes = 0, bubble = 0, eval_stage_s = 0;
  Communication comm;
  Sums sums;
};

Outcome train_step(const Setup& s, const Plan& plan, std::vector<OpPrediction>* detail) {
  Outcome o;
  const double b = plan.mb, k = plan.ga, pp = plan.pp, vp = plan.vp;
  // A collective over one rank is free; over more it needs the fabric (run() checks it is known).
  auto coll = [&](detail::Collective c, double bytes, int n, int stride) {
    return n > 1 && s.fabric ? detail::collective_s(c, bytes, n, stride, *s.fabric) : 0.0;
  };
  const double bpe = bytes_per_element(s.mix.compute);  // tensors as stored and moved (fp8 training: 16-bit)
  const int dp_stride = plan.tp, pp_stride = plan.tp * plan.dp;
  // Per micro-batch on one stage: forward, backward, recompute.
  Sums fwd = eval_ops(s, plan, is_forward, b, k / pp, detail);
  Sums bwd = eval_ops(s, plan, is_backward, b, k / pp, detail);
  // The backward pass of a GEMM or convolution with trainable weights is two
  // kernels, the input gradient and the weight gradient (cuBLAS/cuDNN
  // dgrad + wgrad): each pays the fixed per-kernel cost (docs/model.md#training).
  const double second_launch_s = s.backward_second_kernels * s.e.op_overhead_s * k / pp;
  bwd.time_s += second_launch_s, bwd.overhead_s += second_launch_s;
  const double opt_shard = double(plan.tp) * plan.pp * (plan.zero >= 1 ? plan.dp : 1);
  Sums opt = eval_ops(s, plan, is_optimizer, b * k, 1, detail, opt_shard);
  Sums re;
  if (plan.recompute == Recompute::full) re.add(fwd);
  if (plan.recompute == Recompute::selective) re.add(eval_selective(s, plan, b), k / pp);
  double f_mb = fwd.time_s / k, b_mb = bwd.time_s / k;   // one micro-batch, one stage (even split)
  // 1F1B runs at the pace of its slowest stage: the end stage that holds the
  // larger share of the operators outside the layer stack (the LM head and
  // loss on the last, the embeddings on the first) takes them whole instead
  // of 1/pp of them (docs/model.md#pipeline).
  if (plan.pp > 1) {
    const StageEnds f = stage_ends(s, plan, is_forward, b), g = stage_ends(s, plan, is_backward, b);
    const bool last = f.last_s + g.last_s >= f.first_s + g.first_s;
    f_mb += (last ? f.last_s : f.first_s) - (f.first_s + f.last_s) / pp;
    b_mb += (last ? g.last_s : g.first_s) - (g.first_s + g.last_s) / pp;
  }
  const double r_mb = re.time_s / k;
  const double tp_fwd = tensor_comm_s(s, plan, is_forward, b) / pp;
  const double tp_mb = tp_fwd + tensor_comm_s(s, plan, is_backward, b) / pp;
  // Pipeline: each micro-batch sends its boundary activation forward and its
  // gradient back (x vp with interleaved stages).
  // Each tensor-parallel rank sends 1/t of it: with sequence parallel the
  // activation is already split; without, Megatron-LM's scatter/gather
  // optimisation splits it before the send and all-gathers it inside the
  // receiving stage's tensor group (Narayanan et al. SC'21, section 4.1).
  const double boundary_all = s.boundary_elems * b * bpe;
  const double regather =
      plan.sp ? 0.0 : coll(detail::Collective::all_gather, boundary_all, plan.tp, 1);
  const double pp_mb =
      plan.pp > 1 ? 2 * vp * (coll(detail::Collective::p2p, boundary_all / plan.tp, 2, pp_stride) + regather) : 0;
  // Expert parallel: dispatch and combine all-to-all per MoE layer, forward and backward.
  double ep_mb = 0;
  if (plan.ep > 1 && s.moe_layers > 0) {
    const double tokens = s.w->seq_len > 0 ? s.w->seq_len : 1;
    const double a2a = tokens * std::max(1, s.w->top_k) * s.w->hidden * b * bpe / (plan.sp ? plan.tp : 1);
    ep_mb = 4 * s.moe_layers / pp * coll(detail::Collective::all_to_all, a2a, plan.ep, plan.tp);
  }
  // Recommenders: tables sharded over every device; the pooled embeddings
  // of each micro-batch go to their data-parallel rank by all-to-all, and
  // their gradients come back the same way.
  if (s.table_out_elems > 0 && plan.devices() > 1)
    ep_mb += 2 * coll(detail::Collective::all_to_all, s.table_out_elems * b * bpe, plan.devices(), 1);
  const double stage_s = f_mb + b_mb + r_mb + tp_mb + pp_mb + ep_mb;
  // An evaluation step is the forward half: the forward compute and the
  // forward half of each kind of traffic (tensor all-reduces, the
  // activation send, the dispatch/combine or embedding all-to-all).
  o.eval_stage_s = f_mb + tp_fwd + pp_mb / 2 + ep_mb / 2;
  // 1F1B: k micro-batches plus (pp - 1) / vp stage slots of fill and drain.
  const double bubble_slots = (pp - 1) / vp;
  const double compute_s = (k + bubble_slots) * stage_s + opt.time_s;
  o.bubble = bubble_slots * stage_s / compute_s;
  // Data parallel: gradients (trainable x bytes / (tp x pp)) are all-reduced
  // once per step (ZeRO-1/2: reduce-scatter + all-gather, the same volume;
  // ZeRO-3/FSDP: reduce-scatter, plus a parameter all-gather per micro-batch
  // in forward and backward). Mixture of experts: the expert gradients
  // (/ ep) sync only over the dp / ep replicas of each expert. The sync
  // overlaps the backward pass of the last micro-batch, except its last
  // bucket, whose gradients are ready only when the backward pass ends
  // (docs/model.md#training); ZeRO-3's gathers overlap the step's compute.
  const double model_shard = double(plan.tp) * plan.pp, ep = plan.ep;
  const double experts = s.expert_params, trainable_experts = std::min(experts, s.trainable);
  o.grad_bytes = (s.trainable - table_params(*s.w) - trainable_experts) * bpe / model_shard;
  const double param_bytes = (s.w->params - experts) * bpe / model_shard;
  const double expert_grad_bytes = trainable_experts * bpe / (model_shard * ep);
  const double expert_param_bytes = experts * bpe / (model_shard * ep);
  struct Sync {
    double sync_s = 0, gather_s = 0;
  };
  auto sync_of = [&](double grads, double params, int n, int stride) {
    using detail::Collective;
    Sync y;
    if (n <= 1) return y;
    if (plan.zero == 0) y.sync_s = coll(Collective::all_reduce, grads, n, stride);
    else if (plan.zero <= 2)
      y.sync_s = coll(Collective::reduce_scatter, grads, n, stride) + coll(Collective::all_gather, params, n, stride);
    else {
      y.sync_s = coll(Collective::reduce_scatter, grads, n, stride);
      y.gather_s = 2 * k * coll(Collective::all_gather, params, n, stride);
    }
    return y;
  };
  const Sync dense = sync_of(o.grad_bytes, param_bytes, plan.dp, dp_stride);
  const Sync expert = sync_of(expert_grad_bytes, expert_param_bytes, plan.dp / plan.ep, dp_stride * plan.ep);
  const double sync_s = dense.sync_s + expert.sync_s, gather_s = dense.gather_s + expert.gather_s;
  const double last_bucket_s =
      sync_of(std::min(o.grad_bytes, kGradBucketBytes), 0, plan.dp, dp_stride).sync_s;
  // The sync and the gathers share the data-parallel links: however they
  // overlap the compute, together they keep those links busy for sync +
  // gathers, so the step cannot end before that traffic has moved.
  const double window_s = k * (f_mb + b_mb + r_mb);
  const double exposed = std::max(std::max({0.0, sync_s - b_mb, last_bucket_s}) + std::max(0.0, gather_s - window_s),
                                  sync_s + gather_s - window_s);
  o.sums = fwd;
  o.sums.add(bwd);
  o.sums.add(re);
  o.sums.add(opt);
  const double slots = k + bubble_slots;
  o.sums.add(fwd, bubble_slots / k);
  o.sums.add(bwd, bubble_slots / k);
  o.sums.comm_s = slots * (tp_mb + pp_mb + ep_mb) + exposed;
  o.sums.time_s = compute_s + exposed;
  o.latency_s = compute_s * straggler_factor(plan.devices(), s.req.straggler_cv) + exposed;
  o.samples_per_s = plan.dp * b * k / o.latency_s;
  const bool tokens = s.w->throughput_unit == "tokens/s";
  const double tokens_per_sample = s.w->seq_len > 0 ? s.w->seq_len : s.w->input_tokens;
  o.throughput = tokens && tokens_per_sample > 0 ? o.samples_per_s * tokens_per_sample : o.samples_per_s;
  Communication& c = o.comm;
  c.tensor_s = slots * tp_mb;
  c.pipeline_s = slots * pp_mb;
  c.expert_s = slots * ep_mb;
  c.data_s = sync_s + gather_s;
  c.exposed_s = exposed;
  c.time_s = c.tensor_s + c.pipeline_s + c.expert_s + c.data_s;
  c.bytes = plan.dp > 1 ? o.grad_bytes : tensor_payload_bytes(s, b);
  return o;
}

Outcome infer_pass(const Setup& s, const Plan& plan, std::vector<OpPrediction>* detail) {
  Outcome o;
  const double b = plan.mb;
  auto pass = [&](bool (*ph)(Phase), double batch, double scale, std::vector<OpPrediction>* d) {
    Sums x = eval_ops(s, plan, ph, batch, scale, d);
    x.comm_s = tensor_comm_s(s, plan, ph, batch) * scale;
    x.time_s += x.comm_s;
    return x;
  };
  if (s.llm) {
    // The first output token comes out of the prefill; the other O - 1 from decode steps.
    const double n_out = s.out_tokens, steps = n_out - 1;
    Sums pre = pass(is_prefill, b, 1, detail);
    Sums dec = pass(is_decode, b, std::max(1.0, steps), detail);
    o.sums = pre;
    o.sums.add(dec);
    const double step_s = dec.time_s / std::max(1.0, steps);
    const double cycle_s = pre.time_s + steps * step_s;  // B sequences from prompt to last token
    const double prefill_one_s = b == 1 ? pre.time_s : pass(is_prefill, 1, 1, nullptr).time_s;
    o.throughput = plan.dp * b * n_out / cycle_s;
    o.tpot_s = b == 1 ? step_s : cycle_s / n_out;
    o.ttft_s = prefill_one_s + (b == 1 ? 0 : step_s);
    o.latency_s = o.ttft_s + (n_out - 1) * o.tpot_s;
    o.comm.time_s = o.sums.comm_s / n_out;
  } else {
    o.sums = pass(is_inference, b, 1, detail);
    // Recommenders: tables sharded over every device (docs/model.md#memory);
    // the pooled embeddings go to their sample's device by all-to-all.
    if (s.table_out_elems > 0 && plan.devices() > 1 && s.fabric) {
      const double a2a = detail::collective_s(detail::Collective::all_to_all, s.table_out_elems * b * bytes_per_element(s.mix.compute),
                                              plan.devices(), 1, *s.fabric);
      o.sums.comm_s += a2a, o.sums.time_s += a2a;
    }
    o.latency_s = o.sums.time_s;
    o.throughput = plan.dp * b / o.latency_s;
    o.comm.time_s = o.sums.comm_s;
  }
  o.comm.tensor_s = o.comm.time_s;
  o.comm.bytes = tensor_payload_bytes(s, b);
  return o;
}

Outcome outcome(const Setup& s, const Plan& plan, std::vector<OpPrediction>* detail) {
  return s.task == Task::train ? train_step(s, plan, detail) : infer_pass(s, plan, detail);
}

Memory plan_memory(const Setup& s, const Plan& plan) { return memory_footprint(*s.w, s.task, s.mix, plan, s.a); }

// Largest micro-batch / batch per device the memory allows under `plan` (0: not even one).
double max_batch(const Setup& s, Plan plan) {
  plan.mb = 0;
  const double fixed = plan_memory(s, plan).required_bytes;
  plan.mb = 1;
  const double per_sample = plan_memory(s, plan).required_bytes - fixed;
  const double usable = s.a->memory_bytes.or_else(0) * kUsableMemoryFraction;
  if (fixed + per_sample > usable) return 0;
  if (per_sample <= 0) return kMaxBatch;
  double lo = std::min(kMaxBatch, std::floor((usable - fixed) / per_sample));
  // Memory grows with the batch but not always linearly (an LLM's prefill
  // activations stop at one chunk): the largest batch that still fits.
  double hi = kMaxBatch + 1;
  plan.mb = static_cast<int>(std::min(kMaxBatch, lo + 1));
  if (lo >= kMaxBatch || !plan_memory(s, plan).fits) return lo;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    plan.mb = static_cast<int>(mid);
    (plan_memory(s, plan).fits ? lo : hi) = mid;
  }
  return lo;
}

bool within_target(const Setup& s, const Outcome& o) {
  if (s.llm) {
    double tpot = s.req.latency_target_s.value_or(kLlmTpotS);
    return o.tpot_s <= tpot && o.ttft_s <= std::max(kLlmTtftS, tpot);
  }
  return o.latency_s <= s.req.latency_target_s.value_or(kServerLatencyS);
}

// The batch for a plan whose mb is open, per scenario (docs/model.md#batch).
double choose_batch(const Setup& s, Plan plan, double limit) {
  if (s.req.scenario == Scenario::single_stream && s.task == Task::infer) return 1;
  std::vector<double> candidates;
  for (double b = 1; b <= limit; b *= 2) candidates.push_back(b);
  if (candidates.back() < limit) candidates.push_back(limit);
  auto at = [&](double b) {
    plan.mb = static_cast<int>(b);
    return outcome(s, plan, nullptr);
  };
  if (s.req.scenario == Scenario::server && s.task == Task::infer) {
    double best = 1;
    for (double b : candidates)
      if (within_target(s, at(b))) best = b;
    return best;
  }
  std::vector<double> tput;
  double best = 0;
  for (double b : candidates) {
    tput.push_back(at(b).throughput);
    best = std::max(best, tput.back());
  }
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (tput[i] >= kNearBest * best) return candidates[i];
  return candidates.back();
}

Result<void> check_request(const Request& req) {
  if (!req.accelerator || !req.workload)
    return make_error(Errc::internal, "predict: request without accelerator or workload");
  if (req.count < 1)
    return make_error(Errc::invalid_input, "device count must be at least 1, got " + std::to_string(req.count),
                      "--count");
  if (req.batch && *req.batch < 1)
    return make_error(Errc::invalid_input, "batch must be at least 1, got " + std::to_string(*req.batch), "--batch");
  if (req.grad_accumulation < 1)
    return make_error(Errc::invalid_input, "gradient accumulation must be at least 1", "--grad-accumulation");
  if (req.straggler_cv < 0)
    return make_error(Errc::invalid_input, "straggler CV must not be negative", "--straggler-cv");
  if (req.latency_target_s && *req.latency_target_s <= 0)
    return make_error(Errc::invalid_input, "latency target must be positive", "--latency-target");
  if (req.workload->ops.empty())
    return make_error(Errc::invalid_input, "workload '" + req.workload->id + "' has no operators", req.workload->id);
  return {};
}

Unexpected bad_plan(const std::string& msg) { return make_error(Errc::invalid_input, msg, "--plan"); }

// A plan the model and the device count can run; the error names the value.
Result<void> check_plan(const Setup& s, const Plan& p, int count) {
  const workload::Workload& w = *s.w;
  if (p.dp < 1 || p.tp < 1 || p.pp < 1 || p.ep < 1 || p.vp < 1 || p.mb < 1 || p.ga < 1)
    return bad_plan("every degree, mb and ga must be at least 1 (" + to_string(p) + ")");
  if (p.devices() > count)
    return bad_plan("dp x tp x pp = " + std::to_string(p.devices()) + " devices, more than --count " +
                    std::to_string(count));
  if (w.heads > 0 && (p.tp > w.heads || w.heads % p.tp != 0))
    return bad_plan("tp=" + std::to_string(p.tp) + " does not divide the " + std::to_string(w.heads) +
                    " attention heads of '" + w.id + "'");
  if (p.pp > 1 && s.task == Task::infer) return bad_plan("pp=" + std::to_string(p.pp) + ": pipeline-parallel inference is not modelled");
  const int layers = std::max(1, w.layers);
  if (p.pp > layers)
    return bad_plan("pp=" + std::to_string(p.pp) + " is more stages than the " + std::to_string(layers) +
                    " layer(s) of '" + w.id + "'");
  if (p.vp > 1 && (p.pp < 2 || p.pp * p.vp > layers))
    return bad_plan("vp=" + std::to_string(p.vp) + " needs pp >= 2 and pp x vp <= " + std::to_string(layers) + " layers");
  if (p.ep > 1 && (w.experts == 0 || p.dp % p.ep != 0 || w.experts % p.ep != 0))
    return bad_plan("ep=" + std::to_string(p.ep) + " needs a mixture-of-experts model whose experts and dp it divides");
  return {};
}

Unexpected does_not_fit(const Setup& s, const Plan& plan, int count) {
  Memory m = plan_memory(s, plan);
  std::string msg = "'" + s.w->id + "' does not fit: " + std::string(workload::to_string(s.task)) + " at " +
                    std::string(to_string(s.p)) + ", batch " + std::to_string(plan.mb) + " needs " +
                    gib(m.required_bytes) + " per device on " + std::to_string(count) + " x " + s.a->id +
                    " (plan " + to_string(plan) + "), which has " + gib(m.usable_bytes) + " usable (" +
                    plain(kUsableMemoryFraction * 100) + " % of " + gib(m.capacity_bytes) + "), short by " +
                    gib(m.required_bytes - m.usable_bytes);
  // A larger count that would fit: tensor parallel over more devices, only
  // at degrees the model allows (dividing its attention heads).
  const int heads = s.w->heads;
  bool suggested = false;
  for (int t = count + 1; t <= (1 << 20) && (heads <= 0 || t <= heads); t = heads > 0 ? t + 1 : (t < 2 ? 2 : t * 2)) {
    if (heads > 0 && heads % t != 0) continue;
    Plan wide = plan;
    wide.tp = t, wide.dp = 1, wide.pp = 1, wide.zero = 0;
    if (plan_memory(s, wide).fits) {
      msg += "; try --count " + std::to_string(t);
      suggested = true;
      break;
    }
  }
  if (!suggested && heads > 0 && s.task == Task::infer)
    msg += "; tensor parallel stops at the " + std::to_string(heads) +
           " attention heads and pipeline-parallel inference (layers spread over more devices) is not modelled";
  return make_error(Errc::invalid_input, msg, "--count");
}

// A searched plan and its throughput.
struct Found {
  Plan plan;
  double throughput;
};
// The first (simplest) plan within 1 % of the best throughput.
const Found& near_best(const std::vector<Found>& found) {
  double best = 0;
  for (const Found& f : found) best = std::max(best, f.throughput);
  for (const Found& f : found)
    if (f.throughput >= kNearBest * best) return f;
  return found.front();
}

// Expert-parallel degrees to try: the one given, else 1 for a dense model,
// else every power of two dividing both dp and the experts.
std::vector<int> expert_degrees(const workload::Workload& w, int dp, std::optional<int> given) {
  if (given) return {*given};
  std::vector<int> out{1};
  for (int e = 2; w.experts > 0 && e <= std::min(dp, w.experts); e *= 2)
    if (dp % e == 0 && w.experts % e == 0) out.push_back(e);
  return out;
}

// Interleaved pipeline degrees to try with `pp` stages: the one given, else
// 1 and every power of two v > 1 with pp x v dividing the layers (each rank
// runs v chunks of layers / (pp x v) layers; Megatron-LM's
// --num-layers-per-virtual-pipeline-stage must divide the stage evenly).
std::vector<int> interleave_degrees(const workload::Workload& w, int pp, std::optional<int> given) {
  if (given) return {*given};
  std::vector<int> out{1};
  for (int v = 2; pp > 1 && w.layers > 0 && pp * v <= w.layers; v *= 2)
    if (w.layers % (pp * v) == 0) out.push_back(v);
  return out;
}

// Megatron-LM's interleaved schedule needs the micro-batches of a step to be
// a multiple of the stages (schedules.py asserts num_microbatches %
// pipeline_model_parallel_size == 0).
bool interleavable(int vp, int pp, int micro_batches) { return vp <= 1 || micro_batches % pp == 0; }

// Every divisor of n up to limit, ascending.
std::vector<int> divisors_up_to(int n, int limit) {
  std::vector<int> out;
  for (int v = 1; v <= std::min(n, limit); ++v)
    if (n % v == 0) out.push_back(v);
  return out;
}

// Pipeline degrees for `n` devices per tensor group: every divisor of n up
// to the layers that splits them into whole stages, plus the powers of two
// (stages of uneven depth, as Megatron-LM's first/last-stage options allow).
std::vector<int> pipeline_degrees(int n, int layers) {
  std::vector<int> out;
  for (int v : divisors_up_to(n, std::max(1, layers)))
    if (layers <= 0 || layers % v == 0 || (v & (v - 1)) == 0) out.push_back(v);
  return out;
}

}  // namespace

Result<Precision> default_precision(const catalog::Accelerator& a, workload::Task task) {
  if (task == Task::train) {
    for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp32})
      if (a.supports(p)) return p;
  } else {
    Precision best = Precision::fp32;
    double best_peak = 0;
    for (Precision p : {Precision::int8, Precision::fp8, Precision::bf16, Precision::fp16}) {
      if (a.supports(p) && *a.peak(p).value > best_peak) best = p, best_peak = *a.peak(p).value;
    }
    if (best_peak > 0) return best;
    if (a.supports(Precision::fp32)) return Precision::fp32;
    // A part whose catalog knows only 4-bit rates (a new part's launch
    // figures): infer at the 4-bit format it has.
    for (Precision p : {Precision::fp4, Precision::int4})
      if (a.supports(p)) return p;
  }
  return make_error(Errc::unsupported, "'" + a.id + "' has no suitable precision for " +
                                           std::string(workload::to_string(task)) + "; it has: " +
                                           detail::precision_list(a));
}

Result<Evaluator> Evaluator::make(const Request& req) {
  ROOFTOP_TRY(check_request(req));
  auto s = std::make_shared<Setup>();
  s->a = req.accelerator;
  s->w = req.workload;
  s->req = req;
  s->task = req.task;
  const catalog::Accelerator& a = *req.accelerator;
  const workload::Workload& w = *req.workload;
  if (req.precision) {
    s->p = *req.precision;
  } else if (req.weight_precision && is_integer(*req.weight_precision) && (a.supports(Precision::fp16) || a.supports(Precision::bf16))) {
    // Weight-only quantization ("int4 weights", w4) keeps 16-bit activations.
    s->p = a.supports(Precision::fp16) ? Precision::fp16 : Precision::bf16;
  } else {
    Result<Precision> p = default_precision(a, req.task);
    if (!p) return make_error(p.error());
    s->p = *p;
  }
  ROOFTOP_TRY(detail::check_device(a, s->p));
  if (s->task == Task::train && (is_integer(s->p) || s->p == Precision::fp4)) {
    return make_error(Errc::unsupported, "training in " + std::string(to_string(s->p)) +
                                             " is not modelled; use bf16, fp16, fp8 or fp32", "--precision");
  }
  s->mix = s->p;
  s->mix.weights = req.weight_precision.value_or(s->p);
  // The KV cache keeps the model's 16-bit type unless named (fp8-kv): the
  // default of vLLM (--kv-cache-dtype auto) and TensorRT-LLM (no
  // kv_cache_quant_algo), whichever format the weights and math use.
  const Precision kv16 = a.supports(Precision::fp16) || !a.supports(Precision::bf16) ? Precision::fp16 : Precision::bf16;
  const bool has_kv = s->task == Task::infer && w.kv_elems_per_token > 0;
  s->mix.kv = req.kv_precision.value_or(has_kv && bytes_per_element(s->p) < 2 ? kv16 : s->p);
  if (s->task == Task::train && !s->mix.uniform())
    return make_error(Errc::unsupported, "training with " + to_string(s->mix) + " is not modelled; give one precision",
                      "--precision");
  // fp8 training is the Transformer Engine recipe: matrix multiplies and
  // convolutions run in fp8; weights, activations, gradients, attention and
  // every collective stay at 16 bits, beside fp32 master weights
  // (docs/model.md#fp8-training).
  if (s->task == Task::train && s->p == Precision::fp8) {
    if (!a.supports(Precision::bf16) && !a.supports(Precision::fp16))
      return make_error(Errc::unsupported,
                        "fp8 training keeps its tensors at 16 bits, and '" + a.id + "' has no bf16 or fp16 peak in the catalog",
                        "--precision");
    const Precision t16 = a.supports(Precision::bf16) ? Precision::bf16 : Precision::fp16;
    s->mix = t16;
    s->mix.gemm = Precision::fp8;
  }
  // Deep-learning accelerators beside the GPU (Jetson DLAs) run CNN layers
  // only: other workloads get the GPU's own int8 peak (docs/model.md#precision).
  if (auto gpu = without_unusable_units(a, s->p, w.family)) {
    s->gpu_only = std::move(*gpu);
    s->a = &s->gpu_only;
  }
  s->e = efficiency_for(a);
  if (s->task == Task::train) {
    // Training operators come from the training workload (train_forward:
    // one sequence of the training length), never from the inference phases.
    s->ops = workload::training_ops(w);
    s->trainable = trainable_params(w);
    s->expert_params = expert_params(w);
    for (const Operator& op : s->ops)
      if (op.phase == Phase::backward && (op.kind == OpKind::matmul || op.kind == OpKind::conv) && op.weight_elems > 0 &&
          !op.adapter_only)
        s->backward_second_kernels += op.repeat;
    for (const Operator& op : s->ops) {
      if (op.phase != Phase::forward) continue;
      s->batch_norms = s->batch_norms || op.batch_statistics;
      if (op.kind == OpKind::norm) s->boundary_elems = std::max(s->boundary_elems, op.out_elems);
      if (op.name.find("moe.router") != std::string::npos) s->moe_layers += op.repeat;
      if (w.family == workload::Family::recsys && op.kind == OpKind::embedding) s->table_out_elems += op.out_elems * op.repeat;
    }
    if (s->boundary_elems == 0)
      for (const Operator& op : s->ops)
        if (op.phase == Phase::forward) s->boundary_elems = std::max(s->boundary_elems, op.out_elems);
  } else {
    s->ops = w.ops;
    if (w.family == workload::Family::recsys)
      for (const Operator& op : w.ops)
        if (op.kind == OpKind::embedding && op.phase == Phase::forward) s->table_out_elems += op.out_elems * op.repeat;
    s->llm = std::any_of(w.ops.begin(), w.ops.end(), [](const Operator& op) { return op.phase == Phase::decode; });
    s->out_tokens = std::max(1, w.output_tokens);
  }
  s->fabric = detail::fabric_for(a, s->e);
  Evaluator ev;
  ev.s_ = std::move(s);
  return ev;
}

Precision Evaluator::precision() const { return s_->p; }
Memory Evaluator::memory(const Plan& plan) const { return plan_memory(*s_, plan); }
int Evaluator::scale_up_domain() const { return s_->fabric ? s_->fabric->domain : 0; }
Evaluator::Quick Evaluator::quick(const Plan& plan) const {
  Quick q;
  const Setup& s = *s_;
  if (!check_plan(s, plan, s.req.count)) return q;
  const bool needs_link = plan.tp > 1 || plan.pp > 1 || (s.task == Task::train && plan.dp > 1);
  if (needs_link && !s.fabric) return q;
  Memory m = plan_memory(s, plan);
  q.memory_bytes = m.required_bytes;
  if (!m.fits) return q;
  Outcome o = outcome(s, plan, nullptr);
  q.fits = true;
  q.latency_s = o.latency_s;
  q.throughput = o.throughput;
  q.eval_stage_s = o.eval_stage_s;
  return q;
}
int Evaluator::max_micro_batch(const Plan& plan) const { return static_cast<int>(max_batch(*s_, plan)); }

Result<Prediction> Evaluator::run(const Plan& plan) const {
  const Setup& s = *s_;
  const catalog::Accelerator& a = *s.a;
  const workload::Workload& w = *s.w;
  ROOFTOP_TRY(check_plan(s, plan, s.req.count));
  const bool needs_link = plan.tp > 1 || plan.pp > 1 || (s.task == Task::train && plan.dp > 1);
  if (needs_link && !s.fabric) return make_error(s.fabric.error());

  Prediction out;
  out.accelerator = a.id;
  out.model = w.id;
  out.count = s.req.count;
  out.task = s.task;
  out.precision = s.p;
  out.precisions = s.mix;
  out.batch = plan.mb;
  out.plan = plan;
  out.parallelism = {plan.dp, plan.tp, plan.pp, plan.ep};
  out.memory = plan_memory(s, plan);
  if (!out.memory.fits) return does_not_fit(s, plan, s.req.count);

  Outcome o = outcome(s, plan, s.req.detail ? &out.per_op : nullptr);
  out.throughput = o.throughput;
  out.samples_per_s = o.samples_per_s;
  out.throughput_unit = s.task == Task::train && w.throughput_unit != "tokens/s" ? "samples/s" : w.throughput_unit;
  out.latency_s = o.latency_s;
  out.ttft_s = o.ttft_s;
  out.tpot_s = o.tpot_s;
  out.bubble_fraction = o.bubble;
  out.eval_stage_s = o.eval_stage_s;
  const Sums& sm = o.sums;
  double top = std::max({sm.compute_s, sm.memory_s, sm.overhead_s, sm.comm_s});
  out.bound = top == sm.compute_s ? Bound::compute
              : top == sm.memory_s ? Bound::memory
              : top == sm.comm_s   ? Bound::communication
                                   : Bound::overhead;
  double total = 0;
  for (const OpPrediction& op : out.per_op) total += op.time_s;
  for (OpPrediction& op : out.per_op) op.share = total > 0 ? op.time_s / total : 0;

  if (needs_link) {
    const detail::Fabric& f = *s.fabric;
    Communication& c = out.communication;
    c = o.comm;
    c.link = f.up.name;
    // Does any group leave its scale-up domain?
    const bool out_tp = detail::ranks_per_domain(plan.tp, 1, f) < plan.tp;
    const bool out_dp = s.task == Task::train && detail::ranks_per_domain(plan.dp, plan.tp, f) < plan.dp;
    const bool out_pp = detail::ranks_per_domain(plan.pp, plan.tp * plan.dp, f) < plan.pp;
    if (out_tp || out_dp || out_pp) {
      c.scale_out = f.out_name.empty() ? f.up.name + " (no scale-out network in the catalog)" : f.out_name;
      c.link += " + " + c.scale_out;
    }
    const bool dp_main = s.task == Task::train && plan.dp > 1;
    const int n = dp_main ? plan.dp : plan.tp > 1 ? plan.tp : plan.pp;
    const int stride = dp_main ? plan.tp : plan.tp > 1 ? 1 : plan.tp * plan.dp;
    double probe = c.bytes > 0 ? c.bytes : 1 << 20;  // eta of the main payload, or of 1 MiB
    double t = detail::collective_s(detail::Collective::all_reduce, probe, n, stride, f);
    c.eta = bandwidth_utilisation(n, allreduce_busbw(probe, n, t), f.up.peak_bytes_per_s);
  }

  auto say = [&](std::string name, std::string value, std::string source) {
    out.assumptions.push_back({std::move(name), std::move(value), std::move(source)});
  };
  say("compute_efficiency", plain(s.e.compute), s.e.source);
  say("memory_efficiency", plain(s.e.memory), s.e.source);
  say("op_overhead_s", plain(s.e.op_overhead_s), s.e.source);
  say("usable_memory_fraction", plain(kUsableMemoryFraction), "docs/model.md#memory (vLLM gpu_memory_utilization default)");
  say("plan", to_string(plan), "docs/model.md#plans");
  if (!s.req.precision) say("precision", std::string(to_string(s.p)), "docs/model.md#precision (default for the task)");
  if (s.mix.gemm)
    say("precisions", to_string(s.mix) + " (weights, activations, gradients, attention and collectives), fp32 master weights",
        "docs/model.md#fp8-training (NVIDIA Transformer Engine: fp8 GEMMs in Linear layers only)");
  else if (!s.mix.uniform())
    say("precisions", to_string(s.mix), "docs/model.md#precision (compute peak at the activation precision)");
  if (s.a == &s.gpu_only)
    say("dla", "not used: the " + plain(*a.dla_int8_ops.value / 1e12) + " int8 TOPS of the DLAs run CNN layers only",
        "docs/model.md#precision; " + a.id + " catalog entry (compute.dla_int8)");
  for (Assumption& x : op_efficiency_assumptions(a, s.e, s.req.task == Task::train)) out.assumptions.push_back(std::move(x));
  if (s.batch_norms && s.e.batch_norm_reread)
    say("batch_norm",
        "two passes over the input in training (statistics, then normalization), the second from memory " +
            (a.sram_bytes.known() ? "unless the input fits the " + iec_bytes(*a.sram_bytes.value) + " last-level cache"
                                  : std::string("(the catalog gives no last-level cache size)")),
        "docs/model.md#batch-norm (PyTorch's two batch norm kernels)");
  if (s.req.scenario == Scenario::server && s.task == Task::infer) {
    say("latency_target_s", s.llm ? "tpot " + plain(s.req.latency_target_s.value_or(kLlmTpotS)) + ", ttft " + plain(kLlmTtftS)
                                  : plain(s.req.latency_target_s.value_or(kServerLatencyS)),
        "docs/model.md#batch (MLPerf llama2-70b server bounds for LLMs)");
  }
  if (s.task == Task::infer)
    say("fusion",
        s.llm ? "elementwise ops fused into their producer, except a gated FFN's activation x gate (its own kernel)"
              : "elementwise ops fused into their producer; CNN batch norm folded into the conv",
        "docs/model.md#fusion");
  if (s.llm) say("llm_batching", "continuous: tokens/s = data x B x O / (prefill(B) + (O - 1) x decode_step(B))", "docs/model.md#llm");
  if (s.llm)
    say("kv_cache",
        s.w->kv_slot_tokens > 0
            ? "static: a slot of " + plain(s.w->kv_slot_tokens) + " tokens per sequence, read whole at every decode step"
            : "paged: each sequence holds its live context, on average I + O/2 tokens",
        s.w->kv_slot_tokens > 0 ? "docs/model.md#static-kv" : "docs/model.md#llm");
  if (needs_link) {
    const detail::Fabric& f = *s.fabric;
    say("link", f.up.name + " " + plain(f.up.peak_bytes_per_s / 1e9) + " GB/s per direction", a.id + " catalog entry");
    if (f.domain > 0) say("scale_up_domain", std::to_string(f.domain) + " devices", a.id + " catalog entry");
    if (!f.out_name.empty())
      say("scale_out", f.out_name + " " + plain(f.out_bytes_per_s / 1e9) + " GB/s per device per direction", a.id + " catalog entry");
    say("link_efficiency", plain(s.e.link), s.e.source);
    say("link_latency_s", plain(f.up_latency_s), "docs/model.md#collectives (NCCL tuning.cc Ring/LL)");
  }
  if (s.req.count > plan.devices())
    say("idle_devices", std::to_string(s.req.count - plan.devices()), "count is not a multiple of the tensor-parallel degree");
  if (s.task == Task::train) {
    const bool adagrad = w.optimizer == workload::Optimizer::adagrad;
    say("optimizer", std::string(workload::to_string(w.optimizer)) + ", mixed precision: weights + grads in " +
                         std::string(to_string(s.mix.compute)) + (adagrad ? ", fp32 master + accumulator" : ", fp32 master + m + v"),
        "docs/model.md#memory");
    say("pipeline_schedule", plan.pp > 1 ? (plan.vp > 1 ? "interleaved 1F1B, bubble " : "1F1B, bubble ") + plain(out.bubble_fraction) : "none",
        "docs/model.md#pipeline (Narayanan et al. SC'21)");
    say("straggler_factor", plain(straggler_factor(plan.devices(), s.req.straggler_cv)), "docs/model.md#stragglers (Blom)");
  }
  if (!w.unsupported_ops.empty()) say("unsupported_ops", std::to_string(w.unsupported_ops.size()) + " ops not costed", w.id);
  return out;
}

Result<Prediction> evaluate(const Request& req, const Plan& plan) {
  Result<Evaluator> ev = Evaluator::make(req);
  if (!ev) return make_error(ev.error());
  return ev->run(plan);
}

Result<Prediction> predict(const Request& req) {
  Result<Evaluator> made = Evaluator::make(req);
  if (!made) return make_error(made.error());
  const Evaluator& ev = *made;
  const Setup& s = *ev.s_;
  const workload::Workload& w = *s.w;
  const int count = req.count;
  PlanSpec spec = req.plan;
  if (req.batch) {
    if (spec.mb && *spec.mb != *req.batch)
      return bad_plan("mb=" + std::to_string(*spec.mb) + " disagrees with --batch " + std::to_string(*req.batch));
    spec.mb = req.batch;
  }
  if (!spec.ga && req.grad_accumulation != 1) spec.ga = req.grad_accumulation;
  if (req.global_batch && *req.global_batch < 1)
    return make_error(Errc::invalid_input, "global batch must be at least 1", "--global-batch");
  const int gb = s.task == Task::train && req.global_batch ? *req.global_batch : 0;  // 0: free
  // The fixed keys must fit the device count.
  const int fixed_model = spec.tp.value_or(1) * spec.pp.value_or(1);
  if (count % fixed_model != 0)
    return bad_plan("tp x pp = " + std::to_string(fixed_model) + " does not divide --count " + std::to_string(count));
  if (spec.dp && *spec.dp * fixed_model != count && (spec.tp || s.task == Task::train))
    return bad_plan("dp=" + std::to_string(*spec.dp) + " x tp x pp = " + std::to_string(*spec.dp * fixed_model) +
                    " is not --count " + std::to_string(count));
  if (spec.tp && w.heads > 0 && (*spec.tp > w.heads || w.heads % *spec.tp != 0))
    return bad_plan("tp=" + std::to_string(*spec.tp) + " does not divide the " + std::to_string(w.heads) +
                    " attention heads of '" + w.id + "'");

  auto base = [&](int tp, int pp) {
    Plan p;
    p.tp = tp;
    p.pp = pp;
    p.dp = spec.dp.value_or(count / (tp * pp));
    p.ep = spec.ep.value_or(1);
    p.vp = spec.vp.value_or(1);
    p.ga = spec.ga.value_or(1);
    p.zero = spec.zero.value_or(0);
    p.recompute = spec.recompute.value_or(Recompute::none);
    p.sp = spec.sp.value_or(s.task == Task::train && tp > 1);
    p.mb = spec.mb.value_or(1);
    return p;
  };
  const int domain = s.fabric ? s.fabric->domain : 0;

  if (s.task == Task::infer) {
    // Every power-of-two tensor-parallel degree (or `count`) at which the
    // batch fits, each at its own batch: tensor parallel also buys KV-cache
    // room, so it can win even when one device holds the weights. The
    // smallest degree within 1 % of the best throughput wins.
    auto planned = [&](int t) {
      Plan p = base(t, spec.pp.value_or(1));
      if (!spec.dp) p.dp = count / (t * p.pp);
      return p;
    };
    std::vector<int> tps;
    if (spec.tp) tps.push_back(*spec.tp);
    else {
      for (int t = 1; t <= count; t *= 2)
        if (count % t == 0 && (w.heads == 0 || w.heads % t == 0)) tps.push_back(t);
      if (tps.empty() || tps.back() != count) tps.push_back(count);
    }
    std::vector<Found> found;
    for (int t : tps) {
      Plan p = planned(t);
      // A degree the catalog cannot link (no fabric) is tried only when it is the one way to fit.
      if (!spec.tp && (!check_plan(s, p, count) || !plan_memory(s, p).fits || (t > 1 && !s.fabric && !found.empty())))
        continue;
      if (!spec.mb) {
        ROOFTOP_TRY(check_plan(s, p, count));
        const double limit = max_batch(s, p);
        if (limit < 1) continue;
        p.mb = static_cast<int>(choose_batch(s, p, limit));
      }
      found.push_back({p, outcome(s, p, nullptr).throughput});
      // Single-stream (one request at a time) or a batch the request fixes
      // (no room to buy): the smallest degree that fits.
      if (s.req.scenario == Scenario::single_stream || spec.mb) break;
    }
    if (found.empty()) {
      // The widest degree the model allows (a tensor-parallel rank holds at
      // least one attention head), not `count` itself.
      int widest = 1;
      for (int t : tps)
        if (check_plan(s, planned(t), count)) widest = std::max(widest, t);
      Plan p = planned(spec.tp.value_or(widest));
      if (spec.tp) ROOFTOP_TRY(check_plan(s, p, count));
      else p.dp = 1;
      return does_not_fit(s, p, count);
    }
    return ev.run(near_best(found).plan);
  }

  // Training: every divisor split (tensor parallel inside the scale-up
  // domain and dividing the heads; pipeline stages of whole layers, or a
  // power of two), ZeRO stage and recompute the spec leaves open, the
  // micro-batch per split; the simplest plan within 1 % of the best
  // throughput wins.
  std::vector<int> tps = spec.tp ? std::vector<int>{*spec.tp} : divisors_up_to(count, domain > 0 ? domain : count);
  std::vector<int> zeros = spec.zero ? std::vector<int>{*spec.zero} : std::vector<int>{0, 1, 2, 3};
  const bool shape = w.layers > 0 && w.heads > 0;
  std::vector<Recompute> rcs = spec.recompute ? std::vector<Recompute>{*spec.recompute}
                               : shape        ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
                                              : std::vector<Recompute>{Recompute::none};
  // The model splits (tensor, pipeline, interleaving, expert), in the order
  // the simplest-plan rule prefers; ZeRO and recompute vary over each.
  std::vector<Plan> splits;
  for (int tp : tps) {
    if (w.heads > 0 && (tp > w.heads || w.heads % tp != 0)) continue;
    std::vector<int> pps = spec.pp ? std::vector<int>{*spec.pp} : pipeline_degrees(count / tp, w.layers);
    for (int pp : pps) {
      if (count % (tp * pp) != 0) continue;
      for (int vp : interleave_degrees(w, pp, spec.vp)) {
        Plan dense = base(tp, pp);
        dense.vp = vp;
        // Mixture of experts: every expert-parallel degree dividing dp and the experts (1 first).
        for (int ep : expert_degrees(w, dense.dp, spec.ep)) {
          splits.push_back(dense);
          splits.back().ep = ep;
        }
      }
    }
  }
  std::vector<Found> found;
  Plan smallest_miss;
  bool any_valid = false;
  auto add = [&](const Plan& p) { found.push_back({p, outcome(s, p, nullptr).throughput}); };
  for (int zero : zeros) {
    for (Recompute rc : rcs) {
      for (Plan p : splits) {
        p.zero = zero;
        p.recompute = rc;
        if (zero > 0 && p.dp == 1 && !spec.zero) continue;  // nothing to shard over
        if (!check_plan(s, p, count)) continue;
        any_valid = true;
        smallest_miss = p;
        if (gb > 0) {
          // The global batch fixes mb x ga per data-parallel rank.
          if (gb % p.dp != 0) continue;
          const int per_rank = gb / p.dp;
          // Every divisor of the per-rank batch, the smallest first (the
          // simplest), except for batch norms: gradient accumulation would
          // shrink the batch their statistics see, so the largest first.
          for (int i = 1; i <= per_rank; ++i) {
            const int mb = s.batch_norms ? per_rank + 1 - i : i;
            if (per_rank % mb != 0 || (spec.mb && mb != *spec.mb)) continue;
            if (spec.ga && per_rank / mb != *spec.ga) continue;
            if (!spec.vp && !interleavable(p.vp, p.pp, per_rank / mb)) continue;
            p.mb = mb;
            p.ga = per_rank / mb;
            if (!plan_memory(s, p).fits) {
              if (s.batch_norms) continue;  // smaller micro-batches may still fit
              break;
            }
            add(p);
          }
          continue;
        }
        if (!spec.vp && !interleavable(p.vp, p.pp, p.ga)) continue;
        if (spec.mb) {
          if (plan_memory(s, p).fits) add(p);
          continue;
        }
        const double limit = max_batch(s, p);
        if (limit < 1) continue;
        for (double b = 1; b <= limit; b *= 2) {
          p.mb = static_cast<int>(b);
          add(p);
        }
        if (p.mb < limit) {
          p.mb = static_cast<int>(limit);
          add(p);
        }
      }
    }
  }
  if (found.empty()) {
    if (!any_valid) {
      Plan p = base(spec.tp.value_or(1), spec.pp.value_or(1));
      ROOFTOP_TRY(check_plan(s, p, count));
      return bad_plan("no plan of the given keys fits --count " + std::to_string(count));
    }
    smallest_miss.mb = spec.mb.value_or(1);
    if (gb > 0 && plan_memory(s, smallest_miss).fits)
      return make_error(Errc::invalid_input, "no plan splits global batch " + std::to_string(gb) + " evenly over --count " +
                                                 std::to_string(count) + " (dp x mb x ga must equal it)",
                        "--global-batch");
    return does_not_fit(s, smallest_miss, count);
  }
  return ev.run(near_best(found).plan);
}

}  // namespace rooftop::model
