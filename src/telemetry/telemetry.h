// telemetry: watch accelerators and the host they sit in.
//
// Data flow (ARCHITECTURE.md): backends -> Sampler -> Snapshot -> {exposition
// (/metrics text), Store (SQLite history)}. A Backend reads one vendor API
// (procfs, NVML, ROCm SMI, Ascend DCMI, or a replayed trace) and answers with
// plain structs whose fields are all std::optional: a value the device does
// not report stays unknown, it never becomes 0 or a sentinel. The Sampler
// runs on its own thread and hands out complete snapshots; nothing that
// serves a scrape ever calls into a device.
//
// This is the module's public header together with telemetry/store.h (the
// history database, including the read API used by `rooftop analyze`) and
// telemetry/server.h (the /metrics HTTP server).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_table.h"
#include "core/result.h"

namespace rooftop::telemetry {

// Static facts about one device, read once when a backend opens.
struct DeviceInfo {
  std::string backend;         // "nvml", "rocm", "ascend", "fake"
  int index = 0;               // index within its backend: the `gpu` label
  std::string uuid;            // vendor unique id ("GPU-..."), or a synthetic one
  std::string model;           // marketing name, e.g. "NVIDIA H100 80GB HBM3"
  std::string device;          // device node name, e.g. "nvidia0"
  std::string pci_bus_id;      // "00000000:17:00.0" when known
  std::string driver_version;  // when known
  std::string host;            // host name the device belongs to
  // A MIG instance (a device of its own): its parent GPU's UUID (`index` is
  // the parent's index, as dcgm-exporter's `gpu` label), its GPU instance id
  // and profile ("1g.10gb"). Empty / -1 for a whole device.
  std::string parent_uuid;
  int gpu_instance = -1;
  std::string mig_profile;
  std::optional<double> mem_total_bytes;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_max_mhz;
  std::optional<double> mem_clock_max_mhz;
};

// The Kubernetes pod that holds a device (telemetry/podresources.h); empty
// outside Kubernetes or when no pod holds it.
struct PodRef {
  std::string pod, ns, container;
  bool operator==(const PodRef&) const = default;
};

struct ProcessSample {
  std::uint32_t pid = 0;
  std::optional<double> gpu_mem_used_bytes;
  // From /proc (describe_processes); empty when the process is gone or not visible.
  std::string command;    // /proc/PID/comm
  std::string user;       // real uid's name from PROC_ROOT/etc/passwd, else the number
  std::string container;  // container id from /proc/PID/cgroup (12 hex digits), "" = none
};


// One reading of one device. Utilisations are percentages 0..100 as the
// vendor APIs report them; exposition converts to ratios where names ask.
struct DeviceSample {
  std::optional<double> gpu_util_pct;       // a kernel was running (NVML "gpu")
  std::optional<double> mem_copy_util_pct;  // memory controller busy (NVML "memory")
  std::optional<double> fb_used_bytes;
  std::optional<double> fb_free_bytes;
  std::optional<double> fb_reserved_bytes;  // held by the driver (NVML memory_v2 only)
  std::optional<double> temp_c;
  std::optional<double> power_w;
  std::optional<double> energy_j;           // counter since driver load
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<std::uint64_t> throttle_reasons;  // NVML clock-event bit mask
  std::optional<std::int64_t> xid_last;           // last XID error code, 0 = none
  std::optional<double> pcie_tx_bytes_per_s;
  std::optional<double> pcie_rx_bytes_per_s;
  std::optional<double> ecc_uncorrected_total;    // volatile uncorrected ECC errors
  // Profiling activity over the last sampling interval (NVML GPM on Hopper
  // and later; ROCm/Ascend activity counters where a backend has them), %.
  std::optional<double> gr_engine_active_pct;     // graphics/compute engine busy
  std::optional<double> sm_active_pct;            // SMs with at least one warp resident
  std::optional<double> sm_occupancy_pct;         // resident warps / maximum
  std::optional<double> tensor_active_pct;        // tensor pipes busy (any type)
  std::optional<double> dram_active_pct;          // DRAM bandwidth used / peak
  std::optional<double> nvlink_tx_bytes_per_s;    // all links, interval average
  std::optional<double> nvlink_rx_bytes_per_s;
  // The rest of dcgm-exporter's default counters (NVML; absent on parts
  // without them: docs/monitor.md#dcgm-exporter-default-counters).
  std::optional<double> mem_temp_c;                   // HBM temperature (NVML field MEMORY_TEMP)
  std::optional<double> pcie_replay_total;            // PCIe replays (link retries) since driver load
  std::optional<double> enc_util_pct;                 // video encoder busy
  std::optional<double> dec_util_pct;                 // video decoder busy
  std::optional<double> nvlink_data_bytes_total;      // NVLink data sent + received, all links, since driver load
  std::optional<double> remapped_rows_correctable;    // HBM rows remapped for correctable errors (Ampere and later)
  std::optional<double> remapped_rows_uncorrectable;  // ... for uncorrectable errors
  std::optional<double> row_remap_failure;            // 1: a row could not be remapped (replace the device)
  std::vector<ProcessSample> processes;
  std::string job;                                // workload label (traces); "" = unknown
  PodRef pod;                                     // the pod holding the device (Kubernetes)
};

// The host: CPU from /proc/stat deltas, memory, load, disk and network
// counters summed over physical disks and non-loopback interfaces.
struct HostSample {
  std::string host;
  std::optional<double> cpu_busy_pct;
  std::optional<double> cpu_iowait_pct;
  std::vector<double> core_busy_pct;  // per logical CPU; empty when unknown
  std::optional<double> mem_total_bytes;
  std::optional<double> mem_available_bytes;
  std::optional<double> load1, load5, load15;
  std::optional<double> disk_read_bytes_total;
  std::optional<double> disk_written_bytes_total;
  std::optional<double> net_rx_bytes_total;
  std::optional<double> net_tx_bytes_total;
};

struct DeviceReading {
  DeviceInfo info;
  DeviceSample sample;
};

// Everything one sampling round produced.
struct Snapshot {
  double time_s = 0;              // Unix time of the round
  double collect_duration_s = 0;  // how long the round took
  std::optional<HostSample> host;
  std::vector<DeviceReading> devices;
};

// Fills command, user and container of every device's processes from
// PROC_ROOT/proc and PROC_ROOT/etc/passwd (a Sampler annotation).
void describe_processes(Snapshot& snap, const std::string& proc_root);

// One telemetry source (STYLE.md "Backends"). open() is called once and
// returns the devices; a vendor library or driver that is not there is
// Errc::not_found naming what was tried, and the Sampler decides what that
// means (fatal for a backend asked for by name, a note under "auto"). A
// library that loads and finds no device is an empty list. sample() and
// sample_host() are called from the sampler thread only and must not throw.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual Result<std::vector<DeviceInfo>> open() = 0;
  virtual DeviceSample sample(int device) = 0;
  virtual std::optional<HostSample> sample_host() { return std::nullopt; }
  // A vendor backend, whose library or driver is simply not installed on
  // most machines (a missing one is only a note under "auto").
  virtual bool needs_driver() const { return false; }
  // Asked for by name (true) or tried by "auto" (false): see Sampler::open.
  bool required() const { return required_; }
  void set_required(bool required) { required_ = required; }

 private:
  bool required_ = true;
};

// Where backends look for things; defaults are the real system.
struct BackendOptions {
  std::string proc_root = "/";  // procfs/sysfs root (tests use tests/data/proc/<case>)
  std::string nvml_library;     // overrides libnvidia-ml.so.1 (env ROOFTOP_NVML_LIBRARY)
  // The host name the proc backend reports (the `Hostname`/`host` label of
  // the devices it shares a snapshot with). Empty: env NODE_NAME, which a
  // Kubernetes DaemonSet sets to the node's name (inside a pod the kernel's
  // host name is the pod's); then proc/sys/kernel/hostname.
  std::string node_name;
  std::function<double()> clock_s;  // monotonic seconds for trace replay; steady clock when empty
};

// The backends, in "auto" order (fake, which replays a trace, is never tried by "auto").
enum class BackendKind { proc, nvml, rocm, ascend, fake };
inline constexpr EnumName<BackendKind> kBackendKinds[] = {{BackendKind::proc, "proc"},
                                                          {BackendKind::nvml, "nvml"},
                                                          {BackendKind::rocm, "rocm"},
                                                          {BackendKind::ascend, "ascend"},
                                                          {BackendKind::fake, "fake"}};
static_assert(enum_table_complete(kBackendKinds, static_cast<std::size_t>(BackendKind::fake) + 1));
// The backend names the registry knows, in "auto" order.
std::vector<std::string> backend_names();
// What --backends accepts, for help texts: "auto (...), or a comma list of proc, nvml, ..., fake:TRACE".
std::string backends_help();
// "proc", "nvml", "rocm", "ascend" or "fake:TRACE".
Result<std::unique_ptr<Backend>> make_backend(std::string_view spec, const BackendOptions& opts);
// "auto" (proc + every vendor backend, all optional) or a comma-separated
// list of specs (each required).
Result<std::vector<std::unique_ptr<Backend>>> make_backends(std::string_view list, const BackendOptions& opts);

// Opens backends and samples them; start() runs rounds on its own thread.
class Sampler {
 public:
  explicit Sampler(std::vector<std::unique_ptr<Backend>> backends);
  ~Sampler();
  // Opens every backend. A required backend (asked for by name) that fails
  // to open is an error naming it. An optional one ("auto") is skipped: a
  // failure is one line in `warnings`, and a missing vendor library is one
  // line for all of them together, only when no backend found a device.
  Result<void> open(std::vector<std::string>* warnings = nullptr);
  const std::vector<DeviceInfo>& devices() const { return devices_; }
  // One round, on the calling thread.
  Snapshot sample_once();
  // Calls sample_once() every interval_s on a new thread and passes each
  // snapshot to `sink` (on that thread) until stop(). The first round runs
  // at once, or after one interval when `first_now` is false.
  void start(double interval_s, std::function<void(const Snapshot&)> sink, bool first_now = true);
  void stop();
  // Adds a step run on every snapshot, on the sampling thread, before it is
  // handed out: attribution that is not a backend's (Kubernetes pods,
  // process details). Add before start().
  void add_annotate(std::function<void(Snapshot&)> fn) { annotate_.push_back(std::move(fn)); }

 private:
  struct Impl;
  std::vector<std::unique_ptr<Backend>> backends_;
  std::vector<std::pair<Backend*, int>> slots_;  // (backend, device index) per device
  std::vector<DeviceInfo> devices_;
  std::vector<std::function<void(Snapshot&)>> annotate_;
  std::unique_ptr<Impl> impl_;
};

// Exposition (Prometheus text format 0.0.4).
enum class Names {
  dcgm,     // dcgm-exporter names, units and labels (existing dashboards work)
  rooftop,  // rooftop_* names in base units; promtool-clean
};
inline constexpr EnumName<Names> kNameSets[] = {{Names::dcgm, "dcgm"}, {Names::rooftop, "rooftop"}};
static_assert(enum_table_complete(kNameSets, 2));
Result<Names> parse_names(std::string_view text);
struct RenderOptions {
  // rooftop_gpu_process_memory_used_bytes{pid,command}: one series per
  // process, so off by default (label cardinality).
  bool processes = false;
};
std::string render_metrics(const Snapshot& snap, Names names, const RenderOptions& opts = {});

// Trace files replayed by the fake backend (format: docs/monitor.md).
struct TraceRow {
  double t_s = 0;  // seconds from the start of the trace
  std::string host;
  int gpu = 0;
  std::string uuid;
  std::string model;
  DeviceSample sample;  // sample.job carries the `job` column
  std::optional<double> host_cpu_pct;
  std::optional<double> host_iowait_pct;
};
struct Trace {
  std::vector<TraceRow> rows;  // sorted by t_s (stable for equal times)
  double duration_s() const { return rows.empty() ? 0 : rows.back().t_s; }
};
// `source` names the input in errors ("trace.csv:12: ...").
Result<Trace> parse_trace(std::string_view text, const std::string& source);
Result<Trace> load_trace(const std::string& path);
std::string format_trace(const Trace& trace);

}  // namespace rooftop::telemetry
