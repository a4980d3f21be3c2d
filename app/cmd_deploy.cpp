// `rooftop deploy serve|monitor`: writes Kubernetes manifests, Prometheus
// config and alert rules, and a Grafana dashboard (src/deploy).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
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
  std::string scenario, accelerator, image, name, ns, out, model, hub_model, precision, health_path = "/health",
      resource, autoscaler = "hpa", prometheus_url = "http://prometheus-operated.monitoring.svc:9090", format = "plain";
  int count = 1, replicas = 1, max_replicas = 4, port = 8000, devices_per_node = 0, max_model_len = 0;
  double storage_gb_s = 2.0, queue_target = 4, gpu_memory_utilization = 0.90;
  bool json = false;
};

struct MonitorArgs {
  std::string ns = "monitoring", image = "rooftop:latest", out, names = "dcgm", interval = "1s", format = "plain";
  std::vector<std::string> accelerators;
  int port = 9400;
  bool json = false;
};

Result<deploy::Format> parse_format(const std::string& f) {
  if (f == "plain") return deploy::Format::plain;
  if (f == "helm") return deploy::Format::helm;
  return make_error(Errc::invalid_input, "must be plain or helm, got '" + f + "'", "--format");
}

// What vLLM loads for a zoo model: the Hugging Face repository its sources
// cite ("huggingface.co/ORG/NAME ..."), unless --hub-model names one.
Result<std::string> hub_model(const workload::Workload& w, const std::string& given) {
  if (!given.empty()) return given;
  const std::string host = "huggingface.co/";
  for (const std::string& ref : w.references) {
    std::size_t at = ref.find(host);
    if (at == std::string::npos) continue;
    std::string id = ref.substr(at + host.size());
    id = id.substr(0, id.find_first_of(" ,;)"));
    if (std::count(id.begin(), id.end(), '/') == 1) return id;
  }
  return make_error(Errc::invalid_input,
                    "no Hugging Face repository is known for model '" + w.id + "': name what vLLM loads", "--hub-model");
}

// Bytes of the checkpoint vLLM downloads: FP8 is quantized at load time from
// the 16-bit checkpoint; INT8/INT4 checkpoints are stored quantized.
double checkpoint_bytes(const workload::Workload& w, Precision p) {
  return w.params * (p == Precision::fp8 ? 2.0 : bytes_per_element(p));
}

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
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) return report_error(Error{Errc::io, "cannot create directory: " + ec.message(), p.parent_path().string()});
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
  // The chosen part lives in advise's priced copy of the catalog: kept alive
  // for as long as spec.accelerator points into it.
  std::shared_ptr<const catalog::Catalog> advised_catalog;
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
    advised_catalog = advice->catalog;
    spec.accelerator = best.accelerator;
    spec.count = best.replica_devices;
    spec.replicas = std::max(1, best.count / std::max(1, best.replica_devices));
    spec.max_replicas = std::max(args.max_replicas, 2 * spec.replicas);
    spec.cold_start_s = best.cold_start_s;
    spec.memory_bytes = best.memory_bytes;
    spec.weight_bytes = checkpoint_bytes(*w, best.precision);
    spec.model_id = w->id;
    spec.name = !args.name.empty() ? args.name : w->id;
    Result<std::string> hub = hub_model(*w, args.hub_model);
    if (!hub) return report_error(hub.error());
    // The plan advise chose: one model copy over replica_devices devices, in
    // its precision, for the scenario's prompt + answer length.
    deploy::ServePlan plan;
    plan.model = *hub;
    plan.tensor_parallel = best.replica_devices;
    plan.precision = best.precision;
    plan.max_model_len = args.max_model_len > 0 ? args.max_model_len : w->input_tokens + w->output_tokens;
    plan.gpu_memory_utilization = args.gpu_memory_utilization;
    spec.plan = plan;
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
  spec.port = args.port;
  spec.devices_per_node = args.devices_per_node;
  spec.health_path = args.health_path;
  spec.resource_override = args.resource;
  spec.queue_target = args.queue_target;
  spec.prometheus_url = args.prometheus_url;
  if (args.autoscaler != "hpa" && args.autoscaler != "keda")
    return report_error(Error{Errc::invalid_input, "must be hpa or keda, got '" + args.autoscaler + "'", "--autoscaler"});
  spec.autoscaler = args.autoscaler == "keda" ? deploy::Autoscaler::keda : deploy::Autoscaler::hpa;
  Result<deploy::Format> format = parse_format(args.format);
  if (!format) return report_error(format.error());
  spec.format = *format;
  if (!(args.gpu_memory_utilization > 0 && args.gpu_memory_utilization <= 1))
    return report_error(Error{Errc::invalid_input, "must be in (0, 1]", "--gpu-memory-utilization"});
  if (args.scenario.empty()) {
    spec.model_id = args.model;
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
    spec.weight_bytes = checkpoint_bytes(*w, *p);
    spec.model_id = w->id;
    Result<std::string> hub = hub_model(*w, args.hub_model);
    if (!hub) return report_error(hub.error());
    deploy::ServePlan plan;
    plan.model = *hub;
    plan.tensor_parallel = args.count;
    plan.precision = *p;
    plan.max_model_len = args.max_model_len > 0 ? args.max_model_len : w->seq_len;
    plan.gpu_memory_utilization = args.gpu_memory_utilization;
    spec.plan = plan;
  } else if (args.scenario.empty() && args.image.empty()) {
    return report_error(Error{Errc::invalid_input,
                              "say which model vLLM serves (--model), or name your own server image (--image)", "--model"});
  }
  // Kubernetes names: "llama-3.1-8b" becomes "llama-3-1-8b".
  std::string name = deploy::dns_label(spec.name);
  if (name.empty())
    return report_error(Error{Errc::invalid_input, "'" + spec.name + "' has no letter or digit to make a name of", "--name"});
  if (name != spec.name && !global.quiet)
    std::cerr << "rooftop: note: Kubernetes name '" << name << "' for '" << spec.name << "'\n";
  spec.name = name;
  spec.ns = args.ns.empty() ? name : args.ns;
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
  Result<deploy::Format> format = parse_format(args.format);
  if (!format) return report_error(format.error());
  spec.format = *format;
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
      "  rooftop deploy serve --accelerator nvidia-l4 --count 1 --model llama-3.1-8b --out k8s/\n"
      "  rooftop deploy serve --scenario data/scenarios/llama2-70b-serving.yaml --autoscaler keda --format helm --out chart/\n"
      "  rooftop deploy monitor --out monitoring/ && promtool check rules monitoring/alert-rules.yml\n"
      "Formats and assumptions: docs/deploy.md");

  auto serve_args = std::make_shared<ServeArgs>();
  CLI::App* serve = deploy->add_subcommand(
      "serve", "Namespace, vLLM Deployment (the plan's arguments, device requests, node selector, /dev/shm, model "
               "cache, hub token, probes sized from the predicted cold start), Service, model-cache volume, "
               "autoscaler on vLLM's waiting requests (HPA + prometheus-adapter, or KEDA), ResourceQuota, "
               "PodDisruptionBudget");
  serve->add_option("--scenario", serve_args->scenario, "Deploy what `rooftop advise` ranks first for this serving scenario "
                    "(its accelerator, devices per model copy, replicas and cold start)");
  serve->add_option("--accelerator", serve_args->accelerator, "Catalog id of the accelerator");
  serve->add_option("--count", serve_args->count, "Devices per replica (must fit in one node)")->check(CLI::PositiveNumber);
  serve->add_option("--image", serve_args->image, "Container image of the model server (default: the vendor's vLLM "
                    "image, docs/deploy.md)");
  serve->add_option("--name", serve_args->name, "Name of the Deployment (default: the model id, made a valid "
                    "Kubernetes name)");
  serve->add_option("--namespace", serve_args->ns, "The app's own namespace, where its quota applies (default: the name)");
  serve->add_option("--model", serve_args->model, "Model (zoo id or YAML): vLLM's --model, the startup probe and memory "
                    "request");
  serve->add_option("--hub-model", serve_args->hub_model, "What vLLM loads (Hugging Face id or path; default: the "
                    "repository the zoo model cites)");
  serve->add_option("--max-model-len", serve_args->max_model_len, "vLLM's --max-model-len (default: prompt + answer "
                    "tokens of the scenario, or the model's context)");
  serve->add_option("--gpu-memory-utilization", serve_args->gpu_memory_utilization,
                    "Fraction of device memory vLLM may take")->capture_default_str();
  serve->add_option("--autoscaler", serve_args->autoscaler, "hpa (HorizontalPodAutoscaler through prometheus-adapter) "
                    "or keda (ScaledObject with KEDA's Prometheus scaler)")->capture_default_str();
  serve->add_option("--queue-target", serve_args->queue_target, "Waiting requests per replica (vLLM's "
                    "num_requests_waiting) above which the autoscaler adds replicas")->capture_default_str();
  serve->add_option("--prometheus-url", serve_args->prometheus_url, "Prometheus that KEDA queries")->capture_default_str();
  serve->add_option("--format", serve_args->format, "plain (manifests) or helm (a chart)")->capture_default_str();
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
      "monitor", "DaemonSet (one per vendor) and Service for `rooftop monitor`, ServiceMonitor and PodMonitor, "
                 "prometheus.yml (Kubernetes discovery), alert rules (idle, overheating, throttling, XID, exporter "
                 "down, memory pressure) and a Grafana dashboard");
  mon->add_option("--namespace", mon_args->ns, "Namespace")->capture_default_str();
  mon->add_option("--image", mon_args->image, "Container image holding the rooftop binary")->capture_default_str();
  mon->add_option("--port", mon_args->port, "Exporter port")->capture_default_str();
  mon->add_option("--interval", mon_args->interval, "Sampling interval")->capture_default_str();
  mon->add_option("--names", mon_args->names, "Series names: dcgm (dcgm-exporter compatible) or rooftop")->capture_default_str();
  mon->add_option("--accelerator", mon_args->accelerators, "Accelerators on the nodes (mounts their vendor libraries)");
  mon->add_option("--format", mon_args->format, "plain (manifests) or helm (a chart)")->capture_default_str();
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
