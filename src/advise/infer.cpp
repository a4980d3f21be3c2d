// Sizing a serving deployment on one accelerator: the smallest tensor-
// parallel replica that holds the model, the per-device batch, and the
// number of replicas that meets the throughput target, or the p99 latency
// target at the arrival rate under the request-batching queueing model
// (docs/advise.md#serving).
#include <algorithm>
#include <cmath>
#include <limits>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/model.h"

namespace rooftop::advise::detail {

namespace {

constexpr int kMaxBatch = 1024;

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

}  // namespace

Sizing size_inference(const SizingInput& in) {
  const Scenario& s = *in.scenario;
  const workload::Workload& w = *in.workload;
  const catalog::Accelerator& a = *in.accelerator;
  Sizing out;
  const int limit = in.fixed_count.value_or(s.max_devices);
  const bool continuous = w.throughput_unit == "tokens/s";
  const double tokens_per_request = continuous && w.output_tokens > 0 ? w.output_tokens : 1;
  const double rtt_s = s.network_rtt_s[static_cast<int>(a.form_factor)];

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
    req.scenario = model::Scenario::offline;  // the batch is always given: queueing is ours
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
    for (int b = 1; b <= kMaxBatch; b *= 2) {
      req.count = replica;
      req.batch = b;
      Result<model::Prediction> pr = model::predict(req);
      ++out.configs;
      if (!pr || !pr->memory.fits || pr->throughput <= 0 || pr->latency_s <= 0) break;
      const double x = pr->throughput;  // one replica
      const double service_s = pr->latency_s;
      auto consider = [&](int replicas, double p99_s, double rho) {
        const int n = replicas * replica;
        // Same device count: the lower latency wins (for a throughput target,
        // the smallest batch that meets it); a baseline's fixed count shows
        // the most it can serve.
        const double obj = s.objective == ObjectiveKind::latency ? p99_s : in.fixed_count ? -x * replicas : p99_s;
        if (!best.better(n, obj, risk.score)) return;
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
        c.service_s = service_s;
        c.latency_s = s.objective == ObjectiveKind::latency ? p99_s : service_s + rtt_s;
        c.utilisation = rho;
        c.memory_bytes = pr->memory.required_bytes;
        c.precision_risk = risk.text;
        model::Plan plan = pr->plan;
        plan.dp = replicas;
        c.plan = model::to_string(plan);
        const double bw = std::min(s.storage_bytes_per_s, a.host.bytes_per_s_per_direction.or_else(
                                                              std::numeric_limits<double>::infinity()));
        c.cold_start_s = pr->memory.weights_bytes / bw;
        c.notes.clear();
        if (!a.host.bytes_per_s_per_direction.known()) c.notes.push_back("host link bandwidth unknown: cold start counts storage only");
      };
      if (s.objective == ObjectiveKind::throughput) {
        const int replicas = in.fixed_count ? *in.fixed_count / replica
                                            : static_cast<int>(std::ceil(s.throughput_per_s / x - 1e-9));
        best_throughput = std::max(best_throughput, x * (limit / replica));
        ++out.configs;
        if (replicas >= 1 && replicas * replica <= limit && (in.fixed_count || x * replicas >= s.throughput_per_s)) {
          consider(replicas, service_s + rtt_s, s.throughput_per_s / (x * replicas));
        }
        continue;
      }
      // Latency objective: the fewest replicas whose p99 meets the target.
      const double request_capacity = x / tokens_per_request;   // requests/s of one replica
      const double batch_requests = request_capacity * service_s;
      const int r_min = in.fixed_count ? *in.fixed_count / replica : 1;
      const int r_max = limit / replica;
      for (int r = r_min; r <= r_max; ++r) {
        const ServingLatency q = serving_latency(batch_requests, service_s, s.arrival_rate_per_s / r, continuous);
        ++out.configs;
        const double p99 = q.p99_s + rtt_s;
        best_p99 = std::min(best_p99, p99);
        if (p99 <= s.p99_latency_s || in.fixed_count) {
          consider(r, p99, q.utilisation);
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
    r.reason = "best p99 " + human_seconds(best_p99) + " with up to " + std::to_string(limit) +
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

void roofline_points(const std::vector<workload::Operator>& ops, double batch, Precision p,
                     const catalog::Accelerator& a, std::vector<OpPoint>& points, double& achieved_flop_per_s) {
  const model::Efficiency e = model::efficiency_for(a);
  double flops = 0, time_s = 0;
  points.clear();
  achieved_flop_per_s = 0;
  if (!a.supports(p) || !a.memory_bytes_per_s.known()) return;
  for (const workload::Operator& op : ops) {
    model::OpPrediction o = model::roofline(op, batch, p, a, e);
    flops += o.flops;
    time_s += o.time_s;
    if (o.time_s > 0) points.push_back({op.name, o.intensity, o.flops / o.time_s, o.time_s});
  }
  achieved_flop_per_s = time_s > 0 ? flops / time_s : 0;
  for (OpPoint& pt : points) pt.time_share = time_s > 0 ? pt.time_share / time_s : 0;
  std::sort(points.begin(), points.end(), [](const OpPoint& x, const OpPoint& y) {
    return x.time_share != y.time_share ? x.time_share > y.time_share : x.name < y.name;
  });
  if (points.size() > 24) points.resize(24);
}

}  // namespace rooftop::advise::detail
