// Calibration on the published record (docs/model.md#calibration): a small
// set of named, bounded efficiencies, one per (software stack family,
// vendor, task, operator class), fitted on every predicted row of the
// MLPerf corpus and judged by cross-validation (leave a group out, predict
// it). Physics stays the backbone: a parameter scales the efficiency of
// every operator of its class on its stack (Efficiency::class_factor), for
// every model, part and system of that vendor. Never a per-row, per-system
// or per-model constant: a parameter needs rows of two models and two
// systems, or it is not fitted.
//
// The fit is written here rather than taken from a library: it is a
// one-dimensional bounded search per parameter (golden section on log
// factor), repeated over the parameters (coordinate descent) on a robust
// loss of the log speed ratio; Debian's packaged optimizers (GSL, NLopt)
// would add a dependency for about 40 lines. Pure: no I/O.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"
#include "model/model.h"
#include "workload/workload.h"

namespace rooftop::model {

// The operator classes (one row per OpClass, in enum order).
struct OpClassInfo {
  OpClass cls;
  std::string_view name;    // "decode"
  std::string_view covers;  // what it scales, for --show and docs
};
inline constexpr std::array<OpClassInfo, kOpClassCount> kOpClasses = {{
    {OpClass::gemm, "gemm", "matrix multiplies (linear layers, MLPs) outside an LLM's decode phase"},
    {OpClass::conv, "conv", "convolutions"},
    {OpClass::attention, "attention", "attention score and context products outside decode"},
    {OpClass::decode, "decode", "every operator of an LLM's decode phase (weight and KV-cache streaming)"},
    {OpClass::gather, "gather", "embedding and table lookups"},
    {OpClass::vector, "vector", "norms, softmax, elementwise, pooling, copies and optimizer updates"},
    {OpClass::communication, "communication", "collective bandwidth (tensor, pipeline, data and expert parallel)"},
    {OpClass::serving, "serving", "the server scheduler's loss beyond the priced iterations (Server rows)"},
}};
std::string_view to_string(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view s);
// The class an operator's efficiency is calibrated in.
OpClass op_class(const workload::Operator& op);

// Software stack families, as a software_stack cell names them (one row
// per family; the first whose token the lowercased cell contains wins).
struct StackInfo {
  std::string_view id;      // "tensorrt"
  std::string_view label;   // "TensorRT / TensorRT-LLM"
  std::array<std::string_view, 8> tokens;
};
inline constexpr StackInfo kStacks[] = {
    {"tensorrt", "TensorRT / TensorRT-LLM (incl. JetPack)", {"tensorrt", "trt-llm", "trtllm", "jetpack"}},
    {"vllm", "vLLM", {"vllm"}},
    {"sglang", "SGLang", {"sglang"}},
    {"imaigine", "UntetherAI imAIgine SDK", {"imaigine"}},
    {"synapse", "Intel Gaudi software (SynapseAI, Optimum Habana, TGI-gaudi)", {"synapse", "habana", "gaudi"}},
    {"xla", "XLA (JAX, Flax, MaxText, SAX, TensorFlow)", {"jax", "flax", "maxtext", "saxml", "sax", "xla", "tensorflow"}},
    {"tinygrad", "tinygrad", {"tinygrad"}},
    {"ngc", "NVIDIA NGC training containers (NeMo, PyTorch, MXNet, HugeCTR, DGL)",
     {"nvidia release", "ngc", "nemo", "hugectr", "merlin", "nvidia pytorch", "mxnet", "dgl"}},
    {"openvino", "OpenVINO", {"openvino"}},
    {"onnxruntime", "ONNX Runtime", {"onnx runtime", "onnxruntime"}},
    {"pytorch", "PyTorch (eager or compiled, incl. IPEX)", {"pytorch", "torch", "ipex", "deepspeed", "megatron"}},
};
// The family a software_stack cell belongs to ("TensorRT 10.2.0, CUDA 12.4"
// -> "tensorrt"); "other" when no family matches, "" for an empty cell.
std::string stack_family(std::string_view software);
bool known_stack(std::string_view id);
// The stack a prediction assumes when the user names none: what the
// vendor's MLPerf submissions run on that kind of part; "" when none.
std::string default_stack(const catalog::Accelerator& a, workload::Task task);

// One fitted parameter: the factor on the efficiency of `cls` operators of
// `task` on `stack` for `vendor` parts, within [low, high].
struct CalParameter {
  std::string stack, vendor, task;
  OpClass cls = OpClass::gemm;
  double value = 1, low = 0, high = 0;
  int rows = 0, groups = 0, models = 0, parts = 0;  // the rows it was fitted on
  double mdape_before = 0, mdape_after = 0;          // those rows, physics vs fitted (in sample)
  std::string name() const;                          // "tensorrt/nvidia/infer/decode"
};
// The bounds every parameter is fitted within: a class may run at 1/20 of
// the physics estimate, and at most 1.25 x (0.78 x 1.25 < 1: never past peak).
inline constexpr double kFactorLow = 0.05, kFactorHigh = 1.25;

struct Calibration {
  std::vector<CalParameter> parameters;
  std::string source;      // the command and inputs it was fitted from
  std::string cv;          // the cross-validated figure it was judged by
};
Result<Calibration> parse_calibration(std::string_view text, const std::string& name);
std::string calibration_yaml(const Calibration& c);

// What `cal` applies to a prediction on `stack` for a `vendor` part.
Calibrated calibrated_for(const Calibration& cal, std::string_view stack, std::string_view vendor,
                          workload::Task task);

// ---- Fitting ---------------------------------------------------------------

// The share of the time of `plan` each priced class takes: the time it
// gains when that class runs at half its efficiency, / the time (0 for the
// serving class, which the caller sets for Server rows).
std::array<double, kOpClassCount> class_shares(const Evaluator& ev, const Plan& plan);

// One predicted row as the fit sees it.
struct CalRow {
  std::string id, stack, vendor, task, model, part, group;
  std::string family, scenario, precision;   // what its range is built from (model/ranges.h)
  std::size_t index = 0;                     // the caller's row (Validation::rows)
  double speed_ratio = 1;   // physics predicted / measured speed (> 1: too fast)
  // Fraction of the row's time in each class (the time it gains when the
  // class runs at half its efficiency); serving is 1 for Server rows.
  std::array<double, kOpClassCount> share{};
};
// The row's speed ratio once `factor` applies: the time becomes
// T x (1 - sum s + sum s / f) over the priced classes, / f_serving.
double calibrated_ratio(const CalRow& r, const std::array<double, kOpClassCount>& factor);
// The factors `cal` gives row `r`.
std::array<double, kOpClassCount> row_factors(const Calibration& cal, const CalRow& r);

struct FitOptions {
  int min_rows = 8;           // rows with a share >= min_share
  int min_groups = 2;         // systems among them
  int min_models = 2;         // models among them
  double min_share = 0.05;
  double prior_weight = 10;   // rows' worth of pull toward 1 (physics)
  // Start from these values (within +-0.5 in log of them first) instead of 1.
  const Calibration* start = nullptr;
};
// Fits every parameter the rows support (FitOptions), minimizing a robust
// loss (Huber, 10 % in log) of the calibrated log speed ratios plus, per
// parameter, prior_weight rows' worth of the same loss at ratio f (rows
// that say physics is right).
Calibration fit(const std::vector<CalRow>& rows, const FitOptions& opts = {});

// Cross-validation: for each group, the parameters are refitted without
// it and its rows predicted. Returns each row's calibrated speed ratio.
std::vector<double> cross_validate(const std::vector<CalRow>& rows, const FitOptions& opts = {});

// The likely range of a prediction from cross-validated residuals: the
// 10th and 90th percentiles of measured / predicted speed among `group`
// rows, each row weighing 1, mixed with the whole corpus's residuals
// weighing `shrink` rows in all, so a group with few rows is pulled toward
// the corpus. Returns (low, high) ratios of measured / predicted.
std::pair<double, double> shrunk_range(const std::vector<double>& group_log_ratios,
                                       const std::vector<double>& corpus_log_ratios, double shrink = 10,
                                       double coverage = 0.8);

// Each row's 80 % range (measured / predicted speed, low and high) from
// the cross-validated ratios of the other systems' rows of its task, family,
// vendor and scenario, shrunk toward those of every other system
// (shrunk_range): no row's own system builds its range.
std::vector<std::pair<double, double>> cv_ranges(const std::vector<CalRow>& rows, const std::vector<double>& cv_ratio,
                                                 double shrink = 10);

}  // namespace rooftop::model
