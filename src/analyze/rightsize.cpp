// Right-sizing through advise (contract in rightsize.h).
#include "analyze/rightsize.h"

#include <fmt/format.h>

#include "core/text.h"

namespace rooftop::analyze {

namespace {

// The throughput the smallest objective leaves to a fixed baseline: advise
// sizes a baseline's batch for the most it can serve.
constexpr double kProbeDemand = 1e-6;

std::string money(double usd) { return usd >= 1000 ? fmt::format("${:.1f} k", usd / 1000) : fmt::format("${:.0f}", usd); }

RightsizeOption option_of(const advise::Candidate& c, const std::optional<double>& current_tco) {
  RightsizeOption o;
  o.accelerator = c.accelerator->id;
  o.count = c.count;
  o.precision = std::string(to_string(c.precision));
  o.throughput = c.throughput;
  o.tco_usd = c.cost.tco_usd;
  if (current_tco && c.cost.tco_usd) o.saving_usd = *current_tco - *c.cost.tco_usd;
  return o;
}

// advise on the observed load; the recommendation's sentence.
Result<Rightsizing> rightsize(const advise::Scenario& base, const workload::Workload& w, const catalog::Catalog& cat,
                              const catalog::Accelerator& current, int count, double util_p95_pct, const Thresholds& t,
                              const model::Calibration* calibration) {
  Result<advise::Advice> probe =
      advise::advise(rightsizing_scenario(base, current.id, count, kProbeDemand), cat, w, {}, {}, calibration);
  if (!probe) return make_error(probe.error());
  if (!probe->baseline) return make_error(Errc::unsupported, "advise did not score the current part", current.id);
  Rightsizing r;
  r.scenario = base.name;
  r.current = current.id;
  r.count = count;
  r.capacity = probe->baseline->throughput;
  r.unit = probe->throughput_unit;
  r.demand = r.capacity * util_p95_pct / t.target_util_pct;
  Result<advise::Advice> a =
      advise::advise(rightsizing_scenario(base, current.id, count, r.demand), cat, w, {}, {}, calibration);
  if (!a) return make_error(a.error());
  if (a->baseline) r.current_tco_usd = a->baseline->cost.tco_usd;
  for (const advise::Candidate& c : a->candidates) r.ranking.push_back(option_of(c, r.current_tco_usd));
  return r;
}

std::string sentence(const Rightsizing& r, double util_p95_pct, const Thresholds& t, double horizon_years) {
  std::string s = fmt::format(
      " advise (scenario \"{}\"): at {:.0f} % p95 of {} x {} (capacity {}) the load is {} at {:.0f} % target "
      "utilisation.",
      r.scenario, util_p95_pct, r.count, r.current, si(r.capacity, r.unit), si(r.demand, r.unit), t.target_util_pct);
  if (r.ranking.empty()) return s + " No catalog part meets it within the scenario's constraints.";
  s += " Top alternatives:";
  for (std::size_t i = 0; i < r.ranking.size() && i < 3; ++i) {
    const RightsizeOption& o = r.ranking[i];
    s += fmt::format("{} {} x {} ({})", i ? ";" : "", o.count, o.accelerator, o.precision);
    if (o.saving_usd) {
      s += *o.saving_usd >= 0 ? fmt::format(" saves {}", money(*o.saving_usd)) : fmt::format(" costs {} more", money(-*o.saving_usd));
    } else if (o.tco_usd) {
      s += " " + money(*o.tco_usd);
    } else {
      s += " (cost unknown)";
    }
  }
  s += fmt::format(" over {:g} year{}", horizon_years, horizon_years == 1 ? "" : "s");
  s += r.current_tco_usd ? fmt::format(", against {} for the current part.", money(*r.current_tco_usd))
                         : "; the current part's cost is unknown under the scenario's economics, so no saving is shown.";
  return s;
}

}  // namespace

advise::Scenario rightsizing_scenario(const advise::Scenario& base, const std::string& accelerator, int count,
                                      double demand) {
  advise::Scenario s = base;
  s.objective = advise::ObjectiveKind::throughput;
  s.throughput_per_s = demand;
  s.p99_latency_s = 0;
  s.arrival_rate_per_s = 0;
  s.train_samples = s.train_tokens = s.deadline_s = 0;
  s.baseline = advise::Baseline{accelerator, count, std::nullopt};
  return s;
}

Result<void> add_rightsizing(std::vector<Finding>& findings, const Profiles& p, const catalog::Catalog& cat,
                             const Thresholds& t, const RightsizeInputs& in) {
  if (in.scenario && in.scenario->task != workload::Task::infer)
    return make_error(Errc::invalid_input, "right-sizing needs a serving scenario (workload.task: infer)", in.scenario->file);
  for (Finding& f : findings) {
    const DeviceProfile* d = nullptr;
    for (const DeviceProfile& dp : p.devices) {
      if (dp.key.id() == f.device) d = &dp;
    }
    if (!d) continue;
    const catalog::Accelerator* a = cat.match_reported_name(d->key.model);
    if (!a) continue;
    f.evidence.emplace_back("catalog_match", 1);
    std::optional<double> price = a->price.cloud_usd_per_hour.value;
    if (in.scenario) {  // the user's quote wins, as in advise
      for (const advise::PriceOverride& o : in.scenario->prices) {
        if (o.cloud_usd_per_hour && cat.find(o.accelerator) == a) price = o.cloud_usd_per_hour;
      }
    }
    if (price) f.wasted_usd = f.wasted_device_hours * *price;
    if (f.kind != FindingKind::underused) continue;
    double p95 = d->util_percentile(0.95);
    if (!in.scenario || !in.workload) {
      f.recommendation += fmt::format(" `rooftop analyze --scenario FILE` (the advise scenario of the workload it runs) "
                                      "ranks the parts that would carry this load for {} and its constraints.",
                                      a->id);
      continue;
    }
    Result<Rightsizing> r = rightsize(*in.scenario, *in.workload, cat, *a, 1, p95, t, in.calibration);
    if (!r) {
      f.recommendation += " advise cannot size this load: " + r.error().message + ".";
      continue;
    }
    f.recommendation += sentence(*r, p95, t, in.scenario->horizon_years);
    f.rightsizing = std::move(*r);
  }
  return {};
}

}  // namespace rooftop::analyze
