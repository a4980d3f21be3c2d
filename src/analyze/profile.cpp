// The Profiler: one pass over raw points into per-device time buckets and
// exact utilisation histograms, so detectors never hold raw series.
#include <algorithm>
#include <cmath>

#include "analyze/analyze.h"

namespace rooftop::analyze {

namespace {
// NVML clocks-event reasons that mean "held down": SW power cap (0x4), HW
// slowdown (0x8), SW thermal (0x20), HW thermal (0x40), HW power brake (0x80).
constexpr std::uint64_t kThrottleMask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
}  // namespace

double choose_bucket_s(double duration_s, double step_s) {
  static const double kNice[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 86400};
  double want = std::max(5 * std::max(step_s, 1e-3), duration_s / 720);
  for (double v : kNice) {
    if (v >= want) return v;
  }
  // Past two years of window: whole days, so the buckets stay ~720.
  return std::isfinite(want) ? std::ceil(want / 86400) * 86400 : 86400;
}

Profiler::Profiler(double from_s, double to_s, double step_s) {
  p_.from_s = from_s;
  p_.to_s = std::max(to_s, from_s + step_s);
  bucket_s_ = choose_bucket_s(p_.to_s - p_.from_s, step_s);
  p_.bucket_s = bucket_s_;
}

std::size_t Profiler::index(double t_s) const {
  double i = std::floor((t_s - p_.from_s) / bucket_s_);
  std::size_t n = static_cast<std::size_t>(std::ceil((p_.to_s - p_.from_s) / bucket_s_));
  if (i < 0) return 0;
  return std::min(static_cast<std::size_t>(i), n ? n - 1 : 0);
}

int Profiler::add_device(const DeviceKey& key, std::optional<double> power_limit_w) {
  DeviceProfile d;
  d.key = key;
  d.buckets.resize(static_cast<std::size_t>(std::ceil((p_.to_s - p_.from_s) / bucket_s_)));
  d.util_hist.assign(101, 0);
  d.power_limit_w = power_limit_w;
  p_.devices.push_back(std::move(d));
  last_t_.push_back(NAN);
  gaps_.emplace_back();
  return static_cast<int>(p_.devices.size() - 1);
}

void Profiler::add(int device, const Obs& o) {
  if (o.t_s < p_.from_s || o.t_s >= p_.to_s) return;
  DeviceProfile& d = p_.devices[static_cast<std::size_t>(device)];
  Bucket& b = d.buckets[index(o.t_s)];
  ++p_.points;
  double& last = last_t_[static_cast<std::size_t>(device)];
  if (!std::isnan(last) && gaps_[static_cast<std::size_t>(device)].size() < 4096) {
    gaps_[static_cast<std::size_t>(device)].push_back(static_cast<float>(o.t_s - last));
  }
  last = o.t_s;
  if (d.samples == 0) d.first_s = o.t_s;
  d.last_s = o.t_s;
  ++d.samples;
  if (!std::isnan(o.util_pct)) {
    float u = std::clamp(o.util_pct, 0.0f, 100.0f);
    ++b.n;
    b.util_sum += u;
    b.util_min = std::min(b.util_min, u);
    b.util_max = std::max(b.util_max, u);
    if (u >= 50) ++b.busy_n;
    ++d.util_hist[static_cast<std::size_t>(std::lround(u))];
  }
  if (!std::isnan(o.mem_copy_pct)) {
    b.copy_sum += o.mem_copy_pct;
    ++b.copy_n;
  }
  if (!std::isnan(o.fb_used_bytes) && !std::isnan(o.fb_total_bytes) && o.fb_total_bytes > 0) {
    float f = o.fb_used_bytes / o.fb_total_bytes;
    b.mem_frac_max = std::isnan(b.mem_frac_max) ? f : std::max(b.mem_frac_max, f);
    b.mem_frac_sum += f;
    ++b.mem_n;
  }
  if (!std::isnan(o.temp_c)) b.temp_max = std::isnan(b.temp_max) ? o.temp_c : std::max(b.temp_max, o.temp_c);
  if (!std::isnan(o.power_w)) {
    b.power_max = std::isnan(b.power_max) ? o.power_w : std::max(b.power_max, o.power_w);
    b.power_sum += o.power_w;
    ++b.power_n;
  }
  if (!std::isnan(o.sm_clock_mhz)) {
    b.clock_sum += o.sm_clock_mhz;
    ++b.clock_n;
  }
  if (!std::isnan(o.throttle_bits) && o.throttle_bits >= 0 &&
      (static_cast<std::uint64_t>(o.throttle_bits) & kThrottleMask) != 0) {
    ++b.throttle_n;
  }
}

void Profiler::add_host(const std::string& host, double t_s, float cpu_pct, float iowait_pct) {
  if (t_s < p_.from_s || t_s >= p_.to_s) return;
  std::vector<HostBucket>& hb = p_.hosts[host];
  if (hb.empty()) hb.resize(static_cast<std::size_t>(std::ceil((p_.to_s - p_.from_s) / bucket_s_)));
  HostBucket& b = hb[index(t_s)];
  ++b.n;
  if (!std::isnan(cpu_pct)) {
    b.cpu_sum += cpu_pct;
    ++b.cpu_n;
  }
  if (!std::isnan(iowait_pct)) {
    b.iowait_sum += iowait_pct;
    ++b.iowait_n;
  }
}

Profiles Profiler::finish() {
  for (std::size_t i = 0; i < p_.devices.size(); ++i) {
    std::vector<float>& g = gaps_[i];
    if (!g.empty()) {
      std::nth_element(g.begin(), g.begin() + static_cast<long>(g.size() / 2), g.end());
      p_.devices[i].step_s = g[g.size() / 2];
    }
  }
  return std::move(p_);
}

double DeviceProfile::util_percentile(double q) const {
  std::uint64_t total = 0;
  for (std::uint64_t c : util_hist) total += c;
  if (total == 0) return NAN;
  double rank = q * static_cast<double>(total);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < util_hist.size(); ++i) {
    seen += util_hist[i];
    if (static_cast<double>(seen) >= rank) return static_cast<double>(i);
  }
  return 100;
}

double DeviceProfile::util_mean() const {
  double sum = 0;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < util_hist.size(); ++i) {
    sum += static_cast<double>(i) * static_cast<double>(util_hist[i]);
    total += util_hist[i];
  }
  return total ? sum / static_cast<double>(total) : NAN;
}

}  // namespace rooftop::analyze
