// Profiling a trace file directly (no store, no server): the quickest path
// from `rooftop trace synth` to findings, and what the detector tests use.
#include <map>
#include <tuple>

#include "analyze/sources.h"

namespace rooftop::analyze {

Profiles profile_trace(const telemetry::Trace& trace, double start_s) {
  double step = 1;
  for (std::size_t i = 1; i < trace.rows.size(); ++i) {
    if (trace.rows[i].t_s > trace.rows[0].t_s) {
      step = trace.rows[i].t_s - trace.rows[0].t_s;
      break;
    }
  }
  Profiler prof(start_s, start_s + trace.duration_s() + step, step);
  std::map<std::tuple<std::string, int>, int> index;
  std::map<std::string, double> last_host_t;
  auto f = [](const std::optional<double>& v) { return v ? static_cast<float>(*v) : NAN; };
  for (const telemetry::TraceRow& r : trace.rows) {
    auto key = std::make_tuple(r.host, r.gpu);
    auto it = index.find(key);
    if (it == index.end()) it = index.emplace(key, prof.add_device(DeviceKey{r.host, r.gpu, r.uuid, r.model, r.sample.job})).first;
    const telemetry::DeviceSample& x = r.sample;
    Obs o;
    o.t_s = start_s + r.t_s;
    o.util_pct = f(x.gpu_util_pct);
    o.mem_copy_pct = f(x.mem_copy_util_pct);
    o.fb_used_bytes = f(x.fb_used_bytes);
    if (x.fb_used_bytes && x.fb_free_bytes) o.fb_total_bytes = static_cast<float>(*x.fb_used_bytes + *x.fb_free_bytes);
    o.temp_c = f(x.temp_c);
    o.power_w = f(x.power_w);
    o.sm_clock_mhz = f(x.sm_clock_mhz);
    o.throttle_bits = x.throttle_reasons ? static_cast<double>(*x.throttle_reasons) : NAN;
    prof.add(it->second, o);
    // One host reading per host per timestamp.
    auto lh = last_host_t.find(r.host);
    if ((r.host_cpu_pct || r.host_iowait_pct) && (lh == last_host_t.end() || lh->second != r.t_s)) {
      prof.add_host(r.host, o.t_s, f(r.host_cpu_pct), f(r.host_iowait_pct));
      last_host_t[r.host] = r.t_s;
    }
  }
  return prof.finish();
}

}  // namespace rooftop::analyze
