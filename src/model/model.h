// The performance model: a roofline per operator, composed into inference
// (batching, LLM prefill + decode), training steps (data/tensor/pipeline
// parallel, ring all-reduce, stragglers, gradient accumulation) and memory
// footprints. Pure functions of (accelerator, workload, request): no I/O.
// Formulas, efficiency factors and their derivation: docs/model.md.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "core/result.h"
#include "model/plan.h"
#include "workload/workload.h"

namespace rooftop::model {

// Fraction of device memory a workload may use: the rest goes to the
// runtime context, communication buffers and allocator fragmentation
// (vLLM's default gpu_memory_utilization = 0.9). The one value every command uses.
inline constexpr double kUsableMemoryFraction = 0.9;

enum class Scenario { offline, server, single_stream };

struct Assumption {
  std::string name;    // "compute_efficiency"
  std::string value;   // "0.70"
  std::string source;  // "docs/model.md#efficiency, derived from measurements.csv PV-005"
};

// The operator classes a calibration parameter covers (model/calibration.h
// holds their table: names and what each covers). `decode` is every
// operator of an LLM's decode phase (weight and KV-cache streaming);
// `serving` is the server scheduler's loss beyond the priced iterations.
enum class OpClass { gemm, conv, attention, decode, gather, vector, communication, serving };
inline constexpr std::size_t kOpClassCount = 8;
// What a calibration applies to one prediction: a factor per class on the
// efficiencies of that class's operators (1: pure physics), and the
// `assumptions` lines naming each fitted parameter used.
struct Calibrated {
  std::array<double, kOpClassCount> factor{1, 1, 1, 1, 1, 1, 1, 1};
  std::string stack;                 // the software stack family it was looked up for
  std::vector<Assumption> assumptions;
};
enum class Bound { compute, memory, overhead, communication };

std::string_view to_string(Scenario s);
std::string_view to_string(Bound b);
std::optional<Scenario> parse_scenario(std::string_view s);

// Fractions of the catalog peaks that real kernels reach, plus fixed costs.
// Defaults per accelerator kind are derived in docs/model.md; calibrated
// catalog entries (bench profiles) override them.
struct Efficiency {
  double compute = 0;          // achieved / peak FLOP/s on large GEMMs
  // GEMMs with 8-bit operands (fp8, int8) reach this fraction of `compute`:
  // their peak is twice the 16-bit one on the same tensor cores, and operand
  // delivery and power keep them further from it (docs/model.md#gpu).
  double compute_8bit = 1;
  double memory = 0;           // achieved / peak bytes/s on streaming kernels
  // The backward pass of a normalization (layer, RMS, batch, group norm)
  // reaches this fraction of `memory`: besides reading x and dy and writing
  // dx it reduces twice per row and once more across rows for the scale and
  // shift gradients (docs/model.md#norm-backward). 1 where no measurement says.
  double norm_backward = 1;
  // A batch norm's forward pass in training reads its input twice, once for
  // the batch statistics and once to normalize, unless the tensor fits the
  // last-level cache (docs/model.md#batch-norm). false where no kernel says.
  bool batch_norm_reread = false;
  // Per output tile, a GEMM kernel fills its load pipeline before the main
  // loop and writes its accumulators out after it: a fixed cost worth this
  // many elements of k, so a GEMM of depth k runs at k / (k + this) of the
  // rate of the deep GEMMs `compute` was measured on (docs/model.md#gemm-depth).
  // 0 where no measurement says.
  double gemm_tile_fixed_k = 0;
  double op_overhead_s = 0;    // fixed cost per operator instance (launch, sync)
  double link = 0;             // achieved / peak link bandwidth for collectives
  double link_latency_s = 0;   // per ring step
  // Fitted stack factors (model/calibration.h) on each operator class's
  // compute and memory fractions; 1 where none applies.
  std::array<double, kOpClassCount> class_factor{1, 1, 1, 1, 1, 1, 1, 1};
  std::string source;          // where these numbers come from
};
Efficiency efficiency_for(const catalog::Accelerator& a);

struct Request {
  const catalog::Accelerator* accelerator = nullptr;
  const workload::Workload* workload = nullptr;
  int count = 1;                           // devices
  workload::Task task = workload::Task::infer;
  std::optional<Precision> precision;      // compute (activations); default: the fastest supported one suited to the task
  std::optional<Precision> weight_precision;  // stored weights (w4a16: int4); default: the compute precision
  std::optional<Precision> kv_precision;      // KV cache (fp8-kv); default: the compute precision, 16-bit below that
  std::optional<int> batch;                // per-device batch (micro-batch when training); default: see Scenario
  Scenario scenario = Scenario::offline;
  int grad_accumulation = 1;               // training: micro-batches per optimizer step (plan.ga wins)
  PlanSpec plan;                           // what the user fixed of the parallel plan; the rest is searched
  std::optional<int> global_batch;         // training: dp x mb x ga must equal it (the search keeps it)
  double straggler_cv = 0;                 // training: coefficient of variation of per-worker step time
  bool detail = true;                      // fill per_op (off for fast sweeps in advise)
  // Server scenario: per-request latency budget. Default (docs/model.md):
  // 100 ms for one sample; LLMs: TPOT <= 200 ms and TTFT <= 2 s.
  std::optional<double> latency_target_s;
  // Fitted software-stack factors (model/calibration.h); none: pure physics.
  Calibrated calibrated;
};

struct OpPrediction {
  std::string name;
  workload::OpKind kind = workload::OpKind::other;
  workload::Phase phase = workload::Phase::forward;
  double flops = 0;        // all instances, at the batch
  double bytes = 0;
  double intensity = 0;    // FLOP/byte
  double time_s = 0;
  Bound bound = Bound::compute;
  double share = 0;        // of total time
};

struct Memory {
  double weights_bytes = 0;
  double kv_cache_bytes = 0;
  double activations_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double required_bytes = 0;   // per device
  double capacity_bytes = 0;   // per device (0 when unknown)
  double usable_bytes = 0;     // capacity x usable fraction (runtime context, fragmentation)
  bool fits = false;           // required_bytes <= usable_bytes
};

struct Parallelism {
  int data = 1, tensor = 1, pipeline = 1, expert = 1;
};

struct Communication {
  double time_s = 0;             // per step (training) or per token (tensor parallel)
  double bytes = 0;              // payload per collective
  double eta = 0;                // bandwidth utilisation (N-1)/N * B_eff / B_max
  std::string link;              // link name used ("NVLink 4", or "NVLink 4 + ConnectX-7 ..." across nodes)
  // Training, per optimizer step: each kind of traffic (whole, hidden or not)
  // and the part not hidden behind compute.
  double tensor_s = 0, pipeline_s = 0, data_s = 0, expert_s = 0, exposed_s = 0;
  std::string scale_out;         // scale-out network used ("" when every group stays in one domain)
};


struct Prediction {
  std::string accelerator;
  std::string model;
  int count = 1;
  workload::Task task = workload::Task::infer;
  Precision precision = Precision::fp16;   // compute (activations)
  PrecisionMix precisions;       // compute, weights and KV cache
  int batch = 1;                 // per device
  double throughput = 0;         // all devices together
  std::string throughput_unit;   // "samples/s" or "tokens/s"
  double samples_per_s = 0;      // training: sequences / images per second, all devices
  double latency_s = 0;          // one request (infer) or one optimizer step (train)
  double ttft_s = 0;             // LLM: time to first token
  double tpot_s = 0;             // LLM: time per output token
  Memory memory;
  Plan plan;                     // the plan evaluated (searched or given)
  double bubble_fraction = 0;    // training: pipeline bubble / step compute
  // Training: one micro-batch's forward pass on one pipeline stage, with the
  // forward half of its communication (what an evaluation step costs).
  double eval_stage_s = 0;
  Bound bound = Bound::compute;  // of the whole step
  std::vector<OpPrediction> per_op;
  int plans_priced = 0;          // plans the search priced to choose this one (0: a given plan)
  Parallelism parallelism;
  Communication communication;
  std::vector<Assumption> assumptions;
};

// The precision used when the request names none: inference takes the
// fastest of int8/fp8/bf16/fp16 the device has (what MLPerf closed
// submissions run), training bf16, else fp16, else fp32 (mixed precision).
Result<Precision> default_precision(const catalog::Accelerator& a, workload::Task task);

// Predicts one configuration: the plan keys the request fixes are kept and
// the others searched (docs/model.md#plans). Errors: unsupported precision
// on the device (message lists the ones it has), model does not fit even
// when sharded over `count` devices, a plan that does not fit the device
// count or the model, missing catalog values the model needs.
Result<Prediction> predict(const Request& req);

// The prediction of one fully given plan (req.plan and req.batch ignored).
// predict() and advise both end here, so the same plan gives the same numbers.
Result<Prediction> evaluate(const Request& req, const Plan& plan);

// What one iteration of a continuous-batching server runs on one replica
// (serve_sim.h), and its price in seconds.
struct Iteration {
  double prefill_tokens = 0;   // prompt tokens computed (whole prompts or chunks)
  double prefill_pairs = 0;    // causal attention (query, key) pairs of those tokens
  int decode_seqs = 0;         // sequences generating one token each
  double decode_context = 0;   // tokens of KV cache those decodes attend to (sum over sequences)
};
using IterationTime = std::function<double(const Iteration&)>;

// The one evaluator every command asks: the operators and links of a request
// are prepared once (make), then plans are searched (search: what predict
// returns), priced in full (run), priced fast (quick), or served one
// scheduler iteration at a time (iteration_time: the server simulation).
class Evaluator {
 public:
  static Result<Evaluator> make(const Request& req);
  Result<Prediction> run(const Plan& plan) const;
  // The plan search of predict(): the plan keys the request fixes are kept,
  // the others searched at the request's device count (docs/model.md#plans).
  Result<Prediction> search() const;
  // The same request at another device count (advise sizes a run by
  // searching a few counts; the operators are not rebuilt).
  Evaluator at_count(int count) const;
  // The same request under other calibration factors (class shares).
  Evaluator with_calibration(const Calibrated& c) const;
  // The price of one serving iteration under `plan`, from the same operator
  // prices and tensor all-reduce rule as run(); without a decode phase, one
  // forward pass of prefill_tokens samples as one batch. Errors: a plan
  // that needs a link the catalog does not give.
  Result<IterationTime> iteration_time(const Plan& plan) const;
  // Step time and throughput of a plan without the prediction's detail and
  // wording (fast search); run() on the same plan gives the same numbers.
  struct Quick {
    bool fits = false;
    double latency_s = 0, throughput = 0, memory_bytes = 0;
    double eval_stage_s = 0;   // training: Prediction::eval_stage_s
  };
  Quick quick(const Plan& plan) const;
  // Devices in one scale-up domain (0 when the catalog does not say).
  int scale_up_domain() const;
  // Memory per device under `plan` (the same formula run() checks).
  Memory memory(const Plan& plan) const;
  // Largest micro-batch per device the memory allows under `plan` (0: none).
  int max_micro_batch(const Plan& plan) const;
  Precision precision() const;
  const Request& request() const;
  struct Setup;

 private:
  std::shared_ptr<const Setup> s_;
};

// Memory per device of `w` under `plan` (batch = plan.mb); capacity and fit
// from `a` when given. The one memory formula (docs/model.md#memory).
Memory memory_footprint(const workload::Workload& w, workload::Task task, const PrecisionMix& p, const Plan& plan,
                        const catalog::Accelerator* a);
// Tokens of KV cache `batch` sequences in flight hold under paged KV and
// continuous batching: batch x (I + O/2), the mean live context.
double paged_kv_tokens(const workload::Workload& w, double batch);
// The KV tokens `batch` sequences hold: their static slots when the workload
// was built with a static KV cache, else paged_kv_tokens.
double kv_tokens(const workload::Workload& w, double batch);
// Tokens an LLM engine prefills per iteration at most (TensorRT-LLM's
// max_num_tokens default): bounds the live prefill activations.
inline constexpr double kPrefillChunkTokens = 8192;
// Prompts of `w` whose prefill activations are live at once: one chunk's
// worth (kPrefillChunkTokens / I, at least 1); unbounded for non-LLMs.
double llm_prefill_samples(const workload::Workload& w);
// Parameters that training updates (frozen operators excluded).
double trainable_params(const workload::Workload& w);
// Recommenders: embedding-table parameters, sharded over every device and
// updated row-wise (no dense gradient, no data-parallel all-reduce); 0 otherwise.
double table_params(const workload::Workload& w);
// Mixture of experts: parameters of the expert FFNs (sharded by the
// plan's ep); 0 for dense models.
double expert_params(const workload::Workload& w);
// Fraction of the saved activations one device keeps under the plan's
// tensor/sequence parallelism and recompute (Korthikanti et al. 2022).
double activation_fraction(const workload::Workload& w, const Plan& plan);

// Roofline time of one operator instance set at `batch`: max(compute, memory) + overhead.
OpPrediction roofline(const workload::Operator& op, double batch, Precision p,
                      const catalog::Accelerator& a, const Efficiency& e);

// The roofline of every operator of a graph at `batch` (what `rooftop
// roofline` prints): each operator's prediction and share, the totals and
// the time by bound. Fusions priced by price_fusions.
struct FusionOption {
  std::size_t anchor = 0;             // the GEMM / convolution the chain follows
  std::vector<std::size_t> chain;     // the operators fused into it, in order
  workload::Operator fused;           // the one kernel replacing anchor + chain
};
struct PricedFusion {
  FusionOption option;
  double before_s = 0, after_s = 0;
};
struct RooflineAnalysis {
  std::vector<OpPrediction> ops;
  double total_s = 0, flops = 0, bytes = 0;
  std::array<double, 4> bound_s{};    // by Bound
  std::vector<PricedFusion> fusions;  // those that save time, largest saving first
  double saved_s = 0;
  // Per operator: not compute-bound (what a fusion search may fuse).
  std::vector<bool> memory_bound() const;
};
RooflineAnalysis analyse_roofline(const std::vector<workload::Operator>& ops, double batch, Precision p,
                                  const catalog::Accelerator& a, const Efficiency& e);
// Prices each option (before: the anchor and chain as they are; after: the
// fused kernel) and keeps those that save time in r.fusions and r.saved_s.
void price_fusions(RooflineAnalysis& r, std::vector<FusionOption> options, double batch, Precision p,
                   const catalog::Accelerator& a, const Efficiency& e);

// Ring all-reduce of `bytes` over `n` devices: 2(n-1)/n * bytes / bw + 2(n-1) * latency.
double ring_allreduce_s(double bytes, int n, double link_bytes_per_s, double latency_s);
// The usual bandwidth utilisation eta = (n-1)/n * B_effective / B_max.
double bandwidth_utilisation(int n, double effective_bytes_per_s, double max_bytes_per_s);
// nccl-tests bus bandwidth of an all-reduce of `bytes` that took `time_s` on n devices.
double allreduce_busbw(double bytes, int n, double time_s);

// Expected maximum of n standard normal variables (Blom's approximation
// Phi^-1((n - 0.375) / (n + 0.25))); 0 for n = 1.
// Inverse of the standard normal CDF for q in (0, 1) (P. J. Acklam's rational
// approximation, relative error below 1.2e-9).
double inverse_normal_cdf(double q);
double expected_max_standard_normal(int n);
// Synchronous step slowdown when each of n workers' step time has
// coefficient of variation cv: 1 + cv * E[max of n standard normals].
double straggler_factor(int n, double cv);

// ---- Kernels on their own (rooftop validate, bench comparisons) -----------

// Achieved FLOP/s of one dense m x n x k matmul at precision p.
Result<double> gemm_flop_per_s(const catalog::Accelerator& a, Precision p, double m, double n, double k);
// Achieved bytes/s of a streaming kernel (STREAM triad) moving `bytes`.
Result<double> stream_bytes_per_s(const catalog::Accelerator& a, double bytes);
// Predicted nccl-tests busbw of an all-reduce of `bytes` over n devices on
// the device's scale-up link (host link when it has none).
Result<double> allreduce_busbw_bytes_per_s(const catalog::Accelerator& a, int n, double bytes);
// Device-to-device copy bandwidth between two devices; both directions
// at once when `bidirectional`.
Result<double> copy_bytes_per_s(const catalog::Accelerator& a, bool bidirectional);

}  // namespace rooftop::model
