// ascend backend: Huawei Ascend NPUs through DCMI (libdcmi.so), dlopened the
// way Ascend's own npu-exporter does. Declarations follow
// dcmi_interface_api.h: every call returns int (0 = success) and addresses a
// chip as (card id, device id in card). Units: power in 0.1 W, HBM sizes in
// MB; utilisation type 2 is the AI Core. The AI Core's busy time and the
// HBM bandwidth utilisation also fill the vendor-neutral profiling series
// (graphics/compute engine active, DRAM active), as GPM does on NVIDIA. No
// library or no card is a normal, empty answer.
#include <fmt/format.h>

#include "core/dynlib.h"
#include "telemetry/backends/backends.h"
#include "telemetry/backends/dcmi_abi.h"

namespace rooftop::telemetry {
namespace {

using DcmiHbmInfo = dcmi::HbmInfo;
using dcmi::kUtilAiCore;
constexpr int kMaxCards = 64;

struct Api {
  int (*init)() = nullptr;
  int (*card_list)(int*, int*, int) = nullptr;
  int (*devices_in_card)(int, int*) = nullptr;
  int (*util)(int, int, int, unsigned*) = nullptr;
  int (*temp)(int, int, int*) = nullptr;
  int (*power)(int, int, int*) = nullptr;
  int (*hbm)(int, int, DcmiHbmInfo*) = nullptr;
};

class AscendBackend final : public Backend {
 public:
  std::string name() const override { return "ascend"; }
  bool needs_driver() const override { return true; }

  Result<std::vector<DeviceInfo>> open() override {
    auto lib = DynLib::open({"libdcmi.so"});
    if (!lib)  // no Ascend driver here: the Sampler decides whether that is fatal
      return make_error(Errc::not_found, "cannot load DCMI (" + lib.error().message + ")");
    lib_ = std::make_unique<DynLib>(std::move(*lib));
    ROOFTOP_TRY(lib_->require(api_.init, {"dcmi_init"}));
    ROOFTOP_TRY(lib_->require(api_.card_list, {"dcmi_get_card_num_list"}));
    ROOFTOP_TRY(lib_->require(api_.devices_in_card, {"dcmi_get_device_num_in_card"}));
    lib_->bind(api_.util, {"dcmi_get_device_utilization_rate"});
    lib_->bind(api_.temp, {"dcmi_get_device_temperature"});
    lib_->bind(api_.power, {"dcmi_get_device_power_info"});
    lib_->bind(api_.hbm, {"dcmi_get_device_hbm_info"});
    if (const int rc = api_.init(); rc != 0)
      return make_error(Errc::not_found,
                        fmt::format("dcmi_init from {} failed ({}): the Ascend driver is not loaded", lib_->path(), rc));
    int cards[kMaxCards] = {};
    int n_cards = 0;
    if (api_.card_list(&n_cards, cards, kMaxCards) != 0) return std::vector<DeviceInfo>{};
    std::vector<DeviceInfo> infos;
    for (int c = 0; c < std::min(n_cards, kMaxCards); ++c) {
      int n_dev = 0;
      if (api_.devices_in_card(cards[c], &n_dev) != 0) continue;
      for (int d = 0; d < n_dev; ++d) {
        DeviceInfo info;
        info.backend = "ascend";
        info.index = static_cast<int>(chips_.size());
        info.device = fmt::format("davinci{}", info.index);
        info.uuid = fmt::format("NPU-{}-{}", cards[c], d);
        info.model = "Huawei Ascend";
        DcmiHbmInfo hbm{};
        if (api_.hbm && api_.hbm(cards[c], d, &hbm) == 0) info.mem_total_bytes = hbm.memory_size_mb * 1048576.0;
        chips_.emplace_back(cards[c], d);
        infos.push_back(std::move(info));
      }
    }
    return infos;
  }

  DeviceSample sample(int device) override {
    DeviceSample s;
    if (device < 0 || static_cast<std::size_t>(device) >= chips_.size()) return s;
    const auto [card, dev] = chips_[static_cast<std::size_t>(device)];
    if (unsigned u = 0; api_.util && api_.util(card, dev, kUtilAiCore, &u) == 0 && u <= 100)
      s.gpu_util_pct = s.gr_engine_active_pct = u;
    if (int t = 0; api_.temp && api_.temp(card, dev, &t) == 0) s.temp_c = t;
    if (int p = 0; api_.power && api_.power(card, dev, &p) == 0 && p >= 0) s.power_w = p / 10.0;
    if (DcmiHbmInfo hbm{}; api_.hbm && api_.hbm(card, dev, &hbm) == 0 && hbm.memory_usage_mb <= hbm.memory_size_mb) {
      s.fb_used_bytes = hbm.memory_usage_mb * 1048576.0;
      s.fb_free_bytes = (hbm.memory_size_mb - hbm.memory_usage_mb) * 1048576.0;
      if (hbm.bandwidth_util_pct <= 100) s.mem_copy_util_pct = s.dram_active_pct = hbm.bandwidth_util_pct;
      s.mem_clock_mhz = hbm.freq_mhz;
    }
    return s;
  }

 private:
  std::unique_ptr<DynLib> lib_;
  Api api_;
  std::vector<std::pair<int, int>> chips_;  // (card id, device id) per index
};

}  // namespace

std::unique_ptr<Backend> make_ascend_backend() { return std::make_unique<AscendBackend>(); }

}  // namespace rooftop::telemetry
