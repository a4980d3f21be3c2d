// Which Kubernetes extended resource, node conventions, container runtime and
// vLLM build each vendor uses: the one table of vendors. Sources are listed
// in docs/deploy.md.
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

std::string dns_label(const std::string& name) {
  std::string out;
  for (char ch : name) {
    char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
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
    r.runtime_class = "nvidia";  // NVML is injected by the NVIDIA container toolkit
    r.serving_image = "vllm/vllm-openai:v0.11.0";
    r.serving_image_source = "docs.vllm.ai/en/stable/deployment/docker (official image vllm/vllm-openai)";
  } else if (v == "amd" && a.kind == catalog::Kind::gpu) {
    r.resource = "amd.com/gpu";
    r.taint_key = "amd.com/gpu";
    r.plugin = "ROCm k8s-device-plugin";
    r.library_paths = {"/opt/rocm/lib"};  // ROCm SMI; the device plugin passes devices, not libraries
    r.serving_image = "rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250415";
    r.serving_image_source = "hub.docker.com/r/rocm/vllm (tag listed in ROCm/amdgpu-docs issue 88); rocm.docs.amd.com vLLM inference";
  } else if (v == "huawei") {
    if (a.id.find("910") != std::string::npos) r.resource = "huawei.com/Ascend910";
    else if (a.id.find("310p") != std::string::npos) r.resource = "huawei.com/Ascend310P";
    else r.resource = "huawei.com/Ascend310";
    r.plugin = "Ascend device plugin (Ascend/ascend-device-plugin)";
    r.library_paths = {"/usr/local/Ascend/driver/lib64", "/usr/local/dcmi"};
    r.monitor_root_reason = "DCMI opens /dev/davinci_manager, which the Ascend driver creates for root (HwHiAiUser group) only";
    r.serving_image = "quay.io/ascend/vllm-ascend:v0.23.0";
    r.serving_image_source = "docs.vllm.ai/projects/ascend quick start (quay.io/ascend/vllm-ascend); MindIE images are on Ascend Hub";
  } else if (v == "intel" && a.kind != catalog::Kind::cpu) {
    r.resource = "habana.ai/gaudi";
    r.taint_key = "habana.ai/gaudi";
    r.plugin = "Habana device plugin for Kubernetes";
    r.serving_image = "vault.habana.ai/gaudi-docker/1.23.0/ubuntu22.04/habanalabs/vllm-installer-2.9.0:latest";
    r.serving_image_source = "docs.habana.ai vLLM Quick Start Guide (vllm-installer images)";
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
    r.serving_image = "vllm/vllm-tpu:latest";
    r.serving_image_source = "docs.vllm.ai/projects/tpu installation (Run with Docker)";
  } else if (v == "aws") {
    r.resource = "aws.amazon.com/neuron";
    r.taint_key = "aws.amazon.com/neuron";
    r.plugin = "AWS Neuron device plugin";
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
