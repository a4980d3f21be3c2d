// `rooftop advise SCENARIO.yaml`: the main job. Reads a scenario, runs the
// advisor over the catalog, and prints the ranked recommendation as a table,
// as JSON (--json), and optionally as a Markdown or self-contained HTML
// report with SVG charts (--report). docs/advise.md describes the scenario.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "advise/advise.h"
#include "command.h"
#include "core/text.h"
#include "core/yaml.h"
#include "inputs.h"
#include "jobs.h"
#include "report/report.h"
#include "report_out.h"

namespace rooftop::app {
namespace {

using nlohmann::json;

struct AdviseOptions {
  std::string scenario;
  std::string report;
  std::size_t top = 5;
  bool json = false;
};

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json date_or_null(const std::string& d) { return d.empty() ? json(nullptr) : json(d); }

json caveats_json(const catalog::Accelerator& a) {
  json out = json::array();
  for (const catalog::Caveat& k : a.caveats) {
    out.push_back({{"kind", std::string(catalog::to_string(k.kind))}, {"text", k.text}, {"source", k.source}});
  }
  return out;
}

// The `rooftop predict` arguments that reproduce a candidate's numbers.
std::string predict_args(const advise::Scenario& sc, const advise::Candidate& c) {
  std::string a = "--model " + sc.model + " --accelerator " + c.accelerator->id + " --count " +
                  std::to_string(c.count) + " --task " + std::string(workload::to_string(sc.task)) + " --precision " +
                  std::string(to_string(c.precision)) + " --plan " + c.plan;
  if (sc.shape.seq_len) a += " --seq " + std::to_string(*sc.shape.seq_len);
  if (sc.shape.input_tokens) a += " --input-tokens " + std::to_string(*sc.shape.input_tokens);
  if (sc.shape.output_tokens) a += " --output-tokens " + std::to_string(*sc.shape.output_tokens);
  if (sc.task == workload::Task::train)
    a += fmt::format(" --global-batch {} --straggler-cv {}{}", sc.global_batch, sc.straggler_cv,
                     sc.train_to_target ? " --to-target" : "");
  if (c.serving && c.serving->simulated)
    a += fmt::format(" --rate {} --requests {}", sc.arrival_rate_per_s, c.serving->requests);
  return a;
}

json candidate_json(const advise::Scenario& sc, const advise::Candidate& c, std::size_t rank) {
  const advise::Scores& s = c.scores;
  json j = {
      {"rank", rank ? json(rank) : json(nullptr)},
      {"accelerator", c.accelerator->id},
      {"count", c.count},
      {"replica_devices", c.replica_devices},
      {"precision", std::string(to_string(c.precision))},
      {"batch", c.batch},
      {"throughput", {{"value", c.throughput}, {"unit", c.throughput_unit}}},
      {"latency_s", c.latency_s},
      {"service_s", c.service_s},
      {"utilisation", c.utilisation},
      {"meets_objective", c.meets_objective},
      {"memory_bytes", c.memory_bytes},
      {"cold_start_s", opt(c.cold_start_s)},
      {"power_w", opt(c.power_w)},
      {"perf_per_w", opt(c.perf_per_w)},
      {"achieved_flop_per_s", c.achieved_flop_per_s},
      {"cost",
       {{"capex_usd", opt(c.cost.capex_usd)},
        {"energy_usd", opt(c.cost.energy_usd)},
        {"cloud_usd", opt(c.cost.cloud_usd)},
        {"tco_usd", opt(c.cost.tco_usd)},
        {"energy_kwh", opt(c.cost.energy_kwh)},
        {"list_price_date", date_or_null(c.cost.list_price_date)},
        {"cloud_price_date", date_or_null(c.cost.cloud_price_date)}}},
      {"priced", c.priced},
      {"scores",
       {{"compute_adequacy", s.compute_adequacy},
        {"bandwidth_fit", s.bandwidth_fit},
        {"precision", s.precision},
        {"ecosystem", s.ecosystem},
        {"energy_efficiency", opt(s.energy_efficiency)},
        {"tco", opt(s.tco)},
        {"total", s.total}}},
      {"pareto", c.pareto},
      {"precision_risk", c.precision_risk},
      {"plan", c.plan},
      {"predict", predict_args(sc, c)},
      {"explanation", c.explanation},
      {"notes", c.notes},
      {"caveats", caveats_json(*c.accelerator)},
  };
  if (c.sure) {
    // As `predict --json` carries them (docs/model.md#ranges).
    auto band = [](const std::optional<model::Range>& r) {
      return r ? json{{"low", r->low}, {"high", r->high}, {"basis", r->basis}} : json(nullptr);
    };
    j["throughput"]["range"] = band(c.sure->throughput);
    j["latency_range_s"] = band(c.sure->latency_s);
    j["unvalidated"] = c.sure->unvalidated;
    j["validation"] = c.sure->note.empty() ? json(nullptr) : json(c.sure->note);
  }
  j["objective_at_risk"] = advise::objective_at_risk(sc, c);
  if (c.serving) {
    const advise::ServingFigures& f = *c.serving;
    j["serving"] = {{"simulated", f.simulated},
                    {"latency_p99_s", f.latency_p99_s},
                    {"ttft_p99_s", opt(f.ttft_p99_s)},
                    {"tpot_p99_s", opt(f.tpot_p99_s)},
                    {"requests", f.simulated ? json(f.requests) : json(nullptr)},
                    {"preemptions", f.simulated ? json(f.preemptions) : json(nullptr)}};
  } else {
    j["serving"] = nullptr;
  }
  if (c.train) {
    const advise::TrainPlan& t = *c.train;
    j["train"] = {{"data", t.data},
                  {"tensor", t.tensor},
                  {"pipeline", t.pipeline},
                  {"micro_batch", t.micro_batch},
                  {"grad_accumulation", t.grad_accumulation},
                  {"step_s", t.step_s},
                  {"compute_s", t.compute_s},
                  {"tp_comm_s", t.tp_comm_s},
                  {"dp_comm_s", t.dp_comm_s},
                  {"bubble_fraction", t.bubble_fraction},
                  {"straggler_factor", t.straggler_factor},
                  {"eta", t.eta},
                  {"steps", t.steps},
                  {"time_to_train_s", t.time_to_train_s}};
  }
  return j;
}

json advice_json(const advise::Scenario& s, const advise::Advice& a, std::size_t top) {
  json cands = json::array();
  for (std::size_t i = 0; i < a.candidates.size() && i < top; ++i) cands.push_back(candidate_json(s, a.candidates[i], i + 1));
  json rej = json::array();
  for (const advise::Rejection& r : a.rejected) {
    rej.push_back({{"accelerator", r.accelerator}, {"reason", r.reason}, {"achieved", opt(r.achieved)},
                   {"shortfall", opt(r.shortfall)}});
  }
  json as = json::array();
  for (const advise::Assumption& x : a.assumptions) as.push_back({{"name", x.name}, {"value", x.value}, {"source", x.source}});
  return json{{"scenario", s.name},
              {"answer", advise::answer_line(s, a)},
              {"rank_by", s.rank_least_capacity ? "least_capacity" : "score"},
              {"weights", {{"compute_adequacy", s.weights.compute_adequacy},
                           {"bandwidth_fit", s.weights.bandwidth_fit},
                           {"precision", s.weights.precision},
                           {"ecosystem", s.weights.ecosystem},
                           {"energy_efficiency", s.weights.energy_efficiency},
                           {"tco", s.weights.tco}}},
              {"model", a.model},
              {"task", std::string(workload::to_string(s.task))},
              {"objective", std::string(advise::to_string(s.objective))},
              {"deployment", std::string(advise::to_string(s.deployment))},
              {"feasible", a.candidates.size()},
              {"candidates", cands},
              {"baseline", a.baseline ? candidate_json(s, *a.baseline, 0) : json(nullptr)},
              {"rejected", rej},
              {"assumptions", as},
              {"configs_evaluated", a.configs_evaluated}};
}

void print_text(const advise::Scenario& s, const advise::Advice& a, std::size_t top) {
  report::Document d = advise::build_report(s, a, top, true);
  // The terminal shows **bold** as plain text.
  auto plain = [](std::string t) {
    for (std::size_t at; (at = t.find("**")) != std::string::npos;) t.erase(at, 2);
    return t;
  };
  std::printf("%s\n", d.title.c_str());
  for (const report::Block& b : d.blocks) {
    if (const auto* t = std::get_if<report::Table>(&b)) {
      std::printf("%s", t->render_text().c_str());
    } else if (const auto* h = std::get_if<report::Heading>(&b)) {
      std::printf("\n%s\n", h->text.c_str());
    } else if (const auto* p = std::get_if<report::Paragraph>(&b)) {
      std::printf("%s\n", plain(p->text).c_str());
    } else if (const auto* l = std::get_if<report::BulletList>(&b)) {
      for (const std::string& item : l->items) std::printf("  - %s\n", item.c_str());
    } else if (const auto* f = std::get_if<report::Figure>(&b)) {
      std::printf("  [chart: %s; see --report FILE.html]\n", f->caption.c_str());
    }
  }
}

// Today's date, UTC, as "YYYY-MM-DD".
std::string today_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Result<AdviseOutcome> run_advice(const std::string& text, const std::string& name, const GlobalOptions& global) {
  // 1. The scenario, the catalog and the workload it names.
  Result<advise::Scenario> s = advise::parse_scenario(text, name);
  if (!s) return make_error(s.error());
  s->today = today_utc();  // ages catalog prices (a note when one is over 12 months old)
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return make_error(cat.error());
  WorkloadInputs inputs;
  inputs.build = s->shape;
  // Time to the MLPerf target: the benchmark's own training shape
  // (sequence length, LoRA) unless the scenario sets one.
  Result<workload::Workload> w =
      s->train_to_target ? load_benchmark_workload(s->model, inputs) : load_workload(s->model, inputs);
  if (!w) return make_error(Error{w.error().code, w.error().message, s->model_line});
  std::vector<model::ConvergencePoint> rcps;
  if (s->train_to_target) {
    Result<std::vector<model::ConvergencePoint>> r = load_rcps();
    if (!r) return make_error(r.error());
    rcps = std::move(*r);
  }
  // 2. Advise.
  Result<std::vector<model::ErrorBand>> bands = load_error_bands();
  if (!bands) return make_error(bands.error());
  Result<std::optional<model::Calibration>> calibration = load_calibration(global);
  if (!calibration) return make_error(calibration.error());
  Result<advise::Advice> a = advise::advise(*s, *cat, *w, rcps, *bands, *calibration ? &**calibration : nullptr);
  if (!a) return make_error(a.error());
  return AdviseOutcome{std::move(*s), std::move(*a)};
}

json advice_json(const AdviseOutcome& r, std::size_t top) { return advice_json(r.scenario, r.advice, top); }

Error nothing_feasible_error(const AdviseOutcome& r, const std::string& name) {
  return Error{Errc::invalid_input, advise::nothing_feasible(r.scenario, r.advice), name};
}

namespace {

int run_advise(const AdviseOptions& o, const GlobalOptions& global) {
  Result<std::string> text = read_file(o.scenario);
  if (!text) return report_error(text.error());
  Result<AdviseOutcome> r = run_advice(*text, o.scenario, global);
  if (!r) return report_error(r.error());
  const advise::Scenario& s = r->scenario;
  const advise::Advice& a = r->advice;
  // 3. Output, then the verdict.
  if (o.json) std::printf("%s\n", advice_json(*r, o.top).dump(2).c_str());
  else print_text(s, a, o.top);
  if (!o.report.empty()) {
    Result<void> ok = write_report(advise::build_report(s, a, o.top), o.report);
    if (!ok) return report_error(ok.error());
  }
  if (a.candidates.empty()) return report_error(nothing_feasible_error(*r, o.scenario));
  return kExitOk;
}

}  // namespace

Command add_advise_command(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<AdviseOptions>();
  CLI::App* sub = app.add_subcommand(
      "advise",
      "Recommend accelerators for a scenario: size every catalog part for the objective (throughput, p99 latency "
      "under request batching, or time-to-train with a parallelism search), reject what breaks the constraints, "
      "score the five criteria (compute adequacy, bandwidth fit, precision, ecosystem, energy/TCO), mark the "
      "Pareto front and rank. Scenario schema: docs/advise.md; examples: data/scenarios/.");
  sub->add_option("scenario", opts->scenario, "Scenario YAML file")->required()->type_name("SCENARIO.yaml");
  sub->add_flag("--json", opts->json, "Machine-readable output: candidates (ranked), rejected, baseline, assumptions");
  sub->add_option("--report", opts->report, "Also write a report: FILE.html (self-contained) or FILE.md (+ SVG files)")
      ->type_name("FILE");
  sub->add_option("--top", opts->top, "How many ranked candidates to show (default 5)")->check(CLI::PositiveNumber);
  sub->footer(
      "Examples:\n"
      "  rooftop advise data/scenarios/default.yaml\n"
      "  rooftop advise data/scenarios/llama2-70b-serving.yaml --top 3 --report advice.html\n"
      "  rooftop advise data/scenarios/dlrm-overbought.yaml --json | jq '.candidates[0]'");
  return Command{sub, [opts, &global] { return run_advise(*opts, global); }};
}

}  // namespace rooftop::app
