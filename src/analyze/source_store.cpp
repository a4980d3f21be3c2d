// Reading the monitor's SQLite history into profiles.
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>
#include <set>

#include "analyze/sources.h"
#include "core/text.h"
#include "telemetry/store.h"

namespace rooftop::analyze {

Result<Matcher> parse_matcher(const std::string& text) {
  Matcher m;
  std::string t = trim(text);
  if (!t.empty() && t.front() == '{' && t.back() == '}') t = t.substr(1, t.size() - 2);
  for (const std::string& part : split(t, ',')) {
    std::string p = trim(part);
    if (p.empty()) continue;
    std::size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(Errc::invalid_input, "expected label=value pairs separated by commas, got '" + p + "'", "--match");
    std::string v = trim(p.substr(eq + 1));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    m.labels[trim(p.substr(0, eq))] = v;
  }
  return m;
}

std::string format_time(double unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<double> parse_time(const std::string& text) {
  if (std::optional<double> v = parse_double(text)) return *v;
  std::tm tm{};
  std::string t = text;
  if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.pop_back();
  for (const char* fmt : {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    tm = std::tm{};
    const char* end = strptime(t.c_str(), fmt, &tm);
    if (end && *end == '\0') return static_cast<double>(timegm(&tm));
  }
  return make_error(Errc::invalid_input,
                    "expected a time as Unix seconds or ISO 8601 (2026-11-30T12:00:00Z), got '" + text + "'");
}

namespace {
const std::set<std::string> kStoreLabels = {"host", "gpu", "job", "uuid", "model"};

bool matches(const Matcher& m, const telemetry::StoredDevice& d) {
  for (const auto& [k, v] : m.labels) {
    if (k == "host" && d.host != v) return false;
    if (k == "gpu" && std::to_string(d.index) != v) return false;
    if (k == "uuid" && d.uuid != v) return false;
    if (k == "model" && d.model != v) return false;
  }
  return true;
}

float f(const std::optional<double>& v) { return v ? static_cast<float>(*v) : NAN; }
}  // namespace

Result<Profiles> profile_store(const std::string& db_path, const TimeRange& range, const Matcher& match,
                               const ProgressFn& progress) {
  for (const auto& [k, v] : match.labels) {
    if (!kStoreLabels.count(k))
      return make_error(Errc::invalid_input, "unknown label '" + k + "' (the store knows host, gpu, job, uuid, model)",
                        "--match");
  }
  if (!std::filesystem::exists(db_path))
    return make_error(Errc::not_found, "no such file (write one with `rooftop monitor --db FILE`)", db_path);
  Result<std::unique_ptr<telemetry::Store>> store = telemetry::Store::open_read_only(db_path);
  if (!store) return make_error(store.error());
  Result<std::vector<telemetry::StoredDevice>> devices = (*store)->devices();
  if (!devices) return make_error(devices.error());
  std::vector<telemetry::StoredDevice> chosen;
  for (const telemetry::StoredDevice& d : *devices) {
    if (matches(match, d)) chosen.push_back(d);
  }
  if (chosen.empty())
    return make_error(Errc::invalid_input, devices->empty() ? "the store holds no devices" : "no device matches --match",
                      db_path);
  double from = range.from_s.value_or(-std::numeric_limits<double>::infinity());
  double to = range.to_s.value_or(std::numeric_limits<double>::infinity());
  if (!range.from_s || !range.to_s) {
    // The window is the history itself: find its extent first.
    Result<std::pair<double, double>> extent = (*store)->time_range();
    if (!extent) return make_error(extent.error());
    if (!range.from_s) from = extent->first;
    if (!range.to_s) to = extent->second + 1e-3;
  }
  if (!(to > from)) return make_error(Errc::invalid_input, "the time window is empty", db_path);

  // The sampling step of the first device decides the bucket width.
  double step = 1;
  {
    std::vector<double> ts;
    Result<void> r = (*store)->scan(chosen.front().id, from, to, [&](const telemetry::StoredSample& s) {
      if (ts.size() < 64) ts.push_back(s.step_s);
    });
    if (!r) return make_error(r.error());
    if (!ts.empty()) step = std::max(1e-3, ts[ts.size() / 2]);
  }
  Profiler prof(from, to, step);
  std::set<std::string> hosts;
  std::uint64_t points = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const telemetry::StoredDevice& d = chosen[i];
    if (progress) progress(static_cast<double>(i) / static_cast<double>(chosen.size() + 1), d.host + " gpu " + std::to_string(d.index));
    DeviceKey key{d.host, d.index, d.uuid, d.model, ""};
    int idx = -1;
    std::string job_filter = match.labels.count("job") ? match.labels.at("job") : "";
    bool job_known = false;
    Result<void> r = (*store)->scan(d.id, from, to, [&](const telemetry::StoredSample& s) {
      if (!job_filter.empty() && s.sample.job != job_filter) return;
      if (idx < 0) {
        key.job = s.sample.job;
        idx = prof.add_device(key);
      }
      if (!job_known && !s.sample.job.empty()) job_known = true;
      const telemetry::DeviceSample& x = s.sample;
      Obs o;
      o.t_s = s.time_s;
      o.util_pct = f(x.gpu_util_pct);
      o.mem_copy_pct = f(x.mem_copy_util_pct);
      o.fb_used_bytes = f(x.fb_used_bytes);
      if (x.fb_used_bytes && x.fb_free_bytes) o.fb_total_bytes = static_cast<float>(*x.fb_used_bytes + *x.fb_free_bytes);
      else if (d.mem_total_bytes) o.fb_total_bytes = static_cast<float>(*d.mem_total_bytes);
      o.temp_c = f(x.temp_c);
      o.power_w = f(x.power_w);
      o.sm_clock_mhz = f(x.sm_clock_mhz);
      o.throttle_bits = x.throttle_reasons ? static_cast<double>(*x.throttle_reasons) : NAN;
      prof.add(idx, o);
      ++points;
    });
    if (!r) return make_error(r.error());
    if (idx >= 0) hosts.insert(d.host);
  }
  for (const std::string& h : hosts) {
    Result<std::vector<telemetry::StoredHostSample>> hs = (*store)->query_host(h, from, to);
    if (!hs) return make_error(hs.error());
    for (const telemetry::StoredHostSample& s : *hs) prof.add_host(h, s.time_s, f(s.host.cpu_busy_pct), f(s.host.cpu_iowait_pct));
  }
  if (points == 0)
    return make_error(Errc::invalid_input,
                      "no samples in the window " + format_time(from) + " .. " + format_time(to), db_path);
  if (progress) progress(1.0, "profiled");
  return prof.finish();
}

}  // namespace rooftop::analyze
