// `rooftop monitor`: the telemetry agent. Samples the chosen backends on a
// thread, serves the latest snapshot at /metrics (Prometheus text format)
// and /healthz, and optionally keeps a SQLite history, until SIGINT/SIGTERM.
#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "telemetry/podresources.h"
#include "telemetry/server.h"
#include "telemetry/store.h"
#include "telemetry/telemetry.h"
#include "telemetry/tls.h"
#include "telemetry/webconfig.h"

namespace rooftop::app {
namespace {

namespace tel = rooftop::telemetry;

constexpr double kMinInterval_s = 0.1;     // a floor: "3" meaning 3 ms burnt cores (dcgm-exporter#311)
constexpr double kMaintenanceEvery_s = 600;
constexpr double kPodRefresh_s = 5;  // pods come and go in minutes; one List call per 5 s

std::atomic<tel::MetricsServer*> g_server{nullptr};

extern "C" void on_stop_signal(int) {
  if (tel::MetricsServer* s = g_server.load()) s->stop();
}

struct MonitorOptions {
  std::string listen = "127.0.0.1:9400";
  std::string interval = "1s";
  std::string db;
  std::string retention = "7d";
  std::string backends = "auto";
  std::string names = "dcgm";
  std::string proc_root = "/";
  std::string web_config;
  std::string pod_resources = "auto";
  bool process_metrics = false;
  bool json = false;
};

int run_monitor(const MonitorOptions& o, const GlobalOptions& global) {
  // 1. Flags, all checked before anything starts.
  auto names = tel::parse_names(o.names);
  if (!names) return report_error(names.error());
  auto listen = tel::parse_listen(o.listen);
  if (!listen) return report_error(listen.error());
  auto interval = parse_duration(o.interval);
  if (!interval) return report_error(Error{Errc::invalid_input, interval.error().message, "--interval"});
  if (*interval < kMinInterval_s || *interval > 3600)
    return report_error(Error{Errc::invalid_input, "the interval must be between 100ms and 1h", "--interval"});
  auto retention = parse_duration(o.retention);
  if (!retention) return report_error(Error{Errc::invalid_input, retention.error().message, "--retention"});
  if (*retention < 60)
    return report_error(Error{Errc::invalid_input, "the retention must be at least 1m", "--retention"});
  tel::WebConfig web;
  if (!o.web_config.empty()) {
    auto w = tel::load_web_config(o.web_config);
    if (!w) return report_error(w.error());
    web = std::move(*w);
  }
  // TLS is loaded before anything starts: a certificate that does not match
  // its key, or no libssl, is exit 2 naming it.
  std::shared_ptr<tel::TlsContext> tls;
  if (!web.tls_cert_file.empty()) {
    auto t = tel::TlsContext::load(web.tls_cert_file, web.tls_key_file);
    if (!t) {
      Error e = t.error();
      e.code = Errc::invalid_input;
      if (e.context.empty()) e.context = o.web_config;
      return report_error(e);
    }
    tls = std::move(*t);
  }

  // 2. Backends and the history database (a bad database stops us here, exit 2).
  tel::BackendOptions bopts;
  bopts.proc_root = o.proc_root;
  auto backends = tel::make_backends(o.backends, bopts);
  if (!backends) return report_error(backends.error());
  std::unique_ptr<tel::Store> store;
  if (!o.db.empty()) {
    tel::StoreOptions sopts;
    sopts.retention_s = *retention;
    sopts.interval_s = *interval;
    sopts.downsample_after_s = std::min(86400.0, *retention / 2);
    auto s = tel::Store::open(o.db, sopts);
    if (!s) return report_error(s.error());
    store = std::move(*s);
  }
  tel::Sampler sampler(std::move(*backends));
  std::vector<std::string> warnings;
  if (auto r = sampler.open(&warnings); !r) return report_error(r.error());
  for (const std::string& w : warnings) std::fprintf(stderr, "rooftop: warning: %s\n", w.c_str());

  if (o.process_metrics) sampler.add_annotate([root = o.proc_root](tel::Snapshot& s) { tel::describe_processes(s, root); });
  // Kubernetes attribution: a socket named is required (exit 2 when it is
  // not pod-resources); `auto` uses the kubelet's when it is there.
  if (o.pod_resources != "off") {
    const bool named = o.pod_resources != "auto";
    const std::string socket = named ? o.pod_resources : tel::kPodResourcesSocket;
    if (named || std::filesystem::exists(socket)) {
      auto client = tel::PodResourcesClient::open(socket);
      if (client) {
        sampler.add_annotate(tel::pod_annotator(std::move(*client), kPodRefresh_s, [](const std::string& w) {
          std::fprintf(stderr, "rooftop: warning: %s\n", w.c_str());
        }));
      } else if (named) {
        Error e = client.error();
        e.code = Errc::invalid_input;
        return report_error(e);
      } else {
        std::fprintf(stderr, "rooftop: warning: no pod attribution: %s\n", client.error().what().c_str());
      }
    }
  }

  // 3. The HTTP endpoint.
  tel::ServerOptions sv;
  sv.host = listen->first;
  sv.port = listen->second;
  sv.stale_after_s = std::max(10.0, 3 * *interval);
  sv.basic_auth_users = std::move(web.basic_auth_users);
  sv.tls = tls;
  auto server = tel::MetricsServer::listen(sv);
  if (!server) return report_error(server.error());
  g_server = server->get();
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);

  // 4. Sampling thread: render once per round, publish, append to the store.
  double last_maintenance_s = 0;
  bool store_failed = false;
  auto sink = [&](const tel::Snapshot& snap) {
    (*server)->publish(std::make_shared<const std::string>(tel::render_metrics(snap, *names, tel::RenderOptions{o.process_metrics})));
    if (!store) return;
    auto w = store->append(snap);
    if (!w && !store_failed) std::fprintf(stderr, "rooftop: error: %s\n", w.error().what().c_str());
    store_failed = !w;
    if (snap.time_s - last_maintenance_s >= kMaintenanceEvery_s) {
      if (auto m = store->maintain(snap.time_s); !m)
        std::fprintf(stderr, "rooftop: warning: history maintenance: %s\n", m.error().what().c_str());
      last_maintenance_s = snap.time_s;
    }
  };
  sink(sampler.sample_once());
  sampler.start(*interval, sink, /*first_now=*/false);

  // 5. Announce, serve until a signal, then stop cleanly.
  const std::string url = fmt::format("{}://{}:{}/metrics", tls ? "https" : "http", sv.host.find(':') != std::string::npos ? "[" + sv.host + "]" : sv.host,
                                      (*server)->port());
  if (o.json) {
    nlohmann::json j = {{"listen", fmt::format("{}:{}", sv.host, (*server)->port())}, {"url", url},
                        {"port", (*server)->port()}, {"devices", sampler.devices().size()},
                        {"interval_s", *interval}, {"names", o.names}, {"db", o.db}};
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
  } else if (!global.quiet) {
    std::fprintf(stderr, "rooftop monitor: serving %s (%zu devices, every %s)%s\n", url.c_str(),
                 sampler.devices().size(), o.interval.c_str(), o.db.empty() ? "" : (", history in " + o.db).c_str());
  }
  (*server)->run();
  sampler.stop();
  g_server = nullptr;
  if (!global.quiet && !o.json) std::fprintf(stderr, "rooftop monitor: stopped\n");
  return store_failed ? kExitFailure : kExitOk;
}

}  // namespace

Command add_monitor_command(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<MonitorOptions>();
  CLI::App* sub = app.add_subcommand(
      "monitor",
      "Telemetry agent: sample GPUs/NPUs and the host, serve Prometheus metrics at /metrics (dcgm-exporter\n"
      "compatible names by default), keep an optional SQLite history. Runs until SIGINT/SIGTERM.");
  sub->add_option("--listen", opts->listen, "Address to serve on; loopback unless you say otherwise (port 0 = any)")
      ->capture_default_str();
  sub->add_option("--interval", opts->interval, "Sampling interval (a duration: 500ms, 1s, 1m; at least 100ms)")
      ->capture_default_str();
  sub->add_option("--db", opts->db, "SQLite file for the history (WAL mode); none when not given")->type_name("FILE");
  sub->add_option("--retention", opts->retention, "How long the history keeps rows")->capture_default_str();
  sub->add_option("--backends", opts->backends,
                  tel::backends_help() + "; fake replays a trace file (data/traces/), a listed backend that\n"
                                         "cannot load is exit 2")
      ->capture_default_str();
  sub->add_option("--names", opts->names, "Metric names: " + enum_choices(tel::kNameSets) +
                      " (dcgm: dcgm-exporter names and labels; rooftop: base units)")
      ->capture_default_str();
  sub->add_option("--proc-root", opts->proc_root, "Root holding proc/ and sys/ for the host backend")
      ->capture_default_str();
  sub->add_option("--web.config.file", opts->web_config,
                  "node_exporter-format web config: basic_auth_users (bcrypt hashes) guard /metrics;\n"
                  "tls_server_config (cert_file, key_file) serves HTTPS")
      ->type_name("FILE");
  sub->add_option("--pod-resources", opts->pod_resources,
                  "Kubernetes attribution: the kubelet's pod-resources socket (pod, namespace, container labels);\n"
                  "auto uses " + std::string(tel::kPodResourcesSocket) + " when it exists, off disables it")
      ->capture_default_str();
  sub->add_flag("--process-metrics", opts->process_metrics,
                "Export rooftop_gpu_process_memory_used_bytes{pid,command} per process on each device\n"
                "(off by default: one series per process)");
  sub->add_flag("--json", opts->json, "Print one JSON line with the address and device count once serving");
  sub->footer(
      "Profiling series (DCGM_FI_PROF_GR_ENGINE_ACTIVE, _SM_ACTIVE, _SM_OCCUPANCY, _PIPE_TENSOR_ACTIVE,\n"
      "_DRAM_ACTIVE, _NVLINK_TX_BYTES, _NVLINK_RX_BYTES) come from NVML GPM: NVIDIA Hopper and later;\n"
      "on AMD and Ascend, graphics-engine and DRAM activity come from ROCm SMI's activity averages\n"
      "and DCMI's AI Core and HBM bandwidth utilisation; absent on older NVIDIA GPUs and traces.\n"
      "DCGM_FI_PROF_PCIE_* are not\n"
      "exported (DCGM_FI_DEV_PCIE_*_THROUGHPUT are).\n\n"
      "Examples:\n"
      "  rooftop monitor                                   # all backends, 127.0.0.1:9400, dcgm names\n"
      "  rooftop monitor --db /var/lib/rooftop/history.db --retention 30d --names rooftop\n"
      "  rooftop monitor --backends fake:data/traces/h100x2-training.csv --listen 127.0.0.1:0 --json");
  return {sub, [opts, &global] { return run_monitor(*opts, global); }};
}

}  // namespace rooftop::app
