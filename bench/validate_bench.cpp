// Times `rooftop validate` on the published record: every row of the MLPerf
// Inference v4.1 closed corpus and of the MLPerf Training corpus in
// ../shared/validation/ (CORPUS.md), predicted as the CLI predicts them
// (model::validate: the plan search for every row, the server simulation
// with its highest-rate search for every Server row). The goal is both
// files together in under 10 s on one core. The corpus lives beside the
// checkout (ROOFTOP_CORPUS_DIR overrides); without it the benchmark says so
// and skips.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "catalog/catalog.h"
#include "embedded/embedded.h"
#include "model/convergence.h"
#include "model/validate.h"
#include "workload/workload.h"

namespace {

using namespace rooftop;

struct Corpus {
  catalog::Catalog catalog;
  std::vector<model::ConvergencePoint> rcps;
  std::vector<model::MeasurementRow> inference, training;
  std::string missing;  // why the corpus is not there
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus x;
    const char* env = std::getenv("ROOFTOP_CORPUS_DIR");
    const std::string dir = env ? env : std::string(ROOFTOP_SOURCE_DIR) + "/../shared/validation";
    Result<catalog::Catalog> cat = catalog::load_catalog(catalog::embedded_sources(), {});
    if (!cat) std::abort();
    x.catalog = std::move(*cat);
    for (const EmbeddedFile& f : embedded_files_under("mlperf/rcp.csv")) {
      Result<std::vector<model::ConvergencePoint>> r = model::parse_rcp(f.content, std::string(f.path));
      if (r) x.rcps = std::move(*r);
    }
    auto read = [&](const char* name, std::vector<model::MeasurementRow>& rows) {
      const std::string path = dir + "/" + name;
      const std::string text = slurp(path);
      Result<std::vector<model::MeasurementRow>> r = text.empty() ? make_error(Errc::not_found, "not found", path)
                                                                  : model::parse_measurements(text, path);
      if (r) rows = std::move(*r);
      else x.missing = r.error().what();
    };
    read("mlperf-inference-v4.1.csv", x.inference);
    read("mlperf-training-corpus.csv", x.training);
    return x;
  }();
  return c;
}

model::WorkloadLoader zoo() {
  return [](const std::string& id, const workload::BuildOptions& shape) { return workload::build_zoo(id, shape); };
}

void run(benchmark::State& state, const std::vector<model::MeasurementRow>& rows) {
  const Corpus& c = corpus();
  if (!c.missing.empty()) {
    state.SkipWithError(("the corpus is not here: " + c.missing).c_str());
    return;
  }
  int predicted = 0;
  for (auto _ : state) {
    model::Validation v = model::validate(rows, c.catalog, zoo(), c.rcps);
    predicted = v.predicted;
  }
  state.counters["rows"] = static_cast<double>(rows.size());
  state.counters["predicted"] = predicted;
}

void BM_ValidateInferenceCorpus(benchmark::State& state) { run(state, corpus().inference); }
void BM_ValidateTrainingCorpus(benchmark::State& state) { run(state, corpus().training); }
void BM_ValidateBothCorpora(benchmark::State& state) {
  std::vector<model::MeasurementRow> both = corpus().inference;
  both.insert(both.end(), corpus().training.begin(), corpus().training.end());
  run(state, both);
}

}  // namespace

BENCHMARK(BM_ValidateInferenceCorpus)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ValidateTrainingCorpus)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ValidateBothCorpora)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_MAIN();
