// Behaviour models for each planted problem (docs/analyze.md, "Synthetic
// traces"): healthy devices sit near 88 % utilisation with 75 % memory in use;
// each problem changes only the signals its detector looks at.
#include "analyze/synth.h"
#include "analyze/synth_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/text.h"

namespace rooftop::analyze {

namespace {

struct Plan {
  std::string kind;  // behaviour of this device
  std::string host;
  std::string job;
};

double clampd(double v, double lo, double hi) { return std::max(lo, std::min(hi, v)); }

}  // namespace

// One sample of a device behaving as `kind` at t seconds.
void synth_sample(const std::string& kind, double t, const SynthOptions& o, SynthGen& g, telemetry::TraceRow& r) {
  double util = 0, copy = 0, mem = 0.75, temp = 66, power = 0.72 * o.power_limit_w, clock = o.sm_clock_max_mhz;
  double cpu = g.n(45, 5), iowait = g.n(2, 1);
  std::uint64_t reasons = 0;
  if (kind == "healthy" || kind == "straggler-peer") {
    util = g.n(kind == "healthy" ? 88 : 90, 3.5);
    copy = g.n(55, 5);
    clock -= std::fabs(g.n(0, 15));
  } else if (kind == "idle") {
    util = g.u() < 0.02 ? g.n(2, 1) : 0;
    copy = 0;
    mem = 0.01;
    temp = g.n(34, 1);
    power = g.n(55, 2);
    clock = 210;
    reasons = 0x1;  // GPU idle
    cpu = g.n(5, 2);
  } else if (kind == "underused") {
    double period = std::min(300.0, o.duration_s / 8);  // short traces keep several bursts
    bool burst = std::fmod(t, period) < period / 10;
    util = burst ? g.n(22, 1.5) : g.n(11, 3);
    copy = util * 0.6;
    mem = 0.35;
    temp = g.n(45, 1.5);
    power = 0.3 * o.power_limit_w + g.n(0, 5);
    cpu = g.n(10, 3);
  } else if (kind == "io-bound") {
    bool feeding = std::fmod(t, 10) < 3;  // sawtooth: short bursts between input stalls
    util = feeding ? g.n(95, 2) : g.n(4, 2);
    copy = util * 0.5;
    mem = 0.6;
    cpu = g.n(96, 2);
    iowait = g.n(30, 4);
  } else if (kind == "throttling") {
    double period = std::min(600.0, o.duration_s / 4);
    bool hot = std::fmod(t, period) >= period / 2;  // heat soak half of every 10 minutes
    util = g.n(95, 2);
    copy = g.n(60, 5);
    temp = hot ? g.n(89, 0.8) : g.n(78, 1);
    clock = hot ? 0.7 * o.sm_clock_max_mhz + g.n(0, 10) : o.sm_clock_max_mhz - std::fabs(g.n(0, 10));
    power = hot ? 0.99 * o.power_limit_w : 0.85 * o.power_limit_w;
    reasons = hot ? (0x20 | 0x40) : 0;
  } else if (kind == "straggler") {
    util = g.n(55, 4);
    copy = g.n(35, 4);
  } else if (kind == "memory-pressure") {
    util = g.n(85, 4);
    copy = g.n(65, 5);
    mem = clampd(g.n(0.975, 0.005), 0.95, 0.999);
  } else if (kind == "memory-headroom") {
    util = g.n(85, 4);
    copy = g.n(50, 5);
    mem = 0.2;
  }
  telemetry::DeviceSample& s = r.sample;
  s.gpu_util_pct = std::round(clampd(util, 0, 100));
  s.mem_copy_util_pct = std::round(clampd(copy, 0, 100));
  double used = std::round(clampd(mem + g.n(0, 0.005), 0.0, 0.999) * o.fb_total_bytes / 1048576.0) * 1048576.0;
  s.fb_used_bytes = used;
  s.fb_free_bytes = o.fb_total_bytes - used;
  s.temp_c = std::round(temp);
  s.power_w = std::round(clampd(power, 20, o.power_limit_w) * 10) / 10;
  s.sm_clock_mhz = std::round(clock);
  s.mem_clock_mhz = 1593;  // A100 80GB HBM2e memory clock
  s.throttle_reasons = reasons;
  s.xid_last = 0;
  r.host_cpu_pct = std::round(clampd(cpu, 0, 100) * 10) / 10;
  r.host_iowait_pct = std::round(clampd(iowait, 0, 100) * 10) / 10;
}

namespace {

Result<std::vector<Plan>> plan(const SynthOptions& o, int n, std::vector<Planted>& planted) {
  auto host_of = [&](int i) { return o.host.empty() ? fmt::format("node-{}", i) : o.host; };
  auto id_of = [&](int i) { return fmt::format("{}/gpu{}", host_of(i), o.host.empty() ? 0 : i); };
  std::vector<Plan> p;
  for (int i = 0; i < n; ++i) p.push_back({"healthy", host_of(i), fmt::format("job-{}", i)});
  auto plant = [&](int i, const std::string& kind) {
    p[static_cast<std::size_t>(i)].kind = kind;
    planted.push_back({kind, id_of(i)});
  };
  const std::string& k = o.kind;
  if (k == "healthy") return p;
  if (k == "straggler" || k == "mix") {
    int first = k == "mix" ? 0 : 0;
    std::vector<std::string> singles;
    if (k == "mix") {
      singles = {"idle", "underused", "throttling", "memory-pressure", "memory-headroom"};
      if (o.host.empty()) singles.insert(singles.begin() + 2, "io-bound");  // needs a host of its own
      if (n < static_cast<int>(singles.size()) + 3)
        return make_error(Errc::invalid_input,
                          fmt::format("a mix needs at least {} devices", singles.size() + 3), "--devices");
      for (std::size_t i = 0; i < singles.size(); ++i) plant(static_cast<int>(i), singles[i]);
      first = static_cast<int>(singles.size());
    } else if (n < 3) {
      return make_error(Errc::invalid_input, "a straggler needs a job of at least 3 devices", "--devices");
    }
    int group = k == "mix" ? 3 : n;
    for (int i = first; i < first + group; ++i) {
      p[static_cast<std::size_t>(i)].kind = "straggler-peer";
      p[static_cast<std::size_t>(i)].job = "train-1";
    }
    plant(first + group - 1, "straggler");
    return p;
  }
  if (k == "io-bound" && !o.host.empty() && n > 1) {
    // The host's CPU is shared: other devices on it stay busy enough not to look starved.
    plant(0, k);
    return p;
  }
  for (int i = 0; i < std::max(1, n / 4); ++i) plant(i, k);
  return p;
}

}  // namespace

std::vector<std::string> synth_kinds() {
  return {"healthy", "idle", "underused", "io-bound", "throttling", "straggler", "memory-pressure", "memory-headroom", "mix"};
}

Result<SynthResult> synthesize(const SynthOptions& o) {
  std::vector<std::string> kinds = synth_kinds();
  if (std::find(kinds.begin(), kinds.end(), o.kind) == kinds.end())
    return make_error(Errc::invalid_input, did_you_mean("trace kind", o.kind, kinds), "KIND");
  int n = o.devices > 0 ? o.devices : (o.kind == "mix" ? 10 : 4);
  if (n > 4096) return make_error(Errc::invalid_input, "at most 4096 devices", "--devices");
  if (o.duration_s < o.step_s || o.duration_s > 400 * 86400.0)
    return make_error(Errc::invalid_input, "the duration must be between one step and 400 days", "--duration");
  if (o.step_s <= 0) return make_error(Errc::invalid_input, "the step must be positive", "--step");
  double rows = std::floor(o.duration_s / o.step_s) * n;
  if (rows > 5e7) return make_error(Errc::invalid_input, fmt::format("{:.0f} rows is too many for a trace file; use --db", rows), "--duration");
  SynthResult res;
  Result<std::vector<Plan>> p = plan(o, n, res.planted);
  if (!p) return make_error(p.error());
  SynthGen g{std::mt19937_64(o.seed)};
  res.trace.rows.reserve(static_cast<std::size_t>(rows));
  // Devices sharing a host see the same host CPU: the busy one when an
  // io-bound device's input pipeline runs there.
  int host_busy_device = -1;
  if (!o.host.empty()) {
    for (int i = 0; i < n; ++i) {
      if ((*p)[static_cast<std::size_t>(i)].kind == "io-bound") host_busy_device = i;
    }
  }
  for (double t = 0; t < o.duration_s; t += o.step_s) {
    std::size_t first_row = res.trace.rows.size();
    for (int i = 0; i < n; ++i) {
      const Plan& pl = (*p)[static_cast<std::size_t>(i)];
      telemetry::TraceRow r;
      r.t_s = t;
      r.host = pl.host;
      r.gpu = o.host.empty() ? 0 : i;
      r.uuid = fmt::format("GPU-{:08x}-{:04x}-0000-0000-{:012x}", static_cast<unsigned>(o.seed), i, static_cast<unsigned>(i) * 7919u);
      r.model = o.model;
      r.sample.job = pl.job;
      synth_sample(pl.kind, t, o, g, r);
      res.trace.rows.push_back(std::move(r));
    }
    if (host_busy_device >= 0) {
      const telemetry::TraceRow& busy = res.trace.rows[first_row + static_cast<std::size_t>(host_busy_device)];
      for (std::size_t j = first_row; j < res.trace.rows.size(); ++j) {
        res.trace.rows[j].host_cpu_pct = busy.host_cpu_pct;
        res.trace.rows[j].host_iowait_pct = busy.host_iowait_pct;
      }
    }
  }
  return res;
}

std::vector<telemetry::Snapshot> to_snapshots(const telemetry::Trace& trace, const SynthOptions& o, double start_s) {
  std::vector<telemetry::Snapshot> out;
  std::size_t i = 0;
  while (i < trace.rows.size()) {
    double t = trace.rows[i].t_s;
    std::map<std::string, telemetry::Snapshot> by_host;
    for (; i < trace.rows.size() && trace.rows[i].t_s == t; ++i) {
      const telemetry::TraceRow& r = trace.rows[i];
      telemetry::Snapshot& s = by_host[r.host];
      s.time_s = start_s + t;
      telemetry::DeviceReading d;
      d.info.backend = "fake";
      d.info.index = r.gpu;
      d.info.uuid = r.uuid;
      d.info.model = r.model;
      d.info.device = fmt::format("nvidia{}", r.gpu);
      d.info.host = r.host;
      d.info.mem_total_bytes = o.fb_total_bytes;
      d.info.power_limit_w = o.power_limit_w;
      d.info.sm_clock_max_mhz = o.sm_clock_max_mhz;
      d.sample = r.sample;
      s.devices.push_back(std::move(d));
      if (r.host_cpu_pct || r.host_iowait_pct) {
        telemetry::HostSample h;
        h.host = r.host;
        h.cpu_busy_pct = r.host_cpu_pct;
        h.cpu_iowait_pct = r.host_iowait_pct;
        s.host = h;
      }
    }
    for (auto& [host, snap] : by_host) out.push_back(std::move(snap));
  }
  return out;
}

}  // namespace rooftop::analyze
