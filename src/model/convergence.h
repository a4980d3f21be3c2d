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
#include "model/model.h"

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
  // Evaluation inside the timed region (training_rules.adoc, the reference
  // implementations): every floor((eval_per_batch x global batch +
  // eval_every) / eval_round) x eval_round training samples (eval_round 0:
  // no rounding), a forward pass over eval_samples. eval_every 0: the
  // benchmark evaluates offline, outside the timed region.
  double eval_every;
  double eval_per_batch;
  double eval_round;
  double eval_samples;
  const char* eval_source;
  // The first floor(eval_skip_per_batch x global batch + eval_skip) of those
  // evaluations may be skipped (llama2_70b_lora's rule); 0 and 0: none.
  double eval_skip_per_batch = 0;
  double eval_skip = 0;
  int vocab = 0;               // the benchmark's tokenizer vocabulary when not the zoo model's (0: the zoo's)
};
// The benchmark's training shape on top of `o`, where the caller has not
// set it: its sequence length (when not `zoo_seq_len`), user-item pairs per
// sample, tokenizer vocabulary. Returns what it set, in words ("8192-token
// sequences, a 32000-token vocabulary"); empty when nothing.
std::string apply_training_shape(const Benchmark& b, int zoo_seq_len, workload::BuildOptions& o);
// The zoo ids of the MLPerf Training benchmark models, comma-separated.
std::string mlperf_benchmark_models();
// Evaluations a run of `samples` training samples at `global_batch` times:
// samples / interval, less the skipped first ones (never below 0).
double evaluations(const Benchmark& b, double samples, double global_batch);
// The benchmark a zoo model trains in MLPerf, or nullptr (an id a training
// recipe decorates, "llama-2-70b (LoRA)", is its model's).
const Benchmark* mlperf_benchmark(std::string_view model_id);

struct SamplesToTarget {
  double samples = 0;          // training samples (sequences, images) to reach the target
  std::string how;             // "interpolated between RCPs at 3264 and 4096 (training_4.0.0)"
};
// Training samples between two evaluations at `global_batch` (0: untimed).
double eval_interval(const Benchmark& b, double global_batch);

// Seconds the evaluations of a run of `samples` training samples take
// under `plan`, each step of which costs `eval_stage_s` per pipeline stage:
// samples / interval evaluations (the run stops at the first one that meets
// the target), each ceil(eval_samples / (dp x mb)) micro-batches per
// replica through the pp stages, pipelined. 0 when the benchmark evaluates
// offline. `evals` (optional) receives the number of evaluations.
double eval_seconds(const Benchmark& b, double samples, const Plan& plan, double eval_stage_s, double* evals = nullptr);

// Minutes to the MLPerf quality target of a training prediction: the
// samples the RCPs give at its global batch (dp x mb x ga) at its
// samples/s, plus the evaluations the timed region holds, each a pipelined
// forward pass of the eval set over the plan's replicas
// (docs/model.md#time-to-train).
struct TimeToTarget {
  int global_batch = 0;
  double samples = 0;          // training samples to the target
  double train_s = 0;          // samples / samples_per_s
  double evals = 0;            // evaluations in the timed region
  double eval_s = 0;           // all of them
  double minutes = 0;          // (train_s + eval_s) / 60
  std::string how;             // the RCP interpolation and the evaluation rule
};
Result<TimeToTarget> time_to_target(const std::vector<ConvergencePoint>& rcps, std::string_view model_id,
                                    const Prediction& p);

// Samples to the target at `global_batch`: linear interpolation between the
// newest RCP version's batch sizes, linear extrapolation from the nearest two
// outside them. Errors name the model when it has no MLPerf benchmark or RCP.
Result<SamplesToTarget> samples_to_target(const std::vector<ConvergencePoint>& rcps, std::string_view model_id,
                                          double global_batch);

}  // namespace rooftop::model
