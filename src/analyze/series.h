// The exported series analyze reads (and `trace synth --openmetrics` writes):
// the dcgm-exporter names and the rooftop_* names `rooftop monitor` exports,
// taken from the exporter's own metric table (telemetry/metrics.h), with the
// factor from each to analyze's units (the sample's: %, bytes, MHz), and the
// labels that carry a device's identity in each name set.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

#include "analyze/analyze.h"
#include "telemetry/metrics.h"

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

namespace series_detail {
// The exporter's row for a store column; a column that is not in the table
// does not compile (the throw is reached during constant evaluation).
constexpr const telemetry::DeviceMetric& device_metric(std::string_view column) {
  for (const telemetry::DeviceMetric& m : telemetry::kDeviceMetrics) {
    if (m.column == column) return m;
  }
  throw "no such column in telemetry::kDeviceMetrics";
}
constexpr SeriesName from_table(Signal signal, std::string_view column) {
  const telemetry::DeviceMetric& m = device_metric(column);
  // The table's names and help texts are string literals: data() ends in NUL.
  return {signal, m.dcgm_name.data(), 1 / m.dcgm_scale, m.name.data(), 1 / m.scale, m.dcgm_help.data()};
}
constexpr const char* host_series(std::string_view column) {
  for (const telemetry::HostMetric& m : telemetry::kHostMetrics) {
    if (m.column == column) return m.name.data();
  }
  throw "no such column in telemetry::kHostMetrics";
}
}  // namespace series_detail

inline constexpr SeriesName kDeviceSeries[] = {
    series_detail::from_table(Signal::util, "gpu_util_pct"),
    series_detail::from_table(Signal::copy, "mem_copy_util_pct"),
    series_detail::from_table(Signal::fb_used, "fb_used_bytes"),
    series_detail::from_table(Signal::fb_free, "fb_free_bytes"),
    series_detail::from_table(Signal::temp, "temp_c"),
    series_detail::from_table(Signal::power, "power_w"),
    series_detail::from_table(Signal::clock, "sm_clock_mhz"),
    series_detail::from_table(Signal::throttle, "throttle_reasons"),
};
inline constexpr std::size_t kDeviceSeriesCount = std::size(kDeviceSeries);

constexpr bool series_in_signal_order() {
  for (std::size_t i = 0; i < kDeviceSeriesCount; ++i) {
    if (static_cast<std::size_t>(kDeviceSeries[i].signal) != i) return false;
  }
  return kDeviceSeriesCount == static_cast<std::size_t>(Signal::throttle) + 1;
}
static_assert(series_in_signal_order(), "kDeviceSeries: one row per Signal, in its order");

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
inline constexpr const char* kHostCpuSeries = series_detail::host_series("cpu_busy_pct");
inline constexpr const char* kHostIowaitSeries = series_detail::host_series("cpu_iowait_pct");

// Labels that carry a device's identity in each name set.
struct IdentityLabels {
  const char* host;
  const char* uuid;
  const char* model;
};
inline constexpr IdentityLabels kDcgmLabels{"Hostname", "UUID", "modelName"};
inline constexpr IdentityLabels kRooftopLabels{"instance", "uuid", "model"};

}  // namespace rooftop::analyze
