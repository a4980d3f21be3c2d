// Exposition: a Snapshot as Prometheus text format 0.0.4.
//
// Two name sets for the device series (docs/monitor.md lists them all):
// `dcgm` keeps dcgm-exporter's names, units (%, MiB, mJ, MHz) and labels
// (gpu, UUID, pci_bus_id, device, modelName, Hostname) so existing Grafana
// dashboards work; `rooftop` uses rooftop_* names in base units (ratios,
// bytes, joules, hertz) with the identity in a rooftop_gpu_info join metric,
// and passes `promtool check metrics` clean. Host, exporter, clock-event and
// process series are rooftop_* in both; a device series carries the device
// labels of the name set in use, so one label is spelt one way per set. A value the device did not report is left out, never a sentinel.
// Each family is one uninterrupted group with HELP and TYPE first.
#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "telemetry/metrics.h"

namespace rooftop::telemetry {
namespace {

// NVML clock-event reason bits (nvml.h) and their label values.
const std::pair<std::uint64_t, const char*> kReasons[] = {
    {0x1, "gpu_idle"}, {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"}, {0x10, "sync_boost"}, {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"}};

using Out = std::back_insert_iterator<std::string>;

void escape(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

void value(std::string& out, double v) { fmt::format_to(Out(out), " {}\n", v); }

// v * scale, dividing for fractional scales so 95 % prints as 0.95, not 0.9500000000000001.
double scaled(double v, double scale) { return scale < 1 ? v / std::round(1 / scale) : v * scale; }

void header(std::string& out, std::string_view name, std::string_view help, bool counter) {
  fmt::format_to(Out(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, counter ? "counter" : "gauge");
}

// ,key="escaped value"
void label(std::string& out, std::string_view key, std::string_view v) {
  fmt::format_to(Out(out), ",{}=\"", key);
  escape(out, v);
  out += '"';
}

// The pod holding the device (Kubernetes), as dcgm-exporter labels it.
void pod_labels(std::string& out, const PodRef& p) {
  if (p.pod.empty()) return;
  label(out, "pod", p.pod);
  label(out, "namespace", p.ns);
  label(out, "container", p.container);
}

void gpu_labels(std::string& out, const DeviceInfo& d, Names names) {
  fmt::format_to(Out(out), "{{gpu=\"{}\"", d.index);
  const bool mig = d.gpu_instance >= 0;
  if (names == Names::dcgm) {
    // dcgm-exporter: a MIG instance carries its parent's UUID and GPU_I_*.
    label(out, "UUID", mig ? d.parent_uuid : d.uuid);
    label(out, "pci_bus_id", d.pci_bus_id);
    label(out, "device", d.device);
    label(out, "modelName", d.model);
    if (mig) {
      label(out, "GPU_I_PROFILE", d.mig_profile);
      label(out, "GPU_I_ID", std::to_string(d.gpu_instance));
    }
    label(out, host_label(names), d.host);
  } else {
    label(out, "uuid", d.uuid);
    if (mig) {
      label(out, "gpu_instance", std::to_string(d.gpu_instance));
      label(out, "mig_profile", d.mig_profile);
    }
  }
}

void gpu_labels(std::string& out, const DeviceReading& r, Names names) {
  gpu_labels(out, r.info, names);
  pod_labels(out, r.sample.pod);
}

void render_gpus(std::string& out, const Snapshot& snap, Names names, const RenderOptions& opts) {
  const bool dcgm = names == Names::dcgm;
  for (const DeviceMetric& m : kDeviceMetrics) {
    bool any = false;
    for (const DeviceReading& r : snap.devices) {
      const std::optional<double> v = metric_value(m, r);
      if (!v) continue;
      const std::string_view name = metric_name(m, names);
      if (!any) header(out, name, dcgm ? m.dcgm_help : m.help, m.type == MetricType::counter);
      any = true;
      out += name;
      gpu_labels(out, r, names);
      out += '}';
      value(out, scaled(*v, dcgm ? m.dcgm_scale : m.scale));
    }
  }
  bool any = false;
  for (const DeviceReading& r : snap.devices) {
    if (!r.sample.throttle_reasons) continue;
    if (!any) header(out, kClockEventActive, "1 when the clock event (throttle) reason is active.", false);
    any = true;
    for (const auto& [bit, reason] : kReasons) {
      out += kClockEventActive;
      gpu_labels(out, r, names);  // one spelling per label within a name set
      fmt::format_to(Out(out), ",reason=\"{}\"}}", reason);
      value(out, (*r.sample.throttle_reasons & bit) ? 1 : 0);
    }
  }
  any = false;
  for (const DeviceReading& r : snap.devices) {
    if (!opts.processes) break;
    for (const ProcessSample& p : r.sample.processes) {
      if (!p.gpu_mem_used_bytes) continue;
      if (!any) header(out, kProcessMemoryUsed, "Device memory used by one process.", false);
      any = true;
      out += kProcessMemoryUsed;
      gpu_labels(out, r, names);
      fmt::format_to(Out(out), ",pid=\"{}\",command=\"", p.pid);
      escape(out, p.command);
      out += "\"}";
      value(out, *p.gpu_mem_used_bytes);
    }
  }
  if (names == Names::rooftop && !snap.devices.empty()) {
    header(out, kGpuInfo, "Identity of each device; join on gpu and uuid. Value is always 1.", false);
    for (const DeviceReading& r : snap.devices) {
      out += kGpuInfo;
      gpu_labels(out, r.info, Names::rooftop);
      const std::pair<const char*, const std::string*> labels[] = {
          {"model_name", &r.info.model}, {"device", &r.info.device}, {"pci_bus_id", &r.info.pci_bus_id},
          {"driver_version", &r.info.driver_version}, {"backend", &r.info.backend},
          {"parent_uuid", &r.info.parent_uuid}};
      for (const auto& [k, v] : labels) label(out, k, *v);
      out += "} 1\n";
    }
  }
}

void scalar(std::string& out, std::string_view name, std::string_view help, bool counter,
            const std::optional<double>& v, double scale = 1) {
  if (!v) return;
  header(out, name, help, counter);
  out += name;
  value(out, scaled(*v, scale));
}

void render_host(std::string& out, const HostSample& h) {
  for (const HostMetric& m : kHostMetrics) {
    scalar(out, m.name, m.help, m.type == MetricType::counter, h.*m.field, m.scale);
    if (m.field == &HostSample::cpu_iowait_pct && !h.core_busy_pct.empty()) {
      header(out, kHostCoreUtilization, "Fraction of time one logical CPU was busy.", false);
      for (std::size_t i = 0; i < h.core_busy_pct.size(); ++i) {
        fmt::format_to(Out(out), "{}{{cpu=\"{}\"}}", kHostCoreUtilization, i);
        value(out, scaled(h.core_busy_pct[i], 0.01));
      }
    }
  }
}

}  // namespace

Result<Names> parse_names(std::string_view text) {
  if (auto n = enum_parse(kNameSets, text)) return *n;
  return make_error(Errc::invalid_input,
                    "unknown name set '" + std::string(text) + "' (use " + enum_choices(kNameSets) + ")", "--names");
}

std::string render_metrics(const Snapshot& snap, Names names, const RenderOptions& opts) {
  std::string out;
  out.reserve(2048 + snap.devices.size() * 4096);
  render_gpus(out, snap, names, opts);
  if (snap.host) render_host(out, *snap.host);
  scalar(out, "rooftop_exporter_last_collect_timestamp_seconds", "Unix time of the sampling round served.", false,
         snap.time_s);
  scalar(out, "rooftop_exporter_collect_duration_seconds", "Time the sampling round took.", false,
         snap.collect_duration_s);
  scalar(out, "rooftop_exporter_devices", "Devices the exporter samples.", false,
         static_cast<double>(snap.devices.size()));
  return out;
}

}  // namespace rooftop::telemetry
