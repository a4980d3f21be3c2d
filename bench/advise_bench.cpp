// Times `rooftop advise` itself: the whole advisor over the embedded catalog
// for the example scenarios in data/scenarios/ (every part x allowed
// precisions x device counts 1..max_devices x batch sizes), and reports the
// configurations evaluated per second (single thread, so per core).
// Calculon's training search runs at about 470 configurations/s/core on the
// development machine (docs/advise.md#compared-with-calculon).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "advise/advise.h"
#include "catalog/catalog.h"
#include "embedded/embedded.h"
#include "workload/workload.h"

namespace {

using namespace rooftop;

struct Loaded {
  advise::Scenario scenario;
  workload::Workload workload;
};

const catalog::Catalog& the_catalog() {
  static const catalog::Catalog c = [] {
    Result<catalog::Catalog> r = catalog::load_catalog(catalog::embedded_sources(), {});
    if (!r) {
      std::fprintf(stderr, "catalog: %s\n", r.error().what().c_str());
      std::abort();
    }
    return *r;
  }();
  return c;
}

Loaded load(const std::string& name) {
  for (const EmbeddedFile& f : embedded_files_under("scenarios/")) {
    if (f.path != "scenarios/" + name) continue;
    Result<advise::Scenario> s = advise::parse_scenario(f.content, std::string(f.path));
    if (!s) break;
    Result<workload::Workload> w = workload::build_zoo(s->model, s->shape);
    if (!w) break;
    return {*s, *w};
  }
  std::fprintf(stderr, "cannot load scenario %s\n", name.c_str());
  std::abort();
}

void run(benchmark::State& state, const std::string& name, int max_devices) {
  Loaded l = load(name);
  l.scenario.max_devices = max_devices;
  long long configs = 0;
  for (auto _ : state) {
    Result<advise::Advice> a = advise::advise(l.scenario, the_catalog(), l.workload);
    if (!a) {
      state.SkipWithError(a.error().what().c_str());
      return;
    }
    configs += a->configs_evaluated;
    benchmark::DoNotOptimize(a->candidates.data());
  }
  state.counters["configs_per_s"] = benchmark::Counter(static_cast<double>(configs), benchmark::Counter::kIsRate);
  state.counters["configs_per_run"] = static_cast<double>(configs) / static_cast<double>(state.iterations());
}

void BM_AdviseServingLlama(benchmark::State& s) { run(s, "default.yaml", 1024); }
void BM_AdviseServingBert(benchmark::State& s) { run(s, "bert-t4-vs-v100.yaml", 1024); }
void BM_AdviseThroughputResnet(benchmark::State& s) { run(s, "ct-fp16.yaml", 1024); }
void BM_AdviseTrainingSearchRetinanet(benchmark::State& s) { run(s, "ad-training-cluster.yaml", 1024); }
void BM_AdviseTrainingSearchDlrm(benchmark::State& s) { run(s, "dlrm-overbought.yaml", 1024); }

}  // namespace

BENCHMARK(BM_AdviseServingLlama)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdviseServingBert)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdviseThroughputResnet)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdviseTrainingSearchRetinanet)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdviseTrainingSearchDlrm)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
