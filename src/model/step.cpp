// The price of one plan: a training step (1F1B pipeline with its bubble,
// tensor-parallel all-reduces, pipeline sends, expert all-to-all, the
// data-parallel gradient sync under ZeRO, recompute, stragglers), an
// inference pass (one forward pass per batch, or LLM prefill + decode under
// continuous batching), and one iteration of the serving scheduler, all from
// the same operator prices and the one tensor all-reduce rule.
// docs/model.md has every formula and its source.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/evaluator.h"
#include "model/serve_sim.h"

namespace rooftop::model::detail {

namespace {

using workload::Operator;
using workload::OpKind;
using workload::Phase;
using workload::Task;

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

// Operators Megatron-style tensor parallelism splits (GEMMs, attention heads
// and their softmax, embedding tables, convolutions); norms, residual adds
// and activations are split only under sequence parallelism.
bool tp_sharded(OpKind k) {
  return k == OpKind::matmul || k == OpKind::attention || k == OpKind::conv || k == OpKind::softmax ||
         k == OpKind::embedding;
}


// One operator of the step on one rank at `batch`. Inference compilers fuse
// elementwise ops (and fold a CNN's batch norm); training stacks fuse the
// elementwise epilogues too (bias + activation, dropout + residual add:
// cuDNN/apex/XLA fusions), but batch norm needs batch statistics and stays a
// kernel of its own (docs/model.md#fusion). Training shards each op by tp
// (sharded kinds, or all under sequence parallel); inference every op. The
// dense optimizer is sharded like the weights (`optimizer_shard`); a sparse
// row-wise one (recommender tables) updates the rows this rank's samples touched.
OpCost step_op_cost(const Setup& s, const Plan& plan, const Operator& op, double batch, double optimizer_shard) {
  const bool fused = s.task == Task::infer ? fused_in_inference(op, s.w->family)
                                           : op.kind == OpKind::elementwise && op.phase != Phase::optimizer;
  double shard = s.task == Task::infer || plan.sp || tp_sharded(op.kind) ? plan.tp : 1;
  if (op.phase == Phase::optimizer) shard = op.kind == OpKind::embedding ? 1 : optimizer_shard;
  return op_cost(op, batch, s.mix, *s.a, s.e, shard, fused);
}

// Roofline of the ops in `in_phase` at `batch` (step_op_cost), times `scale`
// (docs/model.md#parallelism).
Sums eval_ops(const Setup& s, const Plan& plan, bool (*in_phase)(Phase), double batch, double scale,
              std::vector<OpPrediction>* detail, double extra_shard = 1) {
  Sums out;
  for (const Operator& op : s.ops) {
    if (!in_phase(op.phase)) continue;
    OpCost c = step_op_cost(s, plan, op, batch, extra_shard);
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
    if (op.in_layer_stack || op.repeat >= layers) {
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
    OpCost c = op_cost(op, batch, s.mix, *s.a, s.e, plan.tp, false);
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

// The tensor all-reduces of the ops in `in_phase` at `batch`.
double tensor_comm_s(const Setup& s, const Plan& plan, bool (*in_phase)(Phase), double batch) {
  if (plan.tp <= 1 || !s.fabric) return 0;  // no fabric: run() reports it
  TensorAllReduce ar(s, plan.tp);
  for (const Operator& op : s.ops)
    if (in_phase(op.phase)) ar.add(op.kind, op.repeat, op.out_elems * batch);
  return ar.time_s();
}


// Payload of one tensor-parallel all-reduce (the first norm's output).
double tensor_payload_bytes(const Setup& s, double batch) {
  for (const Operator& op : s.ops)
    if (op.kind == OpKind::norm && (s.llm ? op.phase == Phase::decode : true))
      return op.out_elems * batch * residual_bytes_per_element(s.mix.compute);
  return 0;
}

// Data parallel: gradients (trainable x bytes / (tp x pp)) are all-reduced
// once per step (ZeRO-1/2: reduce-scatter + all-gather, the same volume;
// ZeRO-3/FSDP: reduce-scatter, plus a parameter all-gather per micro-batch
// in forward and backward). Mixture of experts: the expert gradients
// (/ ep) sync only over the dp / ep replicas of each expert. The sync
// overlaps the backward pass of the last micro-batch, except its last
// bucket, whose gradients are ready only when the backward pass ends
// (docs/model.md#training); ZeRO-3's gathers overlap the step's compute.
struct DataSync {
  double grad_bytes = 0;      // dense gradients per rank
  double sync_s = 0, gather_s = 0, last_bucket_s = 0;
};
DataSync data_parallel_sync(const Setup& s, const Plan& plan, double bpe) {
  auto coll = [&](Collective c, double bytes, int n, int stride) {
    return n > 1 && s.fabric ? collective_s(c, bytes, n, stride, *s.fabric) : 0.0;
  };
  const double k = plan.ga;
  const int dp_stride = plan.tp;
  const double model_shard = double(plan.tp) * plan.pp, ep = plan.ep;
  const double experts = s.expert_params, trainable_experts = std::min(experts, s.trainable);
  DataSync out;
  out.grad_bytes = (s.trainable - table_params(*s.w) - trainable_experts) * bpe / model_shard;
  const double param_bytes = (s.w->params - experts) * bpe / model_shard;
  const double expert_grad_bytes = trainable_experts * bpe / (model_shard * ep);
  const double expert_param_bytes = experts * bpe / (model_shard * ep);
  struct Sync {
    double sync_s = 0, gather_s = 0;
  };
  auto sync_of = [&](double grads, double params, int n, int stride) {
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
  const Sync dense = sync_of(out.grad_bytes, param_bytes, plan.dp, dp_stride);
  const Sync expert = sync_of(expert_grad_bytes, expert_param_bytes, plan.dp / plan.ep, dp_stride * plan.ep);
  out.sync_s = dense.sync_s + expert.sync_s, out.gather_s = dense.gather_s + expert.gather_s;
  out.last_bucket_s = sync_of(std::min(out.grad_bytes, kGradBucketBytes), 0, plan.dp, dp_stride).sync_s;
  return out;
}

Outcome train_step(const Setup& s, const Plan& plan, std::vector<OpPrediction>* detail) {
  Outcome o;
  const double b = plan.mb, k = plan.ga, pp = plan.pp, vp = plan.vp;
  // A collective over one rank is free; over more it needs the fabric (run() checks it is known).
  auto coll = [&](Collective c, double bytes, int n, int stride) {
    return n > 1 && s.fabric ? collective_s(c, bytes, n, stride, *s.fabric) : 0.0;
  };
  const double bpe = bytes_per_element(s.mix.compute);  // tensors as stored and moved (fp8 training: 16-bit)
  const int pp_stride = plan.tp * plan.dp;
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
      plan.sp ? 0.0 : coll(Collective::all_gather, boundary_all, plan.tp, 1);
  const double pp_mb =
      plan.pp > 1 ? 2 * vp * (coll(Collective::p2p, boundary_all / plan.tp, 2, pp_stride) + regather) : 0;
  // Expert parallel: dispatch and combine all-to-all per MoE layer, forward and backward.
  double ep_mb = 0;
  if (plan.ep > 1 && s.moe_layers > 0) {
    const double tokens = s.w->seq_len > 0 ? s.w->seq_len : 1;
    const double a2a = tokens * std::max(1, s.w->top_k) * s.w->hidden * b * bpe / (plan.sp ? plan.tp : 1);
    ep_mb = 4 * s.moe_layers / pp * coll(Collective::all_to_all, a2a, plan.ep, plan.tp);
  }
  // Recommenders: tables sharded over every device; the pooled embeddings
  // of each micro-batch go to their data-parallel rank by all-to-all, and
  // their gradients come back the same way.
  if (s.table_out_elems > 0 && plan.devices() > 1)
    ep_mb += 2 * coll(Collective::all_to_all, s.table_out_elems * b * bpe, plan.devices(), 1);
  const double stage_s = f_mb + b_mb + r_mb + tp_mb + pp_mb + ep_mb;
  // An evaluation step is the forward half: the forward compute and the
  // forward half of each kind of traffic (tensor all-reduces, the
  // activation send, the dispatch/combine or embedding all-to-all).
  o.eval_stage_s = f_mb + tp_fwd + pp_mb / 2 + ep_mb / 2;
  // 1F1B: k micro-batches plus (pp - 1) / vp stage slots of fill and drain.
  const double bubble_slots = (pp - 1) / vp;
  const double compute_s = (k + bubble_slots) * stage_s + opt.time_s;
  o.bubble = bubble_slots * stage_s / compute_s;
  const DataSync ds = data_parallel_sync(s, plan, bpe);
  o.grad_bytes = ds.grad_bytes;
  const double sync_s = ds.sync_s, gather_s = ds.gather_s, last_bucket_s = ds.last_bucket_s;
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
  const bool tokens = workload::generates_tokens(*s.w);
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
      const double a2a = collective_s(Collective::all_to_all, s.table_out_elems * b * bytes_per_element(s.mix.compute),
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

}  // namespace

void TensorAllReduce::add(OpKind kind, double repeat, double out_elems) {
  if (tp_ <= 1 || !s_.fabric || (kind != OpKind::norm && kind != OpKind::matmul)) return;
  const double one = collective_s(Collective::all_reduce, out_elems * residual_bytes_per_element(s_.mix.compute), tp_, 1, *s_.fabric);
  if (kind == OpKind::norm) any_norm_ = true, norm_s_ += repeat * one;
  else matmul_s_ += 0.5 * repeat * one;
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


// ---- One iteration of the serving scheduler ------------------------------

namespace {

// The operators of one iteration: each layer operator of the prefill pass
// paired with its decode counterpart (same name), so a mixed iteration
// reads the weights once.
struct PairedOp {
  Operator pre, dec;
  bool has_pre = false, has_dec = false;
};

struct Pricing {
  std::shared_ptr<const Setup> s;
  Plan plan;
  double prompt = 1;        // tokens one prefill sample holds (I)
  double prompt_pairs = 1;  // causal pairs of one prompt
  double context = 1;       // context the decode ops were built for (I + O/2)
  std::vector<PairedOp> ops;
  // One operator per paired op, refilled each iteration (no allocation in
  // the loop; a priced IterationTime is used by one thread at a time).
  mutable std::vector<Operator> scratch, scratch_decode;
  // Prices already computed: a one-pass model's by batch; an LLM
  // iteration's weight-bearing operators (and their all-reduces) by its
  // (prefill tokens, decode sequences), which repeat from iteration to
  // iteration (chunked prefill, a steady batch). Exact: the same inputs give
  // the same price; only attention depends on the contexts.
  mutable std::vector<double> by_batch;
  mutable std::unordered_map<std::uint64_t, double> by_shape;
};

// Scales `o` (one sample) by k samples into `m` (totals).
void add_scaled(Operator& m, const Operator& o, double k, double flops_k) {
  if (k <= 0) return;
  m.flops += o.flops * flops_k;
  m.in_elems += o.in_elems * k;
  m.out_elems += o.out_elems * k;
  m.weight_elems_per_sample += o.weight_elems_per_sample * k;
  m.weight_elems = std::max(m.weight_elems, o.weight_elems);
}

// A model without a decode phase: an iteration is one inference pass of
// the admitted samples as one batch, priced exactly as outcome() prices it.
double price_batch(const Pricing& pr, double batch) {
  if (batch <= 0) return 0;
  const std::size_t b = static_cast<std::size_t>(std::ceil(batch));
  if (b < pr.by_batch.size() && pr.by_batch[b] >= 0) return pr.by_batch[b];
  Plan p = pr.plan;
  p.mb = static_cast<int>(b);
  const double t = outcome(*pr.s, p, nullptr).latency_s;
  if (b < (1u << 20)) {
    if (b >= pr.by_batch.size()) pr.by_batch.resize(b + 1, -1);
    pr.by_batch[b] = t;
  }
  return t;
}

double price_iteration(const Pricing& pr, const Iteration& it) {
  const Setup& s = *pr.s;
  const double pre_k = it.prefill_tokens / pr.prompt;     // prompt-samples of prefill
  const double dec_k = it.decode_seqs;                    // decode samples
  const double tokens = it.prefill_tokens + it.decode_seqs;
  if (tokens <= 0) return 0;
  // Priced per token at `n` tokens (the GEMM's M), from totals in `m`.
  auto price = [&](Operator& m, double n) {
    m.flops /= n, m.in_elems /= n, m.out_elems /= n, m.weight_elems_per_sample /= n;
    return step_op_cost(s, pr.plan, m, n, 1).time_s;
  };
  double total = 0;
  // Attention: prefill and decode are kernels of their own (flash attention
  // over the chunk; paged attention over each sequence's cache, read at the
  // KV precision), with no weights to share.
  for (std::size_t i = 0; i < pr.ops.size(); ++i) {
    const PairedOp& po = pr.ops[i];
    if ((po.has_pre ? po.pre : po.dec).kind != OpKind::attention) continue;
    if (po.has_pre && pre_k > 0) {
      Operator& m = pr.scratch[i];
      m.flops = m.in_elems = m.out_elems = m.weight_elems = m.weight_elems_per_sample = 0;
      m.phase = Phase::prefill;
      add_scaled(m, po.pre, pre_k, it.prefill_pairs / pr.prompt_pairs);  // grows with the causal pairs
      total += price(m, it.prefill_tokens);
    }
    if (po.has_dec && dec_k > 0) {
      // Per sequence: its query (out_elems) and the cached K and V of its
      // context (in - out, built for the mean context).
      Operator& d = pr.scratch_decode[i];
      const double ctx_k = it.decode_context / pr.context;
      d.phase = Phase::decode;
      d.flops = po.dec.flops * ctx_k;
      d.in_elems = po.dec.out_elems * dec_k + (po.dec.in_elems - po.dec.out_elems) * ctx_k;
      d.out_elems = po.dec.out_elems * dec_k;
      d.weight_elems = po.dec.weight_elems, d.weight_elems_per_sample = po.dec.weight_elems_per_sample * dec_k;
      total += price(d, dec_k);
    }
  }
  // Projections, MLPs, norms: one kernel over every token of the iteration,
  // reading the weights once; a function of the two token counts alone.
  const double pre_tokens = std::round(it.prefill_tokens);
  const bool keyed = pre_tokens == it.prefill_tokens && pre_tokens < (1u << 31);
  const std::uint64_t key = keyed ? (static_cast<std::uint64_t>(pre_tokens) << 32) | static_cast<std::uint32_t>(it.decode_seqs) : 0;
  if (keyed) {
    auto hit = pr.by_shape.find(key);
    if (hit != pr.by_shape.end()) return total + hit->second;
  }
  double rest = 0;
  TensorAllReduce ar(s, pr.plan.tp);
  for (std::size_t i = 0; i < pr.ops.size(); ++i) {
    const PairedOp& po = pr.ops[i];
    if ((po.has_pre ? po.pre : po.dec).kind == OpKind::attention) continue;
    Operator& m = pr.scratch[i];
    m.flops = m.in_elems = m.out_elems = m.weight_elems = m.weight_elems_per_sample = 0;
    m.phase = it.prefill_tokens > 0 ? Phase::prefill : Phase::decode;
    if (po.has_pre) add_scaled(m, po.pre, pre_k, pre_k);
    if (po.has_dec) add_scaled(m, po.dec, dec_k, dec_k);
    if (m.flops == 0 && m.in_elems == 0 && m.out_elems == 0) continue;
    ar.add(m.kind, m.repeat, m.out_elems);
    rest += price(m, tokens);
  }
  rest += ar.time_s();
  if (keyed) pr.by_shape.emplace(key, rest);
  return total + rest;
}

}  // namespace

IterationTime iteration_time(std::shared_ptr<const Setup> s, const Plan& plan) {
  auto pr = std::make_shared<Pricing>();
  const workload::Workload& w = *s->w;
  pr->plan = plan;
  pr->prompt = std::max(1, w.input_tokens);
  pr->prompt_pairs = pr->prompt * (pr->prompt + 1) / 2;
  pr->context = w.input_tokens + w.output_tokens / 2.0;
  const bool llm = s->llm;
  // The server scheduler's loss a stack's calibration fitted (batching
  // gaps, host work between iterations): every iteration costs 1 / factor.
  const double serving = 1 / s->e.class_factor[static_cast<std::size_t>(OpClass::serving)];
  pr->s = std::move(s);
  if (!llm) return IterationTime([pr, serving](const Iteration& it) { return serving * price_batch(*pr, it.prefill_tokens); });
  for (const Operator& op : pr->s->ops) {
    if (op.phase != Phase::prefill && op.phase != Phase::decode) continue;
    auto it = std::find_if(pr->ops.begin(), pr->ops.end(), [&](const PairedOp& x) {
      return (op.phase == Phase::prefill ? !x.has_pre : !x.has_dec) && (x.has_pre ? x.pre : x.dec).name == op.name &&
             (x.has_pre ? x.pre : x.dec).kind == op.kind;
    });
    if (it == pr->ops.end()) it = pr->ops.insert(pr->ops.end(), PairedOp{});
    (op.phase == Phase::prefill ? it->pre : it->dec) = op;
    (op.phase == Phase::prefill ? it->has_pre : it->has_dec) = true;
    if (it - pr->ops.begin() >= static_cast<std::ptrdiff_t>(pr->scratch.size()))
      pr->scratch.push_back(op), pr->scratch_decode.push_back(op);
  }
  return IterationTime([pr, serving](const Iteration& it) { return serving * price_iteration(*pr, it); });
}

}  // namespace rooftop::model::detail
