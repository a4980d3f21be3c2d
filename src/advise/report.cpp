// The advise report as a report::Document: summary, one section per
// finalist (explanation and a roofline with the workload's operators), cost
// vs performance with the Pareto front, the TCO breakdown, the rejected
// accelerators and the assumptions. Rendered by the report module to
// Markdown or self-contained HTML.
#include <algorithm>
#include <cmath>

#include "advise/advise.h"
#include "advise/internal.h"
#include "core/text.h"

namespace rooftop::advise {

namespace {

std::string fixed(double x, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string money(const std::optional<double>& v) { return v ? usd(*v) : "unknown"; }

std::string setup(const Candidate& c) { return std::to_string(c.count) + " x " + c.accelerator->name; }

// "+73 % cost" / "-12 % cost" / "cost unknown" relative to `ref`.
std::string cost_delta(const Candidate& c, const Candidate& ref) {
  if (!c.priced || !ref.priced || *ref.cost.tco_usd <= 0) return "cost unknown";
  const double d = (*c.cost.tco_usd / *ref.cost.tco_usd - 1) * 100;
  const long r = std::lround(d);
  if (r == 0) return "the same cost";
  return (r > 0 ? "+" : "") + std::to_string(r) + " % cost";
}

// The objective's figure for one candidate: "p99 3.2 s", "655 samples/s, 25 h to train".
std::string headline(const Scenario& s, const Candidate& c) {
  switch (s.objective) {
    case ObjectiveKind::latency: return "p99 " + human_seconds(c.latency_s) + " at " + si(s.arrival_rate_per_s, "requests/s");
    case ObjectiveKind::throughput: return si(c.throughput, c.throughput_unit);
    case ObjectiveKind::train:
      return si(c.throughput, c.throughput_unit) + ", " +
             human_seconds(c.train ? c.train->time_to_train_s : c.latency_s) + " to train";
  }
  return "";
}

// The objective's figure over the range the model's measured error on
// published rows like this one gives ("59.9 h to 125 h to train", "p99 2.1 s
// to 4.4 s"), when that error is large (over 15 % either way) or the rows
// were checked in another precision; else "". `at_risk` is set when the slow end of
// the range misses the scenario's objective.
std::string likely_range(const Scenario& s, const Candidate& c, bool* at_risk = nullptr) {
  if (at_risk) *at_risk = false;
  if (!c.sure) return "";
  const model::Sureness& u = *c.sure;
  if (!u.throughput || c.throughput <= 0) return "";
  const double lo = u.throughput->low / c.throughput, hi = u.throughput->high / c.throughput;
  if (lo >= 0.85 && hi <= 1.15 && !u.unvalidated) return "";
  auto span = [](const std::string& a, const std::string& b) { return a == b ? a : a + " to " + b; };
  bool risk = false;
  std::string r;
  switch (s.objective) {
    case ObjectiveKind::throughput:
      r = span(si(u.throughput->low, c.throughput_unit), si(u.throughput->high, c.throughput_unit));
      risk = s.throughput_per_s > 0 && u.throughput->low < s.throughput_per_s;
      break;
    case ObjectiveKind::latency:
      if (u.latency_s) {
        r = "p99 " + span(human_seconds(u.latency_s->low), human_seconds(u.latency_s->high));
        risk = s.p99_latency_s > 0 && u.latency_s->high > s.p99_latency_s;
      }
      break;
    case ObjectiveKind::train: {
      const double t = c.train ? c.train->time_to_train_s : c.latency_s;
      r = span(human_seconds(t / hi), human_seconds(t / lo)) + " to train";
      risk = s.deadline_s > 0 && t / lo > s.deadline_s;
      break;
    }
  }
  if (at_risk) *at_risk = risk && !r.empty();
  return r;
}

// "(likely 2.5-3.5 ktokens/s)" after the objective's figure when the model's
// measured error on published rows like this one is large (over 15 % either
// way), "(unvalidated: ...)" when no published row checks it; else nothing.
std::string likely(const Scenario& s, const Candidate& c) {
  if (!c.sure) return "";
  const model::Sureness& u = *c.sure;
  if (!u.throughput || c.throughput <= 0) return u.unvalidated ? " (unvalidated: " + u.note + ")" : "";
  const std::string r = likely_range(s, c);
  if (r.empty()) return "";
  return " (likely " + r + (u.unvalidated ? "; unvalidated: " + u.note : std::string()) + ")";
}

// The objective in words, for "misses the ...".
std::string objective_words(const Scenario& s, const Candidate& c) {
  switch (s.objective) {
    case ObjectiveKind::throughput: return "throughput target of " + si(s.throughput_per_s, c.throughput_unit);
    case ObjectiveKind::latency: return "p99 target of " + human_seconds(s.p99_latency_s);
    case ObjectiveKind::train: return "deadline of " + human_seconds(s.deadline_s);
  }
  return "objective";
}

// A finalist's uncertainty line: the likely range, its basis, and whether
// its slow end misses the objective; "unvalidated: ..." when no published
// row checks it; "" when the published rows agree with the model within 15 %.
std::string uncertainty(const Scenario& s, const Candidate& c) {
  if (!c.sure) return "";
  const model::Sureness& u = *c.sure;
  if (!u.throughput && u.unvalidated) return "uncertainty: unvalidated: " + u.note;
  bool risk = false;
  const std::string r = likely_range(s, c, &risk);
  if (r.empty()) return "";
  std::string line = "uncertainty: likely " + r + ", from " + u.throughput->basis;
  if (u.unvalidated) line += "; unvalidated: " + u.note;
  if (risk) line += "; at the slow end of that range it misses the " + objective_words(s, c);
  return line;
}

std::string horizon(double y) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g year%s", y, y == 1 ? "" : "s");
  return buf;
}

std::string objective_text(const Scenario& s, const std::string& unit) {
  switch (s.objective) {
    case ObjectiveKind::throughput: return "throughput >= " + si(s.throughput_per_s, unit);
    case ObjectiveKind::latency:
      return "p99 latency <= " + human_seconds(s.p99_latency_s) + " at " + si(s.arrival_rate_per_s, "requests/s");
    case ObjectiveKind::train:
      if (s.train_to_target) return "train to the MLPerf quality target within " + human_seconds(s.deadline_s);
      return "train on " + (s.train_tokens > 0 ? si(s.train_tokens, "tokens") : si(s.train_samples, "samples")) +
             " within " + human_seconds(s.deadline_s);
  }
  return "";
}

std::vector<std::string> row(const Scenario& s, std::size_t rank, const Candidate& c) {
  std::vector<std::string> r = {rank ? std::to_string(rank) : "baseline",
                                c.accelerator->id + (c.accelerator->caveats.empty() ? "" : " (!)"),
                                std::to_string(c.count),
                                precision_label(s, c),
                                std::to_string(c.batch),
                                si(c.throughput, c.throughput_unit),
                                c.train ? human_seconds(c.train->time_to_train_s) : human_seconds(c.latency_s),
                                money(c.cost.tco_usd),
                                c.power_w ? si(*c.power_w, "W") : "unknown",
                                fixed(c.scores.total, 2) + (c.priced ? "" : "*"),
                                c.pareto ? "yes" : ""};
  if (s.rank_least_capacity) r.insert(r.begin() + 5, si(capacity(s, c), "FLOP/s"));
  return r;
}

report::Table summary_table(const Scenario& s, const Advice& a, std::size_t top) {
  report::Table t;
  t.headers = {"rank", "accelerator", "devices", "precision", "batch", "throughput",
               s.objective == ObjectiveKind::train ? "time to train" : (s.objective == ObjectiveKind::latency ? "p99" : "latency"),
               "TCO", "power", "score", "pareto"};
  t.align = {report::Align::right, report::Align::left, report::Align::right, report::Align::left, report::Align::right,
             report::Align::right, report::Align::right, report::Align::right, report::Align::right, report::Align::right,
             report::Align::left};
  if (s.rank_least_capacity) {
    t.headers.insert(t.headers.begin() + 5, "capacity");
    t.align.insert(t.align.begin() + 5, report::Align::right);
  }
  for (std::size_t i = 0; i < a.candidates.size() && i < top; ++i) t.rows.push_back(row(s, i + 1, a.candidates[i]));
  if (a.baseline) t.rows.push_back(row(s, 0, *a.baseline));
  return t;
}

report::RooflineChart roofline(const Candidate& c) {
  report::RooflineChart r;
  const catalog::Accelerator& acc = *c.accelerator;
  r.title = acc.name + " (" + std::string(to_string(c.precision)) + ", batch " + std::to_string(c.batch) + ")";
  report::Ceiling roof{"compute roof: " + std::string(to_string(c.precision)) + " " +
                           si(acc.peak(c.precision).or_else(0), "FLOP/s"),
                       acc.peak(c.precision).or_else(0), acc.memory_bytes_per_s.or_else(0)};
  if (acc.memory_bytes_per_s.known()) {
    r.memory_label = "memory roof: " + (acc.memory_type.empty() ? "" : acc.memory_type + " ") +
                        si(*acc.memory_bytes_per_s.value, "B/s");
  }
  r.ceilings.push_back(roof);
  for (const OpPoint& p : c.ops) {
    if (p.intensity > 0 && p.flop_per_s > 0) r.points.push_back({p.name, p.intensity, p.flop_per_s, p.time_share > 0.1});
  }
  return r;
}

report::ScatterChart cost_scatter(const Scenario& s, const Advice& a) {
  report::ScatterChart sc;
  sc.title = "Cost over the horizon vs performance (Pareto front highlighted)";
  sc.x = report::Axis{"TCO (USD)", true, std::nullopt, std::nullopt};
  const bool lat = s.objective != ObjectiveKind::throughput;
  sc.y = report::Axis{s.objective == ObjectiveKind::latency ? "p99 latency (s)"
                      : s.objective == ObjectiveKind::train ? "time to train (s)"
                                                            : "throughput (" + a.throughput_unit + ")",
                      true, std::nullopt, std::nullopt};
  for (const Candidate& c : a.candidates) {
    if (!c.priced) continue;
    double y = lat ? (c.train ? c.train->time_to_train_s : c.latency_s) : c.throughput;
    sc.points.push_back({c.accelerator->id + " x" + std::to_string(c.count), *c.cost.tco_usd, y, c.pareto});
  }
  return sc;
}

report::BarChart tco_bars(const Scenario& s, const Advice& a, std::size_t top) {
  report::BarChart b;
  b.title = "TCO over " + fixed(s.horizon_years, 1) + " years (USD)";
  b.y = report::Axis{"USD", false, 0.0, std::nullopt};
  report::Series capex{"capex", {}, {}}, energy{"energy x PUE", {}, {}}, cloud{"cloud hours", {}, {}};
  std::size_t shown = 0;
  for (const Candidate& c : a.candidates) {
    if (!c.priced || shown >= std::max<std::size_t>(top, 5)) continue;
    ++shown;
    b.categories.push_back(c.accelerator->id + " x" + std::to_string(c.count));
    const double x = static_cast<double>(b.categories.size() - 1);
    for (report::Series* ser : {&capex, &energy, &cloud}) ser->x.push_back(x);
    capex.y.push_back(c.cost.capex_usd.value_or(0));
    energy.y.push_back(c.cost.energy_usd.value_or(0));
    cloud.y.push_back(c.cost.cloud_usd.value_or(0));
  }
  if (s.deployment == Deployment::cloud) b.series = {cloud};
  else if (s.deployment == Deployment::either) b.series = {capex, energy, cloud};
  else b.series = {capex, energy};
  return b;
}

}  // namespace

bool objective_at_risk(const Scenario& s, const Candidate& c) {
  bool risk = false;
  likely_range(s, c, &risk);
  return risk;
}

std::string precision_label(const Scenario& s, const Candidate& c) {
  std::string out(to_string(c.precision));
  if (s.task == workload::Task::train) return out;
  if (s.weight_precision && *s.weight_precision != c.precision) out += "+" + std::string(to_string(*s.weight_precision)) + "-weights";
  if (s.kv_precision && *s.kv_precision != c.precision) out += "+" + std::string(to_string(*s.kv_precision)) + "-kv";
  return out;
}

namespace {

// " (buying: $360 k)" after a TCO figure under `deployment: either`: the
// other way to pay, so that both figures are on the line.
std::string other_way(const Scenario& s, const Candidate& c) {
  if (s.deployment != Deployment::either) return "";
  if (c.cost.rented && c.accelerator->cloud_only) return " (not sold: rented only)";
  if (c.cost.rented) {
    return " (buying: " + (c.cost.capex_usd && c.cost.energy_usd ? usd(*c.cost.capex_usd + *c.cost.energy_usd) : std::string("price unknown")) + ")";
  }
  return " (renting: " + (c.cost.cloud_usd ? usd(*c.cost.cloud_usd) : std::string("price unknown")) + ")";
}

// An unpriced finalist ranked above the one to buy, and what it would have
// to cost to win: "8 x NVIDIA B200 (no list price in the catalog; at $31.2 k
// or less per device it would win)".
std::string unpriced_rival(const Scenario& s, const Candidate& c) {
  std::string line = setup(c) + " (" + missing_cost(s, *c.accelerator) + "; ";
  if (!c.price_to_win) return line + "it might beat it)";
  const PriceToWin& p = *c.price_to_win;
  if (p.any_price) return line + "it would win at any price)";
  return line + "at " + (p.per_hour ? usd_per_hour(p.usd) : usd(p.usd)) + " or less per device it would win)";
}

// The unit the chosen part is sold or rented in (c.system): "; as sold: 1 x
// NVIDIA DGX B200 (node of 8, 14.3 kW, $515 k; the plan uses 4 of the 8)";
// empty when the catalog has no system holding it.
std::string as_sold(const Candidate& c) {
  const catalog::System* pick = c.system;
  if (!pick) return "";
  const long long per = std::llround(*pick->accelerators.value);
  const long long units = (c.count + per - 1) / per;
  std::string what = std::string(catalog::to_string(pick->unit)) + " of " + std::to_string(per);
  if (pick->power_w.known()) what += ", " + si(*pick->power_w.value, "W");
  if (pick->cooling == catalog::Cooling::liquid) what += ", liquid-cooled";
  if (c.cost.rented && pick->price.cloud_usd_per_hour.known()) what += ", " + usd_per_hour(*pick->price.cloud_usd_per_hour.value);
  if (!c.cost.rented && pick->price.list_usd.known()) what += ", " + usd(*pick->price.list_usd.value);
  if (units * per > c.count) what += "; the plan uses " + std::to_string(c.count) + " of the " + std::to_string(units * per);
  return "; as sold: " + std::to_string(units) + " x " + pick->name + " (" + what + ")";
}

}  // namespace

std::string answer_line(const Scenario& s, const Advice& a) {
  if (a.candidates.empty()) return "No recommendation: " + nothing_feasible(s, a) + ".";
  // The answer is the best finalist whose cost is known: nobody is told to
  // buy what cannot be priced, and the unpriced parts ranked above it are named.
  auto lead_it = std::find_if(a.candidates.begin(), a.candidates.end(), [](const Candidate& c) { return c.priced; });
  const Candidate& best = lead_it == a.candidates.end() ? a.candidates.front() : *lead_it;
  const std::size_t rank = static_cast<std::size_t>(&best - a.candidates.data()) + 1;
  const std::string what = setup(best) + " (" + precision_label(s, best) + ")" +
                           (rank > 1 ? ", rank " + std::to_string(rank) + " in the table" : "") + ": " +
                           headline(s, best) + likely(s, best) + ", ";
  std::string line;
  if (!best.priced) {
    line = "Nothing to buy on cost: no finalist has a price in the catalog (give a quote under economics.prices); "
           "best on the known criteria " + what + "cost unknown (" + missing_cost(s, *best.accelerator) + ")";
  } else {
    line = std::string(best.cost.rented ? "Rent " : "Buy ") + what + usd(*best.cost.tco_usd) + " over " +
           horizon(s.horizon_years) + other_way(s, best) + as_sold(best);
    auto next = std::find_if(lead_it + 1, a.candidates.end(), [](const Candidate& c) { return c.priced; });
    if (next != a.candidates.end()) line += "; 2nd choice " + setup(*next) + " at " + cost_delta(*next, best);
    std::vector<std::string> rivals;
    for (auto c = a.candidates.begin(); c != lead_it; ++c) rivals.push_back(unpriced_rival(s, *c));
    if (!rivals.empty()) {
      line += "; ranked above it but unpriced: ";
      for (std::size_t i = 0; i < rivals.size() && i < 3; ++i) line += (i ? ", " : "") + rivals[i];
      if (rivals.size() > 3) line += " and " + std::to_string(rivals.size() - 3) + " more";
    }
  }
  if (a.baseline && a.baseline->priced && best.priced) {
    line += "; your " + setup(*a.baseline) + " is " + cost_delta(*a.baseline, best);
  }
  // The question behind a baseline is often "was that the right buy?": the
  // baseline's own part, sized like every candidate, answers it directly.
  if (a.baseline) {
    auto same = std::find_if(a.candidates.begin(), a.candidates.end(), [&](const Candidate& c) {
      return c.accelerator == a.baseline->accelerator && c.count < a.baseline->count;
    });
    if (same != a.candidates.end()) {
      line += "; " + setup(*same) + " (" + precision_label(s, *same) + ") would have been enough: " +
              headline(s, *same) + ", against the " + std::to_string(a.baseline->count) + " you have";
    }
  }
  if (!best.accelerator->caveats.empty()) line += ". Caveat: " + best.accelerator->caveats.front().text;
  return line + ".";
}

std::string weights_line(const Scenario& s) {
  const Weights& w = s.weights;
  auto one = [](const char* name, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %g", name, v);
    return std::string(buf);
  };
  return "Score = weighted mean of " + one("compute adequacy", w.compute_adequacy) + ", " +
         one("bandwidth fit", w.bandwidth_fit) + ", " + one("precision", w.precision) + ", " +
         one("ecosystem", w.ecosystem) + ", " + one("energy efficiency", w.energy_efficiency) + ", " +
         one("TCO", w.tco) + " (set them in the scenario's `weights:`); " +
         (s.rank_least_capacity ? "the rank follows the capacity, least first (rank_by: least_capacity), then the score. "
                                : "the rank follows the score. ") +
         "* = TCO unknown: scored on the criteria that are known and ranked on them (of two rows showing the same "
         "score, the priced one first); the first line names the best priced part and what each unpriced part above "
         "it would have to cost to win. (!) = caveat below.";
}

report::Document build_report(const Scenario& s, const Advice& a, std::size_t top, bool for_terminal) {
  report::Document d;
  d.title = "rooftop advise: " + s.name;
  auto add = [&](report::Block b) { d.blocks.push_back(std::move(b)); };
  add(report::Paragraph{"**" + answer_line(s, a) + "**"});
  if (!s.description.empty()) add(report::Paragraph{s.description});
  add(report::Paragraph{"Workload `" + a.model + "` (" + std::string(workload::to_string(s.task)) + "); objective: " +
                        objective_text(s, a.throughput_unit) + "; " + std::to_string(a.candidates.size()) +
                        " feasible, " + std::to_string(a.rejected.size()) + " rejected, " +
                        std::to_string(a.configs_evaluated) + " configurations evaluated."});
  add(report::Heading{2, "Recommendation"});
  add(summary_table(s, a, top));
  if (a.candidates.empty()) add(report::Paragraph{nothing_feasible(s, a)});
  else add(report::Paragraph{weights_line(s)});
  std::vector<std::string> caveats;
  auto caveats_of = [&](const Candidate& c) {
    for (const catalog::Caveat& k : c.accelerator->caveats) {
      std::string line = c.accelerator->id + ": " + k.text;
      if (std::find(caveats.begin(), caveats.end(), line) == caveats.end()) caveats.push_back(line);
    }
  };
  for (std::size_t i = 0; i < a.candidates.size() && i < top; ++i) caveats_of(a.candidates[i]);
  if (a.baseline) caveats_of(*a.baseline);
  if (!caveats.empty()) {
    add(report::Paragraph{"Caveats (catalog data with sources: rooftop catalog show ID):"});
    add(report::BulletList{caveats});
  }
  if (!for_terminal) {
    add(report::Heading{2, "How to read this"});
    add(report::BulletList{{
        "The first line is the answer; the table ranks every part that meets the objective under the constraints, "
        "each sized (devices, precision, batch) to meet it at the least cost the model finds.",
        "Score: each criterion is 0 to 1 (1 is best) and the score is their weighted mean; the weights are under "
        "the table. A part whose cost is unknown is scored on the criteria that are known and marked *.",
        "Pareto: no other part is at once cheaper, better on the objective and lower in power.",
        "Roofline charts (log-log): the orange slanted line is the memory roof, the blue flat line the compute "
        "roof; each point is one of the workload's heaviest operators, larger ones take over 10 % of the time. "
        "A point under the slanted part is limited by memory bandwidth, not by peak FLOP/s.",
        "Rejected parts are listed with the first constraint they break; assumptions list every default used.",
    }});
  }

  for (std::size_t i = 0; i < a.candidates.size() && i < top; ++i) {
    const Candidate& c = a.candidates[i];
    add(report::Heading{3, "#" + std::to_string(i + 1) + " " + setup(c)});
    std::vector<std::string> items = c.explanation;
    if (c.train) {
      const TrainPlan& t = *c.train;
      items.push_back("split: data " + std::to_string(t.data) + " x tensor " + std::to_string(t.tensor) + " x pipeline " +
                      std::to_string(t.pipeline) + ", micro-batch " + std::to_string(t.micro_batch) +
                      ", gradient accumulation " + std::to_string(t.grad_accumulation) + "; step " +
                      human_seconds(t.step_s) + " (gradient all-reduce " + human_seconds(t.dp_comm_s) +
                      ", bandwidth utilisation " + fixed(t.eta, 2) + ", straggler x" + fixed(t.straggler_factor, 3) + ")");
    } else if (c.replica_devices > 1) {
      items.push_back("one model copy spans " + std::to_string(c.replica_devices) + " devices; " +
                      std::to_string(c.count / std::max(1, c.replica_devices)) + " cop" +
                      (c.count / std::max(1, c.replica_devices) == 1 ? "y" : "ies"));
    }
    if (std::string u = uncertainty(s, c); !u.empty()) items.push_back(u);
    if (c.cold_start_s) items.push_back("cold start: " + human_seconds(*c.cold_start_s) + " to load the weights");
    for (const catalog::Caveat& k : c.accelerator->caveats) items.push_back("caveat: " + k.text);
    for (const std::string& n : c.notes) items.push_back("note: " + n);
    add(report::BulletList{items});
    add(report::Figure{report::svg_roofline(roofline(c)),
                       "Roofline of " + c.accelerator->id + " with the workload's heaviest operators",
                       "roofline-" + std::to_string(i + 1)});
  }
  if (a.baseline) {
    add(report::Heading{3, "Baseline: " + setup(*a.baseline)});
    std::vector<std::string> items = a.baseline->explanation;
    if (std::string u = uncertainty(s, *a.baseline); !u.empty()) items.push_back(u);
    for (const std::string& n : a.baseline->notes) items.push_back("note: " + n);
    add(report::BulletList{items});
  }
  report::ScatterChart sc = cost_scatter(s, a);
  if (!sc.points.empty()) {
    add(report::Heading{2, "Cost vs performance"});
    add(report::Figure{report::svg_scatter(sc), "Priced candidates; the Pareto front is highlighted", "pareto"});
    add(report::Heading{2, "TCO breakdown"});
    add(report::Figure{report::svg_bar(tco_bars(s, a, top)), "Total cost of ownership by part", "tco"});
  }
  add(report::Heading{2, "Rejected"});
  report::Table rej;
  rej.headers = {"accelerator", "reason"};
  for (const Rejection& r : a.rejected) rej.rows.push_back({r.accelerator, r.reason});
  add(rej);
  add(report::Heading{2, "Assumptions"});
  report::Table as;
  as.headers = {"assumption", "value", "source"};
  for (const Assumption& x : a.assumptions) as.rows.push_back({x.name, x.value, x.source});
  add(as);
  return d;
}

}  // namespace rooftop::advise
