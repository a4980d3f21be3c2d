// Times model::predict over the whole embedded catalog x zoo x every
// precision each device has (inference, offline batch search), and a single
// prediction with and without the per-op breakdown. Reports configurations
// per second; one predict should take well under a millisecond.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

#include "catalog/catalog.h"
#include "model/model.h"
#include "workload/workload.h"

namespace {

using namespace rooftop;

struct Inputs {
  catalog::Catalog catalog;
  std::vector<workload::Workload> zoo;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs x;
    Result<catalog::Catalog> c = catalog::load_catalog(catalog::embedded_sources(), {});
    if (!c) {
      std::fprintf(stderr, "predict_bench: catalog: %s\n", c.error().what().c_str());
      std::abort();
    }
    x.catalog = *c;
    for (const std::string& id : workload::zoo_ids()) {
      Result<workload::Workload> w = workload::build_zoo(id, {});
      if (w) x.zoo.push_back(*w);
    }
    return x;
  }();
  return in;
}

// Every (accelerator, model, precision) once per iteration; configurations
// that do not fit or lack data still count (predict answers them too).
void BM_PredictCatalogTimesZoo(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t configs = 0, ok = 0;
  for (auto _ : state) {
    for (const catalog::Accelerator& a : in.catalog.accelerators) {
      for (Precision p : a.precisions()) {
        for (const workload::Workload& w : in.zoo) {
          model::Request r;
          r.accelerator = &a;
          r.workload = &w;
          r.precision = p;
          r.count = 8;
          r.detail = state.range(0) != 0;
          Result<model::Prediction> pred = model::predict(r);
          ok += pred.has_value();
          benchmark::DoNotOptimize(pred);
          ++configs;
        }
      }
    }
  }
  state.counters["configs_per_s"] = benchmark::Counter(static_cast<double>(configs), benchmark::Counter::kIsRate);
  state.counters["us_per_config"] = benchmark::Counter(static_cast<double>(configs),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["predicted_share"] = configs ? static_cast<double>(ok) / configs : 0;
}
BENCHMARK(BM_PredictCatalogTimesZoo)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_PredictOne(benchmark::State& state) {
  const Inputs& in = inputs();
  const catalog::Accelerator* a = in.catalog.find("nvidia-h100-sxm5-80gb");
  const workload::Workload* w = nullptr;
  for (const workload::Workload& x : in.zoo)
    if (x.id == "llama-2-7b") w = &x;
  if (!a || !w) {
    state.SkipWithError("nvidia-h100-sxm5-80gb or llama-2-7b missing");
    return;
  }
  model::Request r;
  r.accelerator = a;
  r.workload = w;
  r.detail = state.range(0) != 0;
  r.batch = state.range(1) ? std::optional<int>(static_cast<int>(state.range(1))) : std::nullopt;
  for (auto _ : state) benchmark::DoNotOptimize(model::predict(r));
}
// (detail, batch): batch 0 = search the offline batch.
BENCHMARK(BM_PredictOne)->Args({0, 64})->Args({1, 64})->Args({0, 0})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
