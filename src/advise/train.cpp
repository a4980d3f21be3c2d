// Sizing a training run on one accelerator: a search over tensor (t),
// pipeline (p) and data (d) parallel degrees and the micro-batch, with
// gradient accumulation k = global_batch / (d x micro_batch). Each
// configuration is priced from per-operator rooflines (computed once per t
// and micro-batch), Megatron-style tensor-parallel all-reduces, a 1F1B
// pipeline bubble, the ring all-reduce of gradients once per optimizer step,
// and the expected slowest of N workers. docs/advise.md#training.
#include <algorithm>
#include <cmath>
#include <limits>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/model.h"

namespace rooftop::advise::detail {

namespace {

// Operators that tensor parallelism splits across t devices (Megatron-LM
// shards GEMMs, attention heads and their softmax, and embedding tables);
// norms, residual adds and the like stay replicated.
bool sharded(workload::OpKind k) {
  using workload::OpKind;
  return k == OpKind::matmul || k == OpKind::attention || k == OpKind::conv || k == OpKind::softmax ||
         k == OpKind::embedding;
}

std::vector<workload::Operator> shard_ops(const std::vector<workload::Operator>& ops, int t) {
  std::vector<workload::Operator> out = ops;
  for (workload::Operator& op : out) {
    op.name.clear();  // the search prices millions of op instances: no string copies
    if (!sharded(op.kind) && op.phase != workload::Phase::optimizer) continue;
    op.flops /= t;
    op.weight_elems /= t;
    op.weight_elems_per_sample /= t;
    op.in_elems /= t;
    op.out_elems /= t;
    op.params /= t;
  }
  return out;
}

// Optimizer and gradient bytes per parameter for mixed-precision Adam
// (ZeRO paper, Rajbhandari et al. 2020: 2 + 2 + 12 = 16 bytes at 16-bit):
// weights and gradients at the training precision, fp32 master weights
// (16-bit and 8-bit formats only) and two fp32 moments.
double state_bytes_per_param(Precision p) {
  const double b = bytes_per_element(p);
  return 2 * b + (b < 4 ? 4 : 0) + 8;
}

struct PerTp {
  int t = 1;
  std::vector<workload::Operator> step_ops;  // forward + backward
  std::vector<workload::Operator> optimizer_ops;
};

}  // namespace

Sizing size_training(const SizingInput& in) {
  const Scenario& s = *in.scenario;
  const workload::Workload& w = *in.workload;
  const catalog::Accelerator& a = *in.accelerator;
  Sizing out;
  Rejection rej;
  rej.accelerator = a.id;
  const int limit = in.fixed_count.value_or(s.max_devices);
  const int g = s.global_batch;
  const double steps = std::ceil(in.train_samples / g);
  if (!a.memory_bytes.known()) {
    rej.reason = "memory capacity unknown in the catalog: cannot check that the model fits";
    out.rejection = rej;
    return out;
  }
  if (!a.memory_bytes_per_s.known() || *a.memory_bytes_per_s.value <= 0) {
    rej.reason = "memory bandwidth unknown in the catalog: cannot price the memory-bound operators";
    out.rejection = rej;
    return out;
  }
  const double usable_bytes = *a.memory_bytes.value * kUsableMemoryFraction;
  const model::Efficiency e = model::efficiency_for(a);
  const bool has_link = a.scale_up.bytes_per_s_per_direction.known() || a.host.bytes_per_s_per_direction.known();
  const double link_peak = a.scale_up.bytes_per_s_per_direction.known() ? *a.scale_up.bytes_per_s_per_direction.value
                                                                         : a.host.bytes_per_s_per_direction.or_else(0);
  // Full-mesh fabrics (Infinity Fabric, Gaudi's RoCE ports) quote the sum
  // over 7 peer links; a ring of d devices uses d - 1 of them (docs/model.md).
  std::string link_name = to_lower(a.scale_up.bytes_per_s_per_direction.known() ? a.scale_up.name : a.host.name);
  const bool mesh = a.scale_up.bytes_per_s_per_direction.known() &&
                    (link_name.find("infinity") != std::string::npos || link_name.find("xgmi") != std::string::npos ||
                     link_name.find("roce") != std::string::npos);
  auto ring_bw = [&](int n) { return link_peak * e.link * (mesh ? std::min(1.0, (n - 1) / 7.0) : 1.0); };

  // Layers bound the pipeline depth; norms mark the block boundaries where
  // Megatron's tensor parallelism all-reduces the activations.
  const std::vector<workload::Operator> train_ops = workload::training_ops(w);
  double layers = 1, norm_instances = 0, boundary_elems = 0;
  for (const workload::Operator& op : w.ops) {
    layers = std::max(layers, op.repeat);
    if (op.kind == workload::OpKind::norm) {
      norm_instances += op.repeat;
      boundary_elems = std::max(boundary_elems, op.out_elems);
    }
  }
  if (boundary_elems == 0) {
    for (const workload::Operator& op : w.ops) boundary_elems = std::max(boundary_elems, op.out_elems);
  }
  std::vector<PerTp> tps;
  for (int t = 1; t <= std::min(8, limit); t *= 2) {
    if (t > 1 && !has_link) break;
    PerTp pt;
    pt.t = t;
    for (workload::Operator& op : shard_ops(train_ops, t)) {
      (op.phase == workload::Phase::optimizer ? pt.optimizer_ops : pt.step_ops).push_back(op);
    }
    tps.push_back(std::move(pt));
  }

  bool found = false;
  Candidate best;
  TrainPlan best_plan;
  double best_ttt = std::numeric_limits<double>::infinity();
  double closest_ttt = std::numeric_limits<double>::infinity();
  double min_memory = std::numeric_limits<double>::infinity();
  for (Precision p : in.precisions) {
    const double bpe = bytes_per_element(p);
    const double state_bytes = w.params * state_bytes_per_param(p);
    const PrecisionRisk risk = precision_risk(p, workload::Task::train);
    for (const PerTp& pt : tps) {
      double optimizer_s = 0;
      for (const workload::Operator& op : pt.optimizer_ops) optimizer_s += model::roofline(op, 1, p, a, e).time_s;
      for (int mb = 1; mb <= g; mb *= 2) {
        if (g % mb != 0) break;
        double mb_s = 0;
        for (const workload::Operator& op : pt.step_ops) mb_s += model::roofline(op, mb, p, a, e).time_s;
        const double act_bytes = w.train_activation_elems_per_sample * mb * bpe / pt.t;
        // Larger micro-batches only need more memory: stop when even the
        // deepest pipeline cannot hold this one.
        int deepest = 1;
        while (deepest * 2 <= layers && pt.t * deepest * 2 <= limit) deepest *= 2;
        if (state_bytes / (pt.t * deepest) + act_bytes > usable_bytes) {
          min_memory = std::min(min_memory, state_bytes / (pt.t * deepest) + act_bytes);
          ++out.configs;
          break;
        }
        const double tp_s = pt.t > 1 ? 2 * norm_instances *
                                           model::ring_allreduce_s(boundary_elems * mb * bpe, pt.t, ring_bw(pt.t), e.link_latency_s)
                                     : 0;
        for (int pp = 1; pp <= layers && pt.t * pp <= limit; pp *= 2) {
          if (pp > 1 && !has_link) break;
          const double mem = state_bytes / (pt.t * pp) + act_bytes;
          min_memory = std::min(min_memory, mem);
          ++out.configs;
          if (mem > usable_bytes) continue;
          // One micro-batch on one stage, plus sending its boundary activation
          // forward and its gradient back.
          const double stage_s = (mb_s + tp_s) / pp + (pp > 1 ? 2 * boundary_elems * mb * bpe / ring_bw(2) : 0);
          const int per_rank = g / mb;
          for (int d = 1; d <= per_rank && d * pt.t * pp <= limit; ++d) {
            if (per_rank % d != 0) continue;
            const int n = d * pt.t * pp;
            if (in.fixed_count && n != *in.fixed_count) continue;
            ++out.configs;
            const int k = per_rank / d;
            const double compute_s = (k + pp - 1) * stage_s + optimizer_s / pp;
            const double dp_s = model::ring_allreduce_s(w.params * bpe / (pt.t * pp), d, ring_bw(d), e.link_latency_s);
            const double factor = straggler_factor(n, s.straggler_cv);
            const double step_s = compute_s * factor + dp_s;
            const double ttt = steps * step_s;
            closest_ttt = std::min(closest_ttt, ttt);
            if (ttt > s.deadline_s && !in.fixed_count) continue;
            const bool better = !found || n < best.count || (n == best.count && ttt < best_ttt);
            if (!better) continue;
            found = true;
            best_ttt = ttt;
            best = Candidate{};
            best.accelerator = &a;
            best.count = n;
            best.replica_devices = pt.t * pp;
            best.precision = p;
            best.batch = mb;
            best.precision_risk = risk.text;
            best.memory_bytes = mem;
            best.latency_s = step_s;
            best.service_s = step_s;
            best.utilisation = ttt / s.deadline_s;
            best.meets_objective = ttt <= s.deadline_s;
            const double per_step = s.train_tokens > 0 ? g * (s.train_tokens / in.train_samples) : g;
            best.throughput = per_step / step_s;
            best.throughput_unit = s.train_tokens > 0 ? "tokens/s" : "samples/s";
            best_plan = TrainPlan{d, pt.t, pp, mb, k, step_s, compute_s, tp_s * k / pp, dp_s,
                                  pp > 1 ? (pp - 1.0) / (k + pp - 1.0) : 0.0, factor,
                                  model::bandwidth_utilisation(d, ring_bw(d), link_peak), mem, steps, ttt};
          }
        }
      }
    }
  }
  if (found) {
    best.train = best_plan;
    if (!a.scale_up.bytes_per_s_per_direction.known() && best.count > 1) {
      best.notes.push_back("no scale-up link in the catalog: collectives run over the host link");
    }
    out.candidate = best;
    return out;
  }
  if (std::isfinite(closest_ttt)) {
    rej.achieved = closest_ttt;
    rej.shortfall = closest_ttt / s.deadline_s;
    rej.reason = "fastest plan with up to " + std::to_string(limit) + " devices trains in " +
                 human_seconds(closest_ttt) + ", over the " + human_seconds(s.deadline_s) + " deadline";
  } else if (std::isfinite(min_memory)) {
    rej.reason = "training state needs " + iec_bytes(min_memory) + " per device even split " +
                 std::to_string(limit) + " ways; usable memory is " + iec_bytes(usable_bytes);
  } else {
    rej.reason = "no training configuration could be evaluated (no link to split the model)";
  }
  out.rejection = rej;
  return out;
}

}  // namespace rooftop::advise::detail
