// How fast `rooftop analyze --db` reads and judges history: 30 days of
// 1-second samples for 8 devices (20.7 M points) from a monitor store, and
// the in-memory profiler + detectors alone. Reports points per second.
//
// The store is written once (a few minutes) and reused:
//   ROOFTOP_BENCH_DB=/tmp/rooftop-30d.db build/bench_analyze_bench
// ROOFTOP_BENCH_DAYS changes the length (default 30).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "analyze/analyze.h"
#include "analyze/sources.h"
#include "telemetry/store.h"

namespace {

constexpr int kDevices = 8;
constexpr double kStart = 1.7e9;

double days() {
  const char* d = std::getenv("ROOFTOP_BENCH_DAYS");
  return d ? std::atof(d) : 30.0;
}

std::string db_path() {
  const char* p = std::getenv("ROOFTOP_BENCH_DB");
  return p ? p : "/tmp/rooftop-analyze-bench.db";
}

// Writes the store unless a complete one is already there.
bool ensure_store() {
  std::string path = db_path();
  double seconds = days() * 86400;
  if (std::filesystem::exists(path)) {
    auto s = rooftop::telemetry::Store::open_read_only(path);
    if (s) {
      auto r = (*s)->time_range();
      if (r && r->second - r->first >= seconds - 2) return true;
    }
    std::filesystem::remove(path);
  }
  std::fprintf(stderr, "writing %.0f days x %d devices of 1 s samples to %s (once)...\n", days(), kDevices, path.c_str());
  rooftop::telemetry::StoreOptions so;
  so.retention_s = so.downsample_after_s = 1e9;
  auto store = rooftop::telemetry::Store::open(path, so);
  if (!store) return false;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 3);
  rooftop::telemetry::Snapshot snap;
  for (int d = 0; d < kDevices; ++d) {
    rooftop::telemetry::DeviceReading r;
    r.info.backend = "fake";
    r.info.index = d;
    r.info.uuid = "GPU-bench-" + std::to_string(d);
    r.info.model = "NVIDIA A100-SXM4-80GB";
    r.info.host = "bench-node";
    r.info.mem_total_bytes = 80.0 * 1073741824.0;
    snap.devices.push_back(r);
  }
  for (double t = 0; t < seconds; t += 1) {
    snap.time_s = kStart + t;
    for (int d = 0; d < kDevices; ++d) {
      rooftop::telemetry::DeviceSample& s = snap.devices[static_cast<std::size_t>(d)].sample;
      s.gpu_util_pct = std::round(std::clamp((d == 0 ? 10.0 : 85.0) + noise(rng), 0.0, 100.0));
      s.mem_copy_util_pct = 50;
      s.fb_used_bytes = 60.0 * 1073741824.0;
      s.fb_free_bytes = 20.0 * 1073741824.0;
      s.temp_c = 65;
      s.power_w = 300;
      s.sm_clock_mhz = 1410;
      s.throttle_reasons = 0;
    }
    rooftop::telemetry::HostSample h;
    h.host = "bench-node";
    h.cpu_busy_pct = 40;
    h.cpu_iowait_pct = 1;
    snap.host = h;
    if (!(*store)->append(snap)) return false;
  }
  return true;
}

void BM_AnalyzeStore(benchmark::State& state) {
  if (!ensure_store()) {
    state.SkipWithError("cannot write the benchmark store");
    return;
  }
  std::uint64_t points = 0;
  std::size_t findings = 0;
  for (auto _ : state) {
    auto p = rooftop::analyze::profile_store(db_path(), {}, {});
    if (!p) {
      state.SkipWithError(p.error().what().c_str());
      return;
    }
    points = p->points;
    findings = rooftop::analyze::detect(*p, {}).size();
  }
  state.counters["points"] = static_cast<double>(points);
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["points_per_s"] =
      benchmark::Counter(static_cast<double>(points) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AnalyzeStore)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// The profiler and detectors alone, on 1 day of 8 devices held in memory.
void BM_ProfileAndDetect(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::normal_distribution<float> noise(0, 3);
  const int n = 86400;
  std::vector<float> util(n);
  for (float& u : util) u = std::clamp(80.0f + noise(rng), 0.0f, 100.0f);
  for (auto _ : state) {
    rooftop::analyze::Profiler prof(kStart, kStart + n, 1);
    for (int d = 0; d < kDevices; ++d) {
      int idx = prof.add_device({"h", d, "", "", ""});
      rooftop::analyze::Obs o;
      for (int i = 0; i < n; ++i) {
        o.t_s = kStart + i;
        o.util_pct = util[static_cast<std::size_t>(i)];
        o.temp_c = 60;
        o.sm_clock_mhz = 1400;
        prof.add(idx, o);
      }
    }
    benchmark::DoNotOptimize(rooftop::analyze::detect(prof.finish(), {}));
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(n) * kDevices * static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ProfileAndDetect)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
