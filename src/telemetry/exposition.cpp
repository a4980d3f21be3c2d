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

#include "telemetry/telemetry.h"

namespace rooftop::telemetry {
namespace {

using Getter = std::optional<double> (*)(const DeviceReading&);

struct GpuMetric {
  const char* dcgm_name;
  const char* dcgm_help;
  double dcgm_scale;  // our unit -> dcgm unit
  const char* name;   // rooftop name
  const char* help;
  double scale;       // our unit -> base unit
  bool counter;
  Getter get;
};

std::optional<double> u64(const std::optional<std::uint64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

std::optional<double> mem_total(const DeviceReading& r) {
  if (r.sample.fb_used_bytes && r.sample.fb_free_bytes) return *r.sample.fb_used_bytes + *r.sample.fb_free_bytes;
  return r.info.mem_total_bytes;
}

constexpr double kMiB = 1.0 / 1048576.0;
const GpuMetric kGpuMetrics[] = {
    {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", 1, "rooftop_gpu_utilization_ratio",
     "Fraction of the sample period during which a kernel was running (NVML gpu utilization).", 0.01, false,
     [](const DeviceReading& r) { return r.sample.gpu_util_pct; }},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", 1, "rooftop_gpu_memory_copy_utilization_ratio",
     "Fraction of the sample period during which device memory was read or written.", 0.01, false,
     [](const DeviceReading& r) { return r.sample.mem_copy_util_pct; }},
    {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", kMiB, "rooftop_gpu_memory_used_bytes",
     "Device memory in use, excluding driver-reserved memory.", 1, false,
     [](const DeviceReading& r) { return r.sample.fb_used_bytes; }},
    {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", kMiB, "rooftop_gpu_memory_free_bytes",
     "Device memory free.", 1, false, [](const DeviceReading& r) { return r.sample.fb_free_bytes; }},
    {"DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB).", kMiB, "rooftop_gpu_memory_total_bytes",
     "Device memory usable by applications (used + free).", 1, false, mem_total},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", 1, "rooftop_gpu_temperature_celsius",
     "GPU die temperature.", 1, false, [](const DeviceReading& r) { return r.sample.temp_c; }},
    {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", 1, "rooftop_gpu_power_watts", "Board power draw.", 1, false,
     [](const DeviceReading& r) { return r.sample.power_w; }},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", "Power management limit (in W).", 1, "rooftop_gpu_power_limit_watts",
     "Enforced board power limit.", 1, false, [](const DeviceReading& r) { return r.info.power_limit_w; }},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ).", 1000,
     "rooftop_gpu_energy_joules_total", "Energy consumed since the driver was loaded.", 1, true,
     [](const DeviceReading& r) { return r.sample.energy_j; }},
    {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", 1, "rooftop_gpu_sm_clock_hertz",
     "Current SM clock.", 1e6, false, [](const DeviceReading& r) { return r.sample.sm_clock_mhz; }},
    {"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", 1, "rooftop_gpu_memory_clock_hertz",
     "Current memory clock.", 1e6, false, [](const DeviceReading& r) { return r.sample.mem_clock_mhz; }},
    {"DCGM_FI_DEV_MAX_SM_CLOCK", "Maximum SM clock frequency (in MHz).", 1, "rooftop_gpu_sm_clock_max_hertz",
     "Maximum SM clock.", 1e6, false, [](const DeviceReading& r) { return r.info.sm_clock_max_mhz; }},
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "Current clock throttle reasons (bit mask of NVML clock event reasons).",
     1, "rooftop_gpu_clock_event_reasons", "Bit mask of NVML clock event (throttle) reasons; see rooftop_gpu_clock_event_active.",
     1, false, [](const DeviceReading& r) { return u64(r.sample.throttle_reasons); }},
    {"DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.", 1, "rooftop_gpu_last_xid",
     "Code of the last XID error seen since the exporter started (0 = none).", 1, false,
     [](const DeviceReading& r) {
       return r.sample.xid_last ? std::optional<double>(static_cast<double>(*r.sample.xid_last)) : std::nullopt;
     }},
    {"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "PCIe Tx utilization (in KB/s).", 1e-3,
     "rooftop_gpu_pcie_transmit_bytes_per_second", "PCIe transmit throughput over the last 20 ms window.", 1, false,
     [](const DeviceReading& r) { return r.sample.pcie_tx_bytes_per_s; }},
    {"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "PCIe Rx utilization (in KB/s).", 1e-3,
     "rooftop_gpu_pcie_receive_bytes_per_second", "PCIe receive throughput over the last 20 ms window.", 1, false,
     [](const DeviceReading& r) { return r.sample.pcie_rx_bytes_per_s; }},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.", 1,
     "rooftop_gpu_ecc_uncorrected_errors_total", "Uncorrected (double-bit) ECC errors since the driver was loaded.",
     1, true, [](const DeviceReading& r) { return r.sample.ecc_uncorrected_total; }},
};

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

void gpu_labels(std::string& out, const DeviceInfo& d, Names names) {
  if (names == Names::dcgm) {
    fmt::format_to(Out(out), "{{gpu=\"{}\",UUID=\"", d.index);
    escape(out, d.uuid);
    out += "\",pci_bus_id=\"";
    escape(out, d.pci_bus_id);
    out += "\",device=\"";
    escape(out, d.device);
    out += "\",modelName=\"";
    escape(out, d.model);
    out += "\",Hostname=\"";
    escape(out, d.host);
    out += "\"";
  } else {
    fmt::format_to(Out(out), "{{gpu=\"{}\",uuid=\"", d.index);
    escape(out, d.uuid);
    out += "\"";
  }
}

void render_gpus(std::string& out, const Snapshot& snap, Names names) {
  for (const GpuMetric& m : kGpuMetrics) {
    bool any = false;
    for (const DeviceReading& r : snap.devices) {
      const std::optional<double> v = m.get(r);
      if (!v) continue;
      const bool dcgm = names == Names::dcgm;
      if (!any) header(out, dcgm ? m.dcgm_name : m.name, dcgm ? m.dcgm_help : m.help, m.counter);
      any = true;
      out += dcgm ? m.dcgm_name : m.name;
      gpu_labels(out, r.info, names);
      out += '}';
      value(out, scaled(*v, dcgm ? m.dcgm_scale : m.scale));
    }
  }
  bool any = false;
  for (const DeviceReading& r : snap.devices) {
    if (!r.sample.throttle_reasons) continue;
    if (!any) header(out, "rooftop_gpu_clock_event_active", "1 when the clock event (throttle) reason is active.", false);
    any = true;
    for (const auto& [bit, reason] : kReasons) {
      out += "rooftop_gpu_clock_event_active";
      gpu_labels(out, r.info, names);  // one spelling per label within a name set
      fmt::format_to(Out(out), ",reason=\"{}\"}}", reason);
      value(out, (*r.sample.throttle_reasons & bit) ? 1 : 0);
    }
  }
  any = false;
  for (const DeviceReading& r : snap.devices) {
    for (const ProcessSample& p : r.sample.processes) {
      if (!p.gpu_mem_used_bytes) continue;
      if (!any) header(out, "rooftop_gpu_process_memory_used_bytes", "Device memory used by one process.", false);
      any = true;
      out += "rooftop_gpu_process_memory_used_bytes";
      gpu_labels(out, r.info, names);
      fmt::format_to(Out(out), ",pid=\"{}\"}}", p.pid);
      value(out, *p.gpu_mem_used_bytes);
    }
  }
  if (names == Names::rooftop && !snap.devices.empty()) {
    header(out, "rooftop_gpu_info", "Identity of each device; join on gpu and uuid. Value is always 1.", false);
    for (const DeviceReading& r : snap.devices) {
      fmt::format_to(Out(out), "rooftop_gpu_info{{gpu=\"{}\",uuid=\"", r.info.index);
      escape(out, r.info.uuid);
      const std::pair<const char*, const std::string*> labels[] = {
          {"model_name", &r.info.model}, {"device", &r.info.device}, {"pci_bus_id", &r.info.pci_bus_id},
          {"driver_version", &r.info.driver_version}, {"backend", &r.info.backend}};
      for (const auto& [k, v] : labels) {
        fmt::format_to(Out(out), "\",{}=\"", k);
        escape(out, *v);
      }
      out += "\"} 1\n";
    }
  }
}

void scalar(std::string& out, const char* name, const char* help, bool counter, const std::optional<double>& v,
            double scale = 1) {
  if (!v) return;
  header(out, name, help, counter);
  out += name;
  value(out, scaled(*v, scale));
}

void render_host(std::string& out, const HostSample& h) {
  scalar(out, "rooftop_host_cpu_utilization_ratio", "Fraction of CPU time not idle or iowait, all CPUs.", false,
         h.cpu_busy_pct, 0.01);
  scalar(out, "rooftop_host_cpu_iowait_ratio", "Fraction of CPU time waiting for IO, all CPUs.", false,
         h.cpu_iowait_pct, 0.01);
  if (!h.core_busy_pct.empty()) {
    header(out, "rooftop_host_cpu_core_utilization_ratio", "Fraction of time one logical CPU was busy.", false);
    for (std::size_t i = 0; i < h.core_busy_pct.size(); ++i) {
      fmt::format_to(Out(out), "rooftop_host_cpu_core_utilization_ratio{{cpu=\"{}\"}}", i);
      value(out, scaled(h.core_busy_pct[i], 0.01));
    }
  }
  scalar(out, "rooftop_host_memory_total_bytes", "Host memory total.", false, h.mem_total_bytes);
  scalar(out, "rooftop_host_memory_available_bytes", "Host memory available (MemAvailable).", false,
         h.mem_available_bytes);
  scalar(out, "rooftop_host_load1", "1-minute load average.", false, h.load1);
  scalar(out, "rooftop_host_load5", "5-minute load average.", false, h.load5);
  scalar(out, "rooftop_host_load15", "15-minute load average.", false, h.load15);
  scalar(out, "rooftop_host_disk_read_bytes_total", "Bytes read from physical disks.", true, h.disk_read_bytes_total);
  scalar(out, "rooftop_host_disk_written_bytes_total", "Bytes written to physical disks.", true,
         h.disk_written_bytes_total);
  scalar(out, "rooftop_host_network_receive_bytes_total", "Bytes received on non-loopback interfaces.", true,
         h.net_rx_bytes_total);
  scalar(out, "rooftop_host_network_transmit_bytes_total", "Bytes sent on non-loopback interfaces.", true,
         h.net_tx_bytes_total);
}

}  // namespace

Result<Names> parse_names(std::string_view text) {
  if (text == "dcgm") return Names::dcgm;
  if (text == "rooftop") return Names::rooftop;
  return make_error(Errc::invalid_input, "unknown name set '" + std::string(text) + "' (use dcgm or rooftop)",
                    "--names");
}

std::string render_metrics(const Snapshot& snap, Names names) {
  std::string out;
  out.reserve(2048 + snap.devices.size() * 4096);
  render_gpus(out, snap, names);
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
