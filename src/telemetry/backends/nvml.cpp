// nvml backend: NVIDIA GPUs through NVML, loaded with dlopen at run time.
//
// No NVIDIA header is used: the few types below are our own declarations of
// the NVML ABI (x86-64 sizes checked with static_assert; see
// shared research notes and docs/monitor.md). Every function is bound newest
// version first ("_v3", "_v2", plain) because nvml.h #defines the plain
// names to versioned ones and old drivers lack the new ones. Functions that
// answer NOT_SUPPORTED once are not called again for that device (negative
// cache), so a sampling round costs only the calls that can succeed.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "core/dynlib.h"
#include "telemetry/backends/backends.h"

namespace rooftop::telemetry {
namespace {

// --- our declarations of the NVML ABI ---------------------------------------
using nvml_return = int;
struct NvmlDevice;
struct NvmlEventSetSt;
using nvml_device = NvmlDevice*;
using nvml_event_set = NvmlEventSetSt*;
struct NvmlUtilization { unsigned gpu, memory; };
struct NvmlMemoryV1 { unsigned long long total, free, used; };
struct NvmlMemoryV2 { unsigned version; unsigned long long total, reserved, free, used; };
struct NvmlProcessV1 { unsigned pid; unsigned long long used_gpu_memory; };
struct NvmlProcessV2 { unsigned pid; unsigned long long used_gpu_memory; unsigned gpu_instance, compute_instance; };
struct NvmlPciInfo { char bus_id_legacy[16]; unsigned domain, bus, device, device_id, subsystem_id; char bus_id[32]; };
struct NvmlTemperatureV1 { unsigned version; int sensor; int temperature; };
struct NvmlEventData { nvml_device device; unsigned long long type, data; unsigned gpu_instance, compute_instance; };
static_assert(sizeof(NvmlMemoryV2) == 40 && sizeof(NvmlProcessV2) == 24 && sizeof(NvmlPciInfo) == 68);
// nvmlFieldValue_t: the value is a union read by value_type.
struct NvmlFieldValue {
  unsigned field_id, scope_id;
  long long timestamp, latency_us;
  int value_type;
  nvml_return rc;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
};
static_assert(sizeof(NvmlTemperatureV1) == 12 && sizeof(NvmlProcessV1) == 16);
static_assert(sizeof(NvmlFieldValue) == 40);
constexpr unsigned kMemoryV2Version = sizeof(NvmlMemoryV2) | (2u << 24);      // NVML_STRUCT_VERSION(Memory, 2)
constexpr unsigned kTemperatureV1Version = sizeof(NvmlTemperatureV1) | (1u << 24);
constexpr nvml_return kSuccess = 0, kNotSupported = 3, kInsufficientSize = 7, kDriverNotLoaded = 9,
                      kLibraryNotFound = 12;
constexpr int kClockSm = 1, kClockMem = 2, kPcieTx = 0, kPcieRx = 1;
constexpr unsigned long long kEventXid = 0x8;
constexpr unsigned long long kNotAvailable = ~0ULL;
// Field ids (nvml.h NVML_FI_*); the NVLink throughput counters take a link
// as scope, and UINT_MAX sums every link.
constexpr unsigned kFieldMemoryTemp = 82, kFieldNvlinkCount = 91, kFieldNvlinkDataTx = 138, kFieldNvlinkDataRx = 139;
constexpr unsigned kAllLinks = 0xFFFFFFFFu;

// NVML GPM (nvml.h, driver 520+; Hopper and later report support).
struct NvmlGpmSample { void* handle; };
struct NvmlGpmMetric {
  unsigned metric_id;
  nvml_return rc;
  double value;
  const char *short_name, *long_name, *unit;
};
constexpr unsigned kGpmMetricMax = 98, kGpmMetricsGetVersion = 1, kGpmSupportVersion = 1;
struct NvmlGpmMetricsGet {
  unsigned version, num_metrics;
  NvmlGpmSample sample1, sample2;
  NvmlGpmMetric metrics[kGpmMetricMax];
};
struct NvmlGpmSupport { unsigned version, is_supported_device; };
static_assert(sizeof(NvmlGpmMetric) == 40 && sizeof(NvmlGpmMetricsGet) == 24 + 40 * kGpmMetricMax);

// GPM metric ids (nvmlGpmMetricId_t) and where each goes; NVLink comes in MiB/s.
struct GpmRead {
  unsigned id;
  std::optional<double> DeviceSample::*field;
  double scale;
};
constexpr GpmRead kGpmReads[] = {{1, &DeviceSample::gr_engine_active_pct, 1},   // GRAPHICS_UTIL
                                 {2, &DeviceSample::sm_active_pct, 1},          // SM_UTIL
                                 {3, &DeviceSample::sm_occupancy_pct, 1},       // SM_OCCUPANCY
                                 {5, &DeviceSample::tensor_active_pct, 1},      // ANY_TENSOR_UTIL
                                 {10, &DeviceSample::dram_active_pct, 1},       // DRAM_BW_UTIL
                                 {61, &DeviceSample::nvlink_tx_bytes_per_s, 1048576},  // NVLINK_TOTAL_TX_PER_SEC
                                 {60, &DeviceSample::nvlink_rx_bytes_per_s, 1048576}};  // NVLINK_TOTAL_RX_PER_SEC

struct Api {
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*driver_version)(char*, unsigned) = nullptr;
  nvml_return (*count)(unsigned*) = nullptr;
  nvml_return (*handle)(unsigned, nvml_device*) = nullptr;
  nvml_return (*name)(nvml_device, char*, unsigned) = nullptr;
  nvml_return (*uuid)(nvml_device, char*, unsigned) = nullptr;
  nvml_return (*pci)(nvml_device, NvmlPciInfo*) = nullptr;
  nvml_return (*util)(nvml_device, NvmlUtilization*) = nullptr;
  nvml_return (*mem_v2)(nvml_device, NvmlMemoryV2*) = nullptr;
  nvml_return (*mem_v1)(nvml_device, NvmlMemoryV1*) = nullptr;
  nvml_return (*temp_v)(nvml_device, NvmlTemperatureV1*) = nullptr;
  nvml_return (*temp)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*power)(nvml_device, unsigned*) = nullptr;
  nvml_return (*power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_return (*energy)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*max_clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*reasons)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*pcie)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*procs_v2)(nvml_device, unsigned*, NvmlProcessV2*) = nullptr;  // _v3 and _v2 share the record
  nvml_return (*procs_v1)(nvml_device, unsigned*, NvmlProcessV1*) = nullptr;
  nvml_return (*ecc)(nvml_device, int, int, unsigned long long*) = nullptr;
  nvml_return (*field_values)(nvml_device, int, NvmlFieldValue*) = nullptr;
  nvml_return (*pcie_replay)(nvml_device, unsigned*) = nullptr;
  nvml_return (*enc_util)(nvml_device, unsigned*, unsigned*) = nullptr;
  nvml_return (*dec_util)(nvml_device, unsigned*, unsigned*) = nullptr;
  nvml_return (*remapped_rows)(nvml_device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvml_return (*event_set_create)(nvml_event_set*) = nullptr;
  nvml_return (*register_events)(nvml_device, unsigned long long, nvml_event_set) = nullptr;
  nvml_return (*event_wait)(nvml_event_set, NvmlEventData*, unsigned) = nullptr;
  nvml_return (*event_set_free)(nvml_event_set) = nullptr;
  nvml_return (*gpm_support)(nvml_device, NvmlGpmSupport*) = nullptr;
  nvml_return (*gpm_alloc)(NvmlGpmSample*) = nullptr;
  nvml_return (*gpm_free)(NvmlGpmSample) = nullptr;
  nvml_return (*gpm_get)(nvml_device, NvmlGpmSample) = nullptr;
  nvml_return (*gpm_metrics)(NvmlGpmMetricsGet*) = nullptr;
  nvml_return (*gpm_mig_get)(nvml_device, unsigned, NvmlGpmSample) = nullptr;
  nvml_return (*mig_mode)(nvml_device, unsigned*, unsigned*) = nullptr;
  nvml_return (*mig_count)(nvml_device, unsigned*) = nullptr;
  nvml_return (*mig_handle)(nvml_device, unsigned, nvml_device*) = nullptr;
  nvml_return (*gpu_instance_id)(nvml_device, unsigned*) = nullptr;
};

// Optional calls we may stop making per device after NOT_SUPPORTED.
enum Call : unsigned {
  kUtil, kMem, kTemp, kPower, kEnergy, kSmClock, kMemClock, kReasons, kTx, kRx, kProcs, kEcc,
  kFields, kMemTemp, kNvlink, kReplay, kEnc, kDec, kRemap, kCalls
};

struct Gpu {
  nvml_device handle = nullptr;
  bool unsupported[kCalls] = {};
  std::optional<std::int64_t> xid_last;
  // GPM: the previous and the current sample; metrics are their difference.
  NvmlGpmSample gpm[2] = {{nullptr}, {nullptr}};
  bool gpm_primed = false;
  // A MIG instance: its parent's handle and GPU instance id (GPM is sampled
  // through the parent).
  nvml_device parent = nullptr;
  unsigned gpu_instance = 0;
};

class NvmlBackend final : public Backend {
 public:
  explicit NvmlBackend(std::string library) : library_(std::move(library)) {}
  ~NvmlBackend() override {
    for (Gpu& g : gpus_) {
      for (NvmlGpmSample& s : g.gpm) {
        if (lib_ && s.handle) api_.gpm_free(s);
      }
    }
    if (lib_ && api_.event_set_free && events_) api_.event_set_free(events_);
    if (lib_ && initialised_) api_.shutdown();
  }
  std::string name() const override { return "nvml"; }
  bool needs_driver() const override { return true; }

  Result<std::vector<DeviceInfo>> open() override {
    auto lib = DynLib::open(library_.empty() ? std::vector<std::string>{"libnvidia-ml.so.1", "libnvidia-ml.so"}
                                             : std::vector<std::string>{library_});
    if (!lib)  // no NVIDIA driver here: the Sampler decides whether that is fatal
      return make_error(Errc::not_found, "cannot load the NVML library (" + lib.error().message +
                                             "); install the NVIDIA driver or set ROOFTOP_NVML_LIBRARY");
    lib_ = std::make_unique<DynLib>(std::move(*lib));
    ROOFTOP_TRY(bind_all());
    const nvml_return rc = api_.init();
    if (rc == kDriverNotLoaded || rc == kLibraryNotFound)
      return make_error(Errc::not_found, "nvmlInit from " + lib_->path() + ": " + error(rc) +
                                             " (the NVIDIA kernel driver is not loaded)");
    if (rc != kSuccess) return make_error(Errc::io, "nvmlInit failed: " + error(rc), lib_->path());
    initialised_ = true;
    unsigned n = 0;
    if (const nvml_return c = api_.count(&n); c != kSuccess)
      return make_error(Errc::io, "nvmlDeviceGetCount failed: " + error(c), lib_->path());
    std::string driver;
    char buf[96] = {};
    if (api_.driver_version && api_.driver_version(buf, sizeof buf) == kSuccess) driver = buf;
    if (api_.event_set_create && api_.register_events && api_.event_wait &&
        api_.event_set_create(&events_) != kSuccess)
      events_ = nullptr;
    std::vector<DeviceInfo> infos;
    for (unsigned i = 0; i < n; ++i) {
      Gpu g;
      if (api_.handle(i, &g.handle) != kSuccess) continue;
      DeviceInfo d;
      d.backend = "nvml";
      d.index = static_cast<int>(i);
      d.device = fmt::format("nvidia{}", i);
      d.driver_version = driver;
      if (api_.name(g.handle, buf, sizeof buf) == kSuccess) d.model = buf;
      if (api_.uuid(g.handle, buf, sizeof buf) == kSuccess) d.uuid = buf;
      NvmlPciInfo pci{};
      if (api_.pci && api_.pci(g.handle, &pci) == kSuccess) d.pci_bus_id = pci.bus_id;
      unsigned v = 0;
      if (api_.power_limit && api_.power_limit(g.handle, &v) == kSuccess) d.power_limit_w = v / 1000.0;
      if (api_.max_clock && api_.max_clock(g.handle, kClockSm, &v) == kSuccess) d.sm_clock_max_mhz = v;
      if (api_.max_clock && api_.max_clock(g.handle, kClockMem, &v) == kSuccess) d.mem_clock_max_mhz = v;
      if (events_) api_.register_events(g.handle, kEventXid, events_);  // unsupported on some boards: ignore
      open_gpm(g);
      gpus_.push_back(g);
      infos.push_back(d);
      add_mig_instances(g, d, infos);
    }
    for (std::size_t i = 0; i < infos.size(); ++i) {
      const DeviceSample first = sample(static_cast<int>(i));
      if (first.fb_used_bytes && first.fb_free_bytes) infos[i].mem_total_bytes = *first.fb_used_bytes + *first.fb_free_bytes;
    }
    return infos;
  }

  DeviceSample sample(int device) override {
    DeviceSample s;
    if (device < 0 || static_cast<std::size_t>(device) >= gpus_.size()) return s;
    drain_xid_events();
    Gpu& g = gpus_[static_cast<std::size_t>(device)];
    auto ok = [&](Call c, nvml_return rc) {
      if (rc == kNotSupported) g.unsupported[c] = true;
      return rc == kSuccess;
    };
    auto want = [&](Call c, bool bound) { return bound && !g.unsupported[c]; };
    if (NvmlUtilization u{}; want(kUtil, api_.util != nullptr) && ok(kUtil, api_.util(g.handle, &u))) {
      if (u.gpu <= 100) s.gpu_util_pct = u.gpu;  // drivers have reported 4294967295 (DCGM#199)
      if (u.memory <= 100) s.mem_copy_util_pct = u.memory;
    }
    read_memory(g, s, ok, want);
    unsigned v = 0;
    if (NvmlTemperatureV1 t{kTemperatureV1Version, 0, 0}; want(kTemp, api_.temp_v != nullptr) && api_.temp_v(g.handle, &t) == kSuccess)
      s.temp_c = t.temperature;
    else if (want(kTemp, api_.temp != nullptr) && ok(kTemp, api_.temp(g.handle, 0, &v)))
      s.temp_c = v;
    if (want(kPower, api_.power != nullptr) && ok(kPower, api_.power(g.handle, &v))) s.power_w = v / 1000.0;
    if (unsigned long long e = 0; want(kEnergy, api_.energy != nullptr) && ok(kEnergy, api_.energy(g.handle, &e)))
      s.energy_j = e / 1000.0;
    if (want(kSmClock, api_.clock != nullptr) && ok(kSmClock, api_.clock(g.handle, kClockSm, &v))) s.sm_clock_mhz = v;
    if (want(kMemClock, api_.clock != nullptr) && ok(kMemClock, api_.clock(g.handle, kClockMem, &v))) s.mem_clock_mhz = v;
    if (unsigned long long r = 0; want(kReasons, api_.reasons != nullptr) && ok(kReasons, api_.reasons(g.handle, &r)))
      s.throttle_reasons = r;
    if (want(kTx, api_.pcie != nullptr) && ok(kTx, api_.pcie(g.handle, kPcieTx, &v))) s.pcie_tx_bytes_per_s = v * 1000.0;
    if (want(kRx, api_.pcie != nullptr) && ok(kRx, api_.pcie(g.handle, kPcieRx, &v))) s.pcie_rx_bytes_per_s = v * 1000.0;
    if (unsigned long long e = 0; want(kEcc, api_.ecc != nullptr) && ok(kEcc, api_.ecc(g.handle, 1, 0, &e)))
      s.ecc_uncorrected_total = static_cast<double>(e);
    read_fields(g, s);
    if (want(kReplay, api_.pcie_replay != nullptr) && ok(kReplay, api_.pcie_replay(g.handle, &v)))
      s.pcie_replay_total = v;
    unsigned period_us = 0;
    if (want(kEnc, api_.enc_util != nullptr) && ok(kEnc, api_.enc_util(g.handle, &v, &period_us)) && v <= 100)
      s.enc_util_pct = v;
    if (want(kDec, api_.dec_util != nullptr) && ok(kDec, api_.dec_util(g.handle, &v, &period_us)) && v <= 100)
      s.dec_util_pct = v;
    // Row remapping (Ampere and later; older parts retire pages instead and
    // answer NOT_SUPPORTED, so the rows stay absent).
    if (unsigned corr = 0, unc = 0, pending = 0, failed = 0;
        want(kRemap, api_.remapped_rows != nullptr) && ok(kRemap, api_.remapped_rows(g.handle, &corr, &unc, &pending, &failed))) {
      s.remapped_rows_correctable = corr;
      s.remapped_rows_uncorrectable = unc;
      s.row_remap_failure = failed ? 1 : 0;
    }
    read_processes(g, s);
    read_gpm(g, s);
    if (events_) s.xid_last = g.xid_last.value_or(0);
    return s;
  }

 private:
  // GPM where the device reports support (Hopper and later); the profiling
  // fields stay unknown elsewhere.
  void open_gpm(Gpu& g) {
    if (!api_.gpm_support || !api_.gpm_alloc || !api_.gpm_free || !api_.gpm_get || !api_.gpm_metrics) return;
    NvmlGpmSupport sup{kGpmSupportVersion, 0};
    if (api_.gpm_support(g.handle, &sup) != kSuccess || !sup.is_supported_device) return;
    open_gpm_buffers(g);
  }

  // With MIG enabled on `parent`, each MIG instance is a device of its own,
  // labelled with its parent and profile (dcgm-exporter's model).
  void add_mig_instances(const Gpu& parent, const DeviceInfo& pinfo, std::vector<DeviceInfo>& infos) {
    unsigned current = 0, pending = 0, max = 0;
    if (!api_.mig_mode || !api_.mig_count || !api_.mig_handle || !api_.gpu_instance_id) return;
    if (api_.mig_mode(parent.handle, &current, &pending) != kSuccess || current != 1) return;
    if (api_.mig_count(parent.handle, &max) != kSuccess) return;
    char buf[96] = {};
    for (unsigned i = 0; i < max; ++i) {
      Gpu g;
      unsigned gi = 0;
      if (api_.mig_handle(parent.handle, i, &g.handle) != kSuccess) continue;  // an empty slot
      if (api_.gpu_instance_id(g.handle, &gi) != kSuccess) continue;
      g.parent = parent.handle;
      g.gpu_instance = gi;
      DeviceInfo d = pinfo;  // index, device node, bus id and host are the parent's
      d.parent_uuid = pinfo.uuid;
      d.gpu_instance = static_cast<int>(gi);
      d.power_limit_w.reset();
      d.sm_clock_max_mhz.reset();
      d.mem_clock_max_mhz.reset();
      if (api_.uuid(g.handle, buf, sizeof buf) == kSuccess) d.uuid = buf;
      if (api_.name(g.handle, buf, sizeof buf) == kSuccess) {
        // "NVIDIA H100 80GB HBM3 MIG 1g.10gb": the profile follows "MIG ".
        const std::string name = buf;
        if (const auto at = name.rfind(" MIG "); at != std::string::npos) d.mig_profile = name.substr(at + 5);
        d.model = name;
      }
      if (parent.gpm[0].handle && api_.gpm_mig_get) open_gpm_buffers(g);
      gpus_.push_back(g);
      infos.push_back(std::move(d));
    }
  }

  void open_gpm_buffers(Gpu& g) {
    for (NvmlGpmSample& s : g.gpm) {
      if (api_.gpm_alloc(&s) != kSuccess) s.handle = nullptr;
    }
    if (!g.gpm[0].handle || !g.gpm[1].handle) {
      for (NvmlGpmSample& s : g.gpm) {
        if (s.handle) api_.gpm_free(s);
        s.handle = nullptr;
      }
    }
  }

  void read_gpm(Gpu& g, DeviceSample& s) {
    if (!g.gpm[0].handle) return;
    std::swap(g.gpm[0], g.gpm[1]);  // gpm[0]: the previous sample
    const nvml_return got = g.parent ? api_.gpm_mig_get(g.parent, g.gpu_instance, g.gpm[1]) : api_.gpm_get(g.handle, g.gpm[1]);
    if (got != kSuccess) {
      g.gpm_primed = false;
      return;
    }
    const bool primed = g.gpm_primed;
    g.gpm_primed = true;
    if (!primed) return;  // the first sample has nothing to compare with
    auto get = std::make_unique<NvmlGpmMetricsGet>();
    std::memset(get.get(), 0, sizeof *get);
    get->version = kGpmMetricsGetVersion;
    get->num_metrics = static_cast<unsigned>(std::size(kGpmReads));
    get->sample1 = g.gpm[0];
    get->sample2 = g.gpm[1];
    for (std::size_t i = 0; i < std::size(kGpmReads); ++i) get->metrics[i].metric_id = kGpmReads[i].id;
    if (api_.gpm_metrics(get.get()) != kSuccess) return;
    for (std::size_t i = 0; i < std::size(kGpmReads); ++i) {
      const NvmlGpmMetric& m = get->metrics[i];
      if (m.rc == kSuccess && std::isfinite(m.value) && m.value >= 0) s.*kGpmReads[i].field = m.value * kGpmReads[i].scale;
    }
    // A MIG instance has no NVML utilisation: its graphics-engine activity is it.
    if (g.parent && !s.gpu_util_pct && s.gr_engine_active_pct) s.gpu_util_pct = s.gr_engine_active_pct;
  }

  Result<void> bind_all() {
    const DynLib& l = *lib_;
    ROOFTOP_TRY(l.require(api_.init, {"nvmlInit_v2", "nvmlInit"}));
    ROOFTOP_TRY(l.require(api_.shutdown, {"nvmlShutdown"}));
    ROOFTOP_TRY(l.require(api_.count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}));
    ROOFTOP_TRY(l.require(api_.handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}));
    ROOFTOP_TRY(l.require(api_.name, {"nvmlDeviceGetName"}));
    ROOFTOP_TRY(l.require(api_.uuid, {"nvmlDeviceGetUUID"}));
    l.bind(api_.error_string, {"nvmlErrorString"});
    l.bind(api_.driver_version, {"nvmlSystemGetDriverVersion"});
    l.bind(api_.pci, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
    l.bind(api_.util, {"nvmlDeviceGetUtilizationRates"});
    l.bind(api_.gpm_support, {"nvmlGpmQueryDeviceSupport"});
    l.bind(api_.gpm_alloc, {"nvmlGpmSampleAlloc"});
    l.bind(api_.gpm_free, {"nvmlGpmSampleFree"});
    l.bind(api_.gpm_get, {"nvmlGpmSampleGet"});
    l.bind(api_.gpm_metrics, {"nvmlGpmMetricsGet"});
    l.bind(api_.gpm_mig_get, {"nvmlGpmMigSampleGet"});
    l.bind(api_.mig_mode, {"nvmlDeviceGetMigMode"});
    l.bind(api_.mig_count, {"nvmlDeviceGetMaxMigDeviceCount"});
    l.bind(api_.mig_handle, {"nvmlDeviceGetMigDeviceHandleByIndex"});
    l.bind(api_.gpu_instance_id, {"nvmlDeviceGetGpuInstanceId"});
    l.bind(api_.mem_v2, {"nvmlDeviceGetMemoryInfo_v2"});
    l.bind(api_.mem_v1, {"nvmlDeviceGetMemoryInfo"});
    l.bind(api_.temp_v, {"nvmlDeviceGetTemperatureV"});
    l.bind(api_.temp, {"nvmlDeviceGetTemperature"});
    l.bind(api_.power, {"nvmlDeviceGetPowerUsage"});
    l.bind(api_.power_limit, {"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"});
    l.bind(api_.energy, {"nvmlDeviceGetTotalEnergyConsumption"});
    l.bind(api_.clock, {"nvmlDeviceGetClockInfo"});
    l.bind(api_.max_clock, {"nvmlDeviceGetMaxClockInfo"});
    l.bind(api_.reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
    l.bind(api_.pcie, {"nvmlDeviceGetPcieThroughput"});
    l.bind(api_.procs_v2, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
    l.bind(api_.procs_v1, {"nvmlDeviceGetComputeRunningProcesses"});
    l.bind(api_.ecc, {"nvmlDeviceGetTotalEccErrors"});
    l.bind(api_.field_values, {"nvmlDeviceGetFieldValues"});
    l.bind(api_.pcie_replay, {"nvmlDeviceGetPcieReplayCounter"});
    l.bind(api_.enc_util, {"nvmlDeviceGetEncoderUtilization"});
    l.bind(api_.dec_util, {"nvmlDeviceGetDecoderUtilization"});
    l.bind(api_.remapped_rows, {"nvmlDeviceGetRemappedRows"});
    l.bind(api_.event_set_create, {"nvmlEventSetCreate"});
    l.bind(api_.register_events, {"nvmlDeviceRegisterEvents"});
    l.bind(api_.event_wait, {"nvmlEventSetWait_v2", "nvmlEventSetWait"});
    l.bind(api_.event_set_free, {"nvmlEventSetFree"});
    if (!api_.util && !api_.mem_v2 && !api_.mem_v1)
      return make_error(Errc::unsupported, lib_->path() + " exports neither utilisation nor memory queries");
    return {};
  }

  // v2 reports `used` without driver-reserved memory (what nvidia-smi shows);
  // v1 includes it. Prefer v2, fall back when the driver rejects the version.
  template <typename Ok, typename Want>
  void read_memory(Gpu& g, DeviceSample& s, Ok& ok, Want& want) {
    if (!want(kMem, api_.mem_v2 != nullptr || api_.mem_v1 != nullptr)) return;
    NvmlMemoryV2 m2{};
    m2.version = kMemoryV2Version;
    if (api_.mem_v2 && api_.mem_v2(g.handle, &m2) == kSuccess) {
      s.fb_used_bytes = static_cast<double>(m2.used);
      s.fb_free_bytes = static_cast<double>(m2.free);
      s.fb_reserved_bytes = static_cast<double>(m2.reserved);
      return;
    }
    NvmlMemoryV1 m1{};
    if (api_.mem_v1 && ok(kMem, api_.mem_v1(g.handle, &m1))) {
      s.fb_used_bytes = static_cast<double>(m1.used);
      s.fb_free_bytes = static_cast<double>(m1.free);
    }
  }

  // What only field values answer: the memory temperature and the NVLink
  // data counters. One call; each field has its own status (the call
  // succeeds when any field does), and a field NOT_SUPPORTED once is not
  // asked again.
  void read_fields(Gpu& g, DeviceSample& s) {
    if (!api_.field_values || g.unsupported[kFields]) return;
    NvmlFieldValue f[4] = {};
    int n = 0;
    const bool temp = !g.unsupported[kMemTemp], nvlink = !g.unsupported[kNvlink];
    if (temp) f[n++].field_id = kFieldMemoryTemp;
    if (nvlink) {
      f[n++].field_id = kFieldNvlinkCount;
      f[n].field_id = kFieldNvlinkDataTx;
      f[n++].scope_id = kAllLinks;
      f[n].field_id = kFieldNvlinkDataRx;
      f[n++].scope_id = kAllLinks;
    }
    if (n == 0) return;
    const nvml_return rc = api_.field_values(g.handle, n, f);
    if (rc == kNotSupported) g.unsupported[kFields] = true;
    if (rc != kSuccess) return;
    auto value = [&](unsigned id, Call c) -> std::optional<double> {
      for (int i = 0; i < n; ++i) {
        if (f[i].field_id != id) continue;
        if (f[i].rc == kNotSupported) g.unsupported[c] = true;
        if (f[i].rc != kSuccess) return std::nullopt;
        return field_number(f[i]);
      }
      return std::nullopt;
    };
    // Parts without a memory sensor (T4, L4) answer 0 C: not a reading
    // (DCGM#311; dcgm-exporter exports it as 0).
    if (temp) {
      std::optional<double> t = value(kFieldMemoryTemp, kMemTemp);
      if (t && *t > 0) s.mem_temp_c = t;
    }
    // No NVLink on the part (PCIe boards): no counter, rather than a zero.
    if (nvlink) {
      std::optional<double> links = value(kFieldNvlinkCount, kNvlink);
      std::optional<double> tx = value(kFieldNvlinkDataTx, kNvlink), rx = value(kFieldNvlinkDataRx, kNvlink);
      if (links && *links > 0 && tx && rx) s.nvlink_data_bytes_total = (*tx + *rx) * 1024;  // KiB
      else if (links && *links == 0) g.unsupported[kNvlink] = true;
    }
  }

  static std::optional<double> field_number(const NvmlFieldValue& f) {
    switch (f.value_type) {  // nvmlValueType_t
      case 0: return std::isfinite(f.value.d) ? std::optional<double>(f.value.d) : std::nullopt;
      case 1: return f.value.ui;
      case 2: return static_cast<double>(f.value.ul);
      case 3: return static_cast<double>(f.value.ull);
      case 4: return static_cast<double>(f.value.sll);
      case 5: return f.value.si;
      default: return std::nullopt;
    }
  }

  // Count may change between the size query and the read: retry a few times.
  void read_processes(Gpu& g, DeviceSample& s) {
    if (g.unsupported[kProcs] || (!api_.procs_v2 && !api_.procs_v1)) return;
    for (int attempt = 0; attempt < 3; ++attempt) {
      unsigned n = 0;
      nvml_return rc = api_.procs_v2 ? api_.procs_v2(g.handle, &n, nullptr) : api_.procs_v1(g.handle, &n, nullptr);
      if (rc == kSuccess) return;  // no processes
      if (rc != kInsufficientSize) {
        if (rc == kNotSupported) g.unsupported[kProcs] = true;
        return;
      }
      n += 4;
      s.processes.clear();
      if (api_.procs_v2) {
        std::vector<NvmlProcessV2> p(n);
        rc = api_.procs_v2(g.handle, &n, p.data());
        for (unsigned i = 0; rc == kSuccess && i < n; ++i) s.processes.push_back(process(p[i].pid, p[i].used_gpu_memory));
      } else {
        std::vector<NvmlProcessV1> p(n);
        rc = api_.procs_v1(g.handle, &n, p.data());
        for (unsigned i = 0; rc == kSuccess && i < n; ++i) s.processes.push_back(process(p[i].pid, p[i].used_gpu_memory));
      }
      if (rc == kSuccess) return;
    }
  }

  static ProcessSample process(unsigned pid, unsigned long long mem) {
    ProcessSample p;
    p.pid = pid;
    if (mem != kNotAvailable) p.gpu_mem_used_bytes = static_cast<double>(mem);
    return p;
  }

  // XID errors arrive as events; poll without waiting and keep the last code per device.
  void drain_xid_events() {
    if (!events_) return;
    for (int i = 0; i < 64; ++i) {
      NvmlEventData e{};
      if (api_.event_wait(events_, &e, 0) != kSuccess) return;  // NVML_ERROR_TIMEOUT: nothing pending
      for (Gpu& g : gpus_) {
        if (g.handle == e.device && (e.type & kEventXid)) g.xid_last = static_cast<std::int64_t>(e.data);
      }
    }
  }

  std::string error(nvml_return rc) const {
    const char* s = api_.error_string ? api_.error_string(rc) : nullptr;
    return s ? fmt::format("{} (NVML {})", s, rc) : fmt::format("NVML error {}", rc);
  }

  std::string library_;
  std::unique_ptr<DynLib> lib_;
  Api api_;
  bool initialised_ = false;
  nvml_event_set events_ = nullptr;
  std::vector<Gpu> gpus_;
};

}  // namespace

std::unique_ptr<Backend> make_nvml_backend(const std::string& library) {
  return std::make_unique<NvmlBackend>(library);
}

}  // namespace rooftop::telemetry
