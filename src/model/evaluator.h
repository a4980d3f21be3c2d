// What the evaluator's four files share (not part of the public API):
// the Setup an Evaluator holds (evaluator.cpp), the price of one step or
// iteration (step.cpp), the plan search (search.cpp) and the wording of a
// prediction's assumptions (explain.cpp). docs/model.md has every formula.
#pragma once

#include <string>
#include <vector>

#include "model/internal.h"
#include "model/model.h"

namespace rooftop::model {

// What stays fixed while plans are evaluated.
struct Evaluator::Setup {
  const catalog::Accelerator* a = nullptr;
  const workload::Workload* w = nullptr;
  Request req;
  Precision p = Precision::fp16;     // compute precision (mix.compute)
  PrecisionMix mix;                  // compute, weights, KV cache
  catalog::Accelerator gpu_only;     // `a` without its DLAs, when the workload cannot use them
  workload::Task task = workload::Task::infer;
  Efficiency e;
  bool llm = false;
  double out_tokens = 1;
  std::vector<workload::Operator> ops;  // training: forward + backward + optimizer; inference: w.ops
  bool batch_norms = false;          // training: some op computes batch statistics (docs/model.md#batch-norm)
  double trainable = 0;              // training: parameters updated
  double boundary_elems = 0;         // activation per sample between layers (pipeline sends)
  double moe_layers = 0;             // MoE layers (expert all-to-all)
  double expert_params = 0;          // MoE expert FFN parameters (sharded by ep)
  double backward_second_kernels = 0;  // training: backward GEMMs/convs launched as two kernels, per sample pass
  double table_out_elems = 0;        // recommenders: pooled embedding outputs per sample (all-to-all)
  Result<detail::Fabric> fabric = make_error(Errc::internal, "no fabric");
};

namespace detail {

using Setup = Evaluator::Setup;

// MLPerf llama2-70b Server bounds, the LLM default (docs/model.md#batch),
// and one sample's Server latency budget.
inline constexpr double kServerLatencyS = 0.1;
inline constexpr double kLlmTtftS = 2.0;
inline constexpr double kLlmTpotS = 0.2;

// Time of a step by where it went.
struct Sums {
  double time_s = 0, compute_s = 0, memory_s = 0, overhead_s = 0, comm_s = 0;
  void add(const Sums& o, double k = 1) {
    time_s += k * o.time_s, compute_s += k * o.compute_s, memory_s += k * o.memory_s;
    overhead_s += k * o.overhead_s, comm_s += k * o.comm_s;
  }
};

// The price of one plan: a training step or an inference pass (step.cpp).
struct Outcome {
  double throughput = 0, samples_per_s = 0, latency_s = 0, ttft_s = 0, tpot_s = 0;
  double grad_bytes = 0, bubble = 0, eval_stage_s = 0;
  Communication comm;
  Sums sums;
};
// `detail` (when given) receives one OpPrediction per operator priced.
Outcome outcome(const Setup& s, const Plan& plan, std::vector<OpPrediction>* detail);

// Megatron-style tensor parallelism all-reduces the residual stream twice
// per transformer layer, right before each norm: one all-reduce of each
// norm op's output. Without norm ops, half of the matmuls' outputs. The
// residual stays 16-bit under 8-bit math. The one rule every price uses.
class TensorAllReduce {
 public:
  TensorAllReduce(const Setup& s, int tp) : s_(s), tp_(tp) {}
  // `repeat` instances of an operator of `kind` whose outputs total `out_elems`.
  void add(workload::OpKind kind, double repeat, double out_elems);
  double time_s() const { return any_norm_ ? norm_s_ : matmul_s_; }

 private:
  const Setup& s_;
  int tp_;
  double norm_s_ = 0, matmul_s_ = 0;
  bool any_norm_ = false;
};

// Memory per device under `plan` (the one formula run() checks).
Memory plan_memory(const Setup& s, const Plan& plan);
// Largest micro-batch / batch per device the memory allows under `plan` (0: not even one).
double max_batch(const Setup& s, Plan plan);
// The price of one serving iteration under `plan` (serve_sim.h), from the
// same operators, fusion, sharding and tensor all-reduce rule as outcome().
IterationTime iteration_time(std::shared_ptr<const Setup> s, const Plan& plan);

// A plan the model and the device count can run; the error names the value.
Result<void> check_plan(const Setup& s, const Plan& p, int count);
Unexpected bad_plan(const std::string& msg);
// The model does not fit under `plan`: the shortfall, and a count that would fit.
Unexpected does_not_fit(const Setup& s, const Plan& plan, int count);

// The assumptions of a prediction of `plan` (explain.cpp).
void explain(const Setup& s, const Plan& plan, Prediction& out);

}  // namespace detail
}  // namespace rooftop::model
