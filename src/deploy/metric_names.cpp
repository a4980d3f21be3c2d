// The names deploy's rules and dashboard use, looked up in telemetry's
// metric table (telemetry/metrics.h) by the sample column they measure.
#include "deploy/metric_names.h"

#include "telemetry/metrics.h"

namespace rooftop::deploy {
namespace {

MetricNames names_of(telemetry::Names set) {
  auto name = [set](std::string_view column) {
    const telemetry::DeviceMetric* m = telemetry::device_metric(column);
    return m ? std::string(telemetry::metric_name(*m, set)) : std::string();
  };
  const telemetry::DeviceMetric* util = telemetry::device_metric("gpu_util_pct");
  MetricNames n;
  n.gpu_util = name("gpu_util_pct");
  // The value that means 100 %: the sample's 100 % in the name set's unit.
  n.util_full_scale = 100 * (set == telemetry::Names::dcgm ? util->dcgm_scale : util->scale);
  n.mem_copy_util = name("mem_copy_util_pct");
  n.fb_used = name("fb_used_bytes");
  n.fb_free = name("fb_free_bytes");
  n.temp = name("temp_c");
  n.power = name("power_w");
  n.sm_clock = name("sm_clock_mhz");
  n.throttle_reasons = name("throttle_reasons");
  n.xid = name("xid");
  n.ecc_dbe = name("ecc_uncorrected_total");
  n.remapped_rows_uncorrectable = name("remapped_rows_uncorrectable");
  n.row_remap_failure = name("row_remap_failure");
  n.host_label = std::string(telemetry::host_label(set));
  return n;
}

}  // namespace

const MetricNames& metric_names(bool rooftop_names) {
  static const MetricNames kDcgm = names_of(telemetry::Names::dcgm);
  static const MetricNames kRooftop = names_of(telemetry::Names::rooftop);
  return rooftop_names ? kRooftop : kDcgm;
}

}  // namespace rooftop::deploy
