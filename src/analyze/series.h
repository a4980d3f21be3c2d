// The exported series analyze reads (and `trace synth --openmetrics` writes):
// one table of the dcgm-exporter names and the rooftop_* names `rooftop
// monitor` exports (src/telemetry/exposition.cpp), with the factor from each
// to analyze's units (%, bytes, MHz), and the labels that carry a device's
// identity in each name set.
#pragma once

#include <cstddef>
#include <iterator>

#include "analyze/analyze.h"

namespace rooftop::analyze {

enum class Signal { util, copy, fb_used, fb_free, temp, power, clock, throttle };

struct SeriesName {
  Signal signal;
  const char* dcgm;
  double dcgm_scale;  // dcgm unit -> analyze unit
  const char* rooftop;
  double rooftop_scale;  // rooftop unit -> analyze unit
  const char* help;      // HELP text written with the dcgm name
};

inline constexpr SeriesName kDeviceSeries[] = {
    {Signal::util, "DCGM_FI_DEV_GPU_UTIL", 1, "rooftop_gpu_utilization_ratio", 100, "GPU utilization (in %)."},
    {Signal::copy, "DCGM_FI_DEV_MEM_COPY_UTIL", 1, "rooftop_gpu_memory_copy_utilization_ratio", 100,
     "Memory utilization (in %)."},
    {Signal::fb_used, "DCGM_FI_DEV_FB_USED", 1048576.0, "rooftop_gpu_memory_used_bytes", 1,
     "Framebuffer memory used (in MiB)."},
    {Signal::fb_free, "DCGM_FI_DEV_FB_FREE", 1048576.0, "rooftop_gpu_memory_free_bytes", 1,
     "Framebuffer memory free (in MiB)."},
    {Signal::temp, "DCGM_FI_DEV_GPU_TEMP", 1, "rooftop_gpu_temperature_celsius", 1, "GPU temperature (in C)."},
    {Signal::power, "DCGM_FI_DEV_POWER_USAGE", 1, "rooftop_gpu_power_watts", 1, "Power draw (in W)."},
    {Signal::clock, "DCGM_FI_DEV_SM_CLOCK", 1, "rooftop_gpu_sm_clock_hertz", 1e-6, "SM clock frequency (in MHz)."},
    {Signal::throttle, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 1, "rooftop_gpu_clock_event_reasons", 1,
     "Current clock throttle reasons (bit mask of NVML clock event reasons)."},
};
inline constexpr std::size_t kDeviceSeriesCount = std::size(kDeviceSeries);

inline const SeriesName& series(Signal f) { return kDeviceSeries[static_cast<std::size_t>(f)]; }

// Stores a value (in analyze's units) as the observation's field for `s`.
// fb_free goes into fb_total_bytes, for the reader to add fb_used to.
inline void set_signal(Obs& o, Signal s, double v) {
  const float x = static_cast<float>(v);
  switch (s) {
    case Signal::util: o.util_pct = x; break;
    case Signal::copy: o.mem_copy_pct = x; break;
    case Signal::fb_used: o.fb_used_bytes = x; break;
    case Signal::fb_free: o.fb_total_bytes = x; break;
    case Signal::temp: o.temp_c = x; break;
    case Signal::power: o.power_w = x; break;
    case Signal::clock: o.sm_clock_mhz = x; break;
    case Signal::throttle: o.throttle_bits = v; break;
  }
}

// Host series (rooftop_* in both name sets), ratios 0..1, joined to the
// devices by `instance`.
inline constexpr const char* kHostCpuSeries = "rooftop_host_cpu_utilization_ratio";
inline constexpr const char* kHostIowaitSeries = "rooftop_host_cpu_iowait_ratio";

// Labels that carry a device's identity in each name set.
struct IdentityLabels {
  const char* host;
  const char* uuid;
  const char* model;
};
inline constexpr IdentityLabels kDcgmLabels{"Hostname", "UUID", "modelName"};
inline constexpr IdentityLabels kRooftopLabels{"instance", "uuid", "model"};

}  // namespace rooftop::analyze
