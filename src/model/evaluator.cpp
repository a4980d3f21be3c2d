// The evaluator: the Setup a request fixes (precisions, operators, fabric,
// efficiencies), the checks on a request and a plan, and run(), which
// prices one fully given plan (step.cpp) and explains it (explain.cpp).
// predict() is make() then search() (search.cpp). docs/model.md has every
// formula and its source.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/text.h"
#include "model/efficiency.h"
#include "model/evaluator.h"

namespace rooftop::model {

namespace {
// The part's efficiencies with fitted stack factors (model/calibration.h):
// per operator class in op_efficiency, on the link for collectives, on the
// server's iterations (step.cpp).
Efficiency calibrated_efficiency(const catalog::Accelerator& a, const Calibrated& c) {
  Efficiency e = efficiency_for(a);
  e.class_factor = c.factor;
  e.link = std::min(1.0, e.link * c.factor[static_cast<std::size_t>(OpClass::communication)]);
  return e;
}
}  // namespace

namespace {

using workload::Operator;
using workload::OpKind;
using workload::Phase;
using workload::Task;
using namespace detail;

std::string gib(double bytes) { return plain(bytes / (1024.0 * 1024 * 1024)) + " GiB"; }

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


}  // namespace

namespace detail {

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

}  // namespace detail

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
  s->e = calibrated_efficiency(a, req.calibrated);
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
      if (op.role == workload::Role::moe_router) s->moe_layers += op.repeat;
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
    s->llm = workload::generates_tokens(w);
    s->out_tokens = std::max(1, w.output_tokens);
  }
  s->fabric = detail::fabric_for(a, s->e);
  Evaluator ev;
  ev.s_ = std::move(s);
  return ev;
}

Evaluator Evaluator::with_calibration(const Calibrated& c) const {
  auto s = std::make_shared<Setup>(*s_);
  if (s_->a == &s_->gpu_only) s->a = &s->gpu_only;
  s->req.calibrated = c;
  s->e = calibrated_efficiency(*s->req.accelerator, c);
  s->fabric = detail::fabric_for(*s->req.accelerator, s->e);
  Evaluator ev;
  ev.s_ = std::move(s);
  return ev;
}

Precision Evaluator::precision() const { return s_->p; }
const Request& Evaluator::request() const { return s_->req; }
Evaluator Evaluator::at_count(int count) const {
  auto s = std::make_shared<Setup>(*s_);
  s->req.count = count;
  // The Setup may point at its own copy of the accelerator (no DLAs).
  if (s_->a == &s_->gpu_only) s->a = &s->gpu_only;
  Evaluator ev;
  ev.s_ = std::move(s);
  return ev;
}
Result<IterationTime> Evaluator::iteration_time(const Plan& plan) const {
  const bool needs_link = plan.tp > 1 || plan.pp > 1;
  if (needs_link && !s_->fabric) return make_error(s_->fabric.error());
  return detail::iteration_time(s_, plan);
}
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
  explain(s, plan, out);
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
  return made->search();
}

}  // namespace rooftop::model
