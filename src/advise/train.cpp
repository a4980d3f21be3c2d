// Sizing a training run on one accelerator: advise only lists the plans to
// try and scores them; every plan is priced by the performance model
// (model::Evaluator, the same code as `rooftop predict --plan`). The search
// covers tensor (t, powers of two inside the scale-up domain, dividing the
// heads), pipeline (p, powers of two up to the layers) and data (d) parallel
// degrees and the micro-batch, with gradient accumulation k = global_batch /
// (d x micro_batch); per split it takes the cheapest ZeRO stage and
// recompute that fit in memory. docs/advise.md#training.
#include <algorithm>
#include <cmath>
#include <limits>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/convergence.h"
#include "model/model.h"

namespace rooftop::advise::detail {

namespace {

// Without a scale-up domain in the catalog, tensor parallel stays within 8
// devices (the largest NVLink/Infinity Fabric board).
constexpr int kDefaultDomain = 8;

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
  const double usable_bytes = *a.memory_bytes.value * model::kUsableMemoryFraction;
  const int layers = std::max(1, w.layers);
  const bool shape = w.layers > 0 && w.heads > 0;

  bool found = false;
  Candidate best;
  model::Plan best_plan;
  std::optional<model::Evaluator> best_ev;
  double best_ttt = std::numeric_limits<double>::infinity();
  double closest_ttt = std::numeric_limits<double>::infinity();
  double min_memory = std::numeric_limits<double>::infinity();
  std::string first_error;
  for (Precision p : in.precisions) {
    model::Request req;
    req.accelerator = &a;
    req.workload = &w;
    req.task = workload::Task::train;
    req.precision = p;
    req.count = limit;
    req.straggler_cv = s.straggler_cv;
    req.detail = false;
    Result<model::Evaluator> ev = model::Evaluator::make(req);
    if (!ev) {
      if (first_error.empty()) first_error = ev.error().message;
      continue;
    }
    const int domain = ev->scale_up_domain() > 0 ? ev->scale_up_domain() : kDefaultDomain;
    const PrecisionRisk risk = precision_risk(p, workload::Task::train);
    for (int t = 1; t <= std::min(domain, limit); t *= 2) {
      if (w.heads > 0 && w.heads % t != 0) break;
      for (int pp = 1; pp <= layers && t * pp <= limit; pp *= 2) {
        for (int mb = 1; mb <= g; mb *= 2) {
          if (g % mb != 0) break;
          const int per_rank = g / mb;
          bool any_fit = false;
          for (int d = 1; d <= per_rank && d * t * pp <= limit; ++d) {
            if (per_rank % d != 0) continue;
            const int n = d * t * pp;
            if (in.fixed_count && n != *in.fixed_count) continue;
            model::Plan plan;
            plan.dp = d, plan.tp = t, plan.pp = pp, plan.mb = mb, plan.ga = per_rank / d;
            plan.sp = t > 1;
            // The cheapest ZeRO stage and recompute that fit: states first
            // (no extra compute), then recompute; a mixture of experts
            // first tries its experts unsplit, then split over more of the
            // data-parallel ranks (ep dividing d and the experts).
            model::Evaluator::Quick q;
            for (int ep = 1; ep <= d && !q.fits; ep *= 2) {
              if (ep > 1 && (w.experts == 0 || d % ep != 0 || w.experts % ep != 0)) continue;
              plan.ep = ep;
              for (int zero = 0; zero <= (d > 1 ? 3 : 0) && !q.fits; ++zero) {
                for (model::Recompute rc : {model::Recompute::none, model::Recompute::selective, model::Recompute::full}) {
                  if (rc != model::Recompute::none && !shape) break;
                  plan.zero = zero, plan.recompute = rc;
                  q = ev->quick(plan);
                  ++out.configs;
                  if (q.memory_bytes > 0) min_memory = std::min(min_memory, q.memory_bytes);
                  if (q.fits) break;
                }
              }
            }
            if (!q.fits) continue;
            any_fit = true;
            // To the MLPerf target, the timed evaluations count too.
            const double ttt = steps * q.latency_s +
                               (in.target ? model::eval_seconds(*in.target, in.train_samples, plan, q.eval_stage_s) : 0);
            closest_ttt = std::min(closest_ttt, ttt);
            if (ttt > s.deadline_s && !in.fixed_count) continue;
            const bool better = !found || n < best.count || (n == best.count && ttt < best_ttt);
            if (!better) continue;
            found = true;
            best_ttt = ttt;
            best_plan = plan;
            best_ev = *ev;
            best = Candidate{};
            best.accelerator = &a;
            best.count = n;
            best.replica_devices = t * pp;
            best.precision = p;
            best.batch = mb;
            best.precision_risk = risk.text;
          }
          // Larger micro-batches only need more memory and leave fewer splits.
          if (!any_fit) break;
        }
      }
    }
  }
  if (found) {
    // The chosen plan, priced in full by the model (what predict --plan prints).
    Result<model::Prediction> pr = best_ev->run(best_plan);
    const model::Prediction& m = *pr;
    best.plan = model::to_string(best_plan);
    best.memory_bytes = m.memory.required_bytes;
    best.latency_s = m.latency_s;
    best.service_s = m.latency_s;
    best.utilisation = best_ttt / s.deadline_s;
    best.meets_objective = best_ttt <= s.deadline_s;
    const double per_step = s.train_tokens > 0 ? g * (s.train_tokens / in.train_samples) : g;
    best.throughput = per_step / m.latency_s;
    best.throughput_unit = s.train_tokens > 0 ? "tokens/s" : "samples/s";
    const model::Communication& c = m.communication;
    best.train = TrainPlan{best_plan.dp, best_plan.tp, best_plan.pp, best_plan.mb, best_plan.ga, m.latency_s,
                           m.latency_s - c.exposed_s, c.tensor_s, c.data_s, m.bubble_fraction,
                           model::straggler_factor(best.count, s.straggler_cv), c.eta, m.memory.required_bytes,
                           steps, best_ttt};
    if (!a.scale_up.bytes_per_s_per_direction.known() && best.count > 1) {
      best.notes.push_back("no scale-up link in the catalog: collectives run over the host link");
    }
    if (!c.scale_out.empty()) best.notes.push_back("crosses the scale-up domain over " + c.scale_out);
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
    rej.reason = first_error.empty() ? "no training configuration could be evaluated (no link to split the model)"
                                     : first_error;
  }
  out.rejection = rej;
  return out;
}

}  // namespace rooftop::advise::detail
