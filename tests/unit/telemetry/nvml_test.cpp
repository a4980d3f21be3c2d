// nvml backend against the fake libnvidia-ml.so.1 built by tests/fake_nvml:
// the real dlopen/dlsym path, versioned-symbol fallbacks and ABI structs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/dynlib.h"
#include "telemetry/telemetry.h"

namespace rooftop::telemetry {
namespace {

const std::string kFakeLib = std::string(ROOFTOP_BINARY_DIR) + "/tests/fake_nvml/libnvidia-ml.so.1";

std::unique_ptr<Backend> nvml() {
  BackendOptions o;
  o.nvml_library = kFakeLib;
  return std::move(*make_backend("nvml", o));
}

TEST(DynLib, ResolvesNewestNameFirstAndReportsMissing) {
  auto lib = DynLib::open({"/nonexistent/libx.so", kFakeLib});
  ASSERT_TRUE(lib) << lib.error().what();
  EXPECT_EQ(lib->path(), kFakeLib);
  std::string used;
  int (*init)() = nullptr;
  EXPECT_TRUE(lib->bind(init, {"nvmlInit_v2", "nvmlInit"}, &used));
  EXPECT_EQ(used, "nvmlInit_v2");
  int (*reasons)(void*, unsigned long long*) = nullptr;
  EXPECT_TRUE(lib->bind(reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}, &used));
  EXPECT_EQ(used, "nvmlDeviceGetCurrentClocksThrottleReasons");  // the fake only has the old name
  auto missing = lib->require(init, {"nvmlNoSuchFunction"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nvmlNoSuchFunction"), std::string::npos);
  EXPECT_EQ(init, nullptr);
  auto none = DynLib::open({"/nonexistent/libx.so"});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Errc::not_found);
}

TEST(NvmlBackend, ReadsEveryFieldThroughTheRealLoader) {
  unsetenv("FAKE_NVML_XID");
  auto b = nvml();
  auto devices = b->open();
  ASSERT_TRUE(devices) << devices.error().what();
  ASSERT_EQ(devices->size(), 2u);
  const DeviceInfo& d = (*devices)[1];
  EXPECT_EQ(d.backend, "nvml");
  EXPECT_EQ(d.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.uuid, "GPU-fa4e0000-0000-4000-8000-000000000001");
  EXPECT_EQ(d.device, "nvidia1");
  EXPECT_EQ(d.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(d.driver_version, "550.54.15-fake");
  EXPECT_DOUBLE_EQ(*d.power_limit_w, 700);
  EXPECT_DOUBLE_EQ(*d.sm_clock_max_mhz, 1980);
  const DeviceSample s = b->sample(1);
  EXPECT_DOUBLE_EQ(*s.gpu_util_pct, 50);
  EXPECT_DOUBLE_EQ(*s.mem_copy_util_pct, 21);
  // memory_v2 (the struct version word was accepted): used excludes the 512 MiB reserved.
  EXPECT_DOUBLE_EQ(*s.fb_used_bytes, 20.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(*s.fb_free_bytes, 80.0 * (1 << 30) - 512.0 * (1 << 20) - 20.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(*s.fb_reserved_bytes, 512.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(*s.temp_c, 51);       // via the deprecated nvmlDeviceGetTemperature fallback
  EXPECT_DOUBLE_EQ(*s.power_w, 301);     // mW -> W
  EXPECT_GE(*s.energy_j, 1000);          // mJ -> J
  EXPECT_DOUBLE_EQ(*s.sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*s.mem_clock_mhz, 2619);
  EXPECT_EQ(*s.throttle_reasons, 0x4u);  // via ...ThrottleReasons fallback
  EXPECT_FALSE(s.pcie_tx_bytes_per_s);   // NOT_SUPPORTED stays unknown
  EXPECT_EQ(*s.xid_last, 0);
  EXPECT_DOUBLE_EQ(*s.ecc_uncorrected_total, 0);
  const DeviceSample s0 = b->sample(0);
  ASSERT_EQ(s0.processes.size(), 1u);    // INSUFFICIENT_SIZE retry path
  EXPECT_EQ(s0.processes[0].pid, 4242u);
  EXPECT_DOUBLE_EQ(*s0.processes[0].gpu_mem_used_bytes, 1.0 * (1 << 30));
}

// dcgm-exporter's remaining default counters: what a part has is read, what
// it lacks stays unknown (no made-up zero).
TEST(NvmlBackend, ReadsTheRestOfTheDcgmDefaultCounters) {
  unsetenv("FAKE_NVML_REMAP_FAILURE");
  auto b = nvml();
  ASSERT_TRUE(b->open());
  const DeviceSample sxm = b->sample(0), pcie = b->sample(1);
  EXPECT_DOUBLE_EQ(*sxm.mem_temp_c, 62);
  EXPECT_FALSE(pcie.mem_temp_c);                                   // no memory sensor: NVML's 0 C is dropped
  EXPECT_DOUBLE_EQ(*sxm.nvlink_data_bytes_total, 4000000.0 * 1024);  // TX + RX, KiB -> bytes
  EXPECT_FALSE(pcie.nvlink_data_bytes_total);                      // no NVLink on the board
  EXPECT_DOUBLE_EQ(*sxm.pcie_replay_total, 3);
  EXPECT_DOUBLE_EQ(*pcie.pcie_replay_total, 0);                    // a counter that really is zero
  EXPECT_FALSE(sxm.enc_util_pct);                                  // no video encoder (NOT_SUPPORTED)
  EXPECT_DOUBLE_EQ(*sxm.dec_util_pct, 12);
  EXPECT_DOUBLE_EQ(*sxm.remapped_rows_correctable, 2);
  EXPECT_DOUBLE_EQ(*sxm.remapped_rows_uncorrectable, 1);
  EXPECT_DOUBLE_EQ(*sxm.row_remap_failure, 0);
  EXPECT_DOUBLE_EQ(*pcie.row_remap_failure, 0);
  const DeviceSample again = b->sample(1);  // the negative caches keep the answers the same
  EXPECT_FALSE(again.nvlink_data_bytes_total);
  EXPECT_FALSE(again.enc_util_pct);
  EXPECT_DOUBLE_EQ(*b->sample(0).nvlink_data_bytes_total, 4000000.0 * 1024);

  setenv("FAKE_NVML_REMAP_FAILURE", "1", 1);
  EXPECT_DOUBLE_EQ(*b->sample(1).row_remap_failure, 1);
  unsetenv("FAKE_NVML_REMAP_FAILURE");
}

TEST(NvmlBackend, XidEventsBecomeTheLastXid) {
  setenv("FAKE_NVML_XID", "1", 1);
  auto b = nvml();
  ASSERT_TRUE(b->open());
  unsetenv("FAKE_NVML_XID");
  EXPECT_EQ(*b->sample(0).xid_last, 0);
  EXPECT_EQ(*b->sample(1).xid_last, 79);
}

// The library loads but the kernel driver is not there: not_found with the
// reason, which the Sampler makes fatal or a note (Sampler tests).
TEST(NvmlBackend, DriverNotLoadedIsNotFoundWithTheReason) {
  setenv("FAKE_NVML_INIT_FAIL", "1", 1);
  auto b = nvml();
  auto devices = b->open();
  unsetenv("FAKE_NVML_INIT_FAIL");
  ASSERT_FALSE(devices);
  EXPECT_EQ(devices.error().code, Errc::not_found);
  EXPECT_NE(devices.error().what().find("driver is not loaded"), std::string::npos) << devices.error().what();
}

TEST(NvmlBackend, NamedLibraryThatDoesNotLoadIsNotFound) {
  BackendOptions o;
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  auto named = std::move(*make_backend("nvml", o));
  auto r = named->open();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::not_found);
  EXPECT_NE(r.error().what().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << r.error().what();
}

}  // namespace
}  // namespace rooftop::telemetry
