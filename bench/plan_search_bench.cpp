// Times the training plan search of model::predict: GPT-3 175B on 8 to 4,096
// H100s, every divisor split (tensor x pipeline x data) x micro-batch x ZeRO
// stage x recompute, on one core. The bar: 4,096 devices in under
// 1 s. Reports the plans evaluated per second.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "catalog/catalog.h"
#include "model/model.h"
#include "workload/workload.h"

namespace {

using namespace rooftop;

struct Inputs {
  catalog::Catalog catalog;
  workload::Workload gpt3;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs x;
    Result<catalog::Catalog> c = catalog::load_catalog(catalog::embedded_sources(), {});
    Result<workload::Workload> w = workload::build_zoo("gpt-3-175b", {});
    if (!c || !w) {
      std::fprintf(stderr, "plan_search_bench: cannot load the catalog or gpt-3-175b\n");
      std::abort();
    }
    x.catalog = *c;
    x.gpt3 = *w;
    return x;
  }();
  return in;
}

void BM_Gpt3PlanSearch(benchmark::State& state) {
  const Inputs& in = inputs();
  const catalog::Accelerator* h100 = in.catalog.find("h100");
  model::Request r;
  r.accelerator = h100;
  r.workload = &in.gpt3;
  r.task = workload::Task::train;
  r.count = static_cast<int>(state.range(0));
  r.global_batch = 1536;
  r.detail = false;
  bool ok = true;
  for (auto _ : state) {
    Result<model::Prediction> p = model::predict(r);
    ok = ok && p.has_value();
    benchmark::DoNotOptimize(p);
  }
  state.counters["ok"] = ok ? 1 : 0;
}
BENCHMARK(BM_Gpt3PlanSearch)->Arg(8)->Arg(64)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
