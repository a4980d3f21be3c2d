// `rooftop top`: a live terminal view of the devices and the host, one bar
// per device for utilisation, memory, temperature and power; `--once`
// prints one round for scripts, `--json` prints machine-readable rounds.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "telemetry/metrics.h"

namespace rooftop::app {
namespace {

namespace tel = rooftop::telemetry;

std::atomic<bool> g_top_stop{false};
extern "C" void on_top_signal(int) { g_top_stop = true; }

struct TopOptions {
  bool once = false;
  bool json = false;
  std::string interval = "1s";
  std::string backends = "auto";
  std::string proc_root = "/";
};

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string bar(std::optional<double> fraction, int width = 20) {
  if (!fraction) return "[" + std::string(static_cast<std::size_t>(width), ' ') + "]";
  const int n = static_cast<int>(std::clamp(*fraction, 0.0, 1.0) * width + 0.5);
  return "[" + std::string(static_cast<std::size_t>(n), '#') + std::string(static_cast<std::size_t>(width - n), '-') + "]";
}

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", *v) : "n/a"; }

std::string render_text(const tel::Snapshot& snap) {
  std::string out;
  if (snap.devices.empty()) out += "no accelerators found (backends answered with no devices)\n";
  for (const tel::DeviceReading& r : snap.devices) {
    const tel::DeviceSample& s = r.sample;
    std::optional<double> total = r.info.mem_total_bytes;
    if (s.fb_used_bytes && s.fb_free_bytes) total = *s.fb_used_bytes + *s.fb_free_bytes;
    out += fmt::format("GPU{}: Compute {}, Memory {}  {} [{}]{}\n", r.info.index, pct(s.gpu_util_pct),
                       pct(s.mem_copy_util_pct), r.info.model, r.info.backend,
                       s.job.empty() ? "" : "  job " + s.job);
    out += fmt::format("  util  {} {}\n", bar(s.gpu_util_pct ? std::optional(*s.gpu_util_pct / 100) : std::nullopt),
                       pct(s.gpu_util_pct));
    std::optional<double> mem_frac;
    if (s.fb_used_bytes && total && *total > 0) mem_frac = *s.fb_used_bytes / *total;
    out += fmt::format("  mem   {} {}\n", bar(mem_frac),
                       s.fb_used_bytes && total ? iec_bytes(*s.fb_used_bytes) + " / " + iec_bytes(*total) : "n/a");
    out += fmt::format("  temp  {} {}\n", bar(s.temp_c ? std::optional(*s.temp_c / 100) : std::nullopt),
                       s.temp_c ? fmt::format("{:.0f} C", *s.temp_c) : "n/a");
    std::optional<double> pw_frac;
    if (s.power_w && r.info.power_limit_w && *r.info.power_limit_w > 0) pw_frac = *s.power_w / *r.info.power_limit_w;
    out += fmt::format("  power {} {}{}\n", bar(pw_frac), s.power_w ? fmt::format("{:.0f} W", *s.power_w) : "n/a",
                       r.info.power_limit_w ? fmt::format(" / {:.0f} W", *r.info.power_limit_w) : "");
    if (!r.sample.pod.pod.empty())
      out += fmt::format("  pod   {}/{} container {}\n", r.sample.pod.ns, r.sample.pod.pod, r.sample.pod.container);
    // The processes on the device, as nvitop lists them.
    if (!s.processes.empty()) out += fmt::format("  {:>8} {:<12} {:>10}  {}\n", "PID", "USER", "GPU MEM", "COMMAND");
    for (const tel::ProcessSample& p : s.processes) {
      out += fmt::format("  {:>8} {:<12} {:>10}  {}{}\n", p.pid, p.user.empty() ? "?" : p.user,
                         p.gpu_mem_used_bytes ? iec_bytes(*p.gpu_mem_used_bytes) : "n/a",
                         p.command.empty() ? "?" : p.command, p.container.empty() ? "" : "  [" + p.container + "]");
    }
  }
  if (snap.host) {
    const tel::HostSample& h = *snap.host;
    out += fmt::format("host {}: cpu {}, iowait {}", h.host.empty() ? "?" : h.host, pct(h.cpu_busy_pct),
                       pct(h.cpu_iowait_pct));
    if (h.mem_total_bytes && h.mem_available_bytes)
      out += fmt::format(", mem {} / {}", iec_bytes(*h.mem_total_bytes - *h.mem_available_bytes),
                         iec_bytes(*h.mem_total_bytes));
    if (h.load1) out += fmt::format(", load {:.2f}", *h.load1);
    out += '\n';
  }
  return out;
}

nlohmann::json render_json(const tel::Snapshot& snap) {
  nlohmann::json devices = nlohmann::json::array();
  for (const tel::DeviceReading& r : snap.devices) {
    nlohmann::json d = {{"gpu", r.info.index}, {"backend", r.info.backend}, {"uuid", r.info.uuid},
                        {"model", r.info.model}, {"host", r.info.host}, {"job", r.sample.job}};
    for (const tel::DeviceMetric& m : tel::kDeviceMetrics) {
      const std::optional<double> v = tel::metric_value(m, r);
      const bool integral = m.field.mask || m.field.code;  // bit masks and codes stay integers
      d[std::string(m.column)] = !v ? nlohmann::json(nullptr)
                                    : integral ? nlohmann::json(static_cast<std::int64_t>(*v)) : nlohmann::json(*v);
    }
    nlohmann::json procs = nlohmann::json::array();
    for (const tel::ProcessSample& p : r.sample.processes)
      procs.push_back({{"pid", p.pid}, {"gpu_mem_used_bytes", or_null(p.gpu_mem_used_bytes)}, {"command", p.command},
                       {"user", p.user}, {"container", p.container}});
    d["processes"] = std::move(procs);
    devices.push_back(std::move(d));
  }
  nlohmann::json j = {{"time_s", snap.time_s}, {"devices", devices}, {"host", nullptr}};
  if (snap.host) {
    const tel::HostSample& h = *snap.host;
    j["host"] = {{"host", h.host}};
    for (const tel::HostMetric& m : tel::kHostMetrics) j["host"][std::string(m.column)] = or_null(h.*m.field);
  }
  return j;
}

int run_top(const TopOptions& o) {
  auto interval = parse_duration(o.interval);
  if (!interval) return report_error(Error{Errc::invalid_input, interval.error().message, "--interval"});
  if (*interval < 0.1) return report_error(Error{Errc::invalid_input, "the interval must be at least 100ms", "--interval"});
  tel::BackendOptions bopts;
  bopts.proc_root = o.proc_root;
  auto backends = tel::make_backends(o.backends, bopts);
  if (!backends) return report_error(backends.error());
  tel::Sampler sampler(std::move(*backends));
  sampler.add_annotate([root = o.proc_root](tel::Snapshot& s) { tel::describe_processes(s, root); });
  std::vector<std::string> warnings;
  if (auto r = sampler.open(&warnings); !r) return report_error(r.error());
  for (const std::string& w : warnings) std::fprintf(stderr, "rooftop: warning: %s\n", w.c_str());
  // CPU utilisation is a delta: give the host counters a moment to move.
  const bool has_proc = o.backends == "auto" || o.backends.find("proc") != std::string::npos;
  std::signal(SIGINT, on_top_signal);
  std::signal(SIGTERM, on_top_signal);
  const bool tty = isatty(STDOUT_FILENO) && !o.json;
  for (bool first = true; !g_top_stop; first = false) {
    if (!first || has_proc)
      std::this_thread::sleep_for(std::chrono::duration<double>(first ? std::min(0.25, *interval) : *interval));
    if (g_top_stop) break;
    const tel::Snapshot snap = sampler.sample_once();
    const std::string text = o.json ? render_json(snap).dump() + "\n" : render_text(snap);
    std::fputs(tty && !o.once ? ("\x1b[H\x1b[2J" + text).c_str() : text.c_str(), stdout);
    std::fflush(stdout);
    if (o.once) break;
  }
  return kExitOk;
}

}  // namespace

Command add_top_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<TopOptions>();
  CLI::App* sub = app.add_subcommand(
      "top", "Live view of accelerators and the host: per device \"GPU0: Compute X%, Memory Y%\" and bars for\n"
             "utilisation, memory, temperature and power. Refreshes every --interval until Ctrl-C.");
  sub->add_flag("--once", opts->once, "Print one round and exit (for scripts)");
  sub->add_flag("--json", opts->json, "One JSON object per round (keys in snake_case with units)");
  sub->add_option("--interval", opts->interval, "Refresh interval")->capture_default_str();
  sub->add_option("--backends", opts->backends, tel::backends_help())
      ->capture_default_str();
  sub->add_option("--proc-root", opts->proc_root, "Root holding proc/ and sys/ for the host backend")
      ->capture_default_str();
  sub->footer(
      "Examples:\n"
      "  rooftop top\n"
      "  rooftop top --once --backends fake:data/traces/h100x2-training.csv\n"
      "  rooftop top --once --json | jq '.devices[].gpu_util_pct'");
  return {sub, [opts] { return run_top(*opts); }};
}

}  // namespace rooftop::app
