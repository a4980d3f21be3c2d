// Time to train to a quality target: MLCommons' Reference Convergence
// Points (RCPs, data/mlperf/rcp.csv) say how many epochs, samples or tokens
// the reference runs needed at each global batch size; interpolating
// between them gives the samples a run at any global batch needs, and the
// model's training throughput turns that into minutes. Pure: the caller
// supplies the CSV text. docs/model.md#time-to-train.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rooftop::model {

struct ConvergencePoint {
  std::string benchmark;     // "resnet", "bert", "gpt3", ...
  std::string version;       // RCP version ("4.0.0")
  double global_batch = 0;
  double mean = 0;           // epochs, samples, tokens or fraction of an epoch (see unit)
  std::string unit;
  std::string source;
};

// Parses data/mlperf/rcp.csv (columns benchmark, rcp_version,
// global_batch_size, epochs_or_samples_mean, unit, ..., source).
Result<std::vector<ConvergencePoint>> parse_rcp(std::string_view csv, const std::string& name);

// One MLPerf Training benchmark as the zoo models it.
struct Benchmark {
  const char* model_id;        // zoo id
  const char* benchmark;       // RCP benchmark name
  double samples_per_unit;     // RCP unit -> samples: dataset size for epochs, 1 / seq for tokens, 1 for samples
  const char* unit_source;
  int train_seq_len;           // the benchmark's training sequence length (0: the zoo default)
  bool lora;                   // fine-tuned with low-rank adapters (workload::with_lora)
  int pairs_per_sample;        // recommenders: one training sample is this many user-item pairs (0: zoo default)
};
// The benchmark a zoo model trains in MLPerf, or nullptr.
const Benchmark* mlperf_benchmark(std::string_view model_id);

struct SamplesToTarget {
  double samples = 0;          // training samples (sequences, images) to reach the target
  std::string how;             // "interpolated between RCPs at 3264 and 4096 (training_4.0.0)"
};
// Samples to the target at `global_batch`: linear interpolation between the
// newest RCP version's batch sizes, linear extrapolation from the nearest two
// outside them. Errors name the model when it has no MLPerf benchmark or RCP.
Result<SamplesToTarget> samples_to_target(const std::vector<ConvergencePoint>& rcps, std::string_view model_id,
                                          double global_batch);

}  // namespace rooftop::model
