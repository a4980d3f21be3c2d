// The parts of Huawei's DCMI C interface (dcmi_interface_api.h) that the
// ascend backend binds, in one place: the backend and the fake libdcmi.so
// the tests load (tests/fake_vendor) both lay the structure out from here.
#pragma once

namespace rooftop::telemetry::dcmi {

struct HbmInfo {
  unsigned long long memory_size_mb;
  unsigned int freq_mhz;
  unsigned long long memory_usage_mb;
  int temp_c;
  unsigned int bandwidth_util_pct;
};

// dcmi_get_device_utilization_rate's type for the AI Core.
inline constexpr int kUtilAiCore = 2;

}  // namespace rooftop::telemetry::dcmi
