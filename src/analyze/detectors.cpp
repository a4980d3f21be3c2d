// Detectors: each reads the bucketed profiles and reports findings with
// their evidence, window and estimated waste. Thresholds: docs/analyze.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "analyze/analyze.h"

namespace rooftop::analyze {

namespace {

struct Span {
  std::size_t first = SIZE_MAX, last = 0, count = 0, observed = 0;
  void hit(std::size_t i) {
    first = std::min(first, i);
    last = std::max(last, i);
    ++count;
  }
  double fraction() const { return observed ? static_cast<double>(count) / static_cast<double>(observed) : 0; }
};

Window window_of(const Profiles& p, const Span& s) {
  return Window{p.from_s + static_cast<double>(s.first) * p.bucket_s, p.from_s + static_cast<double>(s.last + 1) * p.bucket_s};
}

double observed_hours(const Profiles& p, const DeviceProfile& d) {
  std::size_t n = 0;
  for (const Bucket& b : d.buckets) n += b.n > 0;
  return static_cast<double>(n) * p.bucket_s / 3600.0;
}

Finding base(const DeviceProfile& d, FindingKind kind, Window w) {
  Finding f;
  f.kind = kind;
  f.device = d.key.id();
  f.job = d.key.job;
  f.ns = d.key.ns;
  f.pod = d.key.pod;
  f.window = w;
  return f;
}

void idle_and_underused(const Profiles& p, const Thresholds& t, std::vector<Finding>& out) {
  for (const DeviceProfile& d : p.devices) {
    double hours = observed_hours(p, d);
    if (hours * 3600 < t.min_window_s) continue;
    double p95 = d.util_percentile(0.95), mean = d.util_mean();
    if (std::isnan(p95)) continue;
    Window w{d.first_s, d.last_s};
    if (p95 < t.idle_util_pct) {
      Finding f = base(d, FindingKind::idle, w);
      f.evidence = {{"util_p95_pct", p95}, {"util_mean_pct", mean}, {"hours", hours}};
      f.summary = fmt::format("{} was idle for {:.1f} h (p95 utilisation {:.0f} %)", f.device, hours, p95);
      f.recommendation = "Release the device or give it to a queue that has work (a scheduler with preemption, "
                         "or a shared inference pool); an idle accelerator still draws idle power.";
      f.wasted_device_hours = hours * (1 - mean / 100);
      out.push_back(std::move(f));
    } else if (p95 < t.underused_p95_pct) {
      Finding f = base(d, FindingKind::underused, w);
      f.evidence = {{"util_p95_pct", p95}, {"util_mean_pct", mean}, {"hours", hours},
                    {"target_util_pct", t.target_util_pct}};
      f.summary = fmt::format("{} ran at {:.0f} % mean, {:.0f} % p95 utilisation over {:.1f} h", f.device, mean, p95, hours);
      f.recommendation = fmt::format(
          "Right-size: this load needs about {:.2f} of this device at {:.0f} % utilisation. Consolidate jobs "
          "onto fewer devices, or move to a smaller or cheaper accelerator.",
          p95 / t.target_util_pct, t.target_util_pct);
      f.wasted_device_hours = hours * std::max(0.0, 1 - mean / t.target_util_pct);
      out.push_back(std::move(f));
    }
  }
}

void io_bound(const Profiles& p, const Thresholds& t, std::vector<Finding>& out) {
  for (const DeviceProfile& d : p.devices) {
    auto host = p.hosts.find(d.key.host);
    if (host == p.hosts.end()) continue;
    Span s;
    double util_sum = 0, cpu_sum = 0, iowait_sum = 0;
    for (std::size_t i = 0; i < d.buckets.size(); ++i) {
      const Bucket& b = d.buckets[i];
      const HostBucket& h = host->second[i];
      if (b.n == 0) continue;
      ++s.observed;
      float cpu = h.cpu_n ? h.cpu_sum / static_cast<float>(h.cpu_n) : NAN;
      float iowait = h.iowait_n ? h.iowait_sum / static_cast<float>(h.iowait_n) : NAN;
      bool host_busy = (!std::isnan(cpu) && cpu >= t.io_cpu_pct) || (!std::isnan(iowait) && iowait >= t.io_iowait_pct);
      if (host_busy && b.util_mean() < t.io_util_pct) {
        s.hit(i);
        util_sum += b.util_mean();
        cpu_sum += std::isnan(cpu) ? 0 : cpu;
        iowait_sum += std::isnan(iowait) ? 0 : iowait;
      }
    }
    if (s.count == 0 || s.fraction() < t.io_min_fraction) continue;
    double hours = static_cast<double>(s.count) * p.bucket_s / 3600;
    if (hours * 3600 < t.min_window_s) continue;
    double n = static_cast<double>(s.count);
    Finding f = base(d, FindingKind::io_bound, window_of(p, s));
    f.evidence = {{"util_mean_pct", util_sum / n}, {"host_cpu_mean_pct", cpu_sum / n},
                  {"host_iowait_mean_pct", iowait_sum / n}, {"fraction_of_window", s.fraction()}, {"hours", hours}};
    f.summary = fmt::format("{} waited on its input pipeline {:.0f} % of the time: utilisation {:.0f} % while the host "
                            "CPU was {:.0f} % busy and iowait {:.0f} %",
                            f.device, 100 * s.fraction(), util_sum / n, cpu_sum / n, iowait_sum / n);
    f.recommendation = "Feed the device faster: more DataLoader workers (num_workers), pinned memory "
                       "(pin_memory=True), prefetching (prefetch_factor), decode/augment on the accelerator, and a "
                       "local cache for small files (e.g. Alluxio or node-local NVMe) when iowait is high.";
    f.wasted_device_hours = hours * (1 - util_sum / n / 100);
    out.push_back(std::move(f));
  }
}

void memory(const Profiles& p, const Thresholds& t, std::vector<Finding>& out) {
  for (const DeviceProfile& d : p.devices) {
    Span pressure;
    float peak = NAN;
    double busy_util = 0;
    std::size_t util_buckets = 0;
    for (std::size_t i = 0; i < d.buckets.size(); ++i) {
      const Bucket& b = d.buckets[i];
      if (b.n) {
        busy_util += b.util_mean();
        ++util_buckets;
      }
      if (b.mem_n == 0) continue;
      ++pressure.observed;
      peak = std::isnan(peak) ? b.mem_frac_max : std::max(peak, b.mem_frac_max);
      if (b.mem_frac_max >= t.mem_pressure_frac) pressure.hit(i);
    }
    if (pressure.observed == 0) continue;
    double hours = static_cast<double>(pressure.observed) * p.bucket_s / 3600;
    if (hours * 3600 < t.min_window_s) continue;
    double mean_util = util_buckets ? busy_util / static_cast<double>(util_buckets) : 0;
    if (pressure.count > 0 && pressure.fraction() >= t.mem_pressure_min_fraction) {
      Finding f = base(d, FindingKind::memory_pressure, window_of(p, pressure));
      f.evidence = {{"memory_used_peak_frac", peak}, {"fraction_of_window", pressure.fraction()}, {"hours", hours}};
      f.summary = fmt::format("{} ran with memory over {:.0f} % full for {:.0f} % of the time (peak {:.1f} %)", f.device,
                              100 * t.mem_pressure_frac, 100 * pressure.fraction(), 100 * peak);
      f.recommendation = "Out-of-memory risk: lower the batch size or sequence length, enable activation "
                         "checkpointing, shard weights/optimizer state (ZeRO/FSDP), or move to a device with more memory.";
      f.wasted_device_hours = 0;
      out.push_back(std::move(f));
    } else if (peak < t.mem_headroom_frac && mean_util >= t.mem_headroom_min_util_pct) {
      Finding f = base(d, FindingKind::memory_headroom, Window{d.first_s, d.last_s});
      f.evidence = {{"memory_used_peak_frac", peak}, {"util_mean_pct", mean_util}, {"hours", hours}};
      f.summary = fmt::format("{} never used more than {:.0f} % of its memory while {:.0f} % busy", f.device, 100 * peak,
                              mean_util);
      f.recommendation = fmt::format("Room for a larger batch (about {:.1f}x the activations) for better throughput per "
                                     "device, or for a smaller-memory (cheaper) accelerator.",
                                     std::max(1.0, 0.9 / std::max(peak, 0.01f)));
      f.wasted_device_hours = 0;
      out.push_back(std::move(f));
    }
  }
}

void throttling(const Profiles& p, const Thresholds& t, std::vector<Finding>& out) {
  for (const DeviceProfile& d : p.devices) {
    std::vector<float> busy_clocks;
    std::uint64_t busy_samples = 0, throttled_samples = 0;
    for (const Bucket& b : d.buckets) {
      busy_samples += b.busy_n;
      throttled_samples += std::min(b.throttle_n, b.n);
      if (b.busy_n * 2 >= b.n && b.n && b.clock_n) busy_clocks.push_back(b.clock_sum / static_cast<float>(b.clock_n));
    }
    if (busy_samples == 0) continue;
    float ref_clock = NAN;
    if (!busy_clocks.empty()) {
      std::size_t k = busy_clocks.size() * 9 / 10;
      std::nth_element(busy_clocks.begin(), busy_clocks.begin() + static_cast<long>(k), busy_clocks.end());
      ref_clock = busy_clocks[k];
    }
    Span s;
    float temp_peak = NAN;
    double clock_sum = 0;
    for (std::size_t i = 0; i < d.buckets.size(); ++i) {
      const Bucket& b = d.buckets[i];
      if (b.busy_n == 0) continue;
      ++s.observed;
      bool reasons = b.throttle_n * 2 >= b.n;
      float clock = b.clock_n ? b.clock_sum / static_cast<float>(b.clock_n) : NAN;
      bool hot = !std::isnan(b.temp_max) && b.temp_max >= t.throttle_temp_c;
      bool capped = d.power_limit_w && !std::isnan(b.power_max) && b.power_max >= t.throttle_power_frac * *d.power_limit_w;
      bool slow = !std::isnan(clock) && !std::isnan(ref_clock) && clock < t.throttle_clock_ratio * ref_clock && (hot || capped);
      if (reasons || slow) {
        s.hit(i);
        clock_sum += std::isnan(clock) ? 0 : clock;
        if (!std::isnan(b.temp_max)) temp_peak = std::isnan(temp_peak) ? b.temp_max : std::max(temp_peak, b.temp_max);
      }
    }
    if (s.count == 0 || s.fraction() < t.throttle_min_fraction) continue;
    double hours = static_cast<double>(s.count) * p.bucket_s / 3600;
    if (hours * 3600 < t.min_window_s) continue;
    double clock_mean = clock_sum / static_cast<double>(s.count);
    double loss = std::isnan(ref_clock) || ref_clock <= 0 ? 0.1 : std::max(0.0, 1 - clock_mean / ref_clock);
    Finding f = base(d, FindingKind::throttling, window_of(p, s));
    f.evidence = {{"fraction_of_busy_time", s.fraction()}, {"sm_clock_mean_mhz", clock_mean},
                  {"sm_clock_reference_mhz", std::isnan(ref_clock) ? 0 : ref_clock},
                  {"temp_peak_c", std::isnan(temp_peak) ? 0 : temp_peak}, {"hours", hours},
                  {"throttled_sample_fraction", static_cast<double>(throttled_samples) / static_cast<double>(busy_samples)}};
    f.summary = fmt::format("{} was throttled {:.0f} % of its busy time: SM clock {:.0f} MHz vs {:.0f} MHz, peak {:.0f} C",
                            f.device, 100 * s.fraction(), clock_mean, std::isnan(ref_clock) ? 0 : ref_clock,
                            std::isnan(temp_peak) ? 0 : temp_peak);
    f.recommendation = "Clocks are held down by temperature or the power cap: check airflow, fan curves and inlet "
                       "temperature (liquid cooling for dense racks), and whether a lowered power limit is intended.";
    f.wasted_device_hours = hours * loss;
    out.push_back(std::move(f));
  }
}

void stragglers(const Profiles& p, const Thresholds& t, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const DeviceProfile*>> groups;
  for (const DeviceProfile& d : p.devices) groups[d.key.job.empty() ? "host:" + d.key.host : "job:" + d.key.job].push_back(&d);
  for (const auto& [group, devs] : groups) {
    if (devs.size() < 3) continue;  // with two devices neither is "the odd one"
    std::size_t nb = devs.front()->buckets.size();
    for (std::size_t k = 0; k < devs.size(); ++k) {
      // An idle or under-used device is reported as such, not as a straggler.
      if (!(devs[k]->util_percentile(0.95) >= t.underused_p95_pct)) continue;
      Span below, above;
      double gap_sum = 0, clock_gap_sum = 0;
      std::size_t active = 0, clock_n = 0;
      for (std::size_t i = 0; i < nb; ++i) {
        std::vector<float> peers;
        for (std::size_t j = 0; j < devs.size(); ++j) {
          if (j != k && devs[j]->buckets[i].n) peers.push_back(devs[j]->buckets[i].util_mean());
        }
        const Bucket& b = devs[k]->buckets[i];
        if (peers.size() < 2 || b.n == 0) continue;
        std::nth_element(peers.begin(), peers.begin() + static_cast<long>(peers.size() / 2), peers.end());
        float median = peers[peers.size() / 2];
        if (std::max(median, b.util_mean()) < 20) continue;  // the job is not running
        ++active;
        float gap = b.util_mean() - median;
        gap_sum += gap;
        if (gap <= -t.straggler_gap_pct) below.hit(i);
        if (gap >= t.straggler_gap_pct) above.hit(i);
        float peer_clock = 0;
        int peer_clock_n = 0;
        for (std::size_t j = 0; j < devs.size(); ++j) {
          const Bucket& pb = devs[j]->buckets[i];
          if (j != k && pb.clock_n) {
            peer_clock += pb.clock_sum / static_cast<float>(pb.clock_n);
            ++peer_clock_n;
          }
        }
        if (b.clock_n && peer_clock_n) {
          clock_gap_sum += b.clock_sum / static_cast<float>(b.clock_n) - peer_clock / static_cast<float>(peer_clock_n);
          ++clock_n;
        }
      }
      if (active == 0) continue;
      below.observed = above.observed = active;
      const Span& s = below.count >= above.count ? below : above;
      if (s.count == 0 || s.fraction() < t.straggler_min_fraction) continue;
      double hours = static_cast<double>(active) * p.bucket_s / 3600;
      if (hours * 3600 < t.min_window_s) continue;
      double gap = gap_sum / static_cast<double>(active);
      const DeviceProfile& d = *devs[k];
      Finding f = base(d, FindingKind::straggler, window_of(p, s));
      f.evidence = {{"util_gap_to_peers_pct", gap}, {"fraction_of_active_time", s.fraction()},
                    {"peers", static_cast<double>(devs.size() - 1)}, {"hours", hours}};
      if (clock_n) f.evidence.emplace_back("sm_clock_gap_to_peers_mhz", clock_gap_sum / static_cast<double>(clock_n));
      std::string who = group.substr(group.find(':') + 1);
      if (gap < 0) {
        f.summary = fmt::format("{} trails its {} peers in {} by {:.0f} utilisation points {:.0f} % of the time", f.device,
                                devs.size() - 1, who, -gap, 100 * s.fraction());
        f.recommendation = "A starved worker holds back every synchronous step: check its host's input pipeline, "
                           "NUMA placement and network; rebalance data shards or use dynamic batch sizes per worker.";
      } else {
        f.summary = fmt::format("{} is busier than its {} peers in {} by {:.0f} points {:.0f} % of the time: the others "
                                "wait for it",
                                f.device, devs.size() - 1, who, gap, 100 * s.fraction());
        f.recommendation = "A slow device (throttled, degraded link or ECC retirements) makes its peers wait at every "
                           "all-reduce: check its clocks and temperature, drain it, or rebalance work toward faster peers.";
      }
      f.wasted_device_hours = hours * static_cast<double>(devs.size() - 1) * std::fabs(gap) / 100;
      out.push_back(std::move(f));
    }
  }
}

}  // namespace

std::vector<Finding> detect(const Profiles& p, const Thresholds& t) {
  std::vector<Finding> out;
  idle_and_underused(p, t, out);
  io_bound(p, t, out);
  memory(p, t, out);
  throttling(p, t, out);
  stragglers(p, t, out);
  // Name the workload where the series carry it.
  for (Finding& f : out) {
    if (!f.pod.empty())
      f.summary = fmt::format("{}pod {}: {}", f.ns.empty() ? "" : "namespace " + f.ns + ", ", f.pod, f.summary);
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.wasted_device_hours != b.wasted_device_hours) return a.wasted_device_hours > b.wasted_device_hours;
    if (a.kind != b.kind) return to_string(a.kind) < to_string(b.kind);
    return a.device < b.device;
  });
  return out;
}

}  // namespace rooftop::analyze
