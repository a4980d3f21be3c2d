// Kubernetes manifests for serving one model on one kind of accelerator with
// the vendor's vLLM build. Probe timings come from the predicted cold start,
// autoscaling from vLLM's own queue (docs/deploy.md).
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "deploy/chart.h"
#include "deploy/deploy.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

namespace {

constexpr int kStartupPeriodS = 10;
// Without a prediction the startup probe allows 30 minutes: a 70B model in
// bf16 (140 GB) over a 1 GB/s volume takes ~140 s; slow object stores, 10x.
constexpr double kUnknownColdStartS = 1800;
// vLLM's queue gauge (docs.vllm.ai, production metrics), and the name
// prometheus-adapter serves it under (a custom-metrics name has no ':').
constexpr const char* kQueueSeries = "vllm:num_requests_waiting";
constexpr const char* kQueueMetric = "vllm_num_requests_waiting";
constexpr const char* kCacheMount = "/models";
// Model-cache volume without a weight size: a 70B model in bf16 and headroom.
constexpr long long kDefaultCacheGi = 200;

std::string ns_of(const ServeSpec& s) { return s.ns.empty() ? s.name : s.ns; }

Tree labels(const ServeSpec& s) {
  Tree l = Tree::object();
  l["app.kubernetes.io/name"] = s.name;
  l["app.kubernetes.io/component"] = "server";
  l["app.kubernetes.io/part-of"] = "rooftop";
  l["rooftop.io/accelerator"] = s.accelerator->id;
  if (!s.model_id.empty()) l["rooftop.io/model"] = s.model_id;
  return l;
}

Tree metadata(const ServeSpec& s, const std::string& name) {
  Tree m = Tree::object();
  m["name"] = name;
  m["namespace"] = ns_of(s);
  m["labels"] = labels(s);
  return m;
}

Tree selector(const ServeSpec& s) { return Tree{{"app.kubernetes.io/name", s.name}}; }

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

std::string gib(double bytes) {
  return std::to_string(std::max(1LL, static_cast<long long>(std::ceil(bytes / 1073741824.0)))) + "Gi";
}

Tree vllm_args(const ServeSpec& s, const ServePlan& p) {
  Tree a = Tree::array({"--model", p.model, "--tensor-parallel-size", std::to_string(p.tensor_parallel)});
  if (p.max_model_len > 0) {
    a.push_back("--max-model-len");
    a.push_back(std::to_string(p.max_model_len));
  }
  VllmPrecision vp = vllm_precision(p.precision);
  if (!vp.dtype.empty()) {
    a.push_back("--dtype");
    a.push_back(vp.dtype);
  }
  if (!vp.quantization.empty()) {
    a.push_back("--quantization");
    a.push_back(vp.quantization);
  }
  a.push_back("--gpu-memory-utilization");
  a.push_back(fmt::format("{:.2f}", p.gpu_memory_utilization));
  a.push_back("--download-dir");
  a.push_back(kCacheMount);
  a.push_back("--port");
  a.push_back(std::to_string(s.port));
  return a;
}

Tree deployment(const ServeSpec& s, const DeviceResource& r) {
  Tree d = Tree::object();
  d["apiVersion"] = "apps/v1";
  d["kind"] = "Deployment";
  d["metadata"] = metadata(s, s.name);
  Tree spec = Tree::object();
  spec["replicas"] = s.replicas;
  spec["revisionHistoryLimit"] = 5;
  spec["selector"] = Tree{{"matchLabels", selector(s)}};
  // Never take a serving replica down before its replacement is ready.
  spec["strategy"] = Tree{{"type", "RollingUpdate"},
                          {"rollingUpdate", Tree{{"maxSurge", 1}, {"maxUnavailable", 0}}}};
  Tree pod = Tree::object();
  pod["metadata"] = Tree{{"labels", labels(s)},
                         {"annotations", Tree{{"prometheus.io/scrape", "true"},
                                              {"prometheus.io/port", std::to_string(s.port)},
                                              {"prometheus.io/path", "/metrics"}}}};
  Tree ps = Tree::object();
  ps["nodeSelector"] = Tree{{r.node_label_key, r.node_label_value}};
  if (!r.taint_key.empty()) {
    ps["tolerations"] = Tree::array({Tree{{"key", r.taint_key}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
  }
  ps["terminationGracePeriodSeconds"] = 60;
  Tree c = Tree::object();
  c["name"] = s.name;
  c["image"] = s.image.empty() ? r.serving_image : s.image;
  if (s.plan) {
    c["command"] = Tree::array({"python3", "-m", "vllm.entrypoints.openai.api_server"});
    c["args"] = vllm_args(s, *s.plan);
  }
  c["env"] = Tree::array({Tree{{"name", "HF_HOME"}, {"value", kCacheMount}},
                          Tree{{"name", "HF_TOKEN"},
                               {"valueFrom", Tree{{"secretKeyRef", Tree{{"name", s.hub_secret},
                                                                        {"key", "HF_TOKEN"},
                                                                        {"optional", true}}}}}}});
  c["ports"] = Tree::array({Tree{{"name", "http"}, {"containerPort", s.port}, {"protocol", "TCP"}}});
  Tree limits = Tree::object();
  limits[r.resource] = s.count;
  Tree requests = Tree::object();
  requests[r.resource] = s.count;
  if (s.memory_bytes) {
    // Weights are staged through host memory while loading: request them plus 25 %.
    requests["memory"] = gib(*s.memory_bytes * 1.25);
    limits["memory"] = gib(*s.memory_bytes * 1.25);
  }
  c["resources"] = Tree{{"limits", limits}, {"requests", requests}};
  c["volumeMounts"] = Tree::array({Tree{{"name", "shm"}, {"mountPath", "/dev/shm"}},
                                   Tree{{"name", "model-cache"}, {"mountPath", kCacheMount}}});
  c["startupProbe"] = probe(s, kStartupPeriodS, startup_failure_threshold(s));
  c["readinessProbe"] = probe(s, 5, 3);
  c["livenessProbe"] = probe(s, 10, 6);
  ps["containers"] = Tree::array({c});
  // Tensor-parallel workers exchange tensors through shared memory; the
  // container runtime's default /dev/shm is 64 MiB.
  ps["volumes"] = Tree::array({Tree{{"name", "shm"}, {"emptyDir", Tree{{"medium", "Memory"}}}},
                               Tree{{"name", "model-cache"},
                                    {"persistentVolumeClaim", Tree{{"claimName", s.name + "-model-cache"}}}}});
  pod["spec"] = ps;
  spec["template"] = pod;
  d["spec"] = spec;
  return d;
}

Tree namespace_object(const ServeSpec& s) {
  return Tree{{"apiVersion", "v1"},
              {"kind", "Namespace"},
              {"metadata", Tree{{"name", ns_of(s)}, {"labels", Tree{{"app.kubernetes.io/part-of", "rooftop"}}}}}};
}

Tree service(const ServeSpec& s) {
  Tree d = Tree::object();
  d["apiVersion"] = "v1";
  d["kind"] = "Service";
  d["metadata"] = metadata(s, s.name);
  d["spec"] = Tree{{"type", "ClusterIP"},
                   {"selector", selector(s)},
                   {"ports", Tree::array({Tree{{"name", "http"}, {"port", 80}, {"targetPort", "http"}, {"protocol", "TCP"}}})}};
  return d;
}

// Every replica reads the same weights: one shared (ReadWriteMany) volume,
// the weights and 20 % headroom for tokenizer files and a second revision.
Tree model_cache(const ServeSpec& s) {
  std::string size = s.weight_bytes ? gib(*s.weight_bytes * 1.2) : std::to_string(kDefaultCacheGi) + "Gi";
  return Tree{{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", metadata(s, s.name + "-model-cache")},
              {"spec", Tree{{"accessModes", Tree::array({"ReadWriteMany"})},
                            {"resources", Tree{{"requests", Tree{{"storage", size}}}}}}}};
}

int scale_down_window_s(const ServeSpec& s) {
  return std::max(300, static_cast<int>(std::ceil(2 * s.cold_start_s.value_or(150))));
}

std::string queue_target(const ServeSpec& s) { return fmt::format("{:g}", s.queue_target); }

// HPA on the pods' average waiting requests, served to the custom-metrics
// API by prometheus-adapter (rule in prometheus-adapter-rules.yml).
Tree hpa(const ServeSpec& s) {
  Tree metric = Tree{{"type", "Pods"},
                     {"pods", Tree{{"metric", Tree{{"name", kQueueMetric}}},
                                   {"target", Tree{{"type", "AverageValue"}, {"averageValue", queue_target(s)}}}}}};
  return Tree{{"apiVersion", "autoscaling/v2"},
              {"kind", "HorizontalPodAutoscaler"},
              {"metadata", metadata(s, s.name)},
              {"spec", Tree{{"scaleTargetRef", Tree{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", s.name}}},
                            {"minReplicas", s.replicas},
                            {"maxReplicas", s.max_replicas},
                            {"metrics", Tree::array({metric})},
                            // A new replica costs a cold start: scale down slowly.
                            {"behavior", Tree{{"scaleDown", Tree{{"stabilizationWindowSeconds", scale_down_window_s(s)}}}}}}}};
}

// prometheus-adapter rule (its Helm chart's `rules.custom`) turning vLLM's
// gauge, labelled with namespace and pod by the scrape, into a pods metric.
std::string adapter_rules() {
  Tree rule = Tree{{"seriesQuery", fmt::format("{}{{namespace!=\"\",pod!=\"\"}}", kQueueSeries)},
                   {"resources", Tree{{"overrides", Tree{{"namespace", Tree{{"resource", "namespace"}}},
                                                         {"pod", Tree{{"resource", "pod"}}}}}}},
                   {"name", Tree{{"matches", "^vllm:num_requests_waiting$"}, {"as", kQueueMetric}}},
                   {"metricsQuery", "sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)"}};
  return to_yaml(Tree{{"rules", Tree{{"custom", Tree::array({rule})}}}});
}

// KEDA: the same queue, summed over the app's pods, read from Prometheus.
Tree scaled_object(const ServeSpec& s) {
  std::string query = fmt::format("sum({}{{namespace=\"{}\",app_kubernetes_io_name=\"{}\"}})", kQueueSeries, ns_of(s), s.name);
  Tree trigger = Tree{{"type", "prometheus"},
                      {"metadata", Tree{{"serverAddress", s.prometheus_url},
                                        {"query", query},
                                        {"threshold", queue_target(s)}}}};
  return Tree{{"apiVersion", "keda.sh/v1alpha1"},
              {"kind", "ScaledObject"},
              {"metadata", metadata(s, s.name)},
              {"spec", Tree{{"scaleTargetRef", Tree{{"name", s.name}}},
                            {"minReplicaCount", s.replicas},
                            {"maxReplicaCount", s.max_replicas},
                            {"advanced", Tree{{"horizontalPodAutoscalerConfig",
                                               Tree{{"behavior", Tree{{"scaleDown", Tree{{"stabilizationWindowSeconds",
                                                                                         scale_down_window_s(s)}}}}}}}}},
                            {"triggers", Tree::array({trigger})}}}};
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
  d["spec"] = Tree{{"maxUnavailable", 1}, {"selector", Tree{{"matchLabels", selector(s)}}}};
  return d;
}

}  // namespace

VllmPrecision vllm_precision(Precision p) {
  switch (p) {
    case Precision::bf16: return {"bfloat16", ""};
    case Precision::fp16: return {"float16", ""};
    case Precision::fp32: return {"float32", ""};
    // Dynamic FP8 weight quantization of a 16-bit checkpoint.
    case Precision::fp8: return {"auto", "fp8"};
    // INT8/INT4 need a checkpoint quantized for them (W8A8 or W4A16 from
    // llm-compressor); vLLM reads the method from its config.
    case Precision::int8:
    case Precision::int4: return {"auto", "compressed-tensors"};
    default: return {"auto", ""};
  }
}

Result<std::vector<File>> serve_manifests(const ServeSpec& spec) {
  if (!spec.accelerator) return make_error(Errc::internal, "serve_manifests without an accelerator");
  if (!is_dns_label(spec.name))
    return make_error(Errc::invalid_input,
                      "'" + spec.name + "' is not a valid Kubernetes name (lowercase letters, digits and '-', "
                      "starting and ending with a letter or digit, at most 63 characters)", "--name");
  if (!spec.ns.empty() && !is_dns_label(spec.ns))
    return make_error(Errc::invalid_input, "'" + spec.ns + "' is not a valid namespace", "--namespace");
  if (spec.image.find_first_of(" \t\n") != std::string::npos)
    return make_error(Errc::invalid_input, "'" + spec.image + "' is not an image name", "--image");
  if (spec.count < 1) return make_error(Errc::invalid_input, "device count must be at least 1", "--count");
  if (spec.replicas < 1 || spec.max_replicas < spec.replicas)
    return make_error(Errc::invalid_input, "need 1 <= replicas <= max replicas", "--replicas");
  if (spec.port < 1 || spec.port > 65535) return make_error(Errc::invalid_input, "port must be 1..65535", "--port");
  if (!(spec.queue_target > 0)) return make_error(Errc::invalid_input, "must be above 0", "--queue-target");
  int per_node = spec.devices_per_node > 0 ? spec.devices_per_node : default_devices_per_node(*spec.accelerator);
  if (spec.count > per_node)
    return make_error(Errc::invalid_input,
                      "a pod cannot span nodes: " + std::to_string(spec.count) + " x " + spec.accelerator->id +
                          " exceeds one node (" + std::to_string(per_node) +
                          " devices per node); use fewer devices per replica, more replicas, or --devices-per-node",
                      "--count");
  DeviceResource r;
  Result<DeviceResource> found = device_resource_for(*spec.accelerator);
  if (found) r = *found;
  if (!spec.resource_override.empty()) {
    r.resource = spec.resource_override;
    r.node_label_key = "rooftop.io/accelerator";
    r.node_label_value = spec.accelerator->id;
  } else if (!found) {
    return make_error(found.error());
  }
  if (spec.image.empty() && r.serving_image.empty())
    return make_error(Errc::invalid_input,
                      "no vLLM image is known for " + spec.accelerator->vendor + " devices: name the server's image",
                      "--image");
  std::vector<Manifest> m;
  m.push_back({"namespace.yaml", namespace_object(spec)});
  m.push_back({"deployment.yaml", deployment(spec, r)});
  m.push_back({"service.yaml", service(spec)});
  m.push_back({"model-cache.yaml", model_cache(spec)});
  std::vector<File> extra;
  if (spec.autoscaler == Autoscaler::keda) {
    m.push_back({"keda-scaledobject.yaml", scaled_object(spec)});
  } else {
    m.push_back({"hpa.yaml", hpa(spec)});
    extra.push_back({"prometheus-adapter-rules.yml", adapter_rules()});
  }
  m.push_back({"quota.yaml", quota(spec, r)});
  m.push_back({"pdb.yaml", disruption_budget(spec)});
  Chart chart{spec.name, "Serves " + (spec.model_id.empty() ? spec.name : spec.model_id) + " on " +
                             spec.accelerator->id + " (written by rooftop deploy serve)",
              {{"namespace", {"namespace", "Namespace:name"}, ns_of(spec), {{"query", "namespace"}}},
               {"image", {"image"}, spec.image.empty() ? r.serving_image : spec.image},
               {"replicas", {"replicas", "minReplicas", "minReplicaCount"}, spec.replicas},
               {"maxReplicas", {"maxReplicas", "maxReplicaCount"}, spec.max_replicas}}};
  return write_manifests(m, extra, spec.format, chart);
}

}  // namespace rooftop::deploy
