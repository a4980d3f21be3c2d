// Benchmarks of the monitor's hot paths: rendering /metrics for 8 devices,
// appending one sampling round to the SQLite history, and the read path
// `rooftop analyze --db` uses (rows per second scanning one device).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "telemetry/store.h"
#include "telemetry/telemetry.h"

namespace tel = rooftop::telemetry;

namespace {

tel::Snapshot snapshot(double t, int devices) {
  tel::Snapshot s;
  s.time_s = t;
  for (int i = 0; i < devices; ++i) {
    tel::DeviceReading r;
    r.info.backend = "nvml";
    r.info.index = i;
    r.info.uuid = "GPU-bench-" + std::to_string(i);
    r.info.model = "NVIDIA H100 80GB HBM3";
    r.info.device = "nvidia" + std::to_string(i);
    r.info.host = "bench";
    tel::DeviceSample& d = r.sample;
    d.gpu_util_pct = 90 + i % 10;
    d.mem_copy_util_pct = 50;
    d.fb_used_bytes = 60e9;
    d.fb_free_bytes = 20e9;
    d.temp_c = 60;
    d.power_w = 600;
    d.energy_j = t * 600;
    d.sm_clock_mhz = 1980;
    d.mem_clock_mhz = 2619;
    d.throttle_reasons = 0;
    d.xid_last = 0;
    s.devices.push_back(r);
  }
  return s;
}

std::string fresh_db(const char* name) {
  const std::string path = std::filesystem::temp_directory_path() / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

void BM_RenderMetrics(benchmark::State& state) {
  const tel::Snapshot s = snapshot(1.7e9, 8);
  for (auto _ : state) benchmark::DoNotOptimize(tel::render_metrics(s, tel::Names::dcgm));
}
BENCHMARK(BM_RenderMetrics);

void BM_StoreAppendRound(benchmark::State& state) {
  auto store = tel::Store::open(fresh_db("rooftop-bench-append.db"), {});
  if (!store) return state.SkipWithError(store.error().what().c_str());
  double t = 1.7e9;
  for (auto _ : state) {
    if (!(*store)->append(snapshot(t += 1, 8))) state.SkipWithError("append failed");
  }
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_StoreAppendRound);

// Rows per second when reading one device's history (the analyze path).
void BM_StoreScanDevice(benchmark::State& state) {
  const auto rows = state.range(0);
  const std::string path = fresh_db("rooftop-bench-scan.db");
  {
    auto store = tel::Store::open(path, {});
    if (!store) return state.SkipWithError(store.error().what().c_str());
    for (std::int64_t i = 0; i < rows; ++i) (void)(*store)->append(snapshot(1.7e9 + i, 8));
  }
  auto reader = tel::Store::open_read_only(path);
  if (!reader) return state.SkipWithError(reader.error().what().c_str());
  const auto id = (*reader)->devices()->at(3).id;
  std::int64_t n = 0;
  for (auto _ : state) {
    (void)(*reader)->scan(id, 0, 2e9, [&](const tel::StoredSample& s) { n += s.sample.gpu_util_pct.has_value(); });
  }
  state.SetItemsProcessed(n);
}
BENCHMARK(BM_StoreScanDevice)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
