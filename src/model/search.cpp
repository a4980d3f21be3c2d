// The plan search: which parallel plan, batch and micro-batch a request
// gets when it leaves them open. Inference tries every tensor-parallel
// degree at its own batch (docs/model.md#batch); training every divisor
// split, ZeRO stage, recompute and micro-batch (docs/model.md#plans). The
// simplest plan within 1 % of the best throughput wins. Every plan is priced
// by outcome() (step.cpp), the same price Evaluator::run() reports.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "model/evaluator.h"

namespace rooftop::model {

namespace {

using namespace detail;
using workload::Task;

constexpr double kNearBest = 0.99;        // smallest batch / simplest plan within 1 % of the best throughput

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

// The chosen plan's prediction, saying how many plans the search priced.
Result<Prediction> priced(Result<Prediction> p, std::size_t plans) {
  if (p) p->plans_priced = static_cast<int>(plans);
  return p;
}

}  // namespace

namespace {

// What one search fixes: the evaluator, the spec it keeps, the device count
// and (training) the global batch, 0 when free.
struct Searched {
  const Evaluator& ev;
  const Setup& s;
  PlanSpec spec;
  int count;
  int global_batch;
};

// The plan of `tp` x `pp` with the spec's keys and the defaults for the rest.
Plan base_plan(const Searched& q, int tp, int pp) {
  const PlanSpec& spec = q.spec;
  Plan p;
  p.tp = tp;
  p.pp = pp;
  p.dp = spec.dp.value_or(q.count / (tp * pp));
  p.ep = spec.ep.value_or(1);
  p.vp = spec.vp.value_or(1);
  p.ga = spec.ga.value_or(1);
  p.zero = spec.zero.value_or(0);
  p.recompute = spec.recompute.value_or(Recompute::none);
  p.sp = spec.sp.value_or(q.s.task == Task::train && tp > 1);
  p.mb = spec.mb.value_or(1);
  return p;
}

// Inference: every tensor-parallel degree at its own batch (docs/model.md#batch).
Result<Prediction> search_inference(const Searched& q) {
  const Evaluator& ev = q.ev;
  const Setup& s = q.s;
  const workload::Workload& w = *s.w;
  const PlanSpec& spec = q.spec;
  const int count = q.count;
  auto base = [&](int tp, int pp) { return base_plan(q, tp, pp); };
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
  return priced(ev.run(near_best(found).plan), found.size());
}

// Training: every divisor split, ZeRO stage, recompute and micro-batch
// (docs/model.md#plans).
Result<Prediction> search_training(const Searched& q) {
  const Evaluator& ev = q.ev;
  const Setup& s = q.s;
  const workload::Workload& w = *s.w;
  const PlanSpec& spec = q.spec;
  const int count = q.count;
  auto base = [&](int tp, int pp) { return base_plan(q, tp, pp); };
  const int gb = q.global_batch;
  const int domain = s.fabric ? s.fabric->domain : 0;
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
  return priced(ev.run(near_best(found).plan), found.size());
}

}  // namespace

Result<Prediction> Evaluator::search() const {
  const Setup& s = *s_;
  const Request& req = s.req;
  const workload::Workload& w = *s.w;
  const int count = req.count;
  PlanSpec spec = req.plan;
  if (req.batch) {
    if (spec.mb && *spec.mb != *req.batch)
      return bad_plan("mb=" + std::to_string(*spec.mb) + " disagrees with --batch " + std::to_string(*req.batch));
    spec.mb = req.batch;
  }
  if (s.task == Task::infer) {
    // Keys of a training step do not apply to inference: a value other than
    // their neutral one (what the canonical plan string prints) is refused,
    // never ignored.
    std::string keys;
    auto given = [&](bool set, const char* key) {
      if (set) keys += (keys.empty() ? "" : ", ") + std::string(key);
    };
    given(spec.ga.value_or(1) != 1, "ga"), given(spec.zero.value_or(0) != 0, "zero");
    given(spec.recompute.value_or(Recompute::none) != Recompute::none, "recompute");
    given(spec.vp.value_or(1) != 1, "vp"), given(spec.sp.value_or(false), "sp");
    if (!keys.empty()) return bad_plan(keys + ": training-only key(s); inference takes dp, tp, pp and mb");
    if (spec.ep && *spec.ep > 1)
      return bad_plan("ep=" + std::to_string(*spec.ep) +
                      ": expert parallelism at inference is not modelled yet (experts are replicated on every "
                      "tensor-parallel group); give tp");
  }
  if (!spec.ga && req.grad_accumulation != 1) spec.ga = req.grad_accumulation;
  if (req.global_batch && *req.global_batch < 1)
    return make_error(Errc::invalid_input, "global batch must be at least 1", "--global-batch");
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

  const Searched q{*this, s, spec, count, s.task == Task::train && req.global_batch ? *req.global_batch : 0};
  return s.task == Task::infer ? search_inference(q) : search_training(q);
}

}  // namespace rooftop::model
