// Reading the monitor's SQLite history into profiles.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
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

  Result<std::map<std::int64_t, std::string>> job_names = (*store)->jobs();
  if (!job_names) return make_error(job_names.error());
  std::optional<std::int64_t> job_filter;
  if (match.labels.count("job")) {
    job_filter = -1;  // a name the store never saw matches no row
    for (const auto& [id, name] : *job_names) {
      if (name == match.labels.at("job")) job_filter = id;
    }
  }
  auto job_name = [&](std::int64_t id) {
    auto it = job_names->find(id);
    return it == job_names->end() ? std::string() : it->second;
  };

  // Each chosen device's first row in the window: it decides whether the
  // device is profiled, its job label, and (first device) the bucket width.
  std::vector<int> slot(chosen.size(), -1);
  double step = 0;
  std::vector<std::pair<std::size_t, std::int64_t>> present;  // (chosen index, job id)
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    Result<std::vector<telemetry::RowHead>> head = (*store)->head(chosen[i].id, from, to, job_filter, step > 0 ? 1 : 64);
    if (!head) return make_error(head.error());
    if (head->empty()) continue;
    if (step <= 0) {
      std::vector<double> steps;
      for (const telemetry::RowHead& h : *head) steps.push_back(h.step_s);
      std::nth_element(steps.begin(), steps.begin() + static_cast<long>(steps.size() / 2), steps.end());
      step = std::max(1e-3, steps[steps.size() / 2]);
    }
    present.emplace_back(i, head->front().job_id);
  }
  if (present.empty())
    return make_error(Errc::invalid_input,
                      "no samples in the window " + format_time(from) + " .. " + format_time(to), db_path);
  Profiler prof(from, to, step);
  std::set<std::string> hosts;
  for (const auto& [i, job] : present) {
    const telemetry::StoredDevice& d = chosen[i];
    slot[i] = prof.add_device(DeviceKey{d.host, d.index, d.uuid, d.model, job_name(job)});
    hosts.insert(d.host);
  }

  // Devices (then hosts) are read in parallel, one SQLite connection per
  // reader thread; the profiler takes whole batches under a lock (it is
  // ~10x faster than reading, so the readers rarely wait on it).
  const std::vector<std::string> host_list(hosts.begin(), hosts.end());
  const std::size_t tasks = present.size() + host_list.size();
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::optional<Error> failure;
  std::uint64_t points = 0;
  auto reader = [&](telemetry::Store* own) {
    std::unique_ptr<telemetry::Store> conn;
    if (!own) {
      Result<std::unique_ptr<telemetry::Store>> c = telemetry::Store::open_read_only(db_path);
      if (!c) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = c.error();
        return;
      }
      conn = std::move(*c);
      own = conn.get();
    }
    std::vector<Obs> obs;
    for (std::size_t k; (k = next.fetch_add(1)) < tasks;) {
      Result<void> r;
      std::string what;
      if (k >= present.size()) {
        const std::string& h = host_list[k - present.size()];
        what = h + " host";
        r = own->scan_host_rows(h, from, to, [&](const telemetry::HostRow* rows, std::size_t n) {
          std::lock_guard<std::mutex> lock(mu);
          for (std::size_t j = 0; j < n; ++j)
            prof.add_host(h, rows[j].time_s, static_cast<float>(rows[j].cpu_busy_pct),
                               static_cast<float>(rows[j].cpu_iowait_pct));
        });
      } else {
        const std::size_t i = present[k].first;
        const telemetry::StoredDevice& d = chosen[i];
        what = d.host + " gpu " + std::to_string(d.index);
        const float mem_total = d.mem_total_bytes ? static_cast<float>(*d.mem_total_bytes) : NAN;
        r = own->scan_rows(
            d.id, from, to,
            [&](const telemetry::SampleRow* rows, std::size_t n) {
              obs.resize(n);
              for (std::size_t j = 0; j < n; ++j) {
                const telemetry::SampleRow& x = rows[j];
                Obs& o = obs[j];
                o.t_s = x.time_s;
                o.util_pct = static_cast<float>(x.gpu_util_pct);
                o.mem_copy_pct = static_cast<float>(x.mem_copy_util_pct);
                o.fb_used_bytes = static_cast<float>(x.fb_used_bytes);
                o.fb_total_bytes = !std::isnan(x.fb_used_bytes) && !std::isnan(x.fb_free_bytes)
                                       ? static_cast<float>(x.fb_used_bytes + x.fb_free_bytes)
                                       : mem_total;
                o.temp_c = static_cast<float>(x.temp_c);
                o.power_w = static_cast<float>(x.power_w);
                o.sm_clock_mhz = static_cast<float>(x.sm_clock_mhz);
                o.throttle_bits = x.throttle_reasons;
              }
              std::lock_guard<std::mutex> lock(mu);
              for (const Obs& o : obs) prof.add(slot[i], o);
              points += n;
            },
            job_filter);
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!r && !failure) failure = r.error();
      ++done;
      if (progress) progress(static_cast<double>(done) / static_cast<double>(tasks + 1), what);
    }
  };
  const unsigned threads =
      static_cast<unsigned>(std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::min<std::size_t>(tasks, 8)));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(reader, nullptr);
    reader(store->get());
  }
  if (failure) return make_error(*failure);
  if (points == 0)
    return make_error(Errc::invalid_input,
                      "no samples in the window " + format_time(from) + " .. " + format_time(to), db_path);
  if (progress) progress(1.0, "profiled");
  return prof.finish();
}

}  // namespace rooftop::analyze
