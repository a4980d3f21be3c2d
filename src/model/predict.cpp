// predict(): composes per-operator rooflines into a prediction for one
// configuration. Inference: one forward pass per batch, or for LLMs prefill
// plus decode under continuous batching. Training: forward + backward per
// micro-batch, the optimizer per step, the ring all-reduce of gradients and
// the straggler penalty. Parallelism: data parallel unless one device cannot
// hold the model, then tensor parallel with per-layer all-reduces. The batch
// is chosen per scenario when the request names none. docs/model.md has
// every formula and its source.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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
constexpr double kNearBest = 0.99;        // offline: smallest batch within 1 % of the best throughput
constexpr double kMaxBatch = 65536;

bool is_inference(Phase p) { return p == Phase::forward || p == Phase::prefill; }
bool is_prefill(Phase p) { return p == Phase::prefill; }
bool is_decode(Phase p) { return p == Phase::decode; }
bool is_forward(Phase p) { return p == Phase::forward; }
bool is_backward(Phase p) { return p == Phase::backward; }
bool is_optimizer(Phase p) { return p == Phase::optimizer; }

struct Sums {
  double time_s = 0, compute_s = 0, memory_s = 0, overhead_s = 0, comm_s = 0;
  void add(const Sums& o) {
    time_s += o.time_s, compute_s += o.compute_s, memory_s += o.memory_s;
    overhead_s += o.overhead_s, comm_s += o.comm_s;
  }
};

// What stays fixed while the batch is searched.
struct Plan {
  const catalog::Accelerator* a = nullptr;
  const workload::Workload* w = nullptr;
  const std::vector<Operator>* ops = nullptr;
  Precision p = Precision::fp16;
  Task task = Task::infer;
  Efficiency e;
  bool llm = false;
  double out_tokens = 1;
  int tensor = 1, data = 1;
  detail::LinkChoice link;
  double tensor_bytes_per_s = 0;  // ring bandwidth inside a tensor-parallel group
  double data_bytes_per_s = 0;    // ring bandwidth across data-parallel replicas
};

// Megatron-style tensor parallelism all-reduces the residual stream twice per
// transformer layer, right before each norm: one all-reduce per norm op of
// its output. Without norm ops, half of the matmuls' outputs (the
// row-parallel ones).
double tensor_comm_s(const Plan& pl, bool (*in_phase)(Phase), double batch) {
  if (pl.tensor <= 1) return 0;
  const double bpe = bytes_per_element(pl.p);
  double norm_s = 0, matmul_s = 0;
  bool any_norm = false;
  for (const Operator& op : *pl.ops) {
    if (!in_phase(op.phase)) continue;
    double one =
        ring_allreduce_s(op.out_elems * batch * bpe, pl.tensor, pl.tensor_bytes_per_s, pl.e.link_latency_s);
    if (op.kind == OpKind::norm) any_norm = true, norm_s += op.repeat * one;
    if (op.kind == OpKind::matmul) matmul_s += 0.5 * op.repeat * one;
  }
  return any_norm ? norm_s : matmul_s;
}

// Payload of one tensor-parallel all-reduce (the first norm's output).
double tensor_payload_bytes(const Plan& pl, double batch) {
  for (const Operator& op : *pl.ops)
    if (op.kind == OpKind::norm && (pl.llm ? op.phase == Phase::decode : true))
      return op.out_elems * batch * bytes_per_element(pl.p);
  return 0;
}

Sums eval(const Plan& pl, bool (*in_phase)(Phase), double batch, double scale, std::vector<OpPrediction>* detail) {
  Sums s;
  for (const Operator& op : *pl.ops) {
    if (!in_phase(op.phase)) continue;
    const bool fused = pl.task == Task::infer && detail::fused_in_inference(op, pl.w->family);
    detail::OpCost c = detail::op_cost(op, batch, pl.p, *pl.a, pl.e, pl.tensor, fused);
    double t = c.time_s * scale;
    s.time_s += t;
    (c.bound == Bound::compute ? s.compute_s : c.bound == Bound::memory ? s.memory_s : s.overhead_s) += t;
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
  s.comm_s = tensor_comm_s(pl, in_phase, batch) * scale;
  s.time_s += s.comm_s;
  return s;
}

struct Outcome {
  double throughput = 0, latency_s = 0, ttft_s = 0, tpot_s = 0;
  double grad_bytes = 0, grad_allreduce_s = 0, exposed_s = 0;
  Sums sums;
};

Outcome evaluate(const Plan& pl, const Request& req, double b, std::vector<OpPrediction>* detail) {
  Outcome o;
  if (pl.task == Task::train) {
    // Gradients are all-reduced in buckets while the backward pass of the
    // last micro-batch runs (PyTorch DDP, Li et al. VLDB 2020): only the part
    // longer than that backward pass is exposed.
    const double k = req.grad_accumulation;
    Sums fwd = eval(pl, is_forward, b, k, detail);
    Sums bwd = eval(pl, is_backward, b, k, detail);
    Sums opt = eval(pl, is_optimizer, 1, 1, detail);
    o.sums = fwd;
    o.sums.add(bwd);
    o.sums.add(opt);
    o.grad_bytes = pl.w->params * bytes_per_element(pl.p) / pl.tensor;
    o.grad_allreduce_s = ring_allreduce_s(o.grad_bytes, pl.data, pl.data_bytes_per_s, pl.e.link_latency_s);
    o.exposed_s = std::max(0.0, o.grad_allreduce_s - bwd.time_s / k);
    o.sums.comm_s += o.exposed_s;
    o.latency_s = o.sums.time_s * straggler_factor(pl.data, req.straggler_cv) + o.exposed_s;
    double samples_per_s = pl.data * b * k / o.latency_s;
    bool tokens = pl.w->throughput_unit == "tokens/s";
    double tokens_per_sample = pl.w->seq_len > 0 ? pl.w->seq_len : pl.w->input_tokens;
    o.throughput = tokens && tokens_per_sample > 0 ? samples_per_s * tokens_per_sample : samples_per_s;
  } else if (pl.llm) {
    // The first output token comes out of the prefill; the other O - 1 from decode steps.
    const double n_out = pl.out_tokens, steps = n_out - 1;
    Sums pre = eval(pl, is_prefill, b, 1, detail);
    Sums dec = eval(pl, is_decode, b, std::max(1.0, steps), detail);
    o.sums = pre;
    o.sums.add(dec);
    const double step_s = dec.time_s / std::max(1.0, steps);
    const double cycle_s = pre.time_s + steps * step_s;  // B sequences from prompt to last token
    const double prefill_one_s = b == 1 ? pre.time_s : eval(pl, is_prefill, 1, 1, nullptr).time_s;
    o.throughput = pl.data * b * n_out / cycle_s;
    o.tpot_s = b == 1 ? step_s : cycle_s / n_out;
    o.ttft_s = prefill_one_s + (b == 1 ? 0 : step_s);
    o.latency_s = o.ttft_s + (n_out - 1) * o.tpot_s;
  } else {
    o.sums = eval(pl, is_inference, b, 1, detail);
    o.latency_s = o.sums.time_s;
    o.throughput = pl.data * b / o.latency_s;
  }
  return o;
}

// Largest per-device batch the memory allows (0 when not even one sample fits).
double max_batch(const Plan& pl) {
  double fixed = 0, per_sample = 0;
  detail::footprint_parts(*pl.w, pl.task, pl.p, pl.tensor, fixed, per_sample);
  double usable = pl.a->memory_bytes.or_else(0) * detail::kUsableMemoryFraction;
  if (fixed + per_sample > usable) return 0;
  if (per_sample <= 0) return kMaxBatch;
  return std::min(kMaxBatch, std::floor((usable - fixed) / per_sample));
}

bool within_target(const Plan& pl, const Request& req, const Outcome& o) {
  if (pl.llm) {
    double tpot = req.latency_target_s.value_or(kLlmTpotS);
    return o.tpot_s <= tpot && o.ttft_s <= std::max(kLlmTtftS, tpot);
  }
  return o.latency_s <= req.latency_target_s.value_or(kServerLatencyS);
}

// The batch for a request without --batch, per scenario (docs/model.md#batch).
double choose_batch(const Plan& pl, const Request& req, double limit) {
  if (req.scenario == Scenario::single_stream && pl.task == Task::infer) return 1;
  std::vector<double> candidates;
  for (double b = 1; b <= limit; b *= 2) candidates.push_back(b);
  if (candidates.back() < limit) candidates.push_back(limit);
  if (req.scenario == Scenario::server && pl.task == Task::infer) {
    double best = 1;
    for (double b : candidates)
      if (within_target(pl, req, evaluate(pl, req, b, nullptr))) best = b;
    return best;
  }
  std::vector<double> tput;
  double best = 0;
  for (double b : candidates) {
    tput.push_back(evaluate(pl, req, b, nullptr).throughput);
    best = std::max(best, tput.back());
  }
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (tput[i] >= kNearBest * best) return candidates[i];
  return candidates.back();
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string gib(double bytes) { return num(bytes / (1024.0 * 1024 * 1024)) + " GiB"; }

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

// The smallest tensor-parallel degree (a power of two, or `count`) at which
// `batch` samples fit; 0 when none up to `count` does.
int choose_tensor(const Plan& pl, int count, double batch) {
  double usable = pl.a->memory_bytes.or_else(0) * detail::kUsableMemoryFraction;
  auto fits = [&](int t) {
    double fixed = 0, per_sample = 0;
    detail::footprint_parts(*pl.w, pl.task, pl.p, t, fixed, per_sample);
    return fixed + per_sample * batch <= usable;
  };
  for (int t = 1; t <= count; t *= 2)
    if (fits(t)) return t;
  return fits(count) ? count : 0;
}

Unexpected does_not_fit(const Plan& pl, int count, double batch) {
  Memory m = detail::footprint(*pl.w, pl.task, pl.p, batch, count, *pl.a);
  std::string msg = "'" + pl.w->id + "' does not fit: " + std::string(workload::to_string(pl.task)) + " at " +
                    std::string(to_string(pl.p)) + ", batch " + num(batch) + " needs " + gib(m.required_bytes) +
                    " per device on " + std::to_string(count) + " x " + pl.a->id + ", which has " +
                    gib(m.usable_bytes) + " usable (" + num(detail::kUsableMemoryFraction * 100) + " % of " +
                    gib(m.capacity_bytes) + "), short by " + gib(m.required_bytes - m.usable_bytes);
  for (int t = count + 1; t <= (1 << 20); t = t < 2 ? 2 : t * 2) {
    if (detail::footprint(*pl.w, pl.task, pl.p, batch, t, *pl.a).fits) {
      msg += "; try --count " + std::to_string(t);
      break;
    }
  }
  return make_error(Errc::invalid_input, msg, "--count");
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
  }
  return make_error(Errc::unsupported, "'" + a.id + "' has no suitable precision for " +
                                           std::string(workload::to_string(task)) + "; it has: " +
                                           detail::precision_list(a));
}

Result<Prediction> predict(const Request& req) {
  ROOFTOP_TRY(check_request(req));
  const catalog::Accelerator& a = *req.accelerator;
  const workload::Workload& w = *req.workload;

  Plan pl;
  pl.a = &a;
  pl.w = &w;
  pl.task = req.task;
  if (req.precision) {
    pl.p = *req.precision;
  } else {
    Result<Precision> p = default_precision(a, req.task);
    if (!p) return make_error(p.error());
    pl.p = *p;
  }
  ROOFTOP_TRY(detail::check_device(a, pl.p));
  if (pl.task == Task::train && (is_integer(pl.p) || pl.p == Precision::fp4)) {
    return make_error(Errc::unsupported, "training in " + std::string(to_string(pl.p)) +
                                             " is not modelled; use bf16, fp16, fp8 or fp32", "--precision");
  }
  pl.e = efficiency_for(a);
  std::vector<Operator> train_ops;
  if (pl.task == Task::train) {
    train_ops = workload::training_ops(w);
    pl.ops = &train_ops;
  } else {
    pl.ops = &w.ops;
    pl.llm = std::any_of(w.ops.begin(), w.ops.end(), [](const Operator& op) { return op.phase == Phase::decode; });
    pl.out_tokens = std::max(1, w.output_tokens);
  }

  // Parallelism: as many data-parallel replicas as possible.
  const double min_batch = req.batch ? *req.batch : 1;
  pl.tensor = choose_tensor(pl, req.count, min_batch);
  if (pl.tensor == 0) return does_not_fit(pl, req.count, min_batch);
  pl.data = req.count / pl.tensor;
  const bool needs_link = pl.tensor > 1 || (pl.task == Task::train && pl.data > 1);
  if (needs_link) {
    Result<detail::LinkChoice> link = detail::collective_link(a);
    if (!link) return make_error(link.error());
    pl.link = *link;
    pl.tensor_bytes_per_s = detail::ring_bytes_per_s(pl.link, pl.tensor) * pl.e.link;
    pl.data_bytes_per_s = detail::ring_bytes_per_s(pl.link, pl.data) * pl.e.link;
  }

  const double limit = max_batch(pl);
  const double batch = req.batch ? *req.batch : choose_batch(pl, req, limit);

  Prediction out;
  out.accelerator = a.id;
  out.model = w.id;
  out.count = req.count;
  out.task = pl.task;
  out.precision = pl.p;
  out.batch = static_cast<int>(batch);
  out.parallelism = {pl.data, pl.tensor, 1};
  out.memory = detail::footprint(w, pl.task, pl.p, batch, pl.tensor, a);
  if (!out.memory.fits) return does_not_fit(pl, req.count, batch);

  Outcome o = evaluate(pl, req, batch, req.detail ? &out.per_op : nullptr);
  out.throughput = o.throughput;
  out.throughput_unit = pl.task == Task::train && w.throughput_unit != "tokens/s" ? "samples/s" : w.throughput_unit;
  out.latency_s = o.latency_s;
  out.ttft_s = o.ttft_s;
  out.tpot_s = o.tpot_s;
  const Sums& s = o.sums;
  double top = std::max({s.compute_s, s.memory_s, s.overhead_s, s.comm_s});
  out.bound = top == s.compute_s ? Bound::compute
              : top == s.memory_s ? Bound::memory
              : top == s.comm_s   ? Bound::communication
                                  : Bound::overhead;
  double total = 0;
  for (const OpPrediction& op : out.per_op) total += op.time_s;
  for (OpPrediction& op : out.per_op) op.share = total > 0 ? op.time_s / total : 0;

  if (needs_link) {
    Communication& c = out.communication;
    c.link = pl.link.name;
    int n = pl.task == Task::train && pl.data > 1 ? pl.data : pl.tensor;
    double bw = pl.task == Task::train && pl.data > 1 ? pl.data_bytes_per_s : pl.tensor_bytes_per_s;
    c.bytes = pl.task == Task::train && pl.data > 1 ? o.grad_bytes : tensor_payload_bytes(pl, batch);
    // Training: tensor-parallel all-reduces plus the whole gradient all-reduce
    // (hidden or not); LLM inference: per output token.
    c.time_s = pl.task == Task::train ? s.comm_s - o.exposed_s + o.grad_allreduce_s
               : pl.llm               ? s.comm_s / pl.out_tokens
                                      : s.comm_s;
    double probe = c.bytes > 0 ? c.bytes : 1 << 20;  // eta of the gradient payload, or of 1 MiB
    double t = ring_allreduce_s(probe, n, bw, pl.e.link_latency_s);
    c.eta = bandwidth_utilisation(n, allreduce_busbw(probe, n, t), pl.link.peak_bytes_per_s);
  }

  auto say = [&](std::string name, std::string value, std::string source) {
    out.assumptions.push_back({std::move(name), std::move(value), std::move(source)});
  };
  say("compute_efficiency", num(pl.e.compute), pl.e.source);
  say("memory_efficiency", num(pl.e.memory), pl.e.source);
  say("op_overhead_s", num(pl.e.op_overhead_s), pl.e.source);
  say("usable_memory_fraction", num(detail::kUsableMemoryFraction), "docs/model.md#memory (vLLM gpu_memory_utilization default)");
  if (!req.precision) say("precision", std::string(to_string(pl.p)), "docs/model.md#precision (default for the task)");
  if (!req.batch) {
    std::string how = req.scenario == Scenario::single_stream && pl.task == Task::infer ? "single-stream: 1"
                      : req.scenario == Scenario::server && pl.task == Task::infer
                          ? "server: largest batch within the latency target"
                          : "smallest batch within 1 % of the best throughput (memory limit " + num(limit) + ")";
    say("batch_choice", how, "docs/model.md#batch");
  }
  if (req.scenario == Scenario::server && pl.task == Task::infer) {
    say("latency_target_s", pl.llm ? "tpot " + num(req.latency_target_s.value_or(kLlmTpotS)) + ", ttft " + num(kLlmTtftS)
                                   : num(req.latency_target_s.value_or(kServerLatencyS)),
        "docs/model.md#batch (MLPerf llama2-70b server bounds for LLMs)");
  }
  if (pl.task == Task::infer)
    say("fusion", "elementwise ops fused into their producer; CNN batch norm folded into the conv", "docs/model.md#fusion");
  if (pl.llm) say("llm_batching", "continuous: tokens/s = data x B x O / (prefill(B) + (O - 1) x decode_step(B))", "docs/model.md#llm");
  if (pl.tensor > 1) say("tensor_parallel", std::to_string(pl.tensor) + " (one device cannot hold the model)", "docs/model.md#parallelism");
  if (needs_link) {
    say("link", pl.link.name + " " + num(pl.link.peak_bytes_per_s / 1e9) + " GB/s per direction", a.id + " catalog entry");
    say("link_efficiency", num(pl.e.link), pl.e.source);
    say("link_latency_s", num(pl.e.link_latency_s), "docs/model.md#collectives (NCCL tuning.cc Ring/LL)");
  }
  if (req.count % pl.tensor != 0) say("idle_devices", std::to_string(req.count % pl.tensor), "count is not a multiple of the tensor-parallel degree");
  if (pl.task == Task::train) {
    say("optimizer", "Adam, mixed precision: weights + grads in " + std::string(to_string(pl.p)) + ", fp32 master + m + v", "docs/model.md#memory");
    say("grad_accumulation", std::to_string(req.grad_accumulation), "docs/model.md#training");
    say("straggler_factor", num(straggler_factor(pl.data, req.straggler_cv)), "docs/model.md#stragglers (Blom)");
  }
  if (!w.unsupported_ops.empty()) say("unsupported_ops", std::to_string(w.unsupported_ops.size()) + " ops not costed", w.id);
  return out;
}

}  // namespace rooftop::model
