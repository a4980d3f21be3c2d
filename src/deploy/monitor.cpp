// Manifests to run `rooftop monitor` on every accelerator node, and the
// Prometheus configuration and alert rules that read what it exports.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "deploy/deploy.h"
#include "deploy/metric_names.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

const MetricNames& metric_names(bool rooftop_names) {
  static const MetricNames kDcgm{"DCGM_FI_DEV_GPU_UTIL", 100, "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED",
                                 "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
                                 "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                                 "DCGM_FI_DEV_XID_ERRORS", "Hostname"};
  static const MetricNames kRooftop{"rooftop_gpu_utilization_ratio", 1, "rooftop_gpu_memory_copy_utilization_ratio",
                                    "rooftop_gpu_memory_used_bytes", "rooftop_gpu_memory_free_bytes",
                                    "rooftop_gpu_temperature_celsius", "rooftop_gpu_power_watts",
                                    "rooftop_gpu_sm_clock_hertz", "rooftop_gpu_clock_event_reasons",
                                    "rooftop_gpu_last_xid", "Hostname"};
  return rooftop_names ? kRooftop : kDcgm;
}

namespace {

const char* kApp = "rooftop-monitor";

Tree meta(const MonitorSpec& s, const std::string& name) {
  return Tree{{"name", name},
              {"namespace", s.ns},
              {"labels", Tree{{"app.kubernetes.io/name", kApp}, {"app.kubernetes.io/part-of", "rooftop"}}}};
}

// Vendor library folders the exporter loads with dlopen, mounted read-only.
std::vector<std::string> vendor_paths(const MonitorSpec& s) {
  std::vector<std::string> paths;
  auto add = [&](const std::string& p) {
    for (const std::string& q : paths) {
      if (q == p) return;
    }
    paths.push_back(p);
  };
  if (s.accelerators.empty()) add("/usr/lib/x86_64-linux-gnu");
  for (const catalog::Accelerator* a : s.accelerators) {
    Result<DeviceResource> r = device_resource_for(*a);
    if (!r) continue;
    for (const std::string& p : r->host_paths) {
      if (p != "/dev") add(p);
    }
  }
  return paths;
}

Tree daemonset(const MonitorSpec& s) {
  Tree mounts = Tree::array({Tree{{"name", "proc"}, {"mountPath", "/host/proc"}, {"readOnly", true}},
                             Tree{{"name", "sys"}, {"mountPath", "/host/sys"}, {"readOnly", true}},
                             Tree{{"name", "state"}, {"mountPath", "/var/lib/rooftop"}}});
  Tree volumes = Tree::array({Tree{{"name", "proc"}, {"hostPath", Tree{{"path", "/proc"}}}},
                              Tree{{"name", "sys"}, {"hostPath", Tree{{"path", "/sys"}}}},
                              Tree{{"name", "state"}, {"hostPath", Tree{{"path", "/var/lib/rooftop"},
                                                                        {"type", "DirectoryOrCreate"}}}}});
  std::string ld_path;
  int i = 0;
  for (const std::string& p : vendor_paths(s)) {
    std::string name = "vendor" + std::to_string(i);
    std::string mount = "/host/vendor/" + std::to_string(i++);
    mounts.push_back(Tree{{"name", name}, {"mountPath", mount}, {"readOnly", true}});
    volumes.push_back(Tree{{"name", name}, {"hostPath", Tree{{"path", p}}}});
    ld_path += (ld_path.empty() ? "" : ":") + mount;
  }
  Tree args = Tree::array({"monitor", "--listen", fmt::format("0.0.0.0:{}", s.port), "--interval", s.interval,
                           "--db", "/var/lib/rooftop/history.db", "--retention", "7d", "--names",
                           s.rooftop_names ? "rooftop" : "dcgm", "--proc-root", "/host"});
  Tree c = Tree::object();
  c["name"] = "rooftop";
  c["image"] = s.image;
  c["args"] = args;
  c["env"] = Tree::array({Tree{{"name", "LD_LIBRARY_PATH"}, {"value", ld_path}},
                          Tree{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}},
                          Tree{{"name", "NVIDIA_DRIVER_CAPABILITIES"}, {"value", "utility"}},
                          Tree{{"name", "NODE_NAME"}, {"valueFrom", Tree{{"fieldRef", Tree{{"fieldPath", "spec.nodeName"}}}}}}});
  c["ports"] = Tree::array({Tree{{"name", "metrics"}, {"containerPort", s.port}, {"protocol", "TCP"}}});
  c["resources"] = Tree{{"requests", Tree{{"cpu", "20m"}, {"memory", "32Mi"}}},
                        {"limits", Tree{{"cpu", "200m"}, {"memory", "128Mi"}}}};
  c["readinessProbe"] = Tree{{"httpGet", Tree{{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 10}};
  c["livenessProbe"] = Tree{{"httpGet", Tree{{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 20},
                            {"failureThreshold", 3}};
  c["securityContext"] = Tree{{"readOnlyRootFilesystem", true}, {"allowPrivilegeEscalation", false},
                              {"capabilities", Tree{{"drop", Tree::array({"ALL"})}}}};
  c["volumeMounts"] = mounts;
  Tree pod_spec = Tree{{"serviceAccountName", kApp},
                       {"priorityClassName", "system-node-critical"},
                       {"tolerations", Tree::array({Tree{{"operator", "Exists"}}})},
                       {"containers", Tree::array({c})},
                       {"volumes", volumes}};
  Tree spec = Tree{{"selector", Tree{{"matchLabels", Tree{{"app.kubernetes.io/name", kApp}}}}},
                   {"updateStrategy", Tree{{"type", "RollingUpdate"}, {"rollingUpdate", Tree{{"maxUnavailable", 1}}}}},
                   {"template", Tree{{"metadata", Tree{{"labels", Tree{{"app.kubernetes.io/name", kApp}}}}},
                                     {"spec", pod_spec}}}};
  return Tree{{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"metadata", meta(s, kApp)}, {"spec", spec}};
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

Tree rule(const std::string& name, const std::string& expr, const std::string& for_, const std::string& severity,
          const std::string& summary, const std::string& description) {
  return Tree{{"alert", name},
              {"expr", expr},
              {"for", for_},
              {"labels", Tree{{"severity", severity}}},
              {"annotations", Tree{{"summary", summary}, {"description", description}}}};
}

}  // namespace

// Targets come from DNS: the exporter's headless Service has one A record per
// pod. (Debian's Prometheus is built without Kubernetes service discovery,
// so this form is also the one its promtool can check.)
std::string prometheus_config(const MonitorSpec& s) {
  Tree dns_job = Tree{{"job_name", "rooftop"},
                      {"scrape_interval", s.scrape_interval},
                      {"dns_sd_configs", Tree::array({Tree{{"names", Tree::array({fmt::format("{}.{}.svc.cluster.local", kApp, s.ns)})},
                                                           {"type", "A"},
                                                           {"port", s.port},
                                                           {"refresh_interval", "30s"}}})}};
  Tree local_job = Tree{{"job_name", "rooftop-local"},
                        {"scrape_interval", s.scrape_interval},
                        {"static_configs", Tree::array({Tree{{"targets", Tree::array({fmt::format("127.0.0.1:{}", s.port)})}}})}};
  Tree cfg = Tree{{"global", Tree{{"scrape_interval", s.scrape_interval}, {"evaluation_interval", "30s"}}},
                  {"rule_files", Tree::array({"alert-rules.yml"})},
                  {"scrape_configs", Tree::array({dns_job, local_job})}};
  return to_yaml(cfg);
}

std::string alert_rules(const MonitorSpec& s) {
  const MetricNames& m = metric_names(s.rooftop_names);
  std::string idle_threshold = fmt::format("{}", 0.05 * m.util_full_scale);
  // NVML clocks-event reason bits: 0x4 SW power cap, 0x8 HW slowdown,
  // 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake.
  auto bit = [&](int value) { return fmt::format("floor({} / {}) % 2 == 1", m.throttle_reasons, value); };
  std::string throttle = fmt::format("({}) or ({}) or ({}) or ({}) or ({})", bit(4), bit(8), bit(32), bit(64), bit(128));
  std::string mem_ratio = fmt::format("{0} / ({0} + {1})", m.fb_used, m.fb_free);
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
      rule("RooftopXidError", fmt::format("changes({}[15m]) > 0", m.xid), "0m", "critical",
           "XID error on accelerator {{ $labels.gpu }} of {{ $labels." + m.host_label + " }}",
           "The driver reported XID {{ $value }}: see NVIDIA's XID catalogue; the device may need a reset."),
      rule("RooftopExporterDown", "up{job=~\"rooftop.*\"} == 0", "2m", "critical",
           "rooftop monitor on {{ $labels.instance }} is down", "Prometheus cannot scrape the exporter."),
      rule("RooftopAcceleratorMemoryPressure", mem_ratio + " > 0.95", "10m", "warning",
           "Accelerator {{ $labels.gpu }} on {{ $labels." + m.host_label + " }} memory is over 95 % full",
           "Device memory is nearly exhausted: out-of-memory risk; lower the batch size or shard the model."),
  });
  Tree doc = Tree{{"groups", Tree::array({Tree{{"name", "rooftop-accelerators"}, {"rules", rules}}})}};
  return to_yaml(doc);
}

Result<std::vector<File>> monitor_manifests(const MonitorSpec& s) {
  if (!is_dns_label(s.ns)) return make_error(Errc::invalid_input, "'" + s.ns + "' is not a valid namespace", "--namespace");
  if (s.port < 1 || s.port > 65535) return make_error(Errc::invalid_input, "port must be 1..65535", "--port");
  if (s.image.empty() || s.image.find_first_of(" \t\n") != std::string::npos)
    return make_error(Errc::invalid_input, "a container image is required", "--image");
  std::vector<File> files;
  files.push_back({"serviceaccount.yaml", to_yaml(service_account(s))});
  files.push_back({"daemonset.yaml", to_yaml(daemonset(s))});
  files.push_back({"service.yaml", to_yaml(service(s))});
  files.push_back({"prometheus.yml", prometheus_config(s)});
  files.push_back({"alert-rules.yml", alert_rules(s)});
  files.push_back({"grafana-dashboard.json", grafana_dashboard(s)});
  return files;
}

}  // namespace rooftop::deploy
