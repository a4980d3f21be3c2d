// Scoring the five criteria (docs/advise.md#scores), the Pareto front, the
// ranking and the criterion-by-criterion explanation of each candidate.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "advise/formulas.h"
#include "advise/internal.h"
#include "core/text.h"
#include "model/model.h"

namespace rooftop::advise {

namespace {

const char* const kMajorFrameworks[] = {"pytorch", "tensorflow", "jax", "onnxruntime"};

const catalog::Framework* find_framework(const catalog::Accelerator& a, const std::string& name) {
  for (const catalog::Framework& f : a.software.frameworks) {
    if (to_lower(f.name) == name) return &f;
  }
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  for (const std::string& y : v) {
    if (to_lower(y) == x) return true;
  }
  return false;
}

std::string pct(double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + " %"; }
std::string two(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string years(double y) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g year%s", y, y == 1 ? "" : "s");
  return buf;
}

// Served throughput: what the objective asks for, not the idle headroom.
double served(const Scenario& s, const Candidate& c) {
  return s.objective == ObjectiveKind::train ? c.throughput : c.throughput * std::min(1.0, c.utilisation);
}

// The objective coordinate of the Pareto front, lower is better.
double objective_cost(const Scenario& s, const Candidate& c) {
  switch (s.objective) {
    case ObjectiveKind::latency: return c.latency_s;
    case ObjectiveKind::throughput: return -c.throughput;
    case ObjectiveKind::train: return c.train ? c.train->time_to_train_s : c.latency_s;
  }
  return 0;
}

// The weighted sum of the known criteria and the weight they carry.
struct WeightedSum {
  double sum = 0, weight = 0;
};
WeightedSum weighted(const Weights& w, const Scores& sc) {
  WeightedSum out{w.compute_adequacy * sc.compute_adequacy + w.bandwidth_fit * sc.bandwidth_fit +
                      w.precision * sc.precision + w.ecosystem * sc.ecosystem,
                  w.compute_adequacy + w.bandwidth_fit + w.precision + w.ecosystem};
  if (sc.energy_efficiency) out.sum += w.energy_efficiency * *sc.energy_efficiency, out.weight += w.energy_efficiency;
  if (sc.tco) out.sum += w.tco * *sc.tco, out.weight += w.tco;
  return out;
}

void score_one(const Scenario& s, Candidate& c, double best_ppw, double best_tco) {
  const catalog::Accelerator& a = *c.accelerator;
  Scores& sc = c.scores;
  std::vector<std::string>& ex = c.explanation;
  ex.clear();
  if (c.serving && c.serving->simulated) {
    // How the p99 was found (docs/advise.md#serving).
    const int copies = c.count / std::max(1, c.replica_devices);
    const double rtt_s = s.network_rtt_s[static_cast<int>(a.form_factor)];
    ex.push_back("serving simulated (continuous batching, up to " + std::to_string(c.batch) + " sequences per copy): " +
                 std::to_string(c.serving->requests) + " requests at " + si(s.arrival_rate_per_s / copies, "requests/s") +
                 " on each of " + std::to_string(copies) + " cop" + (copies == 1 ? "y" : "ies") + " give p99 TTFT " +
                 human_seconds(c.serving->ttft_p99_s.value_or(0)) + ", TPOT " + human_seconds(c.serving->tpot_p99_s.value_or(0)) +
                 ", request " + human_seconds(c.serving->latency_p99_s) +
                 (rtt_s > 0 ? " (+ " + human_seconds(rtt_s) + " network round trip)" : "") +
                 (c.serving->preemptions > 0 ? "; " + std::to_string(c.serving->preemptions) + " sequences evicted when the KV cache ran out" : ""));
  }
  // 1. Compute adequacy: a device counts as well used above 70 % utilisation;
  // below that, capacity is bought and left idle. One model copy on the
  // fewest devices that hold it is the least that can be bought: its spare
  // capacity is headroom, not waste (the TCO criterion prices it).
  const bool least = c.count <= std::max(1, c.replica_devices);
  sc.compute_adequacy = least ? 1.0 : std::clamp(c.utilisation / 0.7, 0.0, 1.0);
  std::string what = s.objective == ObjectiveKind::train ? "of the deadline used" : "of the capacity used by the demand";
  ex.push_back("compute adequacy " + two(sc.compute_adequacy) + ": " + pct(c.utilisation) + " " + what +
               (least && c.utilisation < 0.7 ? " (one copy on the fewest devices that hold the model: the least that can be bought)"
                : c.utilisation < 0.35     ? " (over-provisioned: most of the capacity is bought and left idle)"
                                           : ""));
  // 2. Bandwidth fit: attained FLOP/s over what compute-bound kernels reach.
  const model::Efficiency e = model::efficiency_for(a);
  const double roof = a.peak(c.precision).or_else(0) * e.compute;
  sc.bandwidth_fit = roof > 0 ? std::clamp(c.achieved_flop_per_s / roof, 0.0, 1.0) : 0;
  ex.push_back("bandwidth fit " + two(sc.bandwidth_fit) + ": attains " + si(c.achieved_flop_per_s, "FLOP/s") + " of " +
               si(roof, "FLOP/s") + " compute-bound kernels reach" +
               (sc.bandwidth_fit < 0.5 ? " (memory-bound: bandwidth, not peak FLOP/s, decides)" : ""));
  // 3. Precision.
  const PrecisionRisk risk = precision_risk(c.precision, s.task);
  sc.precision = risk.score;
  ex.push_back("precision " + two(sc.precision) + " (" + std::string(to_string(c.precision)) + "): " + risk.text);
  // 4. Ecosystem.
  std::vector<std::string> eco_notes;
  sc.ecosystem = ecosystem_score(s, a, &eco_notes);
  ex.push_back("ecosystem " + two(sc.ecosystem) + ": " + (eco_notes.empty() ? "" : eco_notes.front()));
  // 5. Energy efficiency and TCO, relative to the best candidate.
  if (c.perf_per_w && best_ppw > 0) {
    sc.energy_efficiency = *c.perf_per_w / best_ppw;
    // Per kW when a watt buys less than one unit (a training run's samples/s),
    // so the figures keep their digits.
    const bool kw = best_ppw < 1;
    const double scale = kw ? 1000 : 1;
    const std::string per = kw ? " per kW" : " per W";
    ex.push_back("energy efficiency " + two(*sc.energy_efficiency) + ": " + si(*c.perf_per_w * scale, c.throughput_unit) +
                 per + " at TDP (best " + si(best_ppw * scale, c.throughput_unit) + per + ")");
  } else {
    sc.energy_efficiency.reset();
    ex.push_back("energy efficiency unknown: no TDP in the catalog; not part of the score");
  }
  if (c.priced && best_tco > 0) {
    sc.tco = best_tco / *c.cost.tco_usd;
    auto buy = [&] {
      return c.cost.capex_usd && c.cost.energy_usd
                 ? "capex " + usd(*c.cost.capex_usd) + " + energy " + usd(*c.cost.energy_usd)
                 : std::string("buying: price unknown");
    };
    auto rent = [&] { return c.cost.cloud_usd ? "cloud " + usd(*c.cost.cloud_usd) : std::string("renting: price unknown"); };
    std::string parts = s.deployment == Deployment::cloud    ? rent()
                        : s.deployment == Deployment::either ? buy() + "; or " + rent()
                                                             : buy();
    std::string dates;
    if (!c.cost.list_price_date.empty()) dates += "; list price dated " + c.cost.list_price_date;
    if (!c.cost.cloud_price_date.empty()) dates += "; cloud price dated " + c.cost.cloud_price_date;
    std::string rent_vs_buy;
    if (c.break_even_utilisation)
      rent_vs_buy = "; rent vs buy: break-even at " + pct(*c.break_even_utilisation) + " utilisation (buying is cheaper above it; the scenario assumes " + pct(s.utilisation) + ")";
    ex.push_back("TCO " + two(*sc.tco) + ": " + usd(*c.cost.tco_usd) + " over " + years(s.horizon_years) + " (" + parts +
                 dates + "; the cheapest candidate costs " + usd(best_tco) + ")" + rent_vs_buy);
  } else {
    sc.tco.reset();
    ex.push_back("TCO unknown (" + missing_cost(s, a) + "): scored on the other criteria only");
  }
  const WeightedSum ws = weighted(s.weights, sc);
  sc.total = ws.weight > 0 ? ws.sum / ws.weight : 0;
}

// An unpriced candidate ranked above `lead` (the best priced finalist): the
// price at which a TCO score would lift its total above lead's. The other
// candidates' TCO scores stay as they are while its TCO is no lower than
// the cheapest one's (`best_tco`), which holds for any score it needs below 1.
std::optional<PriceToWin> price_to_win(const Scenario& s, const Candidate& c, const Candidate& lead, double best_tco) {
  const WeightedSum ws = weighted(s.weights, c.scores);
  const double w_tco = s.weights.tco;
  PriceToWin p;
  p.per_hour = s.deployment == Deployment::cloud;
  // Cost is no criterion, or the rank is by capacity: its price cannot change the rank.
  if (w_tco <= 0 || s.rank_least_capacity) return p.any_price = true, p;
  // (sum + w_tco x t) / (weight + w_tco) > lead's total, solved for the TCO score t.
  const double t = (lead.scores.total * (ws.weight + w_tco) - ws.sum) / w_tco;
  if (t <= 0) return p.any_price = true, p;
  if (t >= 1 || best_tco <= 0) return std::nullopt;
  std::optional<double> usd = price_for_tco(tco_input(s, c), best_tco / t);
  if (!usd) return std::nullopt;
  p.usd = *usd;
  return p;
}

}  // namespace

double capacity(const Scenario& s, const Candidate& c) {
  double peak = c.accelerator->peak(c.precision).or_else(0);
  for (Precision p : s.precisions) peak = std::max(peak, c.accelerator->peak(p).or_else(0));
  return c.count * peak;
}

std::string missing_cost(const Scenario& s, const catalog::Accelerator& a) {
  if (s.deployment == Deployment::cloud) return a.price.cloud_usd_per_hour.known() ? "" : "no cloud price in the catalog";
  if (s.deployment == Deployment::either && a.price.cloud_usd_per_hour.known()) return "";
  if (s.deployment == Deployment::either && !a.price.list_usd.known()) return "no list price and no cloud price in the catalog";
  if (!a.price.list_usd.known() && !a.power_w.known()) return "no list price and no TDP in the catalog";
  if (!a.price.list_usd.known()) return "no list price in the catalog";
  if (!a.power_w.known()) return "no TDP in the catalog, so energy is unknown";
  return "";
}

std::string ecosystem_gap(const Scenario& s, const catalog::Accelerator& a) {
  for (const FrameworkRequirement& f : s.frameworks) {
    const catalog::Framework* have = find_framework(a, f.name);
    if (!have) {
      const catalog::Software& sw = a.software;
      if (sw.frameworks.empty() && sw.stacks.empty() && sw.custom_kernels.empty()) {
        return "no " + f.name + " support listed in the catalog: it has no software section, because no source read "
               "says which frameworks run on it";
      }
      std::string listed;
      for (const catalog::Framework& x : sw.frameworks) listed += (listed.empty() ? "" : ", ") + x.name;
      return "no " + f.name + " support listed in the catalog (" +
             (listed.empty() ? "it lists no framework" : "it lists " + listed) + ")";
    }
    if (!f.min_version.empty() && !have->version.empty() && compare_versions(have->version, f.min_version) < 0) {
      return f.name + " >= " + f.min_version + " required; newest listed is " + have->version;
    }
  }
  for (const std::string& r : s.runtimes) {
    if (!has(a.software.stacks, r)) return "runtime " + r + " not in its software stack";
  }
  if (!s.custom_ops.empty()) {
    bool any = false;
    for (const std::string& c : s.custom_ops) any = any || has(a.software.custom_kernels, c);
    if (!any) {
      std::string list;
      for (const std::string& c : s.custom_ops) list += (list.empty() ? "" : "/") + c;
      return "custom operators in " + list + " not supported";
    }
  }
  return "";
}

double ecosystem_score(const Scenario& s, const catalog::Accelerator& a, std::vector<std::string>* notes) {
  if (s.frameworks.empty() && s.runtimes.empty() && s.custom_ops.empty()) {
    int n = 0;
    std::string list;
    for (const char* f : kMajorFrameworks) {
      if (find_framework(a, f)) ++n, list += (list.empty() ? "" : ", ") + std::string(f);
    }
    if (notes) notes->push_back("no stack required; supports " + std::to_string(n) + " of 4 major frameworks" +
                                (list.empty() ? "" : " (" + list + ")"));
    return n / 4.0;
  }
  double score = 1;
  std::string have;
  for (const FrameworkRequirement& f : s.frameworks) {
    const catalog::Framework* fw = find_framework(a, f.name);
    if (fw && fw->version.empty() && !f.min_version.empty()) {
      score -= 0.25;
      have += (have.empty() ? "" : ", ") + f.name + " (version unknown)";
    } else if (fw) {
      have += (have.empty() ? "" : ", ") + f.name + (fw->version.empty() ? "" : " " + fw->version);
    }
  }
  for (const std::string& r : s.runtimes) have += (have.empty() ? "" : ", ") + r;
  for (const std::string& c : s.custom_ops) {
    if (has(a.software.custom_kernels, c)) have += (have.empty() ? "" : ", ") + std::string("custom ops in ") + c;
  }
  if (notes) notes->push_back("required stack available: " + have);
  return std::max(0.0, score);
}

void score_and_rank(const Scenario& s, Advice& out) {
  double best_ppw = 0, best_tco = std::numeric_limits<double>::infinity();
  auto visit = [&](Candidate& c) {
    if (c.power_w && *c.power_w > 0) c.perf_per_w = served(s, c) / *c.power_w;
    if (c.perf_per_w) best_ppw = std::max(best_ppw, *c.perf_per_w);
    if (c.priced) best_tco = std::min(best_tco, *c.cost.tco_usd);
  };
  for (Candidate& c : out.candidates) visit(c);
  if (out.baseline) visit(*out.baseline);
  if (!std::isfinite(best_tco)) best_tco = 0;
  for (Candidate& c : out.candidates) score_one(s, c, best_ppw, best_tco);
  if (out.baseline) score_one(s, *out.baseline, best_ppw, best_tco);

  // Pareto front over (cost, objective, power) among priced candidates.
  std::vector<std::vector<double>> pts;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (!c.priced) continue;
    pts.push_back({*c.cost.tco_usd, objective_cost(s, c), c.power_w.value_or(std::numeric_limits<double>::infinity())});
    idx.push_back(i);
  }
  std::vector<bool> front = pareto_front(pts);
  for (std::size_t k = 0; k < idx.size(); ++k) out.candidates[idx[k]].pareto = front[k];

  // One ordering, by what the table shows: the score, rounded as shown, so
  // that two rows showing the same score are ordered by tie-breaks a reader
  // can check too: a part whose cost is known before one whose cost is not,
  // then the lower TCO; two unpriced parts by their own score (nothing else
  // tells them apart); then fewer devices. An unpriced part is ranked on its
  // merits: the answer line says what it would have to cost to win.
  auto shown = [](const Candidate& c) { return std::round(c.scores.total * 100); };
  std::sort(out.candidates.begin(), out.candidates.end(), [&](const Candidate& x, const Candidate& y) {
    if (s.rank_least_capacity && capacity(s, x) != capacity(s, y)) return capacity(s, x) < capacity(s, y);
    if (shown(x) != shown(y)) return shown(x) > shown(y);
    if (x.priced != y.priced) return x.priced;
    if (x.priced && *x.cost.tco_usd != *y.cost.tco_usd) return *x.cost.tco_usd < *y.cost.tco_usd;
    if (!x.priced && x.scores.total != y.scores.total) return x.scores.total > y.scores.total;
    if (x.count != y.count) return x.count < y.count;
    return x.accelerator->id < y.accelerator->id;
  });
  auto lead = std::find_if(out.candidates.begin(), out.candidates.end(), [](const Candidate& c) { return c.priced; });
  if (lead != out.candidates.end()) {
    for (auto c = out.candidates.begin(); c != lead; ++c) c->price_to_win = price_to_win(s, *c, *lead, best_tco);
  }
  for (Candidate& c : out.candidates) {
    if (c.pareto) {
      const char* perf = s.objective == ObjectiveKind::train     ? "time to train"
                         : s.objective == ObjectiveKind::latency ? "p99 latency"
                                                                 : "throughput";
      c.explanation.push_back(std::string("on the Pareto front of cost, ") + perf + " and power");
    }
  }
}

void add_assumptions(const Scenario& s, const workload::Workload& w, Advice& out) {
  auto econ = [&](const std::string& key, double v, const std::string& source) {
    bool dflt = std::find(s.defaults_used.begin(), s.defaults_used.end(), key) != s.defaults_used.end();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    out.assumptions.push_back({key, buf, dflt ? "default: " + source : "scenario"});
  };
  econ("horizon_years", s.horizon_years, "a 3-year TCO horizon, the usual depreciation period of servers");
  econ("energy_usd_per_kwh", s.energy_usd_per_kwh, "US EIA Electric Power Monthly, 2023 average commercial retail price 12.8 c/kWh");
  econ("pue", s.pue, "Uptime Institute Global Data Center Survey 2023, average PUE 1.58");
  econ("utilisation", s.utilisation, "half of the horizon busy (docs/advise.md#tco)");
  for (const PriceOverride& po : s.prices) {
    std::string v = po.list_usd ? "$" + two(*po.list_usd) : "";
    if (po.cloud_usd_per_hour) v += (v.empty() ? "$" : ", $") + two(*po.cloud_usd_per_hour) + "/h";
    out.assumptions.push_back({"price " + po.accelerator, v, "scenario: " + po.source});
  }
  out.assumptions.push_back({"power", "TDP x devices while busy", "docs/advise.md#tco: idle power is not in the catalog"});
  out.assumptions.push_back({"usable_memory_fraction", "0.90", "vLLM default gpu_memory_utilization (docs/model.md)"});
  if (s.objective == ObjectiveKind::latency) {
    if (workload::generates_tokens(w))
      out.assumptions.push_back({"serving", "event-driven continuous-batching simulation (chunked prefill, paged KV), Poisson arrivals, p99",
                                 "docs/advise.md#serving, docs/model.md#serving"});
    else
      out.assumptions.push_back({"queueing", "M/D/1 on batches + Erlang batch fill, p99", "docs/advise.md#queueing"});
  }
  if (s.objective == ObjectiveKind::train) {
    out.assumptions.push_back({"straggler_cv", two(s.straggler_cv), "scenario objective.straggler_cv (docs/advise.md#stragglers)"});
    out.assumptions.push_back({"optimizer_state",
                               w.optimizer == workload::Optimizer::adagrad
                                   ? "12 bytes/param at 16-bit (Adagrad: fp32 master + accumulator)"
                                   : "16 bytes/param at 16-bit (Adam, fp32 master)",
                               "ZeRO, Rajbhandari et al. 2020; docs/model.md#memory"});
  }
  out.assumptions.push_back({"storage_gb_s", two(s.storage_bytes_per_s / 1e9), "cold start: weights / min(storage, host link)"});
}

}  // namespace rooftop::advise
