// Times the Server-scenario simulation (model::simulate): one hour of
// Poisson traffic at 10 requests/s of llama-2-70b on one replica of
// 2 x H100 (tensor parallel), each iteration priced by the roofline. The
// goal is under one second per simulated hour.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>

#include "catalog/catalog.h"
#include "model/model.h"
#include "model/serve_sim.h"
#include "workload/workload.h"

namespace {

using namespace rooftop;

struct Setup {
  catalog::Catalog catalog;
  workload::Workload w;
  model::IterationTime price;
  std::vector<model::ServeRequest> hour;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup x;
    Result<catalog::Catalog> c = catalog::load_catalog(catalog::embedded_sources(), {});
    Result<workload::Workload> w = workload::build_zoo("llama-2-70b", {});
    if (!c || !w) {
      std::fprintf(stderr, "serve_sim_bench: catalog or zoo failed\n");
      std::abort();
    }
    x.catalog = *c;
    x.w = *w;
    model::Request r;
    r.accelerator = x.catalog.find("nvidia-h100-sxm5-80gb");
    r.workload = &x.w;
    r.count = 2;
    model::Plan plan;
    plan.tp = 2;
    Result<model::IterationTime> p = model::roofline_iteration_time(r, Precision::fp8, plan);
    if (!p) {
      std::fprintf(stderr, "serve_sim_bench: %s\n", p.error().what().c_str());
      std::abort();
    }
    x.price = *p;
    std::mt19937_64 gen(7);
    std::exponential_distribution<double> gap(10.0);
    double t = 0;
    while (t < 3600) {
      t += gap(gen);
      x.hour.push_back({t, x.w.input_tokens, x.w.output_tokens});
    }
    return x;
  }();
  return s;
}

// 512 sequences, 2048-token iterations, 20k blocks of 16 tokens (2 x H100 at fp8 hold about that).
model::SchedulerConfig hour_config() {
  model::SchedulerConfig cfg;
  cfg.max_seqs = 512;
  cfg.chunk_tokens = 2048;
  cfg.kv_blocks = 20000;
  return cfg;
}

void BM_SimulateHourAt10PerS(benchmark::State& state) {
  const Setup& s = setup();
  const model::SchedulerConfig cfg = hour_config();
  long iterations = 0;
  for (auto _ : state) {
    model::ServeStats st = model::simulate(s.hour, cfg, s.price);
    iterations = st.iterations;
    benchmark::DoNotOptimize(st);
  }
  state.counters["requests"] = static_cast<double>(s.hour.size());
  state.counters["iterations"] = static_cast<double>(iterations);
}
BENCHMARK(BM_SimulateHourAt10PerS)->Unit(benchmark::kMillisecond);

// The scheduler alone (a fixed 20 ms per iteration): what pricing adds.
void BM_SchedulerOnlyHour(benchmark::State& state) {
  const Setup& s = setup();
  const model::SchedulerConfig cfg = hour_config();
  for (auto _ : state) benchmark::DoNotOptimize(model::simulate(s.hour, cfg, [](const model::Iteration&) { return 0.02; }));
}
BENCHMARK(BM_SchedulerOnlyHour)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
