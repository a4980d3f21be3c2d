// fake backend: replays a trace file (telemetry.h, docs/monitor.md) as if
// its devices were present, so the exporter, the store, `rooftop top` and
// `rooftop analyze` can be tested without hardware.
//
// Time: the replay position is (now - open time) modulo the trace period
// (the last timestamp plus one step), so a monitor replays the trace in a
// loop. Each device shows its latest row at or before that position. The
// energy counter keeps rising across loops so it stays a valid counter.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "telemetry/backends/backends.h"

namespace rooftop::telemetry {
namespace {

class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string path, std::function<double()> clock) : path_(std::move(path)), clock_(std::move(clock)) {
    if (!clock_) {
      clock_ = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      };
    }
  }

  std::string name() const override { return "fake"; }

  Result<std::vector<DeviceInfo>> open() override {
    auto trace = load_trace(path_);
    if (!trace) return make_error(trace.error());
    trace_ = std::move(*trace);
    std::map<std::pair<std::string, int>, std::size_t> seen;
    std::vector<DeviceInfo> infos;
    std::vector<double> times;
    for (std::size_t i = 0; i < trace_.rows.size(); ++i) {
      const TraceRow& r = trace_.rows[i];
      times.push_back(r.t_s);
      auto [it, fresh] = seen.emplace(std::make_pair(r.host, r.gpu), rows_.size());
      if (fresh) {
        rows_.emplace_back();
        DeviceInfo d;
        d.backend = "fake";
        d.index = r.gpu;
        d.uuid = r.uuid;
        d.model = r.model.empty() ? "fake device" : r.model;
        d.device = fmt::format("fake{}", r.gpu);
        d.host = r.host;
        if (r.sample.fb_used_bytes && r.sample.fb_free_bytes)
          d.mem_total_bytes = *r.sample.fb_used_bytes + *r.sample.fb_free_bytes;
        infos.push_back(std::move(d));
      }
      rows_[it->second].push_back(i);
    }
    // One step after the last timestamp, so the last row plays as long as the others.
    times.erase(std::unique(times.begin(), times.end()), times.end());
    double step = 1;
    for (std::size_t i = 1; i < times.size(); ++i) step = std::min(step, times[i] - times[i - 1]);
    period_s_ = trace_.duration_s() + step;
    start_s_ = clock_();
    return infos;
  }

  DeviceSample sample(int device) override {
    if (device < 0 || static_cast<std::size_t>(device) >= rows_.size()) return {};
    const auto& idx = rows_[static_cast<std::size_t>(device)];
    const auto [loops, pos] = position();
    std::size_t pick = idx.front();
    for (std::size_t i : idx) {
      if (trace_.rows[i].t_s <= pos) pick = i;
    }
    DeviceSample s = trace_.rows[pick].sample;
    const auto& first = trace_.rows[idx.front()].sample.energy_j;
    const auto& last = trace_.rows[idx.back()].sample.energy_j;
    if (s.energy_j && first && last) s.energy_j = *s.energy_j + loops * (*last - *first);
    return s;
  }

  std::optional<HostSample> sample_host() override {
    if (trace_.rows.empty()) return std::nullopt;
    const double pos = position().second;
    const TraceRow* pick = &trace_.rows.front();
    for (const TraceRow& r : trace_.rows) {
      if (r.t_s <= pos && (r.host_cpu_pct || r.host_iowait_pct)) pick = &r;
    }
    if (!pick->host_cpu_pct && !pick->host_iowait_pct) return std::nullopt;
    HostSample h;
    h.host = pick->host;
    h.cpu_busy_pct = pick->host_cpu_pct;
    h.cpu_iowait_pct = pick->host_iowait_pct;
    return h;
  }

 private:
  // (completed loops, position within the current loop in seconds)
  std::pair<double, double> position() const {
    const double elapsed = std::max(0.0, clock_() - start_s_);
    const double loops = std::floor(elapsed / period_s_);
    return {loops, elapsed - loops * period_s_};
  }

  std::string path_;
  std::function<double()> clock_;
  Trace trace_;
  std::vector<std::vector<std::size_t>> rows_;  // row indices per device, by time
  double period_s_ = 1;
  double start_s_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_fake_backend(const std::string& trace_path, std::function<double()> clock_s) {
  return std::make_unique<FakeBackend>(trace_path, std::move(clock_s));
}

}  // namespace rooftop::telemetry
