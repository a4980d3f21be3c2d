// `rooftop trace synth`: labelled synthetic utilisation traces, as a trace
// file for `rooftop monitor --backends fake:FILE` or straight into a store.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analyze/synth.h"
#include "command.h"
#include "core/text.h"
#include "progress.h"
#include "telemetry/store.h"

namespace rooftop::app {

namespace {

struct TraceArgs {
  std::string kind, duration = "1h", step = "1s", out, db, labels, host, start, openmetrics, part = "1/1";
  int devices = 0, gpus_per_host = 8;
  std::uint64_t seed = 1;
  bool json = false;
};

Result<void> write_labels(const std::string& path, const std::string& kind, const std::vector<analyze::Planted>& planted) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const analyze::Planted& p : planted) list.push_back({{"kind", p.kind}, {"device", p.device}});
  std::ofstream lf(path, std::ios::trunc);
  lf << nlohmann::ordered_json{{"kind", kind}, {"planted", list}}.dump(2) << "\n";
  if (!lf) return make_error(Errc::io, "cannot write file", path);
  return {};
}

// `trace synth fleet --openmetrics FILE`: a whole fleet for promtool to backfill.
int run_fleet(const TraceArgs& a, const analyze::SynthOptions& o) {
  if (a.openmetrics.empty())
    return report_error(Error{Errc::invalid_input, "a fleet is written as OpenMetrics: give --openmetrics FILE", "fleet"});
  analyze::FleetOptions f;
  f.synth = o;
  f.synth.devices = a.devices > 0 ? a.devices : 64;
  f.gpus_per_host = a.gpus_per_host;
  std::size_t slash = a.part.find('/');
  std::optional<long long> part = slash == std::string::npos ? std::nullopt : parse_int(a.part.substr(0, slash));
  std::optional<long long> parts = slash == std::string::npos ? std::nullopt : parse_int(a.part.substr(slash + 1));
  if (!part || !parts || *parts < 1 || *parts > 10000 || *part < 1 || *part > *parts)
    return report_error(Error{Errc::invalid_input, "expected PART/PARTS such as 3/10", "--part"});
  f.part = static_cast<int>(*part - 1);
  f.parts = static_cast<int>(*parts);
  f.start_s = std::floor(static_cast<double>(std::time(nullptr)) - o.duration_s);
  if (!a.start.empty()) {
    std::optional<double> s = parse_double(a.start);
    if (!s) return report_error(Error{Errc::invalid_input, "expected Unix seconds", "--start"});
    f.start_s = *s;
  }
  std::ofstream out(a.openmetrics, std::ios::binary | std::ios::trunc);
  if (!out) return report_error(Error{Errc::io, "cannot write file", a.openmetrics});
  Result<std::vector<analyze::Planted>> planted = analyze::write_fleet_openmetrics(f, out);
  if (!planted) return report_error(planted.error());
  out.close();
  if (!out) return report_error(Error{Errc::io, "cannot write file", a.openmetrics});
  if (!a.labels.empty()) {
    Result<void> w = write_labels(a.labels, "fleet", *planted);
    if (!w) return report_error(w.error());
  }
  std::cerr << fmt::format("fleet: {} devices, {} planted problems; part {} written to {}\n", f.synth.devices,
                           planted->size(), a.part, a.openmetrics);
  return kExitOk;
}

int run(const TraceArgs& a, const GlobalOptions& global) {
  analyze::SynthOptions o;
  o.kind = a.kind;
  o.devices = a.devices;
  o.seed = a.seed;
  o.host = a.host;
  Result<double> d = parse_duration(a.duration);
  if (!d || *d <= 0) return report_error(Error{Errc::invalid_input, "expected a duration such as 1h or 30d", "--duration"});
  Result<double> st = parse_duration(a.step);
  if (!st || *st <= 0) return report_error(Error{Errc::invalid_input, "expected a step such as 1s", "--step"});
  o.duration_s = *d;
  o.step_s = *st;
  if (a.devices < 0) return report_error(Error{Errc::invalid_input, "the device count must be positive", "--devices"});
  if (a.kind == "fleet") return run_fleet(a, o);
  if (!a.openmetrics.empty())
    return report_error(Error{Errc::invalid_input, "--openmetrics writes a fleet: use KIND fleet", "--openmetrics"});
  Result<analyze::SynthResult> r = analyze::synthesize(o);
  if (!r) return report_error(r.error());

  nlohmann::ordered_json planted = nlohmann::ordered_json::array();
  for (const analyze::Planted& p : r->planted) planted.push_back({{"kind", p.kind}, {"device", p.device}});
  if (!a.labels.empty()) {
    Result<void> w = write_labels(a.labels, o.kind, r->planted);
    if (!w) return report_error(w.error());
  }
  if (!a.db.empty()) {
    double start = static_cast<double>(std::time(nullptr)) - o.duration_s;
    if (!a.start.empty()) {
      std::optional<double> s = parse_double(a.start);
      if (!s) return report_error(Error{Errc::invalid_input, "expected Unix seconds", "--start"});
      start = *s;
    }
    telemetry::StoreOptions so;
    so.retention_s = 400 * 86400.0;
    so.downsample_after_s = 400 * 86400.0;
    so.interval_s = o.step_s;
    Result<std::unique_ptr<telemetry::Store>> store = telemetry::Store::open(a.db, so);
    if (!store) return report_error(store.error());
    std::vector<telemetry::Snapshot> snaps = analyze::to_snapshots(r->trace, o, start);
    Progress bar("trace synth", !global.quiet && !a.json);
    for (std::size_t i = 0; i < snaps.size(); ++i) {
      Result<void> w = (*store)->append(snaps[i]);
      if (!w) return report_error(w.error());
      if (i % 256 == 0) bar.update(static_cast<double>(i) / static_cast<double>(snaps.size()));
    }
    bar.done();
  }
  if (!a.out.empty()) {
    std::ofstream f(a.out, std::ios::binary | std::ios::trunc);
    f << telemetry::format_trace(r->trace);
    if (!f) return report_error(Error{Errc::io, "cannot write file", a.out});
  }
  if (a.json) {
    std::cout << nlohmann::ordered_json{{"kind", o.kind}, {"rows", r->trace.rows.size()},
                                        {"duration_s", o.duration_s}, {"planted", planted}}
                     .dump(2)
              << "\n";
  } else if (a.out.empty() && a.db.empty()) {
    std::cout << telemetry::format_trace(r->trace);
  } else {
    std::cerr << fmt::format("{} trace: {} rows; planted:", o.kind, r->trace.rows.size());
    for (const analyze::Planted& p : r->planted) std::cerr << " " << p.kind << "@" << p.device;
    std::cerr << (r->planted.empty() ? " nothing\n" : "\n");
  }
  return kExitOk;
}

}  // namespace

Command add_trace_command(CLI::App& app, const GlobalOptions& global) {
  CLI::App* trace = app.add_subcommand("trace", "Synthetic utilisation traces with labelled problems");
  trace->require_subcommand(1);
  auto args = std::make_shared<TraceArgs>();
  CLI::App* synth = trace->add_subcommand(
      "synth", "Generate a trace: healthy, idle, underused, io-bound, throttling, straggler, memory-pressure, "
               "memory-headroom, mix (one of each), or fleet (hosts of 8 devices in pods, as OpenMetrics)");
  synth->add_option("KIND", args->kind, "What to plant")->required();
  synth->add_option("--devices", args->devices, "Devices (default 4; 10 for mix)");
  synth->add_option("--duration", args->duration, "Length of the trace")->capture_default_str();
  synth->add_option("--step", args->step, "Sampling interval")->capture_default_str();
  synth->add_option("--seed", args->seed, "Random seed (same seed, same trace)")->capture_default_str();
  synth->add_option("--host", args->host, "Put every device on this host (default: one host per device)");
  synth->add_option("--out", args->out, "Write the trace CSV here (for `rooftop monitor --backends fake:FILE`)");
  synth->add_option("--db", args->db, "Write the samples into this monitor store, ending now");
  synth->add_option("--start", args->start, "With --db: Unix time of the first sample (default: now - duration)");
  synth->add_option("--openmetrics", args->openmetrics,
                    "fleet: write OpenMetrics here, for `promtool tsdb create-blocks-from openmetrics`")
      ->type_name("FILE");
  synth->add_option("--gpus-per-host", args->gpus_per_host, "fleet: devices per host")->capture_default_str();
  synth->add_option("--part", args->part, "fleet: write only this share of the time steps (3/14)")->capture_default_str();
  synth->add_option("--labels", args->labels, "Write what was planted (JSON) here");
  synth->add_flag("--json", args->json, "Print a JSON summary (kind, rows, planted) instead of the trace");
  synth->footer(
      "Examples:\n"
      "  rooftop trace synth mix --db demo.db && rooftop analyze --db demo.db\n"
      "  rooftop trace synth straggler --devices 8 --duration 2h --out straggler.csv\n"
      "  rooftop monitor --backends fake:straggler.csv\n"
      "  rooftop trace synth fleet --devices 64 --duration 6h --step 30s --openmetrics fleet.om --labels planted.json");
  return Command{trace, [args, &global] { return run(*args, global); }};
}

}  // namespace rooftop::app
