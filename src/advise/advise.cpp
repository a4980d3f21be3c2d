// The advisor's pipeline: filter the catalog by the scenario's static
// constraints, size every remaining accelerator (infer.cpp / train.cpp),
// apply the count-dependent constraints (power, budget), price it over the
// horizon, score the five criteria, mark the Pareto front and rank.
#include "advise/advise.h"

#include <algorithm>
#include <cmath>

#include "advise/evaluate.h"
#include "advise/formulas.h"
#include "advise/internal.h"
#include "core/text.h"

namespace rooftop::advise {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool named(const catalog::Accelerator& a, const std::vector<std::string>& names) {
  if (contains(names, a.id)) return true;
  for (const std::string& alias : a.aliases) {
    if (contains(names, to_lower(alias))) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string precision_names(const std::vector<Precision>& ps) {
  std::vector<std::string> v;
  for (Precision p : ps) v.emplace_back(to_string(p));
  return join(v);
}

// Why a check needing the TDP cannot be made: the entry's own reason when it
// gives one ("Google publishes no TPU TDP").
std::string tdp_unknown(const catalog::Accelerator& a, const std::string& limit) {
  const std::string& why = a.power_w.missing_reason;
  return (why.empty() ? std::string("TDP unknown in the catalog") : "no TDP: " + why) + ": cannot check the " + limit;
}

// Reasons that do not depend on the device count; empty when none.
std::string static_reason(const Scenario& s, const catalog::Accelerator& a, std::vector<Precision>& usable) {
  if (!s.accelerators_include.empty() && !named(a, s.accelerators_include)) return "not in constraints.accelerators.include";
  if (named(a, s.accelerators_exclude)) return "excluded by constraints.accelerators.exclude";
  if (!s.vendors_include.empty() && !contains(s.vendors_include, a.vendor)) return "vendor " + a.vendor + " not in constraints.vendors.include";
  if (contains(s.vendors_exclude, a.vendor)) return "vendor " + a.vendor + " excluded by constraints.vendors.exclude";
  if (!s.form_factors.empty() &&
      std::find(s.form_factors.begin(), s.form_factors.end(), a.form_factor) == s.form_factors.end()) {
    return "form factor " + std::string(catalog::to_string(a.form_factor)) + " not allowed";
  }
  if (a.cloud_only && s.deployment == Deployment::on_prem) {
    return "cloud-only: " + a.vendor + " rents this part but does not sell it, so it cannot be deployed on-prem";
  }
  if (s.max_power_per_device_w) {
    if (!a.power_w.known()) return tdp_unknown(a, "per-device power limit");
    if (*a.power_w.value > *s.max_power_per_device_w) {
      return "TDP " + si(*a.power_w.value, "W") + " over the " + si(*s.max_power_per_device_w, "W") + " per-device limit";
    }
  }
  if (!s.consumer_parts) {
    for (const catalog::Caveat& c : a.caveats) {
      if (c.kind == catalog::CaveatKind::consumer) return "consumer part, excluded by constraints.consumer_parts: " + c.text;
    }
  }
  if (std::string eco = ecosystem_gap(s, a); !eco.empty()) return eco;
  usable.clear();
  for (Precision p : s.precisions) {
    if (!a.supports(p)) continue;
    // Skip a precision no faster, no smaller and no safer than one already
    // kept (fp16 after bf16 on parts where both run at the same rate).
    const double risk = precision_risk(p, s.task).score;
    bool dominated = false;
    for (Precision q : usable) {
      dominated = dominated || (*a.peak(q).value >= *a.peak(p).value && bytes_per_element(q) <= bytes_per_element(p) &&
                                precision_risk(q, s.task).score >= risk);
    }
    if (!dominated) usable.push_back(p);
  }
  if (usable.empty()) {
    const std::vector<Precision> has = a.precisions();
    std::string why = "supports none of the allowed precisions " + precision_names(s.precisions) +
                      (has.empty() ? " (the catalog gives no peak rate for any precision)"
                                   : " (has " + precision_names(has) + ")");
    for (Precision p : s.precisions) {  // the catalog's reason when a rate is unpublished
      if (a.peak(p).known() || a.peak(p).missing_reason.empty()) continue;
      return why + "; " + std::string(to_string(p)) + " rate unknown: " + a.peak(p).missing_reason;
    }
    return why;
  }
  // The roofline needs both memory figures; quote the catalog's reason.
  auto memory_gap = [&](const catalog::Sourced& f, const char* what, const char* need) {
    return std::string("memory ") + what + " unknown: " +
           (f.missing_reason.empty() ? std::string("not in the catalog") : f.missing_reason) + "; " + need;
  };
  if (!a.memory_bytes_per_s.known()) return memory_gap(a.memory_bytes_per_s, "bandwidth", "the roofline needs it");
  if (!a.memory_bytes.known()) return memory_gap(a.memory_bytes, "capacity", "cannot check the fit");
  return "";
}

// Months from a price date ("2024", "2024-06", "2024-06-15") to `today`
// ("YYYY-MM-DD"); a year alone counts from its December, so a price is never
// called old too early. Empty when either date is malformed.
std::optional<int> months_old(const std::string& date, const std::string& today) {
  auto num = [](const std::string& s, std::size_t at, std::size_t n) -> std::optional<int> {
    if (s.size() < at + n) return std::nullopt;
    std::optional<long long> v = parse_int(s.substr(at, n));
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  std::optional<int> py = num(date, 0, 4), ty = num(today, 0, 4), tm = num(today, 5, 2);
  std::optional<int> pm = date.size() >= 7 ? num(date, 5, 2) : std::optional<int>(12);
  if (!py || !pm || !ty || !tm) return std::nullopt;
  return (*ty - *py) * 12 + (*tm - *pm);
}

// A note when the price a candidate is ranked on is more than 12 months old.
void warn_old_price(const Scenario& s, const catalog::Accelerator& a, Candidate& c) {
  const bool cloud = s.deployment == Deployment::cloud;
  const std::string& date = cloud ? a.price.cloud_date : a.price.list_date;
  if (s.today.empty() || date.empty() || !(cloud ? a.price.cloud_usd_per_hour : a.price.list_usd).known()) return;
  std::optional<int> age = months_old(date, s.today);
  if (age && *age > 12)
    c.notes.push_back(std::string(cloud ? "cloud" : "list") + " price dated " + date + " is " + std::to_string(*age) +
                      " months old: check a current quote");
}

// A CPU's memory is the DIMMs installed: the catalog gives the socket's
// memory in the vendor's reference system, with the formula; say so
// (docs/catalog.md#cpu-memory).
void note_cpu_memory(const catalog::Accelerator& a, Candidate& c) {
  if (a.kind != catalog::Kind::cpu || !a.memory_bytes.known() || a.memory_bytes.derived.empty()) return;
  c.notes.push_back("system memory per socket: " + a.memory_bytes.derived +
                    "; a CPU's memory is the DIMMs installed: fit more for a larger need");
}

}  // namespace

TcoInput tco_input(const Scenario& s, const Candidate& c) {
  const catalog::Accelerator& a = *c.accelerator;
  TcoInput in;
  in.count = c.count;
  in.unit_price_usd = a.price.list_usd.value;
  in.cloud_usd_per_hour = a.price.cloud_usd_per_hour.value;
  in.power_w = a.power_w.value;
  in.cloud = s.deployment == Deployment::cloud;
  in.horizon_years = s.horizon_years;
  in.utilisation = s.utilisation;
  in.pue = s.pue;
  in.energy_usd_per_kwh = s.energy_usd_per_kwh;
  in.amortisation_years = s.amortisation_years;
  return in;
}

namespace {

// The catalog system `c` is bought (or rented) in: among those holding its
// part, the one leaving the fewest devices over, then the fewest units.
const catalog::System* sold_as(const catalog::Catalog& cat, const Candidate& c) {
  const catalog::System* pick = nullptr;
  long long pick_total = 0, pick_units = 0;
  for (const catalog::System* y : cat.systems_for(c.accelerator->id)) {
    if (y->cloud_only != c.cost.rented || !y->accelerators.known()) continue;
    const long long per = std::llround(*y->accelerators.value);
    const long long units = (c.count + per - 1) / per;
    if (!pick || units * per < pick_total || (units * per == pick_total && units < pick_units))
      pick = y, pick_total = units * per, pick_units = units;
  }
  return pick;
}

// The facility's limits against the unit bought: liquid cooling and the
// power one rack may draw (a rack-scale unit is one rack; a node must fit in
// one). A reason when it cannot be installed; empty otherwise.
std::string facility_reason(const Scenario& s, const Candidate& c) {
  const catalog::System* y = c.system;
  if (!y || c.cost.rented) return "";
  if (s.liquid_cooling && !*s.liquid_cooling && y->cooling == catalog::Cooling::liquid)
    return "sold as " + y->name + ", which is liquid-cooled: the facility has no liquid cooling (facility.liquid_cooling: false)";
  if (s.rack_kw && y->power_w.known() && *y->power_w.value > *s.rack_kw * 1000)
    return "sold as " + y->name + " drawing " + si(*y->power_w.value, "W") + " per " +
           std::string(catalog::to_string(y->unit)) + ", over the facility's " + si(*s.rack_kw * 1000, "W") +
           " per rack (facility.rack_kw)";
  return "";
}

// Count-dependent constraints and pricing; a reason when violated.
std::string price_and_check(const Scenario& s, const catalog::Catalog& cat, Candidate& c) {
  const catalog::Accelerator& a = *c.accelerator;
  if (a.power_w.known()) c.power_w = *a.power_w.value * c.count;
  TcoInput in = tco_input(s, c);
  TcoOutput t = tco(in);
  bool rented = in.cloud;
  if (s.deployment == Deployment::either) {
    // Both side by side: buying (capex + energy) and renting (hours x $/hour
    // at the utilisation), ranked on the cheaper of the two that is known.
    in.cloud = true;
    const TcoOutput rent = tco(in);
    t.cloud_usd = rent.cloud_usd;
    if (rent.tco_usd && (!t.tco_usd || *rent.tco_usd < *t.tco_usd)) t.tco_usd = rent.tco_usd, rented = true;
  }
  c.cost = Cost{t.capex_usd, t.energy_usd, t.cloud_usd, t.tco_usd, t.energy_kwh, {}, {}, rented && t.tco_usd.has_value()};
  // The date of every price the TCO uses ("undated" for a scenario quote).
  auto dated = [](const std::string& d) { return d.empty() ? std::string("undated") : d; };
  if (s.deployment != Deployment::cloud && a.price.list_usd.known()) c.cost.list_price_date = dated(a.price.list_date);
  if (s.deployment != Deployment::on_prem && a.price.cloud_usd_per_hour.known())
    c.cost.cloud_price_date = dated(a.price.cloud_date);
  c.priced = t.tco_usd.has_value();
  c.break_even_utilisation = break_even_utilisation(tco_input(s, c));
  c.system = sold_as(cat, c);
  if (std::string why = facility_reason(s, c); !why.empty()) return why;
  const std::string n = std::to_string(c.count) + " x ";
  if (s.max_power_total_w) {
    if (!c.power_w) return tdp_unknown(a, "total power limit");
    if (*c.power_w > *s.max_power_total_w) {
      return n + si(*a.power_w.value, "W") + " = " + si(*c.power_w, "W") + ", over the " +
             si(*s.max_power_total_w, "W") + " total power limit";
    }
  }
  if (s.budget_capex_usd) {
    if (!a.price.list_usd.known()) return "no list price in the catalog: cannot check the capex budget";
    const double capex = *a.price.list_usd.value * c.count;
    if (capex > *s.budget_capex_usd) {
      return n + usd(*a.price.list_usd.value) + " = " + usd(capex) + ", over the " + usd(*s.budget_capex_usd) + " budget";
    }
  }
  if (s.budget_cloud_usd_per_hour) {
    if (!a.price.cloud_usd_per_hour.known()) return "no cloud price in the catalog: cannot check the $/hour budget";
    const double rate = *a.price.cloud_usd_per_hour.value * c.count;
    if (rate > *s.budget_cloud_usd_per_hour) {
      return n + usd_per_hour(*a.price.cloud_usd_per_hour.value) + " = " + usd_per_hour(rate) + ", over the " +
             usd_per_hour(*s.budget_cloud_usd_per_hour) + " budget";
    }
  }
  warn_old_price(s, a, c);
  note_cpu_memory(a, c);
  if (!c.priced) c.notes.push_back(missing_cost(s, a) + ": cost unknown, scored on the other criteria");
  return "";
}

// The per-operator roofline of the chosen configuration (bandwidth fit and
// the report's roofline chart): the operator times the performance model
// gives for the candidate's own plan, as `predict --json` prints them
// (fusion, tensor-parallel sharding and the training step's operators
// included), never a roofline of advise's own.
// The fitted factors of `a`'s default stack (none without a calibration).
model::Calibrated calibrated(const model::Calibration* cal, const catalog::Accelerator& a, workload::Task task) {
  if (!cal) return {};
  return model::calibrated_for(*cal, model::default_stack(a, task), a.vendor, task);
}

void attach_roofline(const Scenario& s, const workload::Workload& w, Candidate& c,
                     const model::Calibration* calibration) {
  c.ops.clear();
  c.achieved_flop_per_s = 0;
  Result<model::PlanSpec> spec = model::parse_plan(c.plan);
  if (!spec) return;
  model::Request req;
  req.accelerator = c.accelerator;
  req.workload = &w;
  req.task = s.task;
  req.calibrated = calibrated(calibration, *c.accelerator, s.task);
  req.precision = c.precision;
  req.count = c.count;
  if (s.task == workload::Task::train) {
    req.straggler_cv = s.straggler_cv;
  } else {
    req.weight_precision = s.weight_precision;
    req.kv_precision = s.kv_precision;
  }
  Result<model::Prediction> p = model::evaluate(req, model::plan_from(*spec));
  if (!p) return;
  double flops = 0, time_s = 0;
  for (const model::OpPrediction& o : p->per_op) {
    flops += o.flops;
    time_s += o.time_s;
    if (o.time_s > 0) c.ops.push_back({o.name, o.intensity, o.flops / o.time_s, o.time_s});
  }
  c.achieved_flop_per_s = time_s > 0 ? flops / time_s : 0;
  for (OpPoint& pt : c.ops) pt.time_share = time_s > 0 ? pt.time_share / time_s : 0;
  std::sort(c.ops.begin(), c.ops.end(), [](const OpPoint& x, const OpPoint& y) {
    return x.time_share != y.time_share ? x.time_share > y.time_share : x.name < y.name;
  });
  if (c.ops.size() > 24) c.ops.resize(24);
}

}  // namespace

Result<Advice> advise(const Scenario& s, const catalog::Catalog& cat, const workload::Workload& w,
                      const std::vector<model::ConvergencePoint>& rcps, const std::vector<model::ErrorBand>& bands,
                      const model::Calibration* calibration) {
  if (w.ops.empty()) return make_error(Errc::invalid_input, "the model has no operators to cost", s.model_line);
  Advice out;
  auto priced = std::make_shared<catalog::Catalog>(cat);
  for (const PriceOverride& po : s.prices) {
    Result<const catalog::Accelerator*> a = cat.get(po.accelerator);
    if (!a) return make_error(a.error().code, a.error().message, s.file + ": economics.prices");
    for (catalog::Accelerator& x : priced->accelerators) {
      if (x.id != (*a)->id) continue;
      // A scenario quote carries no date: the catalog's date no longer applies.
      if (po.list_usd) x.price.list_usd = catalog::Sourced{po.list_usd, "scenario: " + po.source}, x.price.list_date.clear();
      if (po.cloud_usd_per_hour) {
        x.price.cloud_usd_per_hour = catalog::Sourced{po.cloud_usd_per_hour, "scenario: " + po.source};
        x.price.cloud_date.clear();
      }
    }
  }
  out.catalog = priced;
  out.scenario_name = s.name;
  out.model = w.id;
  double train_samples = s.train_samples;
  if (s.objective == ObjectiveKind::train && s.train_tokens > 0) {
    if (w.seq_len <= 0) {
      return make_error(Errc::invalid_input, "train_tokens needs a sequence length; set workload.seq_len", s.file);
    }
    train_samples = s.train_tokens / w.seq_len;
  }
  const model::Benchmark* target = nullptr;
  std::string target_how;
  if (s.objective == ObjectiveKind::train && s.train_to_target) {
    // The MLPerf Training quality target: samples from the reference
    // convergence points at the global batch (docs/model.md#time-to-train).
    Result<model::SamplesToTarget> n = model::samples_to_target(rcps, w.id, s.global_batch);
    if (!n) return make_error(Errc::invalid_input, n.error().message, s.file + ": objective.train_to_target");
    train_samples = n->samples;
    target = model::mlperf_benchmark(w.id);
    target_how = n->how;
  }
  out.throughput_unit = s.objective == ObjectiveKind::train ? (s.train_tokens > 0 ? "tokens/s" : "samples/s")
                                                             : w.throughput_unit;
  auto size = [&](const catalog::Accelerator& a, std::vector<Precision> precs, std::optional<int> fixed) {
    detail::SizingInput in{&s, &w, &a, fixed, std::move(precs), train_samples, target, calibrated(calibration, a, s.task)};
    return s.task == workload::Task::train ? detail::size_training(in) : detail::size_inference(in);
  };

  for (const catalog::Accelerator& a : priced->accelerators) {
    std::vector<Precision> usable;
    if (std::string why = static_reason(s, a, usable); !why.empty()) {
      out.rejected.push_back({a.id, why, std::nullopt, std::nullopt});
      continue;
    }
    detail::Sizing sz = size(a, usable, std::nullopt);
    out.configs_evaluated += sz.configs;
    if (!sz.candidate) {
      out.rejected.push_back(*sz.rejection);
      continue;
    }
    if (std::string why = price_and_check(s, *priced, *sz.candidate); !why.empty()) {
      out.rejected.push_back({a.id, why, std::nullopt, std::nullopt});
      continue;
    }
    attach_roofline(s, w, *sz.candidate, calibration);
    out.candidates.push_back(std::move(*sz.candidate));
  }

  if (s.baseline) {
    Result<const catalog::Accelerator*> a = priced->get(s.baseline->accelerator);
    if (!a) return make_error(a.error().code, a.error().message, s.file + ": baseline.accelerator");
    std::vector<Precision> precs = s.baseline->precision ? std::vector<Precision>{*s.baseline->precision} : s.precisions;
    std::erase_if(precs, [&](Precision p) { return !(*a)->supports(p); });
    detail::Sizing sz = size(**a, precs, s.baseline->count);
    out.configs_evaluated += sz.configs;
    if (!sz.candidate) {
      return make_error(Errc::invalid_input,
                        "baseline " + std::to_string(s.baseline->count) + " x " + (*a)->id + " cannot run the workload: " +
                            sz.rejection->reason,
                        s.file + ": baseline");
    }
    if (std::string why = price_and_check(s, *priced, *sz.candidate); !why.empty()) {
      sz.candidate->notes.push_back("outside the constraints: " + why);
    }
    attach_roofline(s, w, *sz.candidate, calibration);
    out.baseline = std::move(*sz.candidate);
  }

  if (!bands.empty()) {
    auto sure = [&](Candidate& c) {
      const char* band_scenario = s.task == workload::Task::train          ? "train"
                                  : s.objective == ObjectiveKind::latency ? "server"
                                                                          : "offline";
      c.sure = model::sureness(bands, workload::to_string(s.task), band_scenario, workload::to_string(w.family),
                               c.accelerator->vendor,
                               to_string(c.precision), c.throughput, c.latency_s);
    };
    for (Candidate& c : out.candidates) sure(c);
    if (out.baseline) sure(*out.baseline);
  }
  score_and_rank(s, out);
  std::sort(out.rejected.begin(), out.rejected.end(),
            [](const Rejection& x, const Rejection& y) { return x.accelerator < y.accelerator; });
  add_assumptions(s, w, out);
  out.assumptions.push_back(
      {"calibration",
       calibration ? std::to_string(calibration->parameters.size()) +
                         " fitted software-stack factors, each part on its vendor's usual stack (" +
                         calibration->cv + ")"
                   : std::string("none: physics alone"),
       "docs/model.md#calibration (data/calibration.yaml; rooftop calibrate --show)"});
  if (target) {
    out.assumptions.push_back({"train_to_target", si(train_samples, "samples") + " at global batch " +
                                                      std::to_string(s.global_batch) + ", " + target_how,
                               "docs/model.md#time-to-train (MLCommons reference convergence points)"});
    out.assumptions.push_back({"evaluation", std::string("timed: ") + target->eval_source, "docs/model.md#time-to-train"});
  }
  return out;
}

std::string nothing_feasible(const Scenario& s, const Advice& a) {
  if (!a.candidates.empty()) return "";
  std::vector<const Rejection*> misses;
  for (const Rejection& r : a.rejected) {
    if (r.shortfall) misses.push_back(&r);
  }
  std::sort(misses.begin(), misses.end(), [](const Rejection* x, const Rejection* y) {
    return *x->shortfall != *y->shortfall ? *x->shortfall < *y->shortfall : x->accelerator < y->accelerator;
  });
  std::string target;
  switch (s.objective) {
    case ObjectiveKind::latency: target = human_seconds(s.p99_latency_s) + " p99"; break;
    case ObjectiveKind::throughput: target = si(s.throughput_per_s, a.throughput_unit); break;
    case ObjectiveKind::train: target = "the " + human_seconds(s.deadline_s) + " training deadline"; break;
  }
  std::string msg = "nothing meets " + target + " under the constraints";
  if (misses.empty()) {
    msg += "; no accelerator came close (" + std::to_string(a.rejected.size()) + " rejected: see --json)";
    return msg;
  }
  msg += "; closest: ";
  for (std::size_t i = 0; i < misses.size() && i < 3; ++i) {
    const Rejection& r = *misses[i];
    std::string v = s.objective == ObjectiveKind::throughput ? si(*r.achieved, a.throughput_unit) : human_seconds(*r.achieved);
    msg += (i ? ", " : "") + r.accelerator + " at " + v;
  }
  return msg;
}

}  // namespace rooftop::advise
