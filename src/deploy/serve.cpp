// Kubernetes manifests for serving one model on one kind of accelerator.
// Probe timings come from the predicted cold start (docs/deploy.md).
#include <cmath>
#include <nlohmann/json.hpp>

#include "deploy/deploy.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

namespace {

constexpr int kStartupPeriodS = 10;
// Without a prediction the startup probe allows 30 minutes: a 70B model in
// bf16 (140 GB) over a 1 GB/s volume takes ~140 s; slow object stores, 10x.
constexpr double kUnknownColdStartS = 1800;

Tree labels(const ServeSpec& s) {
  Tree l = Tree::object();
  l["app.kubernetes.io/name"] = s.name;
  l["app.kubernetes.io/part-of"] = "rooftop";
  l["rooftop.io/accelerator"] = s.accelerator->id;
  if (!s.model.empty()) l["rooftop.io/model"] = s.model;
  return l;
}

Tree metadata(const ServeSpec& s, const std::string& name) {
  Tree m = Tree::object();
  m["name"] = name;
  m["namespace"] = s.ns;
  m["labels"] = labels(s);
  return m;
}

// Startup budget: 3x the predicted load (storage and host link vary) plus
// two minutes for image pull and process start.
int startup_failure_threshold(const ServeSpec& s) {
  double budget_s = s.cold_start_s ? 3 * *s.cold_start_s + 120 : kUnknownColdStartS;
  return std::max(3, static_cast<int>(std::ceil(budget_s / kStartupPeriodS)));
}

Tree probe(const ServeSpec& s, int period_s, int failures) {
  Tree p = Tree::object();
  p["httpGet"] = Tree{{"path", s.health_path}, {"port", "http"}};
  p["periodSeconds"] = period_s;
  p["failureThreshold"] = failures;
  p["timeoutSeconds"] = 5;
  return p;
}

Tree deployment(const ServeSpec& s, const DeviceResource& r) {
  Tree d = Tree::object();
  d["apiVersion"] = "apps/v1";
  d["kind"] = "Deployment";
  d["metadata"] = metadata(s, s.name);
  Tree spec = Tree::object();
  spec["replicas"] = s.replicas;
  spec["revisionHistoryLimit"] = 5;
  spec["selector"] = Tree{{"matchLabels", Tree{{"app.kubernetes.io/name", s.name}}}};
  // Never take a serving replica down before its replacement is ready.
  spec["strategy"] = Tree{{"type", "RollingUpdate"},
                          {"rollingUpdate", Tree{{"maxSurge", 1}, {"maxUnavailable", 0}}}};
  Tree pod = Tree::object();
  pod["metadata"] = Tree{{"labels", labels(s)},
                         {"annotations", Tree{{"prometheus.io/scrape", "true"},
                                              {"prometheus.io/port", std::to_string(s.port)}}}};
  Tree ps = Tree::object();
  ps["nodeSelector"] = Tree{{r.node_label_key, r.node_label_value}};
  if (!r.taint_key.empty()) {
    ps["tolerations"] = Tree::array({Tree{{"key", r.taint_key}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
  }
  ps["terminationGracePeriodSeconds"] = 60;
  Tree c = Tree::object();
  c["name"] = s.name;
  c["image"] = s.image;
  c["ports"] = Tree::array({Tree{{"name", "http"}, {"containerPort", s.port}, {"protocol", "TCP"}}});
  Tree limits = Tree::object();
  limits[r.resource] = s.count;
  Tree requests = Tree::object();
  requests[r.resource] = s.count;
  if (s.memory_bytes) {
    // Weights are staged through host memory while loading: request them plus 25 %.
    long long gib = static_cast<long long>(std::ceil(*s.memory_bytes * 1.25 / 1073741824.0));
    requests["memory"] = std::to_string(std::max(1LL, gib)) + "Gi";
    limits["memory"] = std::to_string(std::max(1LL, gib)) + "Gi";
  }
  c["resources"] = Tree{{"limits", limits}, {"requests", requests}};
  c["startupProbe"] = probe(s, kStartupPeriodS, startup_failure_threshold(s));
  c["readinessProbe"] = probe(s, 5, 3);
  c["livenessProbe"] = probe(s, 10, 6);
  ps["containers"] = Tree::array({c});
  pod["spec"] = ps;
  spec["template"] = pod;
  d["spec"] = spec;
  return d;
}

Tree service(const ServeSpec& s) {
  Tree d = Tree::object();
  d["apiVersion"] = "v1";
  d["kind"] = "Service";
  d["metadata"] = metadata(s, s.name);
  d["spec"] = Tree{{"type", "ClusterIP"},
                   {"selector", Tree{{"app.kubernetes.io/name", s.name}}},
                   {"ports", Tree::array({Tree{{"name", "http"}, {"port", 80}, {"targetPort", "http"}, {"protocol", "TCP"}}})}};
  return d;
}

// Scales on the pods' average accelerator utilisation, served to the HPA
// by prometheus-adapter from the monitor's DCGM_FI_DEV_GPU_UTIL series.
Tree autoscaler(const ServeSpec& s) {
  Tree d = Tree::object();
  d["apiVersion"] = "autoscaling/v2";
  d["kind"] = "HorizontalPodAutoscaler";
  d["metadata"] = metadata(s, s.name);
  Tree metric = Tree{{"type", "Pods"},
                     {"pods", Tree{{"metric", Tree{{"name", "DCGM_FI_DEV_GPU_UTIL"}}},
                                   {"target", Tree{{"type", "AverageValue"},
                                                   {"averageValue", std::to_string(static_cast<int>(s.target_utilisation_pct))}}}}}};
  int down_window_s = std::max(300, static_cast<int>(std::ceil(2 * s.cold_start_s.value_or(150))));
  d["spec"] = Tree{{"scaleTargetRef", Tree{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", s.name}}},
                   {"minReplicas", s.replicas},
                   {"maxReplicas", s.max_replicas},
                   {"metrics", Tree::array({metric})},
                   // A new replica costs a cold start: scale down slowly.
                   {"behavior", Tree{{"scaleDown", Tree{{"stabilizationWindowSeconds", down_window_s}}}}}};
  return d;
}

Tree quota(const ServeSpec& s, const DeviceResource& r) {
  Tree d = Tree::object();
  d["apiVersion"] = "v1";
  d["kind"] = "ResourceQuota";
  d["metadata"] = metadata(s, s.name + "-devices");
  d["spec"] = Tree{{"hard", Tree{{"requests." + r.resource, std::to_string(s.count * s.max_replicas)}}}};
  return d;
}

Tree disruption_budget(const ServeSpec& s) {
  Tree d = Tree::object();
  d["apiVersion"] = "policy/v1";
  d["kind"] = "PodDisruptionBudget";
  d["metadata"] = metadata(s, s.name);
  d["spec"] = Tree{{"maxUnavailable", 1}, {"selector", Tree{{"matchLabels", Tree{{"app.kubernetes.io/name", s.name}}}}}};
  return d;
}

}  // namespace

Result<std::vector<File>> serve_manifests(const ServeSpec& spec) {
  if (!spec.accelerator) return make_error(Errc::internal, "serve_manifests without an accelerator");
  if (!is_dns_label(spec.name))
    return make_error(Errc::invalid_input,
                      "'" + spec.name + "' is not a valid Kubernetes name (lowercase letters, digits and '-', "
                      "starting and ending with a letter or digit, at most 63 characters)", "--name");
  if (!is_dns_label(spec.ns)) return make_error(Errc::invalid_input, "'" + spec.ns + "' is not a valid namespace", "--namespace");
  if (spec.image.empty() || spec.image.find_first_of(" \t\n") != std::string::npos)
    return make_error(Errc::invalid_input, "a container image is required (e.g. --image vllm/vllm-openai:v0.6.3)", "--image");
  if (spec.count < 1) return make_error(Errc::invalid_input, "device count must be at least 1", "--count");
  if (spec.replicas < 1 || spec.max_replicas < spec.replicas)
    return make_error(Errc::invalid_input, "need 1 <= replicas <= max replicas", "--replicas");
  if (spec.port < 1 || spec.port > 65535) return make_error(Errc::invalid_input, "port must be 1..65535", "--port");
  int per_node = spec.devices_per_node > 0 ? spec.devices_per_node : default_devices_per_node(*spec.accelerator);
  if (spec.count > per_node)
    return make_error(Errc::invalid_input,
                      "a pod cannot span nodes: " + std::to_string(spec.count) + " x " + spec.accelerator->id +
                          " exceeds one node (" + std::to_string(per_node) +
                          " devices per node); use fewer devices per replica, more replicas, or --devices-per-node",
                      "--count");
  DeviceResource r;
  if (!spec.resource_override.empty()) {
    r.resource = spec.resource_override;
    r.node_label_key = "rooftop.io/accelerator";
    r.node_label_value = spec.accelerator->id;
  } else {
    Result<DeviceResource> found = device_resource_for(*spec.accelerator);
    if (!found) return make_error(found.error());
    r = *found;
  }
  std::vector<File> files;
  files.push_back({"deployment.yaml", to_yaml(deployment(spec, r))});
  files.push_back({"service.yaml", to_yaml(service(spec))});
  files.push_back({"hpa.yaml", to_yaml(autoscaler(spec))});
  files.push_back({"quota.yaml", to_yaml(quota(spec, r))});
  files.push_back({"pdb.yaml", to_yaml(disruption_budget(spec))});
  return files;
}

}  // namespace rooftop::deploy
