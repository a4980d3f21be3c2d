// The one table of what telemetry measures. Each row names one value of a
// device or host sample and everything every consumer needs to know about
// it: the field (a member pointer into the sample), its unit, its DCGM
// (dcgm-exporter) name, scale and type, its rooftop name and scale, the help
// text, and whether the history store keeps it and how downsampling folds a
// bucket of rows. Exposition (/metrics), the store's schema, the trace CSV,
// `rooftop top --json` and deploy's alert rules and dashboard all read the
// names from here; nothing else spells a metric name.
//
// A field added to DeviceSample or HostSample without a row here fails to
// compile (the static_asserts at the end count the structs' fields).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "telemetry/telemetry.h"

namespace rooftop::telemetry {

enum class MetricType { gauge, counter };
// How the store folds the raw rows of one downsampling bucket.
enum class Fold {
  avg,     // levels (utilisation, memory, temperature, power, clocks)
  max,     // counters and last-seen codes
  bit_or,  // bit masks: a reason set in any row of the bucket stays set
};

// Where one device value lives; exactly one member is set.
struct DeviceField {
  std::optional<double> DeviceSample::*real = nullptr;
  std::optional<std::uint64_t> DeviceSample::*mask = nullptr;  // stored as INTEGER, traced as 0x...
  std::optional<std::int64_t> DeviceSample::*code = nullptr;   // stored as INTEGER
  std::optional<double> DeviceInfo::*info = nullptr;           // a static fact read at open
  std::optional<double> (*derived)(const DeviceReading&) = nullptr;

  constexpr bool in_sample() const { return real || mask || code; }
};
constexpr DeviceField sample_field(std::optional<double> DeviceSample::*m) { return {m, nullptr, nullptr, nullptr, nullptr}; }
constexpr DeviceField sample_field(std::optional<std::uint64_t> DeviceSample::*m) {
  return {nullptr, m, nullptr, nullptr, nullptr};
}
constexpr DeviceField sample_field(std::optional<std::int64_t> DeviceSample::*m) {
  return {nullptr, nullptr, m, nullptr, nullptr};
}
constexpr DeviceField info_field(std::optional<double> DeviceInfo::*m) { return {nullptr, nullptr, nullptr, m, nullptr}; }

// Device memory usable by applications: used + free, else the total read at open.
inline std::optional<double> memory_total(const DeviceReading& r) {
  if (r.sample.fb_used_bytes && r.sample.fb_free_bytes) return *r.sample.fb_used_bytes + *r.sample.fb_free_bytes;
  return r.info.mem_total_bytes;
}

struct DeviceMetric {
  std::string_view column;  // store column, trace column and `top --json` key
  DeviceField field;
  std::string_view unit;  // the sample's unit
  std::string_view dcgm_name;
  double dcgm_scale;  // sample unit -> dcgm-exporter's unit
  std::string_view dcgm_help;
  std::string_view name;  // rooftop name
  double scale;           // sample unit -> base unit
  std::string_view help;
  MetricType type;
  bool stored;  // a column of the store's samples table
  Fold fold;
  double trace_max;  // a trace column accepting 0..trace_max; 0 = not a trace column
};

constexpr double kMiB = 1.0 / 1048576.0;
constexpr double kAnyValue = 1e300;

// In exposition order; stored and traced rows keep the store's column and
// the trace's column order.
inline constexpr DeviceMetric kDeviceMetrics[] = {
    {"gpu_util_pct", sample_field(&DeviceSample::gpu_util_pct), "%", "DCGM_FI_DEV_GPU_UTIL", 1,
     "GPU utilization (in %).", "rooftop_gpu_utilization_ratio", 0.01,
     "Fraction of the sample period during which a kernel was running (NVML gpu utilization).", MetricType::gauge,
     true, Fold::avg, 100},
    {"mem_copy_util_pct", sample_field(&DeviceSample::mem_copy_util_pct), "%", "DCGM_FI_DEV_MEM_COPY_UTIL", 1,
     "Memory utilization (in %).", "rooftop_gpu_memory_copy_utilization_ratio", 0.01,
     "Fraction of the sample period during which device memory was read or written.", MetricType::gauge, true,
     Fold::avg, 100},
    {"fb_used_bytes", sample_field(&DeviceSample::fb_used_bytes), "bytes", "DCGM_FI_DEV_FB_USED", kMiB,
     "Framebuffer memory used (in MiB).", "rooftop_gpu_memory_used_bytes", 1,
     "Device memory in use, excluding driver-reserved memory.", MetricType::gauge, true, Fold::avg, kAnyValue},
    {"fb_free_bytes", sample_field(&DeviceSample::fb_free_bytes), "bytes", "DCGM_FI_DEV_FB_FREE", kMiB,
     "Framebuffer memory free (in MiB).", "rooftop_gpu_memory_free_bytes", 1, "Device memory free.",
     MetricType::gauge, true, Fold::avg, kAnyValue},
    {"fb_reserved_bytes", sample_field(&DeviceSample::fb_reserved_bytes), "bytes", "DCGM_FI_DEV_FB_RESERVED", kMiB,
     "Framebuffer memory reserved (in MiB).", "rooftop_gpu_memory_reserved_bytes", 1,
     "Device memory the driver reserves (not usable by applications).", MetricType::gauge, false, Fold::avg, 0},
    {"fb_total_bytes", {nullptr, nullptr, nullptr, nullptr, memory_total}, "bytes", "DCGM_FI_DEV_FB_TOTAL", kMiB,
     "Framebuffer memory total (in MiB).", "rooftop_gpu_memory_total_bytes", 1,
     "Device memory usable by applications (used + free).", MetricType::gauge, false, Fold::avg, 0},
    {"temp_c", sample_field(&DeviceSample::temp_c), "celsius", "DCGM_FI_DEV_GPU_TEMP", 1, "GPU temperature (in C).",
     "rooftop_gpu_temperature_celsius", 1, "GPU die temperature.", MetricType::gauge, true, Fold::avg, 200},
    {"power_w", sample_field(&DeviceSample::power_w), "watts", "DCGM_FI_DEV_POWER_USAGE", 1, "Power draw (in W).",
     "rooftop_gpu_power_watts", 1, "Board power draw.", MetricType::gauge, true, Fold::avg, 1e5},
    {"power_limit_w", info_field(&DeviceInfo::power_limit_w), "watts", "DCGM_FI_DEV_POWER_MGMT_LIMIT", 1,
     "Power management limit (in W).", "rooftop_gpu_power_limit_watts", 1, "Enforced board power limit.",
     MetricType::gauge, false, Fold::avg, 0},
    {"energy_j", sample_field(&DeviceSample::energy_j), "joules", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 1000,
     "Total energy consumption since boot (in mJ).", "rooftop_gpu_energy_joules_total", 1,
     "Energy consumed since the driver was loaded.", MetricType::counter, true, Fold::max, kAnyValue},
    {"sm_clock_mhz", sample_field(&DeviceSample::sm_clock_mhz), "MHz", "DCGM_FI_DEV_SM_CLOCK", 1,
     "SM clock frequency (in MHz).", "rooftop_gpu_sm_clock_hertz", 1e6, "Current SM clock.", MetricType::gauge, true,
     Fold::avg, 1e5},
    {"mem_clock_mhz", sample_field(&DeviceSample::mem_clock_mhz), "MHz", "DCGM_FI_DEV_MEM_CLOCK", 1,
     "Memory clock frequency (in MHz).", "rooftop_gpu_memory_clock_hertz", 1e6, "Current memory clock.",
     MetricType::gauge, true, Fold::avg, 1e5},
    {"sm_clock_max_mhz", info_field(&DeviceInfo::sm_clock_max_mhz), "MHz", "DCGM_FI_DEV_MAX_SM_CLOCK", 1,
     "Maximum SM clock frequency (in MHz).", "rooftop_gpu_sm_clock_max_hertz", 1e6, "Maximum SM clock.",
     MetricType::gauge, false, Fold::avg, 0},
    {"throttle_reasons", sample_field(&DeviceSample::throttle_reasons), "bit mask",
     "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 1, "Current clock throttle reasons (bit mask of NVML clock event reasons).",
     "rooftop_gpu_clock_event_reasons", 1,
     "Bit mask of NVML clock event (throttle) reasons; see rooftop_gpu_clock_event_active.", MetricType::gauge, true,
     Fold::bit_or, kAnyValue},
    {"xid", sample_field(&DeviceSample::xid_last), "code", "DCGM_FI_DEV_XID_ERRORS", 1,
     "Value of the last XID error encountered.", "rooftop_gpu_last_xid", 1,
     "Code of the last XID error seen since the exporter started (0 = none).", MetricType::gauge, true, Fold::max,
     kAnyValue},
    {"pcie_tx_bytes_per_s", sample_field(&DeviceSample::pcie_tx_bytes_per_s), "bytes/s",
     "DCGM_FI_DEV_PCIE_TX_THROUGHPUT", 1e-3, "PCIe Tx utilization (in KB/s).",
     "rooftop_gpu_pcie_transmit_bytes_per_second", 1, "PCIe transmit throughput over the last 20 ms window.",
     MetricType::gauge, true, Fold::avg, 0},
    {"pcie_rx_bytes_per_s", sample_field(&DeviceSample::pcie_rx_bytes_per_s), "bytes/s",
     "DCGM_FI_DEV_PCIE_RX_THROUGHPUT", 1e-3, "PCIe Rx utilization (in KB/s).",
     "rooftop_gpu_pcie_receive_bytes_per_second", 1, "PCIe receive throughput over the last 20 ms window.",
     MetricType::gauge, true, Fold::avg, 0},
    {"ecc_uncorrected_total", sample_field(&DeviceSample::ecc_uncorrected_total), "errors",
     "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, "Total number of double-bit volatile ECC errors.",
     "rooftop_gpu_ecc_uncorrected_errors_total", 1, "Uncorrected (double-bit) ECC errors since the driver was loaded.",
     MetricType::counter, true, Fold::max, 0},
    // Profiling metrics (DCGM_FI_PROF_*: ratios and bytes/s in DCGM, as
    // NVIDIA's dashboard 12239 reads them). Not stored and not traced yet:
    // the history and trace formats keep their columns.
    {"gr_engine_active_pct", sample_field(&DeviceSample::gr_engine_active_pct), "%", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
     0.01, "Ratio of time the graphics engine is active.", "rooftop_gpu_graphics_engine_active_ratio", 0.01,
     "Fraction of the last interval the graphics/compute engine was active (NVML GPM).", MetricType::gauge, false,
     Fold::avg, 0},
    {"sm_active_pct", sample_field(&DeviceSample::sm_active_pct), "%", "DCGM_FI_PROF_SM_ACTIVE", 0.01,
     "The ratio of cycles an SM has at least 1 warp assigned.", "rooftop_gpu_sm_active_ratio", 0.01,
     "Fraction of SM cycles with at least one warp resident, over the last interval (NVML GPM).",
     MetricType::gauge, false, Fold::avg, 0},
    {"sm_occupancy_pct", sample_field(&DeviceSample::sm_occupancy_pct), "%", "DCGM_FI_PROF_SM_OCCUPANCY", 0.01,
     "The ratio of number of warps resident on an SM.", "rooftop_gpu_sm_occupancy_ratio", 0.01,
     "Resident warps over the maximum an SM holds, over the last interval (NVML GPM).", MetricType::gauge, false,
     Fold::avg, 0},
    {"tensor_active_pct", sample_field(&DeviceSample::tensor_active_pct), "%", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 0.01,
     "Ratio of cycles the tensor (HMMA) pipe is active.", "rooftop_gpu_tensor_active_ratio", 0.01,
     "Fraction of cycles any tensor pipe was active, over the last interval (NVML GPM).", MetricType::gauge, false,
     Fold::avg, 0},
    {"dram_active_pct", sample_field(&DeviceSample::dram_active_pct), "%", "DCGM_FI_PROF_DRAM_ACTIVE", 0.01,
     "Ratio of cycles the device memory interface is active sending or receiving data.",
     "rooftop_gpu_dram_active_ratio", 0.01,
     "DRAM bandwidth used over its peak, over the last interval (NVML GPM).", MetricType::gauge, false, Fold::avg,
     0},
    {"nvlink_tx_bytes_per_s", sample_field(&DeviceSample::nvlink_tx_bytes_per_s), "bytes/s",
     "DCGM_FI_PROF_NVLINK_TX_BYTES", 1, "The rate of data transmitted over NVLink, not including protocol headers, "
     "in bytes per second.", "rooftop_gpu_nvlink_transmit_bytes_per_second", 1,
     "NVLink bytes sent per second over all links, averaged over the last interval (NVML GPM).", MetricType::gauge,
     false, Fold::avg, 0},
    {"nvlink_rx_bytes_per_s", sample_field(&DeviceSample::nvlink_rx_bytes_per_s), "bytes/s",
     "DCGM_FI_PROF_NVLINK_RX_BYTES", 1, "The rate of data received over NVLink, not including protocol headers, "
     "in bytes per second.", "rooftop_gpu_nvlink_receive_bytes_per_second", 1,
     "NVLink bytes received per second over all links, averaged over the last interval (NVML GPM).",
     MetricType::gauge, false, Fold::avg, 0},
    // The rest of dcgm-exporter's default counters (etc/default-counters.csv,
    // help texts as it writes them). Not stored and not traced: the history
    // and trace formats keep their columns.
    {"mem_temp_c", sample_field(&DeviceSample::mem_temp_c), "celsius", "DCGM_FI_DEV_MEMORY_TEMP", 1,
     "Memory temperature (in C).", "rooftop_gpu_memory_temperature_celsius", 1,
     "Device memory (HBM) temperature; absent on parts without a memory sensor.", MetricType::gauge, false,
     Fold::avg, 0},
    {"pcie_replay_total", sample_field(&DeviceSample::pcie_replay_total), "replays",
     "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 1, "Total number of PCIe retries.", "rooftop_gpu_pcie_replays_total", 1,
     "PCIe link replays (retransmissions) since the driver was loaded.", MetricType::counter, false, Fold::max, 0},
    {"enc_util_pct", sample_field(&DeviceSample::enc_util_pct), "%", "DCGM_FI_DEV_ENC_UTIL", 1,
     "Encoder utilization (in %).", "rooftop_gpu_encoder_utilization_ratio", 0.01,
     "Fraction of the sampling period the video encoder was busy.", MetricType::gauge, false, Fold::avg, 0},
    {"dec_util_pct", sample_field(&DeviceSample::dec_util_pct), "%", "DCGM_FI_DEV_DEC_UTIL", 1,
     "Decoder utilization (in %).", "rooftop_gpu_decoder_utilization_ratio", 0.01,
     "Fraction of the sampling period the video decoder was busy.", MetricType::gauge, false, Fold::avg, 0},
    {"nvlink_data_bytes_total", sample_field(&DeviceSample::nvlink_data_bytes_total), "bytes",
     "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", 1.0 / 1024, "Total number of NVLink bandwidth counters for all lanes",
     "rooftop_gpu_nvlink_data_bytes_total", 1,
     "NVLink payload bytes sent and received over all links since the driver was loaded (NVML data throughput "
     "counters).", MetricType::counter, false, Fold::max, 0},
    {"remapped_rows_correctable", sample_field(&DeviceSample::remapped_rows_correctable), "rows",
     "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 1, "Number of remapped rows for correctable errors",
     "rooftop_gpu_remapped_rows_correctable_total", 1,
     "Device memory rows remapped to spares after correctable errors.", MetricType::counter, false, Fold::max, 0},
    {"remapped_rows_uncorrectable", sample_field(&DeviceSample::remapped_rows_uncorrectable), "rows",
     "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 1, "Number of remapped rows for uncorrectable errors",
     "rooftop_gpu_remapped_rows_uncorrectable_total", 1,
     "Device memory rows remapped to spares after uncorrectable errors.", MetricType::counter, false, Fold::max,
     0},
    {"row_remap_failure", sample_field(&DeviceSample::row_remap_failure), "flag", "DCGM_FI_DEV_ROW_REMAP_FAILURE", 1,
     "Whether remapping of rows has failed", "rooftop_gpu_row_remap_failure", 1,
     "1 when a memory row could not be remapped (no spare left): the device needs replacing.", MetricType::gauge,
     false, Fold::max, 0},
};

struct HostMetric {
  std::string_view column;  // store column, `top --json` key
  std::optional<double> HostSample::*field;
  std::string_view unit;
  std::string_view name;  // rooftop name (host series have no DCGM name)
  double scale;
  std::string_view help;
  MetricType type;
  Fold fold;
};

inline constexpr HostMetric kHostMetrics[] = {
    {"cpu_busy_pct", &HostSample::cpu_busy_pct, "%", "rooftop_host_cpu_utilization_ratio", 0.01,
     "Fraction of CPU time not idle or iowait, all CPUs.", MetricType::gauge, Fold::avg},
    {"cpu_iowait_pct", &HostSample::cpu_iowait_pct, "%", "rooftop_host_cpu_iowait_ratio", 0.01,
     "Fraction of CPU time waiting for IO, all CPUs.", MetricType::gauge, Fold::avg},
    {"mem_total_bytes", &HostSample::mem_total_bytes, "bytes", "rooftop_host_memory_total_bytes", 1,
     "Host memory total.", MetricType::gauge, Fold::avg},
    {"mem_available_bytes", &HostSample::mem_available_bytes, "bytes", "rooftop_host_memory_available_bytes", 1,
     "Host memory available (MemAvailable).", MetricType::gauge, Fold::avg},
    {"load1", &HostSample::load1, "", "rooftop_host_load1", 1, "1-minute load average.", MetricType::gauge, Fold::avg},
    {"load5", &HostSample::load5, "", "rooftop_host_load5", 1, "5-minute load average.", MetricType::gauge, Fold::avg},
    {"load15", &HostSample::load15, "", "rooftop_host_load15", 1, "15-minute load average.", MetricType::gauge,
     Fold::avg},
    {"disk_read_bytes_total", &HostSample::disk_read_bytes_total, "bytes", "rooftop_host_disk_read_bytes_total", 1,
     "Bytes read from physical disks.", MetricType::counter, Fold::max},
    {"disk_written_bytes_total", &HostSample::disk_written_bytes_total, "bytes",
     "rooftop_host_disk_written_bytes_total", 1, "Bytes written to physical disks.", MetricType::counter, Fold::max},
    {"net_rx_bytes_total", &HostSample::net_rx_bytes_total, "bytes", "rooftop_host_network_receive_bytes_total", 1,
     "Bytes received on non-loopback interfaces.", MetricType::counter, Fold::max},
    {"net_tx_bytes_total", &HostSample::net_tx_bytes_total, "bytes", "rooftop_host_network_transmit_bytes_total", 1,
     "Bytes sent on non-loopback interfaces.", MetricType::counter, Fold::max},
};

// Series that are not one value per device or host.
inline constexpr std::string_view kClockEventActive = "rooftop_gpu_clock_event_active";
inline constexpr std::string_view kProcessMemoryUsed = "rooftop_gpu_process_memory_used_bytes";
inline constexpr std::string_view kGpuInfo = "rooftop_gpu_info";
inline constexpr std::string_view kHostCoreUtilization = "rooftop_host_cpu_core_utilization_ratio";

// The label that carries the node name on device series: dcgm-exporter's
// `Hostname`, which the exporter writes in the dcgm name set; the rooftop
// name set keeps identity in rooftop_gpu_info, and its series get the node
// from the scrape (`node`, which deploy's Prometheus configuration sets from
// the pod's node name).
constexpr std::string_view host_label(Names names) { return names == Names::dcgm ? "Hostname" : "node"; }

// A row by column name; nullptr when there is none.
constexpr const DeviceMetric* device_metric(std::string_view column) {
  for (const DeviceMetric& m : kDeviceMetrics) {
    if (m.column == column) return &m;
  }
  return nullptr;
}

// The name of a row in one name set.
constexpr std::string_view metric_name(const DeviceMetric& m, Names names) {
  return names == Names::dcgm ? m.dcgm_name : m.name;
}

// The row's value for one reading (in the sample's unit).
inline std::optional<double> metric_value(const DeviceMetric& m, const DeviceReading& r) {
  const DeviceField& f = m.field;
  if (f.real) return r.sample.*f.real;
  if (f.mask) {
    const auto& v = r.sample.*f.mask;
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  if (f.code) {
    const auto& v = r.sample.*f.code;
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  if (f.info) return r.info.*f.info;
  return f.derived ? f.derived(r) : std::nullopt;
}

namespace metrics_detail {
struct AnyField {
  template <class T>
  operator T() const noexcept;  // never defined: only used in unevaluated contexts
};
// The number of members of an aggregate.
template <class T, class... A>
constexpr std::size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) return field_count<T, A..., AnyField>();
  else return sizeof...(A);
}
constexpr std::size_t sample_rows() {
  std::size_t n = 0;
  for (const DeviceMetric& m : kDeviceMetrics) n += m.field.in_sample() ? 1 : 0;
  return n;
}
}  // namespace metrics_detail

// Every value field of DeviceSample has a row (the three others are the
// process list, the job label and the pod); every value of HostSample too
// (the others: host name and per-core list).
static_assert(metrics_detail::field_count<DeviceSample>() == metrics_detail::sample_rows() + 3,
              "a DeviceSample field has no row in kDeviceMetrics (telemetry/metrics.h)");
static_assert(metrics_detail::field_count<HostSample>() == std::size(kHostMetrics) + 2,
              "a HostSample field has no row in kHostMetrics (telemetry/metrics.h)");

}  // namespace rooftop::telemetry
