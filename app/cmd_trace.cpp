// `rooftop trace synth`: labelled synthetic utilisation traces, as a trace
// file for `rooftop monitor --backends fake:FILE` or straight into a store.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
  std::string kind, duration = "1h", step = "1s", out, db, labels, host, start;
  int devices = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

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
  Result<analyze::SynthResult> r = analyze::synthesize(o);
  if (!r) return report_error(r.error());

  nlohmann::ordered_json planted = nlohmann::ordered_json::array();
  for (const analyze::Planted& p : r->planted) planted.push_back({{"kind", p.kind}, {"device", p.device}});
  if (!a.labels.empty()) {
    std::ofstream lf(a.labels, std::ios::trunc);
    lf << nlohmann::ordered_json{{"kind", o.kind}, {"planted", planted}}.dump(2) << "\n";
    if (!lf) return report_error(Error{Errc::io, "cannot write file", a.labels});
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
               "memory-headroom, or mix (one of each)");
  synth->add_option("KIND", args->kind, "What to plant")->required();
  synth->add_option("--devices", args->devices, "Devices (default 4; 10 for mix)");
  synth->add_option("--duration", args->duration, "Length of the trace")->capture_default_str();
  synth->add_option("--step", args->step, "Sampling interval")->capture_default_str();
  synth->add_option("--seed", args->seed, "Random seed (same seed, same trace)")->capture_default_str();
  synth->add_option("--host", args->host, "Put every device on this host (default: one host per device)");
  synth->add_option("--out", args->out, "Write the trace CSV here (for `rooftop monitor --backends fake:FILE`)");
  synth->add_option("--db", args->db, "Write the samples into this monitor store, ending now");
  synth->add_option("--start", args->start, "With --db: Unix time of the first sample (default: now - duration)");
  synth->add_option("--labels", args->labels, "Write what was planted (JSON) here");
  synth->add_flag("--json", args->json, "Print a JSON summary (kind, rows, planted) instead of the trace");
  synth->footer(
      "Examples:\n"
      "  rooftop trace synth mix --db demo.db && rooftop analyze --db demo.db\n"
      "  rooftop trace synth straggler --devices 8 --duration 2h --out straggler.csv\n"
      "  rooftop monitor --backends fake:straggler.csv");
  return Command{trace, [args, &global] { return run(*args, global); }};
}

}  // namespace rooftop::app
