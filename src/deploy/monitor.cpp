// Manifests to run `rooftop monitor` on every accelerator node, and the
// Prometheus configuration and alert rules that read what it exports.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <span>

#include "deploy/chart.h"
#include "deploy/deploy.h"
#include "deploy/metric_names.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

namespace {

const char* kApp = "rooftop-monitor";
// The image's user (Containerfile): not root, no login.
constexpr int kImageUid = 65532;
const char* kPodResources = "/var/lib/kubelet/pod-resources";

Tree meta(const MonitorSpec& s, const std::string& name) {
  return Tree{{"name", name},
              {"namespace", s.ns},
              {"labels", Tree{{"app.kubernetes.io/name", kApp}, {"app.kubernetes.io/part-of", "rooftop"}}}};
}

// The nodes of one vendor: one DaemonSet each, as the runtime class, the
// management library and the user differ per vendor.
struct VendorNodes {
  std::string vendor;
  DeviceResource resource;
  Tree node_terms = Tree::array();  // nodeSelectorTerms (ORed)
};

std::vector<VendorNodes> vendor_nodes(const MonitorSpec& s) {
  std::vector<VendorNodes> groups;
  if (s.accelerators.empty()) {
    // NVIDIA GPU feature discovery (GPU Operator) labels every GPU node.
    catalog::Accelerator any;
    any.vendor = "nvidia";
    any.kind = catalog::Kind::gpu;
    VendorNodes g{"nvidia", *device_resource_for(any)};
    g.node_terms.push_back(Tree{{"matchExpressions", Tree::array({Tree{{"key", "nvidia.com/gpu.present"},
                                                                       {"operator", "In"},
                                                                       {"values", Tree::array({"true"})}}})}});
    groups.push_back(std::move(g));
    return groups;
  }
  for (const catalog::Accelerator* a : s.accelerators) {
    Result<DeviceResource> r = device_resource_for(*a);
    DeviceResource res = r ? *r : DeviceResource{};
    if (!r) {
      res.node_label_key = "rooftop.io/accelerator";
      res.node_label_value = a->id;
    }
    VendorNodes* g = nullptr;
    for (VendorNodes& x : groups) {
      if (x.vendor == a->vendor) g = &x;
    }
    if (!g) {
      groups.push_back(VendorNodes{a->vendor, res});
      g = &groups.back();
    }
    Tree term = Tree{{"matchExpressions", Tree::array({Tree{{"key", res.node_label_key},
                                                             {"operator", "In"},
                                                             {"values", Tree::array({res.node_label_value})}}})}};
    if (std::find(g->node_terms.begin(), g->node_terms.end(), term) == g->node_terms.end()) g->node_terms.push_back(term);
  }
  return groups;
}

Tree daemonset(const MonitorSpec& s, const VendorNodes& g, bool single) {
  const DeviceResource& r = g.resource;
  const std::string name = single ? std::string(kApp) : std::string(kApp) + "-" + g.vendor;
  Tree pod_labels = Tree{{"app.kubernetes.io/name", kApp}, {"rooftop.io/vendor", g.vendor}};
  Tree mounts = Tree::array({Tree{{"name", "proc"}, {"mountPath", "/host/proc"}, {"readOnly", true}},
                             Tree{{"name", "sys"}, {"mountPath", "/host/sys"}, {"readOnly", true}},
                             Tree{{"name", "pod-resources"}, {"mountPath", kPodResources}, {"readOnly", true}},
                             Tree{{"name", "state"}, {"mountPath", "/var/lib/rooftop"}}});
  Tree volumes = Tree::array({Tree{{"name", "proc"}, {"hostPath", Tree{{"path", "/proc"}}}},
                              Tree{{"name", "sys"}, {"hostPath", Tree{{"path", "/sys"}}}},
                              Tree{{"name", "pod-resources"}, {"hostPath", Tree{{"path", kPodResources},
                                                                                {"type", "Directory"}}}},
                              Tree{{"name", "state"}, {"emptyDir", Tree{{"sizeLimit", "1Gi"}}}}});
  // Vendor management-library folders only (never the host's system
  // library folder): mounted read-only at the same path.
  std::string ld_path;
  int i = 0;
  for (const std::string& p : r.library_paths) {
    std::string vol = "vendor-lib" + std::to_string(i++);
    mounts.push_back(Tree{{"name", vol}, {"mountPath", p}, {"readOnly", true}});
    volumes.push_back(Tree{{"name", vol}, {"hostPath", Tree{{"path", p}, {"type", "Directory"}}}});
    ld_path += (ld_path.empty() ? "" : ":") + p;
  }
  Tree args = Tree::array({"monitor", "--listen", fmt::format("0.0.0.0:{}", s.port), "--interval", s.interval,
                           "--db", "/var/lib/rooftop/history.db", "--retention", "7d", "--names",
                           s.rooftop_names ? "rooftop" : "dcgm", "--proc-root", "/host"});
  Tree env = Tree::array({Tree{{"name", "NODE_NAME"}, {"valueFrom", Tree{{"fieldRef", Tree{{"fieldPath", "spec.nodeName"}}}}}}});
  if (!ld_path.empty()) env.push_back(Tree{{"name", "LD_LIBRARY_PATH"}, {"value", ld_path}});
  if (g.vendor == "nvidia") {
    // The NVIDIA container runtime injects NVML and every device node without
    // the pod requesting (and so taking) a GPU.
    env.push_back(Tree{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}});
    env.push_back(Tree{{"name", "NVIDIA_DRIVER_CAPABILITIES"}, {"value", "utility"}});
  }
  Tree c = Tree::object();
  c["name"] = "rooftop";
  c["image"] = s.image;
  c["args"] = args;
  c["env"] = env;
  c["ports"] = Tree::array({Tree{{"name", "metrics"}, {"containerPort", s.port}, {"protocol", "TCP"}}});
  c["resources"] = Tree{{"requests", Tree{{"cpu", "20m"}, {"memory", "32Mi"}}},
                        {"limits", Tree{{"cpu", "200m"}, {"memory", "128Mi"}}}};
  c["readinessProbe"] = Tree{{"httpGet", Tree{{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 10}};
  c["livenessProbe"] = Tree{{"httpGet", Tree{{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 20},
                            {"failureThreshold", 3}};
  c["securityContext"] = Tree{{"readOnlyRootFilesystem", true}, {"allowPrivilegeEscalation", false},
                              {"capabilities", Tree{{"drop", Tree::array({"ALL"})}}}};
  c["volumeMounts"] = mounts;
  Tree pod_security = Tree{{"seccompProfile", Tree{{"type", "RuntimeDefault"}}}};
  Tree annotations = Tree::object();
  if (r.monitor_root_reason.empty()) {
    pod_security["runAsNonRoot"] = true;
    pod_security["runAsUser"] = kImageUid;
    pod_security["runAsGroup"] = kImageUid;
  } else {
    pod_security["runAsUser"] = 0;
    annotations["rooftop.io/runs-as-root"] = r.monitor_root_reason;
  }
  Tree pod_spec = Tree::object();
  pod_spec["serviceAccountName"] = kApp;
  if (!r.runtime_class.empty()) pod_spec["runtimeClassName"] = r.runtime_class;
  pod_spec["priorityClassName"] = "system-node-critical";
  pod_spec["securityContext"] = pod_security;
  pod_spec["affinity"] = Tree{{"nodeAffinity", Tree{{"requiredDuringSchedulingIgnoredDuringExecution",
                                                     Tree{{"nodeSelectorTerms", g.node_terms}}}}}};
  pod_spec["tolerations"] = Tree::array({Tree{{"operator", "Exists"}}});
  pod_spec["containers"] = Tree::array({c});
  pod_spec["volumes"] = volumes;
  Tree pod_meta = Tree{{"labels", pod_labels}};
  if (!annotations.empty()) pod_meta["annotations"] = annotations;
  Tree spec = Tree{{"selector", Tree{{"matchLabels", pod_labels}}},
                   {"updateStrategy", Tree{{"type", "RollingUpdate"}, {"rollingUpdate", Tree{{"maxUnavailable", 1}}}}},
                   {"template", Tree{{"metadata", pod_meta}, {"spec", pod_spec}}}};
  return Tree{{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"metadata", meta(s, name)}, {"spec", spec}};
}

Tree service(const MonitorSpec& s) {
  Tree spec = Tree{{"clusterIP", "None"},
                   {"selector", Tree{{"app.kubernetes.io/name", kApp}}},
                   {"ports", Tree::array({Tree{{"name", "metrics"}, {"port", s.port}, {"targetPort", "metrics"},
                                               {"protocol", "TCP"}}})}};
  return Tree{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", meta(s, kApp)}, {"spec", spec}};
}

Tree service_account(const MonitorSpec& s) {
  return Tree{{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", meta(s, kApp)},
              {"automountServiceAccountToken", false}};
}

Tree node_relabel_operator() {
  return Tree{{"sourceLabels", Tree::array({"__meta_kubernetes_pod_node_name"})}, {"targetLabel", "node"}};
}

// Prometheus Operator: the exporter through its Service.
Tree service_monitor(const MonitorSpec& s) {
  return Tree{{"apiVersion", "monitoring.coreos.com/v1"},
              {"kind", "ServiceMonitor"},
              {"metadata", meta(s, kApp)},
              {"spec", Tree{{"selector", Tree{{"matchLabels", Tree{{"app.kubernetes.io/name", kApp}}}}},
                            {"namespaceSelector", Tree{{"matchNames", Tree::array({s.ns})}}},
                            {"endpoints", Tree::array({Tree{{"port", "metrics"},
                                                            {"interval", s.scrape_interval},
                                                            // keep the exporter's pod/namespace/container labels
                                                            // (the device's pod), not the exporter pod's
                                                            {"honorLabels", true},
                                                            {"relabelings", Tree::array({node_relabel_operator()})}}})}}}};
}

// Prometheus Operator: every model server `rooftop deploy serve` wrote, in
// any namespace, with namespace, pod and app labels (the autoscalers' query).
Tree pod_monitor(const MonitorSpec& s) {
  return Tree{{"apiVersion", "monitoring.coreos.com/v1"},
              {"kind", "PodMonitor"},
              {"metadata", meta(s, "rooftop-model-servers")},
              {"spec", Tree{{"selector", Tree{{"matchLabels", Tree{{"app.kubernetes.io/component", "server"},
                                                                   {"app.kubernetes.io/part-of", "rooftop"}}}}},
                            {"namespaceSelector", Tree{{"any", true}}},
                            {"podTargetLabels", Tree::array({"app.kubernetes.io/name"})},
                            {"podMetricsEndpoints", Tree::array({Tree{{"port", "http"},
                                                                      {"path", "/metrics"},
                                                                      {"interval", s.scrape_interval}}})}}}};
}

Tree rule(const std::string& name, const std::string& expr, const std::string& for_, const std::string& severity,
          const std::string& summary, const std::string& description) {
  return Tree{{"alert", name},
              {"expr", expr},
              {"for", for_},
              {"labels", Tree{{"severity", severity}}},
              {"annotations", Tree{{"summary", summary}, {"description", description}}}};
}

Tree relabel(const std::vector<std::string>& sources, const std::string& action_or_target, const std::string& regex,
             const std::string& replacement = "") {
  Tree r = Tree{{"source_labels", Tree::array()}};
  for (const std::string& x : sources) r["source_labels"].push_back(x);
  if (action_or_target == "keep") {
    r["action"] = "keep";
  } else {
    r["target_label"] = action_or_target;
  }
  r["regex"] = regex;
  if (!replacement.empty()) r["replacement"] = replacement;
  return r;
}

}  // namespace

// In-cluster Prometheus without the Operator: Kubernetes pod discovery for
// the exporter pods and for the model servers (vLLM's queue, labelled with
// namespace, pod and app for the autoscalers). No localhost target.
std::string prometheus_config(const MonitorSpec& s) {
  Tree exporter = Tree{{"job_name", "rooftop"},
                       {"scrape_interval", s.scrape_interval},
                       {"kubernetes_sd_configs", Tree::array({Tree{{"role", "pod"},
                                                                   {"namespaces", Tree{{"names", Tree::array({s.ns})}}}}})},
                       {"relabel_configs", Tree::array({
                           relabel({"__meta_kubernetes_pod_label_app_kubernetes_io_name"}, "keep", kApp),
                           relabel({"__meta_kubernetes_pod_container_port_name"}, "keep", "metrics"),
                           relabel({"__meta_kubernetes_pod_node_name"}, "node", "(.*)"),
                       })}};
  Tree servers = Tree{{"job_name", "rooftop-model-servers"},
                      {"scrape_interval", s.scrape_interval},
                      {"kubernetes_sd_configs", Tree::array({Tree{{"role", "pod"}}})},
                      {"relabel_configs", Tree::array({
                          relabel({"__meta_kubernetes_pod_label_app_kubernetes_io_component",
                                   "__meta_kubernetes_pod_label_app_kubernetes_io_part_of"}, "keep", "server;rooftop"),
                          relabel({"__meta_kubernetes_pod_container_port_name"}, "keep", "http"),
                          relabel({"__meta_kubernetes_pod_annotation_prometheus_io_path"}, "__metrics_path__", "(.+)"),
                          relabel({"__meta_kubernetes_namespace"}, "namespace", "(.*)"),
                          relabel({"__meta_kubernetes_pod_name"}, "pod", "(.*)"),
                          relabel({"__meta_kubernetes_pod_label_app_kubernetes_io_name"}, "app_kubernetes_io_name", "(.*)"),
                      })}};
  Tree cfg = Tree{{"global", Tree{{"scrape_interval", s.scrape_interval}, {"evaluation_interval", "30s"}}},
                  {"rule_files", Tree::array({"alert-rules.yml", "recording-rules.yml"})},
                  {"scrape_configs", Tree::array({exporter, servers})}};
  return to_yaml(cfg);
}

// NVML clocks-event reason bits that hold clocks down: 0x4 SW power cap,
// 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake.
constexpr int kHeldDownBits[] = {4, 8, 32, 64, 128};
constexpr int kThermalBits[] = {32, 64};
constexpr int kPowerBits[] = {4, 128};

// The XID codes SREs act on, by meaning (NVIDIA's XID catalogue,
// docs.nvidia.com/deploy/xid-errors; row remapping: NVIDIA's "GPU Memory
// Error Management" guide), each with what to do.
struct XidAlert {
  int code;
  const char* alert;
  const char* severity;
  const char* summary;
  const char* runbook;
};
constexpr XidAlert kXidAlerts[] = {
    {48, "RooftopXidDoubleBitEcc", "critical", "double-bit ECC error (XID 48)",
     "An uncorrectable (double-bit) ECC error hit device memory; the applications using it were likely stopped. "
     "Drain the GPU and reset it (the failing row is remapped at reset). If XID 48 recurs, or row remap failure "
     "is reported, replace the GPU."},
    {63, "RooftopXidRowRemapPending", "warning", "ECC page retirement or row remapping recorded (XID 63)",
     "The driver recorded a page retirement or row remap after a memory error; it takes effect at the next GPU "
     "reset. Drain the GPU and reset it in the next maintenance window."},
    {64, "RooftopXidRowRemapRecordFailed", "critical", "ECC page retirement or row remapping could not be recorded (XID 64)",
     "The driver could not record a page retirement or row remap (InfoROM write failed). Drain the GPU and reset it; "
     "if XID 64 recurs, replace the GPU."},
    {74, "RooftopXidNvlinkError", "critical", "NVLink error (XID 74)",
     "An NVLink reported a fatal error; collectives over it fail or fall back. Check the links with "
     "`nvidia-smi nvlink --status` and `--errorcounters`, reset the GPU (and restart the fabric manager on "
     "NVSwitch systems); if the same link fails again, reseat or replace the board or baseboard."},
    {79, "RooftopXidFallenOffBus", "critical", "GPU has fallen off the bus (XID 79)",
     "The GPU stopped answering on PCIe; every job on it is lost. Cordon the node and reboot it; check PCIe "
     "seating, power and temperature logs. If it recurs, replace the GPU or its riser."},
    {92, "RooftopXidHighSingleBitEccRate", "warning", "high single-bit ECC error rate (XID 92)",
     "Correctable ECC errors are arriving at a high rate: memory is degrading. Watch the remapped-row counters and "
     "plan a drain and reset; replace the GPU if uncorrectable errors follow."},
    {94, "RooftopXidContainedEcc", "warning", "contained ECC error (XID 94)",
     "An uncorrectable ECC error was contained: only the application that touched the memory was stopped. "
     "Restart it; reset the GPU at the next opportunity so the row is remapped."},
    {95, "RooftopXidUncontainedEcc", "critical", "uncontained ECC error (XID 95)",
     "An uncorrectable ECC error could not be contained: every application on the GPU is affected. Drain the GPU "
     "and reset it now; replace it if this recurs."},
};

std::string alert_rules(const MonitorSpec& s) {
  const MetricNames& m = metric_names(s.rooftop_names);
  std::string idle_threshold = fmt::format("{}", 0.05 * m.util_full_scale);
  auto bit = [&](int value) { return fmt::format("floor({} / {}) % 2 == 1", m.throttle_reasons, value); };
  std::string throttle;
  for (int b : kHeldDownBits) throttle += (throttle.empty() ? "(" : " or (") + bit(b) + ")";
  std::string mem_ratio = fmt::format("{0} / ({0} + {1})", m.fb_used, m.fb_free);
  auto any_bit = [&](std::span<const int> bits) {
    std::string e;
    for (int b : bits) e += (e.empty() ? "(" : " or (") + bit(b) + ")";
    return e;
  };
  std::string other_xids;
  for (const XidAlert& x : kXidAlerts) other_xids += fmt::format(" and {} != {}", m.xid, x.code);
  const std::string where = "accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }}";
  Tree rules = Tree::array({
      rule("RooftopAcceleratorIdle", fmt::format("avg_over_time({}[30m]) < {}", m.gpu_util, idle_threshold), "30m",
           "info", "Accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }} is idle",
           "Utilisation stayed under 5 % for an hour: release it, or run `rooftop analyze` for right-sizing advice."),
      rule("RooftopAcceleratorOverheating", fmt::format("{} > 85", m.temp), "5m", "warning",
           "Accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }} is above 85 C",
           "Sustained temperature above 85 C leads to thermal slowdown: check airflow, fans and inlet temperature."),
      rule("RooftopAcceleratorThrottling", throttle, "10m", "warning",
           "Accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }} is throttling",
           "Clocks are held down by a power cap, thermal limit or hardware slowdown (NVML clocks-event reasons)."),
      // The series holds the last XID code: `and` keeps the left-hand value
      // (the code) where it changed within 15 minutes. The codes below have
      // alerts of their own.
      rule("RooftopXidError", fmt::format("({0} > 0{1}) and (changes({0}[15m]) > 0)", m.xid, other_xids), "0m",
           "critical", "XID error on accelerator {{ $labels.gpu }} of {{ $labels." + m.host_label + " }}",
           "The driver reported XID {{ $value }} in the last 15 minutes: see NVIDIA's XID catalogue; the device may "
           "need a reset."),
      rule("RooftopExporterDown", "up{job=~\"rooftop.*\"} == 0", "2m", "critical",
           "rooftop monitor on {{ $labels.instance }} is down", "Prometheus cannot scrape the exporter."),
      rule("RooftopAcceleratorMemoryPressure", mem_ratio + " > 0.95", "10m", "warning",
           "Accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }} memory is over 95 % full",
           "Device memory is nearly exhausted: out-of-memory risk; lower the batch size or shard the model."),
      // Memory health: what decides that a GPU goes back for replacement.
      rule("RooftopRowRemapFailure", fmt::format("{} > 0", m.row_remap_failure), "0m", "critical",
           "Row remapping failed on " + where,
           "A device memory row could not be remapped: the bank has no spare rows left, and the GPU keeps hitting "
           "the failing memory. Drain the node's jobs from this GPU and replace it (RMA)."),
      rule("RooftopUncorrectableRemappedRows", fmt::format("{} > 0", m.remapped_rows_uncorrectable), "0m", "warning",
           "Rows remapped after uncorrectable errors on " + where,
           "{{ $value }} device memory row(s) were remapped after uncorrectable errors. A remap takes effect at the "
           "next GPU reset: drain and reset the GPU; if the count keeps rising or row remap failure is reported, "
           "replace it."),
      rule("RooftopEccDoubleBitErrors", fmt::format("{} > 0", m.ecc_dbe), "0m", "critical",
           "Double-bit ECC errors on " + where,
           "{{ $value }} uncorrectable (double-bit) ECC error(s) since the driver was loaded: applications on this "
           "GPU may have read corrupt data or been stopped. Drain the GPU and reset it (which clears the volatile "
           "count and remaps the rows); replace it if the errors return."),
      rule("RooftopThermalThrottling", any_bit(kThermalBits), "5m", "warning",
           "Thermal throttling on " + where + " for 5 minutes",
           "Clocks have been held down by a software or hardware thermal limit (NVML clocks-event reasons 0x20, 0x40) "
           "for 5 minutes: check fans, airflow, inlet temperature and the heat sink; the work runs slower until it "
           "cools."),
      rule("RooftopPowerThrottling", any_bit(kPowerBits), "5m", "warning",
           "Power throttling on " + where + " for 5 minutes",
           "Clocks have been held down by the power cap or the hardware power brake (NVML clocks-event reasons 0x4, "
           "0x80) for 5 minutes: check the power limit (`nvidia-smi -q -d POWER`), the PSU and the rack's power "
           "budget."),
  });
  for (const XidAlert& x : kXidAlerts) {
    rules.push_back(rule(x.alert, fmt::format("({0} == {1}) and (changes({0}[15m]) > 0)", m.xid, x.code), "0m",
                         x.severity, std::string(x.summary) + " on " + where, x.runbook));
  }
  Tree doc = Tree{{"groups", Tree::array({Tree{{"name", "rooftop-accelerators"}, {"rules", rules}}})}};
  return to_yaml(doc);
}

std::vector<RecordingRule> recording_rules(bool rooftop_names) {
  const MetricNames& m = metric_names(rooftop_names);
  std::string held;
  for (int b : kHeldDownBits) held += fmt::format("{}floor({} / {}) % 2", held.empty() ? "" : " + ", m.throttle_reasons, b);
  return {{kMemoryUsedRatioRule, fmt::format("{0} / ({0} + {1})", m.fb_used, m.fb_free)},
          {kClocksHeldDownRule, "clamp_max(" + held + ", 1)"}};
}

std::string recording_rules_yaml(const MonitorSpec& s) {
  Tree rules = Tree::array();
  for (const RecordingRule& r : recording_rules(s.rooftop_names)) rules.push_back(Tree{{"record", r.record}, {"expr", r.expr}});
  return to_yaml(Tree{{"groups", Tree::array({Tree{{"name", "rooftop-analyze"}, {"rules", rules}}})}});
}

Result<std::vector<File>> monitor_manifests(const MonitorSpec& s) {
  if (!is_dns_label(s.ns)) return make_error(Errc::invalid_input, "'" + s.ns + "' is not a valid namespace", "--namespace");
  if (s.port < 1 || s.port > 65535) return make_error(Errc::invalid_input, "port must be 1..65535", "--port");
  if (s.image.empty() || s.image.find_first_of(" \t\n") != std::string::npos)
    return make_error(Errc::invalid_input, "a container image is required", "--image");
  std::vector<Manifest> m;
  m.push_back({"serviceaccount.yaml", service_account(s)});
  std::vector<VendorNodes> groups = vendor_nodes(s);
  for (const VendorNodes& g : groups) {
    std::string file = groups.size() == 1 ? "daemonset.yaml" : "daemonset-" + g.vendor + ".yaml";
    m.push_back({file, daemonset(s, g, groups.size() == 1)});
  }
  m.push_back({"service.yaml", service(s)});
  m.push_back({"servicemonitor.yaml", service_monitor(s)});
  m.push_back({"podmonitor.yaml", pod_monitor(s)});
  std::vector<File> extra = {{"prometheus.yml", prometheus_config(s)},
                             {"alert-rules.yml", alert_rules(s)},
                             {"recording-rules.yml", recording_rules_yaml(s)},
                             {"grafana-dashboard.json", grafana_dashboard(s)}};
  Chart chart{"rooftop-monitor", "rooftop monitor on every accelerator node (written by rooftop deploy monitor)",
              {{"namespace", {"namespace", "matchNames"}, s.ns}, {"image", {"image"}, s.image}}};
  return write_manifests(m, extra, s.format, chart);
}

}  // namespace rooftop::deploy
