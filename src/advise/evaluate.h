// Internal to advise: sizing one accelerator for the scenario's objective.
// infer.cpp sizes serving (replica, batch, replica count: simulated for a
// decoder LLM under a p99 objective, else under the queueing model); train.cpp searches data/tensor/pipeline splits and micro-batches.
// Both return either a sized Candidate (before constraints and scores) or a
// Rejection saying how close the part came to the objective.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "advise/advise.h"
#include "model/convergence.h"

namespace rooftop::advise::detail {

struct Sizing {
  std::optional<Candidate> candidate;
  std::optional<Rejection> rejection;
  long long configs = 0;  // configurations evaluated
};

// What one evaluation may use: the scenario, the workload, and for a
// baseline a fixed device count and precision.
struct SizingInput {
  const Scenario* scenario = nullptr;
  const workload::Workload* workload = nullptr;
  const catalog::Accelerator* accelerator = nullptr;
  std::optional<int> fixed_count;
  std::vector<Precision> precisions;  // allowed and supported, in preference order
  double train_samples = 0;           // training: samples in the run
  // Training to the MLPerf target: the benchmark whose timed evaluations
  // count (model::eval_seconds); nullptr otherwise.
  const model::Benchmark* target = nullptr;
  // The fitted stack factors of this part's default stack (model/calibration.h).
  model::Calibrated calibrated;
};

Sizing size_inference(const SizingInput& in);
Sizing size_training(const SizingInput& in);


}  // namespace rooftop::advise::detail
