// A generated fleet in OpenMetrics, for backfilling a Prometheus with
// `promtool tsdb create-blocks-from openmetrics` (docs/analyze.md,
// "A generated fleet"). Hosts of `gpus_per_host` devices; each host runs one
// pod (a job's replica) in one of a few namespaces, except the hosts that
// carry an input-bound device, which run one single-device pod per device.
// Hosts take turns planting one problem, the same behaviour models as the
// single-trace synthesizer; every series carries dcgm-exporter's names,
// units and labels plus `namespace`, `pod` and `container` as dcgm-exporter
// writes them with its Kubernetes mapping on.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>
#include <random>

#include "analyze/series.h"
#include "analyze/synth.h"
#include "analyze/synth_model.h"

namespace rooftop::analyze {

namespace {

// The problem each host plants, in turn: one host in three has a problem
// (the first seven hosts have one of each).
const char* const kHostPlan[] = {"idle",    "underused", "io-bound", "throttling", "straggler", "memory-pressure",
                                 "memory-headroom", "healthy", "healthy", "healthy", "healthy", "healthy",
                                 "healthy", "healthy", "healthy", "healthy", "healthy", "healthy", "healthy",
                                 "healthy", "healthy"};
const char* const kNamespaces[] = {"vision", "nlp", "recsys", "speech"};

struct FleetDevice {
  std::string kind;  // behaviour
  std::string host, ns, pod;
  int gpu = 0;
  std::string uuid;
};

std::vector<FleetDevice> fleet_plan(const SynthOptions& o, int gpus_per_host, std::vector<Planted>& planted) {
  std::vector<FleetDevice> out;
  int hosts = (o.devices + gpus_per_host - 1) / gpus_per_host;
  for (int h = 0; h < hosts; ++h) {
    std::string kind = kHostPlan[static_cast<std::size_t>(h) % std::size(kHostPlan)];
    int n = std::min(gpus_per_host, o.devices - h * gpus_per_host);
    std::string host = fmt::format("node-{}", h);
    std::string ns = kNamespaces[static_cast<std::size_t>(h) % std::size(kNamespaces)];
    // A pod name as a Deployment or Job would make it: name, then a hash.
    std::string pod = fmt::format("{}-{:05x}", kind == "straggler" ? "train" : "job", (h * 40503u + 1u) % 0xfffffu);
    for (int g = 0; g < n; ++g) {
      FleetDevice d;
      d.host = host;
      d.gpu = g;
      d.ns = ns;
      d.pod = kind == "io-bound" ? fmt::format("infer-{}-{}", h, g) : pod;
      d.uuid = fmt::format("GPU-{:08x}-{:04x}-0000-0000-{:012x}", static_cast<unsigned>(o.seed), h,
                           static_cast<unsigned>(g) * 7919u);
      d.kind = "healthy";
      std::string planted_kind;
      if (kind == "idle") {
        d.kind = planted_kind = "idle";  // the whole pod sits idle
      } else if (kind == "straggler") {
        d.kind = g == n - 1 ? "straggler" : "straggler-peer";
        if (g == n - 1 && n >= 3) planted_kind = "straggler";
        if (n < 3) d.kind = "healthy";
      } else if (kind != "healthy" && g == 0) {
        d.kind = planted_kind = kind;
      }
      if (!planted_kind.empty()) planted.push_back({planted_kind, host + "/gpu" + std::to_string(g)});
      out.push_back(std::move(d));
    }
  }
  return out;
}

// Formats a value the way an exporter would: integers without a fraction.
void put_value(std::string& line, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) fmt::format_to(std::back_inserter(line), "{:.0f}", v);
  else fmt::format_to(std::back_inserter(line), "{:.1f}", v);
}

}  // namespace

Result<std::vector<Planted>> write_fleet_openmetrics(const FleetOptions& f, std::ostream& out) {
  const SynthOptions& o = f.synth;
  if (o.devices < 1 || o.devices > 100000) return make_error(Errc::invalid_input, "1 to 100000 devices", "--devices");
  if (f.gpus_per_host < 1 || f.gpus_per_host > 64)
    return make_error(Errc::invalid_input, "1 to 64 devices per host", "--gpus-per-host");
  if (f.parts < 1 || f.part < 0 || f.part >= f.parts)
    return make_error(Errc::invalid_input, "expected PART/PARTS with 1 <= PART <= PARTS", "--part");
  if (o.step_s <= 0 || o.duration_s < o.step_s || o.duration_s > 400 * 86400.0)
    return make_error(Errc::invalid_input, "the duration must be between one step and 400 days", "--duration");
  std::vector<Planted> planted;
  std::vector<FleetDevice> devs = fleet_plan(o, f.gpus_per_host, planted);
  int hosts = (o.devices + f.gpus_per_host - 1) / f.gpus_per_host;
  // This part's share of the time steps (all devices, so the blocks promtool
  // writes for different parts do not overlap when parts end on 2 h bounds).
  const std::size_t steps = static_cast<std::size_t>(std::floor(o.duration_s / o.step_s));
  const std::size_t k_lo = steps * static_cast<std::size_t>(f.part) / static_cast<std::size_t>(f.parts);
  const std::size_t k_hi = steps * static_cast<std::size_t>(f.part + 1) / static_cast<std::size_t>(f.parts);
  const std::size_t nt = k_hi - k_lo;
  constexpr std::size_t kFields = kDeviceSeriesCount;
  if (static_cast<double>(nt) * static_cast<double>(devs.size()) * kFields * sizeof(float) > 2e9)
    return make_error(Errc::invalid_input, "a part this large needs over 2 GB of memory: write more, smaller parts", "--part");

  // Generate this part's samples (device-major), then write family by family.
  std::vector<std::array<std::vector<float>, kFields>> values(devs.size());
  std::vector<std::vector<float>> host_cpu(static_cast<std::size_t>(hosts)), host_iowait(static_cast<std::size_t>(hosts));
  for (std::size_t i = 0; i < devs.size(); ++i) {
    const FleetDevice& d = devs[i];
    // One generator per device and part: a part is the same whichever other parts are written.
    SynthGen g{std::mt19937_64((o.seed * 1000003u + i) * 1000033u + static_cast<std::uint64_t>(f.part))};
    auto& v = values[i];
    for (auto& col : v) col.resize(nt);
    // Device 0 (the planted one, on a host with a problem) sets the host's CPU.
    bool owns_host = d.gpu == 0;
    std::size_t hh = i / static_cast<std::size_t>(f.gpus_per_host);
    if (owns_host) {
      host_cpu[hh].resize(nt);
      host_iowait[hh].resize(nt);
    }
    for (std::size_t k = 0; k < nt; ++k) {
      telemetry::TraceRow r;
      // Scrapes do not line up with a workload's phases: sample at a jittered instant.
      double t = static_cast<double>(k_lo + k) * o.step_s + g.u() * o.step_s;
      synth_sample(d.kind, t, o, g, r);
      const telemetry::DeviceSample& s = r.sample;
      v[static_cast<std::size_t>(Signal::util)][k] = static_cast<float>(*s.gpu_util_pct);
      v[static_cast<std::size_t>(Signal::copy)][k] = static_cast<float>(*s.mem_copy_util_pct);
      v[static_cast<std::size_t>(Signal::fb_used)][k] = static_cast<float>(*s.fb_used_bytes / 1048576.0);
      v[static_cast<std::size_t>(Signal::fb_free)][k] = static_cast<float>(*s.fb_free_bytes / 1048576.0);
      v[static_cast<std::size_t>(Signal::temp)][k] = static_cast<float>(*s.temp_c);
      v[static_cast<std::size_t>(Signal::power)][k] = static_cast<float>(*s.power_w);
      v[static_cast<std::size_t>(Signal::clock)][k] = static_cast<float>(*s.sm_clock_mhz);
      v[static_cast<std::size_t>(Signal::throttle)][k] = static_cast<float>(*s.throttle_reasons);
      if (owns_host) {
        host_cpu[hh][k] = static_cast<float>(*r.host_cpu_pct / 100);
        host_iowait[hh][k] = static_cast<float>(*r.host_iowait_pct / 100);
      }
    }
  }

  std::string line;
  line.reserve(256);
  auto flush = [&](bool force) {
    if (force || line.size() > (1u << 20)) {
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
      line.clear();
    }
  };
  auto stamp = [&](std::size_t k) { return f.start_s + static_cast<double>(k_lo + k) * o.step_s; };
  for (const SeriesName& s : kDeviceSeries) {
    fmt::format_to(std::back_inserter(line), "# HELP {} {}\n# TYPE {} gauge\n", s.dcgm, s.help, s.dcgm);
    for (std::size_t i = 0; i < devs.size(); ++i) {
      const FleetDevice& d = devs[i];
      std::string labels =
          fmt::format("{{gpu=\"{}\",UUID=\"{}\",modelName=\"{}\",Hostname=\"{}\",namespace=\"{}\",pod=\"{}\","
                      "container=\"main\",instance=\"{}:9400\",job=\"dcgm-exporter\"}}",
                      d.gpu, d.uuid, o.model, d.host, d.ns, d.pod, d.host);
      const std::vector<float>& col = values[i][static_cast<std::size_t>(s.signal)];
      for (std::size_t k = 0; k < nt; ++k) {
        line += s.dcgm;
        line += labels;
        line += ' ';
        put_value(line, col[k]);
        fmt::format_to(std::back_inserter(line), " {:.0f}\n", stamp(k));
        flush(false);
      }
    }
  }
  for (int which = 0; which < 2; ++which) {
    const char* name = which == 0 ? kHostCpuSeries : kHostIowaitSeries;
    fmt::format_to(std::back_inserter(line), "# HELP {} {}\n# TYPE {} gauge\n", name,
                   which == 0 ? "Fraction of CPU time busy." : "Fraction of CPU time waiting for IO.", name);
    for (int h = 0; h < hosts; ++h) {
      const std::vector<float>& col = (which == 0 ? host_cpu : host_iowait)[static_cast<std::size_t>(h)];
      for (std::size_t k = 0; k < col.size(); ++k) {
        fmt::format_to(std::back_inserter(line), "{}{{instance=\"node-{}:9400\",job=\"dcgm-exporter\"}} {:.3f} {:.0f}\n",
                       name, h, col[k], stamp(k));
        flush(false);
      }
    }
  }
  line += "# EOF\n";
  flush(true);
  if (!out) return make_error(Errc::io, "cannot write the OpenMetrics output", "--openmetrics");
  return planted;
}

}  // namespace rooftop::analyze
