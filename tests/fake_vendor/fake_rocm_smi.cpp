// A fake librocm_smi64.so.7 with the ROCm SMI C symbols the rocm backend
// binds, so its real dlopen path runs in CI without an AMD GPU (tests put
// this folder on LD_LIBRARY_PATH, where a ROCm install would be).
// Two devices with fixed, distinct readings; FAKE_ROCM_NO_ACTIVITY=1 leaves
// out rsmi_dev_activity_metric_get's answers (older ROCm, or unsupported),
// FAKE_ROCM_FAIL_INIT=1 makes rsmi_init fail as without the amdgpu driver.
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int kOk = 0, kInvalidArgs = 1, kNotSupported = 2, kInitError = 8;
constexpr std::uint32_t kDevices = 2;
bool env(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}
struct ActivityCounter {
  std::uint16_t average_gfx_activity;
  std::uint16_t average_umc_activity;
  std::uint16_t average_mm_activity;
};
}  // namespace

extern "C" {

int rsmi_init(std::uint64_t) { return env("FAKE_ROCM_FAIL_INIT") ? kInitError : kOk; }
int rsmi_shut_down() { return kOk; }
int rsmi_num_monitor_devices(std::uint32_t* n) {
  if (!n) return kInvalidArgs;
  *n = kDevices;
  return kOk;
}
int rsmi_dev_name_get(std::uint32_t i, char* name, std::size_t len) {
  if (i >= kDevices || !name || len == 0) return kInvalidArgs;
  std::strncpy(name, "AMD Instinct MI300X", len - 1);
  name[len - 1] = '\0';
  return kOk;
}
int rsmi_dev_unique_id_get(std::uint32_t i, std::uint64_t* id) {
  if (i >= kDevices || !id) return kInvalidArgs;
  *id = 0x1234abcd0000ULL + i;
  return kOk;
}
int rsmi_dev_busy_percent_get(std::uint32_t i, std::uint32_t* pct) {
  if (i >= kDevices || !pct) return kInvalidArgs;
  *pct = i == 0 ? 87 : 12;
  return kOk;
}
int rsmi_dev_memory_busy_percent_get(std::uint32_t i, std::uint32_t* pct) {
  if (i >= kDevices || !pct) return kInvalidArgs;
  *pct = i == 0 ? 41 : 3;
  return kOk;
}
int rsmi_dev_memory_total_get(std::uint32_t i, int, std::uint64_t* bytes) {
  if (i >= kDevices || !bytes) return kInvalidArgs;
  *bytes = 192ULL << 30;
  return kOk;
}
int rsmi_dev_memory_usage_get(std::uint32_t i, int, std::uint64_t* bytes) {
  if (i >= kDevices || !bytes) return kInvalidArgs;
  *bytes = (i == 0 ? 150ULL : 8ULL) << 30;
  return kOk;
}
int rsmi_dev_temp_metric_get(std::uint32_t i, std::uint32_t, int, std::int64_t* millidegrees) {
  if (i >= kDevices || !millidegrees) return kInvalidArgs;
  *millidegrees = i == 0 ? 71000 : 38000;
  return kOk;
}
int rsmi_dev_power_ave_get(std::uint32_t i, std::uint32_t, std::uint64_t* microwatts) {
  if (i >= kDevices || !microwatts) return kInvalidArgs;
  *microwatts = i == 0 ? 612000000ULL : 140000000ULL;
  return kOk;
}
int rsmi_dev_energy_count_get(std::uint32_t i, std::uint64_t* count, float* resolution_uj, std::uint64_t* ts) {
  if (i >= kDevices || !count || !resolution_uj || !ts) return kInvalidArgs;
  *count = 1000000;
  *resolution_uj = 15.3f;
  *ts = 0;
  return kOk;
}
int rsmi_dev_activity_metric_get(std::uint32_t i, int, ActivityCounter* c) {
  if (i >= kDevices || !c) return kInvalidArgs;
  if (env("FAKE_ROCM_NO_ACTIVITY")) return kNotSupported;
  *c = i == 0 ? ActivityCounter{83, 57, 0} : ActivityCounter{9, 2, 0};
  return kOk;
}

}  // extern "C"
