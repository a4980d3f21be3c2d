// `rooftop deploy serve|monitor`: writes Kubernetes manifests, Prometheus
// config and alert rules, and a Grafana dashboard (src/deploy).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "advise/advise.h"
#include "command.h"
#include "core/yaml.h"
#include "core/precision.h"
#include "core/text.h"
#include "deploy/deploy.h"
#include "inputs.h"

namespace rooftop::app {

namespace {

struct ServeArgs {
  std::string scenario, accelerator, image, name, ns = "default", out, model, precision, health_path = "/health",
                                                  resource;
  int count = 1, replicas = 1, max_replicas = 4, port = 8000, devices_per_node = 0;
  double storage_gb_s = 2.0;
  bool json = false;
};

struct MonitorArgs {
  std::string ns = "monitoring", image = "rooftop:latest", out, names = "dcgm", interval = "1s";
  std::vector<std::string> accelerators;
  int port = 9400;
  bool json = false;
};

// Writes the files under `dir`, or prints them (multi-document YAML, or JSON).
int emit(const std::vector<deploy::File>& files, const std::string& dir, bool json) {
  if (json) {
    nlohmann::ordered_json j;
    j["files"] = nlohmann::ordered_json::array();
    for (const deploy::File& f : files) {
      std::string path = dir.empty() ? f.path : (std::filesystem::path(dir) / f.path).string();
      j["files"].push_back({{"path", path}, {"content", f.content}});
    }
    if (dir.empty()) {
      std::cout << j.dump(2) << "\n";
      return kExitOk;
    }
  }
  if (dir.empty()) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::cout << (i ? "---\n" : "") << "# " << files[i].path << "\n" << files[i].content;
    }
    return kExitOk;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return report_error(Error{Errc::io, "cannot create directory: " + ec.message(), dir});
  nlohmann::ordered_json written = nlohmann::ordered_json::array();
  for (const deploy::File& f : files) {
    std::filesystem::path p = std::filesystem::path(dir) / f.path;
    std::ofstream o(p, std::ios::binary | std::ios::trunc);
    o << f.content;
    if (!o) return report_error(Error{Errc::io, "cannot write file", p.string()});
    written.push_back(p.string());
    if (!json) std::cout << "wrote " << p.string() << "\n";
  }
  if (json) std::cout << nlohmann::ordered_json{{"files", written}}.dump(2) << "\n";
  return kExitOk;
}

// Seconds to bring the weights from storage into device memory: the slower
// of the storage read and the host link (docs/deploy.md).
double cold_start_s(double weight_bytes, const catalog::Accelerator& a, double storage_bytes_per_s) {
  double bw = storage_bytes_per_s;
  if (a.host.bytes_per_s_per_direction.known()) bw = std::min(bw, *a.host.bytes_per_s_per_direction.value);
  return weight_bytes / bw;
}

int run_serve(const ServeArgs& args, const GlobalOptions& global) {
  if (!args.scenario.empty() && !args.accelerator.empty())
    return report_error(Error{Errc::invalid_input, "give either --scenario or --accelerator/--count, not both", "--scenario"});
  if (args.scenario.empty() && args.accelerator.empty())
    return report_error(Error{Errc::invalid_input, "say what to deploy: --accelerator ID [--count N] (or --scenario FILE)", "deploy serve"});
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return report_error(cat.error());
  deploy::ServeSpec spec;
  if (!args.scenario.empty()) {
    // Deploy what `rooftop advise` ranks first: its part, one model copy per
    // pod, as many replicas as it sized, and its predicted cold start.
    Result<std::string> text = read_file(args.scenario);
    if (!text) return report_error(text.error());
    Result<advise::Scenario> sc = advise::parse_scenario(*text, args.scenario);
    if (!sc) return report_error(sc.error());
    if (sc->task != workload::Task::infer)
      return report_error(Error{Errc::invalid_input, "deploy serve needs a serving (infer) scenario", args.scenario});
    WorkloadInputs inputs;
    inputs.build = sc->shape;
    Result<workload::Workload> w = load_workload(sc->model, inputs);
    if (!w) return report_error(Error{w.error().code, w.error().message, sc->model_line});
    Result<advise::Advice> advice = advise::advise(*sc, *cat, *w);
    if (!advice) return report_error(advice.error());
    if (advice->candidates.empty())
      return report_error(Error{Errc::invalid_input, advise::nothing_feasible(*sc, *advice), args.scenario});
    const advise::Candidate& best = advice->candidates.front();
    spec.accelerator = best.accelerator;
    spec.count = best.replica_devices;
    spec.replicas = std::max(1, best.count / std::max(1, best.replica_devices));
    spec.max_replicas = std::max(args.max_replicas, 2 * spec.replicas);
    spec.cold_start_s = best.cold_start_s;
    spec.memory_bytes = best.memory_bytes;
    spec.model = w->id;
    spec.name = !args.name.empty() ? args.name : w->id;
  } else {
    Result<const catalog::Accelerator*> acc = cat->get(args.accelerator);
    if (!acc) return report_error(Error{acc.error().code, acc.error().message, "--accelerator"});
    spec.accelerator = *acc;
    spec.count = args.count;
    spec.replicas = args.replicas;
    spec.max_replicas = std::max(args.max_replicas, args.replicas);
  }
  const catalog::Accelerator* accel = spec.accelerator;
  spec.image = args.image;
  spec.ns = args.ns;
  spec.port = args.port;
  spec.devices_per_node = args.devices_per_node;
  spec.health_path = args.health_path;
  spec.resource_override = args.resource;
  if (args.scenario.empty()) {
    spec.model = args.model;
    spec.name = !args.name.empty() ? args.name : (!args.model.empty() ? args.model : "model-server");
  }
  if (args.scenario.empty() && !args.model.empty()) {
    Result<workload::Workload> w = load_workload(args.model, WorkloadInputs{});
    if (!w) return report_error(w.error());
    std::optional<Precision> p = args.precision.empty() ? std::optional<Precision>(Precision::bf16)
                                                        : parse_precision(args.precision);
    if (!p) return report_error(Error{Errc::invalid_input, "unknown precision '" + args.precision + "'", "--precision"});
    double weight_bytes = w->params * bytes_per_element(*p);
    spec.cold_start_s = cold_start_s(weight_bytes, *accel, args.storage_gb_s * 1e9);
    spec.memory_bytes = weight_bytes / std::max(1, args.count);
  }
  Result<std::vector<deploy::File>> files = deploy::serve_manifests(spec);
  if (!files) return report_error(files.error());
  return emit(*files, args.out, args.json);
}

int run_monitor(const MonitorArgs& args, const GlobalOptions& global) {
  deploy::MonitorSpec spec;
  spec.ns = args.ns;
  spec.image = args.image;
  spec.port = args.port;
  spec.interval = args.interval;
  if (args.names != "dcgm" && args.names != "rooftop")
    return report_error(Error{Errc::invalid_input, "must be dcgm or rooftop, got '" + args.names + "'", "--names"});
  spec.rooftop_names = args.names == "rooftop";
  Result<double> interval = parse_duration(args.interval);
  if (!interval || *interval <= 0) return report_error(Error{Errc::invalid_input, "expected a duration such as 1s", "--interval"});
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return report_error(cat.error());
  for (const std::string& id : args.accelerators) {
    Result<const catalog::Accelerator*> acc = cat->get(id);
    if (!acc) return report_error(Error{acc.error().code, acc.error().message, "--accelerator"});
    spec.accelerators.push_back(*acc);
  }
  Result<std::vector<deploy::File>> files = deploy::monitor_manifests(spec);
  if (!files) return report_error(files.error());
  return emit(*files, args.out, args.json);
}

}  // namespace

Command add_deploy_command(CLI::App& app, const GlobalOptions& global) {
  CLI::App* deploy = app.add_subcommand("deploy", "Write Kubernetes, Prometheus and Grafana files for serving and monitoring");
  deploy->require_subcommand(1);
  deploy->footer(
      "Examples:\n"
      "  rooftop deploy serve --accelerator nvidia-l4 --count 1 --model llama-3.1-8b --image vllm/vllm-openai:v0.6.3 --out k8s/\n"
      "  rooftop deploy monitor --out monitoring/ && promtool check config monitoring/prometheus.yml\n"
      "Formats and assumptions: docs/deploy.md");

  auto serve_args = std::make_shared<ServeArgs>();
  CLI::App* serve = deploy->add_subcommand(
      "serve", "Deployment (device requests, node selector, tolerations, rolling update, probes sized from the "
               "predicted cold start), Service, HorizontalPodAutoscaler, ResourceQuota and PodDisruptionBudget");
  serve->add_option("--scenario", serve_args->scenario, "Deploy what `rooftop advise` ranks first for this serving scenario "
                    "(its accelerator, devices per model copy, replicas and cold start)");
  serve->add_option("--accelerator", serve_args->accelerator, "Catalog id of the accelerator");
  serve->add_option("--count", serve_args->count, "Devices per replica (must fit in one node)")->check(CLI::PositiveNumber);
  serve->add_option("--image", serve_args->image, "Container image of the model server")->required();
  serve->add_option("--name", serve_args->name, "Name of the Deployment (default: the model id)");
  serve->add_option("--namespace", serve_args->ns, "Namespace")->capture_default_str();
  serve->add_option("--model", serve_args->model, "Model (zoo id, YAML or ONNX): sizes the startup probe and memory request");
  serve->add_option("--precision", serve_args->precision, "Precision of the served weights (default bf16)");
  serve->add_option("--replicas", serve_args->replicas, "Minimum replicas")->capture_default_str()->check(CLI::PositiveNumber);
  serve->add_option("--max-replicas", serve_args->max_replicas, "Maximum replicas for the autoscaler")->capture_default_str();
  serve->add_option("--port", serve_args->port, "Container port of the server")->capture_default_str();
  serve->add_option("--health-path", serve_args->health_path, "HTTP path of the server's health check")->capture_default_str();
  serve->add_option("--devices-per-node", serve_args->devices_per_node,
                    "Devices one node holds (default: 8 data centre, 4 workstation, 1 edge)");
  serve->add_option("--resource", serve_args->resource, "Extended resource name, for accelerators without a known device plugin");
  serve->add_option("--storage-gbps", serve_args->storage_gb_s, "Read bandwidth of the weights' volume, GB/s (cold start)")
      ->capture_default_str();
  serve->add_option("--out", serve_args->out, "Write the files into this directory (default: print them)");
  serve->add_flag("--json", serve_args->json, "Print {\"files\": [{path, content}]} (or the written paths with --out)");

  auto mon_args = std::make_shared<MonitorArgs>();
  CLI::App* mon = deploy->add_subcommand(
      "monitor", "DaemonSet and Service for `rooftop monitor`, prometheus.yml, alert rules (idle, overheating, "
                 "throttling, XID, exporter down, memory pressure) and a Grafana dashboard");
  mon->add_option("--namespace", mon_args->ns, "Namespace")->capture_default_str();
  mon->add_option("--image", mon_args->image, "Container image holding the rooftop binary")->capture_default_str();
  mon->add_option("--port", mon_args->port, "Exporter port")->capture_default_str();
  mon->add_option("--interval", mon_args->interval, "Sampling interval")->capture_default_str();
  mon->add_option("--names", mon_args->names, "Series names: dcgm (dcgm-exporter compatible) or rooftop")->capture_default_str();
  mon->add_option("--accelerator", mon_args->accelerators, "Accelerators on the nodes (mounts their vendor libraries)");
  mon->add_option("--out", mon_args->out, "Write the files into this directory (default: print them)");
  mon->add_flag("--json", mon_args->json, "Machine-readable output");

  Command c;
  c.sub = deploy;
  c.run = [serve, mon, serve_args, mon_args, &global]() {
    if (serve->parsed()) return run_serve(*serve_args, global);
    return run_monitor(*mon_args, global);
  };
  return c;
}

}  // namespace rooftop::app
