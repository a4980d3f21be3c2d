// Sizing a serving deployment on one accelerator: the smallest tensor-
// parallel replica that holds the model, the per-device batch, and the
// number of replicas that meets the throughput target, or the p99 latency
// target at the arrival rate: for a decoder LLM by simulating the
// continuous-batching server (model::simulate_server), otherwise under the
// request-batching queueing model (docs/advise.md#serving).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/model.h"
#include "model/serve_sim.h"

namespace rooftop::advise::detail {

namespace {

constexpr int kMaxBatch = 1024;
// Requests simulated per replica and configuration: ten minutes of traffic
// as `predict --rate` runs, but at most 1,000 (the p99 is the 10th slowest),
// so a whole-catalog advise stays near a second (docs/advise.md#serving).
constexpr int kSimulatedRequests = 1000;

// The best configuration found so far: fewest devices, then the better
// objective value, then the safer precision.
struct Best {
  bool found = false;
  int count = 0;
  double objective = 0;  // latency (lower is better) or -throughput
  double precision_score = 0;
  Candidate cand;
  bool better(int n, double obj, double ps) const {
    if (!found) return true;
    if (n != count) return n < count;
    if (obj != objective) return obj < objective;
    return ps > precision_score;
  }
};

// The serving simulation of `replicas` copies of a `replica`-device model
// at the scenario's whole arrival rate: model::simulate_server with dp
// fixed and the rest of the plan and the batch left to predict, exactly
// what `rooftop predict --count N --plan dp=R --rate L` runs.
Result<model::ServePrediction> simulate_replicas(const model::Request& base, int replica, int replicas, double rate) {
  model::Request r = base;
  r.count = replica * replicas;
  r.batch.reset();
  r.plan = {};
  r.plan.dp = replicas;
  r.scenario = model::Scenario::server;
  model::ServeOptions o;
  o.rate_per_s = rate;
  o.max_rate = false;
  o.max_requests = kSimulatedRequests;
  return model::simulate_server(r, o);
}

ServingFigures simulated_figures(const model::ServePrediction& v) {
  ServingFigures f;
  f.simulated = true;
  f.latency_p99_s = v.at_rate.requests > 0 ? v.at_rate.latency_s.p99 : std::numeric_limits<double>::infinity();
  f.ttft_p99_s = v.at_rate.ttft_s.p99;
  f.tpot_p99_s = v.at_rate.tpot_s.p99;
  f.requests = v.at_rate.requests;
  f.preemptions = v.at_rate.preemptions;
  return f;
}

}  // namespace

Sizing size_inference(const SizingInput& in) {
  const Scenario& s = *in.scenario;
  const workload::Workload& w = *in.workload;
  const catalog::Accelerator& a = *in.accelerator;
  Sizing out;
  const int limit = in.fixed_count.value_or(s.max_devices);
  const bool continuous = workload::generates_tokens(w);
  const double tokens_per_request = continuous && w.output_tokens > 0 ? w.output_tokens : 1;
  const double rtt_s = s.network_rtt_s[static_cast<int>(a.form_factor)];
  // A decoder LLM under a p99 objective is sized by simulating its server.
  const bool simulated = continuous && s.objective == ObjectiveKind::latency;

  Best best;
  double best_throughput = 0;                             // for "closest miss"
  double best_p99 = std::numeric_limits<double>::infinity();
  std::string first_error;
  for (Precision p : in.precisions) {
    model::Request req;
    req.accelerator = &a;
    req.workload = &w;
    req.task = workload::Task::infer;
    req.precision = p;
    req.weight_precision = s.weight_precision;
    req.kv_precision = s.kv_precision;
    req.scenario = model::Scenario::offline;  // the batch is given or simulated: serving is ours
    req.calibrated = in.calibrated;
    req.detail = false;
    // Smallest replica (power of two) whose memory fits at batch 1.
    int replica = 0;
    for (int c = 1; c <= limit; c *= 2) {
      req.count = c;
      req.batch = 1;
      Result<model::Prediction> pr = model::predict(req);
      ++out.configs;
      if (pr && pr->memory.fits) {
        replica = c;
        break;
      }
      if (!pr) first_error = pr.error().message.substr(0, pr.error().message.find("; try"));
      if (!pr && pr.error().code == Errc::unsupported) break;
    }
    if (replica == 0) continue;
    if (in.fixed_count && *in.fixed_count % replica != 0) {
      if (first_error.empty()) first_error = "a model copy needs " + std::to_string(replica) + " devices";
      continue;
    }
    const PrecisionRisk risk = precision_risk(p, workload::Task::infer);
    // Keeps the configuration when it beats the best so far: `replicas`
    // copies of `pr` (one replica at batch `b`), serving at p99 `p99_s`.
    auto consider = [&](int replicas, const model::Prediction& pr, int b, double obj, double latency_s, double rho,
                        const model::Plan& replica_plan, std::optional<ServingFigures> serving) {
      const int n = replicas * replica;
      if (!best.better(n, obj, risk.score)) return;
      const double x = pr.throughput;  // one replica
      best.found = true;
      best.count = n;
      best.objective = obj;
      best.precision_score = risk.score;
      Candidate& c = best.cand;
      c.accelerator = &a;
      c.count = n;
      c.replica_devices = replica;
      c.precision = p;
      c.batch = b;
      c.throughput = x * replicas;
      c.throughput_unit = w.throughput_unit;
      c.service_s = pr.latency_s;
      c.latency_s = latency_s;
      c.utilisation = rho;
      c.memory_bytes = pr.memory.required_bytes;
      c.precision_risk = risk.text;
      c.serving = std::move(serving);
      model::Plan plan = replica_plan;
      plan.dp = replicas;
      c.plan = model::to_string(plan);
      const double bw = std::min(s.storage_bytes_per_s, a.host.bytes_per_s_per_direction.or_else(
                                                            std::numeric_limits<double>::infinity()));
      c.cold_start_s = pr.memory.weights_bytes / bw;
      c.notes.clear();
      if (!a.host.bytes_per_s_per_direction.known()) c.notes.push_back("host link bandwidth unknown: cold start counts storage only");
    };
    const int r_min = in.fixed_count ? *in.fixed_count / replica : 1;
    const int r_max = limit / replica;
    if (simulated) {
      // Decoder LLM, latency objective: the fewest replicas whose simulated
      // p99 request latency meets the target (docs/advise.md#serving). The
      // batch is the one predict and the simulation choose (the most
      // sequences the paged KV cache holds).
      req.count = replica;
      req.batch.reset();
      Result<model::Prediction> pr = model::predict(req);
      ++out.configs;
      if (!pr || !pr->memory.fits || pr->throughput <= 0) continue;
      const double request_capacity = pr->throughput / tokens_per_request;  // requests/s of one replica
      // Fewer replicas than the offline capacity needs never keep up.
      const int r_lo = in.fixed_count ? r_min : std::clamp(static_cast<int>(std::ceil(s.arrival_rate_per_s / request_capacity - 1e-9)), r_min, r_max);
      std::map<int, ServingFigures> seen;
      std::map<int, model::ServePrediction> sims;
      auto p99_at = [&](int r) -> double {
        if (!seen.count(r)) {
          Result<model::ServePrediction> v = simulate_replicas(req, replica, r, s.arrival_rate_per_s);
          ++out.configs;
          if (!v) {
            if (first_error.empty()) first_error = v.error().message;
            seen[r].latency_p99_s = std::numeric_limits<double>::infinity();
          } else {
            seen[r] = simulated_figures(*v);
            sims.emplace(r, std::move(*v));
          }
          best_p99 = std::min(best_p99, seen[r].latency_p99_s + rtt_s);
        }
        return seen[r].latency_p99_s + rtt_s;
      };
      auto meets = [&](int r) { return p99_at(r) <= s.p99_latency_s; };
      // A configuration with more devices than the best so far cannot win.
      const int r_cap = best.found ? std::min(r_max, best.count / replica) : r_max;
      int chosen = 0;
      if (in.fixed_count) {
        p99_at(r_min);
        chosen = r_min;
      } else if (r_lo <= r_cap) {
        // Gallop up from the capacity bound, then bisect: the p99 falls as
        // replicas are added (each sees a thinner Poisson stream).
        int fail = r_lo - 1, r = r_lo, step = 1;
        while (!meets(r) && r < r_cap) {
          fail = r;
          r = std::min(r_cap, r + step);
          step *= 2;
        }
        if (meets(r)) {
          while (r - fail > 1) {
            const int mid = fail + (r - fail) / 2;
            if (meets(mid)) r = mid;
            else fail = mid;
          }
          chosen = r;
        }
      } else if (!best.found) {
        p99_at(r_max);  // even every device falls short: report how far
      }
      if (chosen == 0 || !sims.count(chosen)) continue;
      // One copy at the simulated plan and batch: its throughput, service
      // time and memory, as `predict --plan` gives them.
      const model::ServePrediction& v = sims.at(chosen);
      model::Request one = req;
      one.plan = {};
      one.plan.dp = 1, one.plan.tp = v.plan.tp, one.plan.pp = v.plan.pp, one.plan.ep = v.plan.ep, one.plan.mb = v.plan.mb;
      Result<model::Prediction> at = model::predict(one);
      ++out.configs;
      if (!at || at->throughput <= 0) continue;
      const double p99 = p99_at(chosen);
      const double rho = s.arrival_rate_per_s / chosen / (at->throughput / tokens_per_request);
      consider(chosen, *at, v.scheduler.max_seqs, p99, p99, rho, at->plan, seen.at(chosen));
      continue;
    }
    for (int b = 1; b <= kMaxBatch; b *= 2) {
      req.count = replica;
      req.batch = b;
      Result<model::Prediction> pr = model::predict(req);
      ++out.configs;
      if (!pr || !pr->memory.fits || pr->throughput <= 0 || pr->latency_s <= 0) break;
      const double x = pr->throughput;  // one replica
      const double service_s = pr->latency_s;
      if (s.objective == ObjectiveKind::throughput) {
        const int replicas = in.fixed_count ? *in.fixed_count / replica
                                            : static_cast<int>(std::ceil(s.throughput_per_s / x - 1e-9));
        best_throughput = std::max(best_throughput, x * (limit / replica));
        ++out.configs;
        if (replicas >= 1 && replicas * replica <= limit && (in.fixed_count || x * replicas >= s.throughput_per_s)) {
          // Same device count: the lower latency wins (the smallest batch
          // that meets the target); a baseline's fixed count shows the most
          // it can serve.
          const double obj = in.fixed_count ? -x * replicas : service_s + rtt_s;
          consider(replicas, *pr, b, obj, service_s + rtt_s, s.throughput_per_s / (x * replicas), pr->plan, std::nullopt);
        }
        continue;
      }
      // Latency objective: the fewest replicas whose p99 meets the target.
      const double request_capacity = x / tokens_per_request;   // requests/s of one replica
      const double batch_requests = request_capacity * service_s;
      for (int r = r_min; r <= r_max; ++r) {
        const ServingLatency q = serving_latency(batch_requests, service_s, s.arrival_rate_per_s / r, continuous);
        ++out.configs;
        const double p99 = q.p99_s + rtt_s;
        best_p99 = std::min(best_p99, p99);
        if (p99 <= s.p99_latency_s || in.fixed_count) {
          ServingFigures f;
          f.latency_p99_s = q.p99_s;
          consider(r, *pr, b, p99, p99, q.utilisation, pr->plan, f);
          break;
        }
        // With static batches, more replicas only lengthen the fill wait.
        if (!continuous && q.utilisation < 1 && service_s + q.fill_p99_s + rtt_s > s.p99_latency_s) break;
      }
    }
  }
  if (best.found) {
    best.cand.meets_objective = s.objective == ObjectiveKind::latency ? best.cand.latency_s <= s.p99_latency_s
                                                                       : best.cand.throughput >= s.throughput_per_s;
    out.candidate = best.cand;
    return out;
  }
  Rejection r;
  r.accelerator = a.id;
  if (s.objective == ObjectiveKind::latency && std::isfinite(best_p99)) {
    r.achieved = best_p99;
    r.shortfall = best_p99 / s.p99_latency_s;
    r.reason = "best p99 " + human_seconds(best_p99) + (simulated ? " (simulated server)" : "") + " with up to " + std::to_string(limit) +
               " devices, over the " + human_seconds(s.p99_latency_s) + " target" +
               (rtt_s > 0 ? " (incl. " + human_seconds(rtt_s) + " network round trip)" : "");
  } else if (s.objective == ObjectiveKind::throughput && best_throughput > 0) {
    r.achieved = best_throughput;
    r.shortfall = s.throughput_per_s / best_throughput;
    r.reason = "at most " + si(best_throughput, w.throughput_unit) + " with " + std::to_string(limit) +
               " devices, under the " + si(s.throughput_per_s, w.throughput_unit) + " target";
  } else {
    r.reason = first_error.empty() ? "the model does not fit in " + std::to_string(limit) + " devices"
                                   : first_error;
  }
  out.rejection = r;
  return out;
}

}  // namespace rooftop::advise::detail
