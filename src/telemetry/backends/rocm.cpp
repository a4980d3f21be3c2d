// rocm backend: AMD GPUs through ROCm SMI (librocm_smi64.so), dlopened.
//
// Declarations follow rocm_smi.h (rsmi_status_t is an int enum; 0 =
// success). Only calls whose argument types have been stable across ROCm
// releases are used: busy percentages, VRAM usage/total, edge temperature
// (millidegrees), average power (microwatts), the energy counter, and the
// activity averages (rsmi_dev_activity_metric_get: graphics engine and
// memory controller, in %), which fill the vendor-neutral profiling series
// (graphics engine active, DRAM active) that GPM fills on NVIDIA.
// No library or no device is a normal, empty answer.
#include <fmt/format.h>

#include "core/dynlib.h"
#include "telemetry/backends/backends.h"

namespace rooftop::telemetry {
namespace {

using rsmi_status = int;
constexpr rsmi_status kOk = 0;
constexpr int kMemVram = 0, kTempEdge = 0, kTempCurrent = 0;
// rsmi_activity_metric_t and rsmi_activity_metric_counter_t (rocm_smi.h).
constexpr int kActivityGfx = 1 << 0, kActivityUmc = 1 << 1;
struct ActivityCounter {
  std::uint16_t average_gfx_activity;
  std::uint16_t average_umc_activity;
  std::uint16_t average_mm_activity;
};

struct Api {
  rsmi_status (*init)(std::uint64_t) = nullptr;
  rsmi_status (*shut_down)() = nullptr;
  rsmi_status (*count)(std::uint32_t*) = nullptr;
  rsmi_status (*name)(std::uint32_t, char*, std::size_t) = nullptr;
  rsmi_status (*unique_id)(std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*busy)(std::uint32_t, std::uint32_t*) = nullptr;
  rsmi_status (*mem_busy)(std::uint32_t, std::uint32_t*) = nullptr;
  rsmi_status (*mem_used)(std::uint32_t, int, std::uint64_t*) = nullptr;
  rsmi_status (*mem_total)(std::uint32_t, int, std::uint64_t*) = nullptr;
  rsmi_status (*temp)(std::uint32_t, std::uint32_t, int, std::int64_t*) = nullptr;
  rsmi_status (*power_ave)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*energy)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*) = nullptr;
  rsmi_status (*activity)(std::uint32_t, int, ActivityCounter*) = nullptr;
};

class RocmBackend final : public Backend {
 public:
  ~RocmBackend() override {
    if (lib_ && initialised_) api_.shut_down();
  }
  std::string name() const override { return "rocm"; }
  bool needs_driver() const override { return true; }

  Result<std::vector<DeviceInfo>> open() override {
    auto lib = DynLib::open({"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
                             "librocm_smi64.so.1", "librocm_smi64.so"});
    if (!lib)  // no ROCm here: the Sampler decides whether that is fatal
      return make_error(Errc::not_found, "cannot load ROCm SMI (librocm_smi64.so.{7,6,5,1}): " + lib.error().message.substr(0, lib.error().message.find(';')));
    lib_ = std::make_unique<DynLib>(std::move(*lib));
    ROOFTOP_TRY(lib_->require(api_.init, {"rsmi_init"}));
    ROOFTOP_TRY(lib_->require(api_.shut_down, {"rsmi_shut_down"}));
    ROOFTOP_TRY(lib_->require(api_.count, {"rsmi_num_monitor_devices"}));
    lib_->bind(api_.name, {"rsmi_dev_name_get"});
    lib_->bind(api_.unique_id, {"rsmi_dev_unique_id_get"});
    lib_->bind(api_.busy, {"rsmi_dev_busy_percent_get"});
    lib_->bind(api_.mem_busy, {"rsmi_dev_memory_busy_percent_get"});
    lib_->bind(api_.mem_used, {"rsmi_dev_memory_usage_get"});
    lib_->bind(api_.mem_total, {"rsmi_dev_memory_total_get"});
    lib_->bind(api_.temp, {"rsmi_dev_temp_metric_get"});
    lib_->bind(api_.power_ave, {"rsmi_dev_power_ave_get"});
    lib_->bind(api_.energy, {"rsmi_dev_energy_count_get"});
    lib_->bind(api_.activity, {"rsmi_dev_activity_metric_get"});
    if (const rsmi_status rc = api_.init(0); rc != kOk)
      return make_error(Errc::not_found,
                        fmt::format("rsmi_init from {} failed ({}): the amdgpu driver is not loaded", lib_->path(), rc));
    initialised_ = true;
    std::uint32_t n = 0;
    if (api_.count(&n) != kOk) return make_error(Errc::io, "rsmi_num_monitor_devices failed", lib_->path());
    std::vector<DeviceInfo> infos;
    for (std::uint32_t i = 0; i < n; ++i) {
      DeviceInfo d;
      d.backend = "rocm";
      d.index = static_cast<int>(i);
      d.device = fmt::format("card{}", i);
      char buf[128] = {};
      if (api_.name && api_.name(i, buf, sizeof buf) == kOk) d.model = buf;
      std::uint64_t v = 0;
      d.uuid = api_.unique_id && api_.unique_id(i, &v) == kOk ? fmt::format("AMD-{:016x}", v) : fmt::format("AMD-{}", i);
      if (api_.mem_total && api_.mem_total(i, kMemVram, &v) == kOk) d.mem_total_bytes = static_cast<double>(v);
      infos.push_back(std::move(d));
    }
    count_ = n;
    return infos;
  }

  DeviceSample sample(int device) override {
    DeviceSample s;
    if (device < 0 || static_cast<std::uint32_t>(device) >= count_) return s;
    const auto i = static_cast<std::uint32_t>(device);
    std::uint32_t pct = 0;
    if (api_.busy && api_.busy(i, &pct) == kOk && pct <= 100) s.gpu_util_pct = pct;
    if (api_.mem_busy && api_.mem_busy(i, &pct) == kOk && pct <= 100) s.mem_copy_util_pct = pct;
    std::uint64_t used = 0, total = 0;
    if (api_.mem_used && api_.mem_total && api_.mem_used(i, kMemVram, &used) == kOk &&
        api_.mem_total(i, kMemVram, &total) == kOk && used <= total) {
      s.fb_used_bytes = static_cast<double>(used);
      s.fb_free_bytes = static_cast<double>(total - used);
    }
    if (std::int64_t t = 0; api_.temp && api_.temp(i, kTempEdge, kTempCurrent, &t) == kOk) s.temp_c = t / 1000.0;
    if (std::uint64_t p = 0; api_.power_ave && api_.power_ave(i, 0, &p) == kOk) s.power_w = p / 1e6;
    float resolution_uj = 0;
    std::uint64_t count = 0, ts = 0;
    if (api_.energy && api_.energy(i, &count, &resolution_uj, &ts) == kOk && resolution_uj > 0)
      s.energy_j = static_cast<double>(count) * resolution_uj / 1e6;
    // Activity averages; 0xFFFF (or anything over 100) means not supported.
    if (ActivityCounter a{}; api_.activity && api_.activity(i, kActivityGfx, &a) == kOk && a.average_gfx_activity <= 100)
      s.gr_engine_active_pct = a.average_gfx_activity;
    if (ActivityCounter a{}; api_.activity && api_.activity(i, kActivityUmc, &a) == kOk && a.average_umc_activity <= 100)
      s.dram_active_pct = a.average_umc_activity;
    return s;
  }

 private:
  std::unique_ptr<DynLib> lib_;
  Api api_;
  bool initialised_ = false;
  std::uint32_t count_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_rocm_backend() { return std::make_unique<RocmBackend>(); }

}  // namespace rooftop::telemetry
