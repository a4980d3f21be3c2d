// `rooftop analyze`: utilisation history (the monitor's store, or a
// Prometheus server) -> findings ranked by impact -> table, JSON or report.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "advise/scenario.h"
#include "analyze/analyze.h"
#include "analyze/report.h"
#include "analyze/rightsize.h"
#include "analyze/sources.h"
#include "command.h"
#include "core/text.h"
#include "core/yaml.h"
#include "inputs.h"
#include "progress.h"
#include "report_out.h"

namespace rooftop::app {

namespace {

struct AnalyzeArgs {
  std::string db, prometheus, openmetrics, since, from, to, match, report, timeout = "120s", scenario;
  std::string bearer_token_file, basic_auth, password_file, ca_file;
  std::vector<std::string> thresholds;
  bool json = false;
};

nlohmann::ordered_json rightsizing_json(const analyze::Rightsizing& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
  for (const analyze::RightsizeOption& o : r.ranking) {
    ranking.push_back({{"accelerator", o.accelerator}, {"count", o.count}, {"precision", o.precision},
                       {"throughput", o.throughput}, {"tco_usd", opt(o.tco_usd)}, {"saving_usd", opt(o.saving_usd)}});
  }
  return {{"scenario", r.scenario}, {"current", r.current}, {"count", r.count}, {"capacity", r.capacity},
          {"demand", r.demand}, {"unit", r.unit}, {"current_tco_usd", opt(r.current_tco_usd)}, {"ranking", ranking}};
}

nlohmann::ordered_json to_json(const analyze::Profiles& p, const std::vector<analyze::Finding>& findings,
                               const analyze::Thresholds& t, const std::string& source) {
  nlohmann::ordered_json j;
  j["source"] = source;
  j["window"] = {{"from_s", p.from_s}, {"to_s", p.to_s}, {"from", analyze::format_time(p.from_s)},
                 {"to", analyze::format_time(p.to_s)}};
  j["bucket_s"] = p.bucket_s;
  j["points"] = p.points;
  j["devices_read"] = p.devices_read ? p.devices_read : p.devices.size();
  j["notes"] = p.notes;
  j["devices"] = nlohmann::ordered_json::array();
  for (const analyze::DeviceProfile& d : p.devices) {
    // A device read only as window aggregates reports those.
    bool screened = d.samples == 0 && d.screened_samples > 0;
    double mean = screened ? d.screened_util_mean_pct : d.util_mean();
    double p95 = screened ? d.screened_util_p95_pct : d.util_percentile(0.95);
    j["devices"].push_back({{"device", d.key.id()}, {"host", d.key.host}, {"gpu", d.key.gpu}, {"uuid", d.key.uuid},
                            {"model", d.key.model}, {"job", d.key.job}, {"namespace", d.key.ns}, {"pod", d.key.pod},
                            {"samples", screened ? d.screened_samples : d.samples}, {"points_read", !screened},
                            {"util_mean_pct", std::isnan(mean) ? nlohmann::ordered_json() : nlohmann::ordered_json(mean)},
                            {"util_p95_pct", std::isnan(p95) ? nlohmann::ordered_json() : nlohmann::ordered_json(p95)}});
  }
  j["findings"] = nlohmann::ordered_json::array();
  for (const analyze::Finding& f : findings) {
    nlohmann::ordered_json ev = nlohmann::ordered_json::object();
    for (const auto& [k, v] : f.evidence) ev[k] = v;
    j["findings"].push_back({{"kind", to_string(f.kind)},
                             {"device", f.device},
                             {"job", f.job},
                             {"namespace", f.ns},
                             {"pod", f.pod},
                             {"window", {{"from_s", f.window.from_s}, {"to_s", f.window.to_s},
                                         {"from", analyze::format_time(f.window.from_s)},
                                         {"to", analyze::format_time(f.window.to_s)}}},
                             {"evidence", ev},
                             {"summary", f.summary},
                             {"recommendation", f.recommendation},
                             {"wasted_device_hours", f.wasted_device_hours},
                             {"wasted_usd", f.wasted_usd ? nlohmann::ordered_json(*f.wasted_usd) : nlohmann::ordered_json()},
                             {"rightsizing", f.rightsizing ? rightsizing_json(*f.rightsizing) : nlohmann::ordered_json()}});
  }
  nlohmann::ordered_json th = nlohmann::ordered_json::object();
  for (const auto& [k, v] : t.list()) th[k] = v;
  j["thresholds"] = th;
  return j;
}

// --timeout and the Prometheus credentials; secrets come from files (never
// the command line, which other users can read).
Result<analyze::PrometheusOptions> prometheus_options(const AnalyzeArgs& a) {
  analyze::PrometheusOptions popts;
  Result<double> timeout = parse_duration(a.timeout);
  if (!timeout || *timeout <= 0) return make_error(Errc::invalid_input, "expected a duration such as 30s", "--timeout");
  popts.timeout_s = *timeout;
  auto secret = [](const std::string& path, const char* flag) -> Result<std::string> {
    Result<std::string> text = read_file(path);
    if (!text) return make_error(Errc::invalid_input, text.error().message, std::string(flag) + " " + path);
    std::string v = trim(*text);
    if (v.empty() || v.find('\n') != std::string::npos)
      return make_error(Errc::invalid_input, "expected one line", std::string(flag) + " " + path);
    return v;
  };
  if (!a.bearer_token_file.empty()) {
    Result<std::string> tok = secret(a.bearer_token_file, "--bearer-token-file");
    if (!tok) return make_error(tok.error());
    popts.bearer_token = *tok;
  }
  if (!a.basic_auth.empty() != !a.password_file.empty())
    return make_error(Errc::invalid_input, "--basic-auth USER needs --password-file FILE (and the reverse)", "--basic-auth");
  if (!a.basic_auth.empty()) {
    Result<std::string> pw = secret(a.password_file, "--password-file");
    if (!pw) return make_error(pw.error());
    popts.basic_user = a.basic_auth;
    popts.basic_password = *pw;
  }
  if (!a.ca_file.empty()) {
    Result<std::string> ca = read_file(a.ca_file);
    if (!ca) return make_error(Errc::invalid_input, ca.error().message, "--ca-file " + a.ca_file);
    if (ca->find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return make_error(Errc::invalid_input, "not a PEM certificate", "--ca-file " + a.ca_file);
    popts.ca_file = a.ca_file;
  }
  return popts;
}

int run(const AnalyzeArgs& a, const GlobalOptions& global) {
  if (a.db.empty() + a.prometheus.empty() + a.openmetrics.empty() != 2)
    return report_error(
        Error{Errc::invalid_input, "give exactly one source: --db FILE, --prometheus URL or --openmetrics FILE", "analyze"});
  analyze::Thresholds t;
  for (const std::string& s : a.thresholds) {
    Result<void> r = t.set(s);
    if (!r) return report_error(r.error());
  }
  analyze::TimeRange range;
  if (!a.since.empty()) {
    if (!a.from.empty() || !a.to.empty())
      return report_error(Error{Errc::invalid_input, "use --since or --from/--to, not both", "--since"});
    Result<double> d = parse_duration(a.since);
    if (!d || *d <= 0) return report_error(Error{Errc::invalid_input, "expected a duration such as 6h or 7d", "--since"});
    range.to_s = static_cast<double>(std::time(nullptr));
    range.from_s = *range.to_s - *d;
  }
  for (auto [text, slot, flag] : {std::tuple{&a.from, &range.from_s, "--from"}, std::tuple{&a.to, &range.to_s, "--to"}}) {
    if (text->empty()) continue;
    Result<double> v = analyze::parse_time(*text);
    if (!v) return report_error(Error{Errc::invalid_input, v.error().message, flag});
    *slot = *v;
  }
  if (range.from_s && range.to_s && *range.to_s <= *range.from_s)
    return report_error(Error{Errc::invalid_input, "--to must be after --from", "--to"});
  Result<analyze::Matcher> match = analyze::parse_matcher(a.match);
  if (!match) return report_error(match.error());

  // Right-sizing's advise scenario and the workload it names, read before the history.
  std::optional<advise::Scenario> scenario;
  std::optional<workload::Workload> work;
  if (!a.scenario.empty()) {
    Result<std::string> text = read_file(a.scenario);
    if (!text) return report_error(text.error());
    Result<advise::Scenario> s = advise::parse_scenario(*text, a.scenario);
    if (!s) return report_error(s.error());
    if (s->task != workload::Task::infer)
      return report_error(Error{Errc::invalid_input, "right-sizing needs a serving scenario (workload.task: infer)", a.scenario});
    WorkloadInputs inputs;
    inputs.build = s->shape;
    Result<workload::Workload> w = load_workload(s->model, inputs);
    if (!w) return report_error(Error{w.error().code, w.error().message, s->model_line});
    scenario = std::move(*s);
    work = std::move(*w);
  }

  Progress bar("analyze", !global.quiet && !a.json);
  analyze::ProgressFn progress = [&](double f, const std::string& what) { bar.update(f, what); };
  std::string source = !a.db.empty() ? "store " + a.db : !a.openmetrics.empty() ? "openmetrics " + a.openmetrics
                                                                               : "prometheus " + a.prometheus;
  Result<analyze::PrometheusOptions> popts = prometheus_options(a);
  if (!popts) return report_error(popts.error());
  Result<analyze::Profiles> p = !a.db.empty()            ? analyze::profile_store(a.db, range, *match, progress)
                                 : !a.openmetrics.empty() ? analyze::profile_openmetrics(a.openmetrics, range, *match)
                                                          : analyze::profile_prometheus(a.prometheus, range, *match, progress, t, *popts);
  if (!p) return report_error(p.error());
  bar.done(fmt::format("{} points", p->points));
  std::vector<analyze::Finding> findings = analyze::detect(*p, t);
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat && scenario) return report_error(cat.error());
  if (cat) {
    Result<std::optional<model::Calibration>> calibration = load_calibration(global);
    if (!calibration) return report_error(calibration.error());
    analyze::RightsizeInputs in;
    if (scenario) in = {&*scenario, &*work, *calibration ? &**calibration : nullptr};
    Result<void> r = analyze::add_rightsizing(findings, *p, *cat, t, in);
    if (!r) return report_error(r.error());
  }

  if (!a.report.empty()) {
    Result<void> w = write_report(analyze::build_report(*p, findings, t, {source}), a.report);
    if (!w) return report_error(w.error());
  }
  if (a.json) {
    std::cout << to_json(*p, findings, t, source).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{}: {} devices, {} .. {}, {} points", source, p->devices.size(),
                           analyze::format_time(p->from_s), analyze::format_time(p->to_s), p->points);
  if (p->devices_read) std::cout << fmt::format(" (of {} devices; the rest screened on window aggregates)", p->devices_read);
  std::cout << "\n";
  if (findings.empty()) {
    std::cout << "No problems found: every device looks healthy.\n";
  } else {
    report::Table table;
    table.headers = {"#", "kind", "device", "wasted device-h", "finding"};
    table.align = {report::Align::right, report::Align::left, report::Align::left, report::Align::right, report::Align::left};
    for (std::size_t i = 0; i < findings.size(); ++i) {
      table.rows.push_back({std::to_string(i + 1), std::string(to_string(findings[i].kind)), findings[i].device,
                            fmt::format("{:.2f}", findings[i].wasted_device_hours), findings[i].summary});
    }
    std::cout << table.render_text();
    if (std::vector<std::string> by_pod = analyze::workload_summary(*p, findings); !by_pod.empty()) {
      std::cout << "\nBy workload:\n";
      for (const std::string& line : by_pod) std::cout << "  " << line << "\n";
    }
    std::cout << "\nRecommendations:\n";
    for (std::size_t i = 0; i < findings.size(); ++i) {
      std::cout << fmt::format("{:>3}. {}\n", i + 1, findings[i].recommendation);
    }
  }
  if (!a.report.empty()) std::cout << "report written to " << a.report << "\n";
  return kExitOk;
}

}  // namespace

Command add_analyze_command(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* sub = app.add_subcommand(
      "analyze",
      "Find idle, under-used, IO-bound, throttled and straggling accelerators and memory problems in utilisation "
      "history (the monitor's SQLite store, or Prometheus for a fleet), ranked by wasted device-hours");
  sub->add_option("--db", args->db, "The history written by `rooftop monitor --db FILE`")->type_name("FILE");
  sub->add_option("--prometheus", args->prometheus, "A Prometheus HTTP API (http[s]://host:9090[/path]: Prometheus, Thanos, Mimir, VictoriaMetrics) holding dcgm-exporter or rooftop series")
      ->type_name("URL");
  sub->add_option("--openmetrics", args->openmetrics,
                  "An OpenMetrics file with timestamps (dcgm-exporter or rooftop names), read without a server")
      ->type_name("FILE");
  sub->add_option("--since", args->since, "Analyse the last D (6h, 7d); default: the whole store, or the last hour of Prometheus");
  sub->add_option("--from", args->from, "Window start: Unix seconds or ISO 8601 (UTC)");
  sub->add_option("--to", args->to, "Window end");
  sub->add_option("--match", args->match, "Only these series: host=NODE,gpu=0,job=NAME (uuid, model too)")->type_name("LABELS");
  sub->add_option("--threshold", args->thresholds, "Override a detector threshold, e.g. underused_p95_pct=40 (repeatable)")
      ->type_name("NAME=VALUE");
  sub->add_option("--scenario", args->scenario,
                  "Right-size under-used devices with advise on this scenario (the workload they serve, constraints, "
                  "economics; docs/analyze.md)")
      ->type_name("SCENARIO.yaml");
  sub->add_option("--bearer-token-file", args->bearer_token_file, "Prometheus: send this token (Authorization: Bearer)")
      ->type_name("FILE");
  sub->add_option("--basic-auth", args->basic_auth, "Prometheus: basic auth as USER (password from --password-file)")
      ->type_name("USER");
  sub->add_option("--password-file", args->password_file, "Prometheus: the basic-auth password")->type_name("FILE");
  sub->add_option("--ca-file", args->ca_file, "Prometheus over https: the CA that signed its certificate (PEM)")
      ->type_name("FILE");
  sub->add_option("--timeout", args->timeout, "Prometheus: give up on a query after this long")->capture_default_str();
  sub->add_option("--report", args->report, "Write a report: FILE.html (self-contained) or FILE.md (+ SVG charts)");
  sub->add_flag("--json", args->json, "Machine-readable findings (kind, device, window, evidence, recommendation)");
  sub->footer(
      "Examples:\n"
      "  rooftop trace synth mix --db demo.db && rooftop analyze --db demo.db --report demo.html\n"
      "  rooftop analyze --prometheus http://127.0.0.1:9090 --since 7d --match job=train --json\n"
      "Detectors and thresholds: docs/analyze.md");
  return Command{sub, [args, &global] { return run(*args, global); }};
}

}  // namespace rooftop::app
