// Sizing a training run on one accelerator: the fewest devices that train
// within the deadline. advise only chooses device counts; at each count the
// plan (tensor, pipeline, data and expert parallel degrees, micro-batch,
// gradient accumulation, ZeRO stage, recompute) is the one the performance
// model's search picks (model::Evaluator::search, the same code and rules as
// `rooftop predict --count N --global-batch G`), so advise and predict give
// one plan and one figure. docs/advise.md#training.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/convergence.h"
#include "model/model.h"

namespace rooftop::advise::detail {

namespace {

// One device count searched: the model's plan and the time to train.
struct AtCount {
  int count = 0;
  std::optional<model::Prediction> pred;   // none: no plan fits this count
  double ttt = std::numeric_limits<double>::infinity();
  std::string error;
};

// The fewest devices whose plan (the model's search, `at`) trains by the
// deadline: time to train falls as devices are added, so the whole budget
// is tried first, then the smallest count by bisection over 1..limit. A
// count no plan splits the global batch over is stepped past to the next
// one up. A fixed count is searched alone.
struct CountSearch {
  std::optional<AtCount> pick;
  double closest_ttt = std::numeric_limits<double>::infinity();
  std::string fit_error;   // why the last count tried has no plan
};
CountSearch fewest_devices(const std::function<AtCount(int)>& at, int limit, std::optional<int> fixed, double deadline_s) {
  CountSearch out;
  if (fixed) {
    AtCount c = at(*fixed);
    if (c.pred) out.closest_ttt = c.ttt, out.pick = std::move(c);
    else out.fit_error = c.error;
    return out;
  }
  auto valid_at_or_above = [&](int n, int hi) -> std::optional<AtCount> {
    for (; n <= hi; ++n) {
      AtCount c = at(n);
      if (c.pred) return c;
      if (out.fit_error.empty() || n == limit) out.fit_error = c.error;
    }
    return std::nullopt;
  };
  std::optional<AtCount> top = valid_at_or_above(limit, limit);
  // The whole budget does not run: the largest count that does, for the message.
  for (int n = limit - 1; !top && n >= 1 && limit - n <= 64; --n) {
    AtCount c = at(n);
    if (c.pred) top = std::move(c);
  }
  if (!top) return out;
  out.closest_ttt = top->ttt;
  if (top->ttt > deadline_s) return out;
  out.pick = top;
  int lo = 0, hi = top->count;  // lo fails (or is 0), hi meets
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    std::optional<AtCount> c = valid_at_or_above(mid, hi - 1);
    if (c && c->ttt <= deadline_s) {
      hi = c->count;
      out.pick = std::move(c);
    } else {
      lo = mid;
    }
  }
  return out;
}

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

  bool found = false;
  Candidate best;
  model::Plan best_plan;
  double best_ttt = std::numeric_limits<double>::infinity();
  double closest_ttt = std::numeric_limits<double>::infinity();
  std::string first_error, fit_error;
  std::optional<model::Prediction> best_pred;
  for (Precision p : in.precisions) {
    model::Request req;
    req.accelerator = &a;
    req.workload = &w;
    req.task = workload::Task::train;
    req.precision = p;
    req.count = limit;
    req.global_batch = g;
    req.straggler_cv = s.straggler_cv;
    req.calibrated = in.calibrated;
    req.detail = false;
    Result<model::Evaluator> made = model::Evaluator::make(req);
    if (!made) {
      if (first_error.empty()) first_error = made.error().message;
      continue;
    }
    // The model's plan search at `n` devices; the MLPerf target's timed
    // evaluations count toward the time to train.
    auto at = [&](int n) -> AtCount {
      AtCount c;
      c.count = n;
      Result<model::Prediction> pr = made->at_count(n).search();
      if (!pr) {
        c.error = pr.error().message;
        return c;
      }
      out.configs += std::max(1, pr->plans_priced);
      c.ttt = steps * pr->latency_s +
              (in.target ? model::eval_seconds(*in.target, in.train_samples, pr->plan, pr->eval_stage_s) : 0);
      c.pred = std::move(*pr);
      return c;
    };
    CountSearch cs = fewest_devices(at, limit, in.fixed_count, s.deadline_s);
    closest_ttt = std::min(closest_ttt, cs.closest_ttt);
    if (fit_error.empty()) fit_error = cs.fit_error;
    std::optional<AtCount> pick = std::move(cs.pick);
    if (!pick) continue;
    closest_ttt = std::min(closest_ttt, pick->ttt);
    if (pick->ttt > s.deadline_s && !in.fixed_count) continue;
    const int n = pick->count;
    const bool better = !found || n < best.count || (n == best.count && pick->ttt < best_ttt);
    if (!better) continue;
    found = true;
    best_ttt = pick->ttt;
    best_plan = pick->pred->plan;
    best_pred = std::move(pick->pred);
    best = Candidate{};
    best.accelerator = &a;
    best.count = n;
    best.replica_devices = best_plan.tp * best_plan.pp;
    best.precision = p;
    best.batch = best_plan.mb;
    best.precision_risk = precision_risk(p, workload::Task::train).text;
  }
  if (found) {
    // The chosen plan as the model priced it (what predict prints).
    const model::Prediction& m = *best_pred;
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
  } else {
    rej.reason = !fit_error.empty()   ? fit_error
                 : !first_error.empty() ? first_error
                                        : "no training configuration could be evaluated";
  }
  out.rejection = rej;
  return out;
}

}  // namespace rooftop::advise::detail
