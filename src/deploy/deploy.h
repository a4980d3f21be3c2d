// Deployment artefacts that fit what rooftop chose and what it exports:
// Kubernetes manifests for serving a model on a chosen accelerator with the
// vendor's vLLM build, and for running `rooftop monitor` as a DaemonSet, with
// the Prometheus scrape config, Prometheus Operator monitors, alert rules and
// a Grafana dashboard for its metrics; plain files or a Helm chart.
//
// Pure: specs in, files (path + text) out; app/cmd_deploy.cpp writes them.
// Formats, sources and the assumptions behind probe timings: docs/deploy.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "core/result.h"

namespace rooftop::deploy {

struct File {
  std::string path;     // relative, e.g. "deployment.yaml" or "chat/templates/deployment.yaml"
  std::string content;
};

enum class Format { plain, helm };

// How Kubernetes schedules and serves one kind of accelerator: the extended
// resource its device plugin advertises, the node label/taint conventions,
// where the monitor gets the vendor's management library, and the vLLM build
// that serves on it. One row per vendor (resources.cpp; sources in docs/deploy.md).
struct DeviceResource {
  std::string resource;             // "nvidia.com/gpu", "amd.com/gpu", "huawei.com/Ascend910", ...
  std::string node_label_key;       // label to select nodes by model
  std::string node_label_value;
  std::string taint_key;            // toleration for the vendor's usual taint (may be empty)
  std::string plugin;               // device plugin that advertises the resource
  // Vendor management-library folders the monitor dlopens from (mounted
  // read-only at the same path); empty when the container runtime injects them.
  std::vector<std::string> library_paths;
  std::string runtime_class;        // RuntimeClass the monitor pod needs ("nvidia"), or empty
  std::string monitor_root_reason;  // why the monitor must run as root here; empty = runAsNonRoot
  std::string serving_image;        // vLLM build for this vendor; empty = none known
  std::string serving_image_source; // where that image name is documented
};

// Errc::unsupported when no Kubernetes device plugin exposes this part.
Result<DeviceResource> device_resource_for(const catalog::Accelerator& a);

// Devices one node holds, by form factor: 8 for data-centre parts (HGX/OAM
// baseboards, TPU hosts), 4 for workstations, 1 for edge boards, unless the
// user says otherwise (docs/deploy.md).
int default_devices_per_node(const catalog::Accelerator& a);

// A valid DNS-1123 label made from any name: lowercase, every other
// character turned into '-', runs of '-' collapsed, trimmed, at most 63
// characters ("llama-3.1-8b" -> "llama-3-1-8b"). Empty when nothing is left.
std::string dns_label(const std::string& name);

enum class Autoscaler { hpa, keda };

// The vLLM arguments of a serving plan.
struct ServePlan {
  std::string model;                // what vLLM loads: a Hugging Face id or a path
  int tensor_parallel = 1;          // devices holding one model copy (= devices per pod)
  int max_model_len = 0;            // context per sequence; 0 = the model's own
  Precision precision = Precision::bf16;
  double gpu_memory_utilization = 0.90;
};

// vLLM's --dtype and --quantization for a precision ("" = not passed).
struct VllmPrecision {
  std::string dtype;
  std::string quantization;
};
VllmPrecision vllm_precision(Precision p);

struct ServeSpec {
  std::string name;                 // DNS-1123 label (dns_label() of what the user gave)
  std::string ns;                   // the app's own namespace; empty = name
  std::string image;                // empty = the vendor's vLLM image
  const catalog::Accelerator* accelerator = nullptr;
  int count = 1;                    // devices per replica (pod)
  int devices_per_node = 0;         // 0 = default_devices_per_node
  int replicas = 1;
  int max_replicas = 4;
  int port = 8000;
  std::string model_id;             // rooftop's model id, for labels
  std::optional<ServePlan> plan;    // vLLM arguments; none = the image's own command
  std::optional<double> cold_start_s;     // predicted time to load weights; sizes the startup probe
  std::optional<double> memory_bytes;     // host memory to request (weights staged through host)
  std::optional<double> weight_bytes;     // sizes the model-cache volume
  Autoscaler autoscaler = Autoscaler::hpa;
  double queue_target = 4;                // waiting requests per replica before scaling out
  std::string prometheus_url = "http://prometheus-operated.monitoring.svc:9090";  // KEDA's query endpoint
  std::string health_path = "/health";    // the server's readiness endpoint
  std::string resource_override;          // extended resource name when the vendor has no known plugin
  std::string hub_secret = "hub-token";   // Secret holding HF_TOKEN (optional)
  Format format = Format::plain;
};

// Namespace, Deployment (vLLM arguments, /dev/shm, model cache, hub token,
// probes), Service, PersistentVolumeClaim, the autoscaler (HPA on
// prometheus-adapter's vllm_num_requests_waiting plus the adapter rule, or a
// KEDA ScaledObject), ResourceQuota and PodDisruptionBudget.
// Errc::invalid_input for a bad name/image or a count that exceeds a node.
Result<std::vector<File>> serve_manifests(const ServeSpec& spec);

struct MonitorSpec {
  std::string ns = "monitoring";
  std::string image = "rooftop:latest";
  int port = 9400;
  std::string interval = "1s";
  std::string scrape_interval = "15s";
  bool rooftop_names = false;       // false: dcgm-exporter names (default)
  std::vector<const catalog::Accelerator*> accelerators;  // the nodes' parts; empty = NVIDIA GPUs
  Format format = Format::plain;
};

// One DaemonSet per vendor + Service + ServiceAccount for `rooftop monitor`,
// a ServiceMonitor (the exporter) and a PodMonitor (the vLLM servers) for the
// Prometheus Operator, prometheus.yml (Kubernetes service discovery), alert
// and recording rules and a Grafana dashboard (JSON).
Result<std::vector<File>> monitor_manifests(const MonitorSpec& spec);

// The pieces, exposed for tests.
std::string prometheus_config(const MonitorSpec& spec);
std::string alert_rules(const MonitorSpec& spec);
std::string recording_rules_yaml(const MonitorSpec& spec);  // what analyze --prometheus reads (metric_names.h)
std::string grafana_dashboard(const MonitorSpec& spec);

// True for a valid DNS-1123 label (lowercase alphanumerics and '-', <= 63).
bool is_dns_label(const std::string& s);

}  // namespace rooftop::deploy
