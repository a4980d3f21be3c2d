// A fake libdcmi.so with the DCMI C symbols the ascend backend binds, so its
// real dlopen path runs in CI without an Ascend NPU (tests put this folder on
// LD_LIBRARY_PATH). One card holding two chips with fixed, distinct readings.
#include "telemetry/backends/dcmi_abi.h"

namespace {
using DcmiHbmInfo = rooftop::telemetry::dcmi::HbmInfo;
constexpr int kCard = 3, kChips = 2, kAiCore = rooftop::telemetry::dcmi::kUtilAiCore;
bool ours(int card, int dev) { return card == kCard && dev >= 0 && dev < kChips; }
}  // namespace

extern "C" {

int dcmi_init() { return 0; }
int dcmi_get_card_num_list(int* n, int* cards, int len) {
  if (!n || !cards || len < 1) return -8001;
  *n = 1;
  cards[0] = kCard;
  return 0;
}
int dcmi_get_device_num_in_card(int card, int* n) {
  if (card != kCard || !n) return -8001;
  *n = kChips;
  return 0;
}
int dcmi_get_device_utilization_rate(int card, int dev, int type, unsigned* pct) {
  if (!ours(card, dev) || !pct || type != kAiCore) return -8001;
  *pct = dev == 0 ? 76 : 5;
  return 0;
}
int dcmi_get_device_temperature(int card, int dev, int* c) {
  if (!ours(card, dev) || !c) return -8001;
  *c = dev == 0 ? 64 : 41;
  return 0;
}
int dcmi_get_device_power_info(int card, int dev, int* deciwatts) {
  if (!ours(card, dev) || !deciwatts) return -8001;
  *deciwatts = dev == 0 ? 3105 : 905;
  return 0;
}
int dcmi_get_device_hbm_info(int card, int dev, DcmiHbmInfo* h) {
  if (!ours(card, dev) || !h) return -8001;
  *h = DcmiHbmInfo{65536, 1600, dev == 0 ? 52000ULL : 3000ULL, 50, dev == 0 ? 44u : 1u};
  return 0;
}

}  // extern "C"
