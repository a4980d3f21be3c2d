// Which Kubernetes extended resource and node conventions each vendor's
// device plugin uses. Sources are listed in docs/deploy.md.
#include <regex>

#include "deploy/deploy.h"

namespace rooftop::deploy {

namespace {
const char* kNodeLabel = "rooftop.io/accelerator";

// GKE's TPU node label values (cloud.google.com/gke-tpu-accelerator).
std::string gke_tpu_label(const std::string& id) {
  if (id == "google-tpu-v4") return "tpu-v4-podslice";
  if (id == "google-tpu-v5e") return "tpu-v5-lite-podslice";
  if (id == "google-tpu-v5p") return "tpu-v5p-slice";
  if (id == "google-tpu-v6e") return "tpu-v6e-slice";
  return "";
}
}  // namespace

bool is_dns_label(const std::string& s) {
  static const std::regex kLabel("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
  return std::regex_match(s, kLabel);
}

Result<DeviceResource> device_resource_for(const catalog::Accelerator& a) {
  DeviceResource r;
  r.node_label_key = kNodeLabel;
  r.node_label_value = a.id;
  const std::string& v = a.vendor;
  if (v == "nvidia") {
    r.resource = "nvidia.com/gpu";
    r.taint_key = "nvidia.com/gpu";
    r.plugin = "NVIDIA k8s-device-plugin";
    r.host_paths = {"/usr/lib/x86_64-linux-gnu", "/dev"};
  } else if (v == "amd" && a.kind == catalog::Kind::gpu) {
    r.resource = "amd.com/gpu";
    r.taint_key = "amd.com/gpu";
    r.plugin = "ROCm k8s-device-plugin";
    r.host_paths = {"/opt/rocm/lib", "/dev"};
  } else if (v == "huawei") {
    if (a.id.find("910") != std::string::npos) r.resource = "huawei.com/Ascend910";
    else if (a.id.find("310p") != std::string::npos) r.resource = "huawei.com/Ascend310P";
    else r.resource = "huawei.com/Ascend310";
    r.plugin = "Ascend device plugin (Ascend/ascend-device-plugin)";
    r.host_paths = {"/usr/local/Ascend/driver", "/usr/local/dcmi", "/dev"};
  } else if (v == "intel" && a.kind != catalog::Kind::cpu) {
    r.resource = "habana.ai/gaudi";
    r.taint_key = "habana.ai/gaudi";
    r.plugin = "Habana device plugin for Kubernetes";
    r.host_paths = {"/dev"};
  } else if (v == "google") {
    r.resource = "google.com/tpu";
    r.taint_key = "google.com/tpu";
    r.plugin = "GKE TPU device plugin";
    r.node_label_key = "cloud.google.com/gke-tpu-accelerator";
    r.node_label_value = gke_tpu_label(a.id);
    if (r.node_label_value.empty()) {
      r.node_label_key = kNodeLabel;
      r.node_label_value = a.id;
    }
  } else if (v == "aws") {
    r.resource = "aws.amazon.com/neuron";
    r.taint_key = "aws.amazon.com/neuron";
    r.plugin = "AWS Neuron device plugin";
    r.host_paths = {"/dev"};
  } else if (v == "graphcore") {
    r.resource = "graphcore.ai/ipu";
    r.plugin = "Graphcore Kubernetes IPU device plugin";
  } else {
    return make_error(Errc::unsupported,
                      "no Kubernetes device plugin resource is known for " + a.id + " (" + a.vendor + " " +
                          std::string(catalog::to_string(a.kind)) + "); pass --resource NAME to name the extended "
                          "resource your cluster's device plugin advertises");
  }
  return r;
}

int default_devices_per_node(const catalog::Accelerator& a) {
  switch (a.form_factor) {
    case catalog::FormFactor::edge: return 1;
    case catalog::FormFactor::workstation: return 4;
    case catalog::FormFactor::datacenter: return 8;
  }
  return 8;
}

}  // namespace rooftop::deploy
