// Deployment artefacts that fit what rooftop chose and what it exports:
// Kubernetes manifests for serving a model on a chosen accelerator, and for
// running `rooftop monitor` as a DaemonSet, with the Prometheus scrape
// config, alert rules and a Grafana dashboard for its metrics.
//
// Pure: specs in, files (path + text) out; app/cmd_deploy.cpp writes them.
// Formats and the assumptions behind probe timings: docs/deploy.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"

namespace rooftop::deploy {

struct File {
  std::string path;     // relative, e.g. "serve/deployment.yaml"
  std::string content;
};

// How Kubernetes schedules one kind of accelerator: the extended resource
// its device plugin advertises, and the node label/taint conventions.
struct DeviceResource {
  std::string resource;             // "nvidia.com/gpu", "amd.com/gpu", "huawei.com/Ascend910", ...
  std::string node_label_key;       // label to select nodes by model
  std::string node_label_value;
  std::string taint_key;            // toleration for the vendor's usual taint (may be empty)
  std::string plugin;               // device plugin that advertises the resource
  std::vector<std::string> host_paths;  // vendor libraries/devices the monitor needs from the host
};

// Errc::unsupported when no Kubernetes device plugin exposes this part.
Result<DeviceResource> device_resource_for(const catalog::Accelerator& a);

// Devices one node holds, by form factor: 8 for data-centre parts (HGX/OAM
// baseboards, TPU hosts), 4 for workstations, 1 for edge boards, unless the
// user says otherwise (docs/deploy.md).
int default_devices_per_node(const catalog::Accelerator& a);

struct ServeSpec {
  std::string name;                 // DNS-1123 label
  std::string ns = "default";
  std::string image;
  const catalog::Accelerator* accelerator = nullptr;
  int count = 1;                    // devices per replica (pod)
  int devices_per_node = 0;         // 0 = default_devices_per_node
  int replicas = 1;
  int max_replicas = 4;
  int port = 8000;
  std::string model;                // model id, for labels and the report
  std::optional<double> cold_start_s;     // predicted time to load weights; sizes the startup probe
  std::optional<double> memory_bytes;     // host memory to request (weights staged through host)
  double target_utilisation_pct = 70;     // HPA target on GPU utilisation
  std::string health_path = "/health";    // the server's readiness endpoint
  std::string resource_override;          // extended resource name when the vendor has no known plugin
};

// Deployment, Service, HorizontalPodAutoscaler (autoscaling/v2, on the
// exported utilisation metric), ResourceQuota and PodDisruptionBudget.
// Errc::invalid_input for a bad name/image or a count that exceeds a node.
Result<std::vector<File>> serve_manifests(const ServeSpec& spec);

struct MonitorSpec {
  std::string ns = "monitoring";
  std::string image = "rooftop:latest";
  int port = 9400;
  std::string interval = "1s";
  std::string scrape_interval = "15s";
  bool rooftop_names = false;       // false: dcgm-exporter names (default)
  std::vector<const catalog::Accelerator*> accelerators;  // which vendor paths to mount; empty = NVIDIA
};

// DaemonSet + Service + ServiceAccount for `rooftop monitor`, prometheus.yml
// (Kubernetes pod discovery plus a static target), alert rules and a Grafana
// dashboard (JSON).
Result<std::vector<File>> monitor_manifests(const MonitorSpec& spec);

// The pieces, exposed for tests.
std::string prometheus_config(const MonitorSpec& spec);
std::string alert_rules(const MonitorSpec& spec);
std::string grafana_dashboard(const MonitorSpec& spec);

// True for a valid DNS-1123 label (lowercase alphanumerics and '-', <= 63).
bool is_dns_label(const std::string& s);

}  // namespace rooftop::deploy
