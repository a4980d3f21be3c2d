// The advise scenario: what to run, what must be achieved, what is allowed,
// and how money is counted. Parsed strictly from YAML (schema and defaults in
// docs/advise.md#scenario); every problem is reported with file:line.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "core/result.h"
#include "workload/workload.h"

namespace rooftop::advise {

enum class ObjectiveKind { throughput, latency, train };
enum class Deployment { on_prem, cloud, either };  // either: priced both ways, ranked on the cheaper

std::string_view to_string(ObjectiveKind k);
std::string_view to_string(Deployment d);

struct FrameworkRequirement {
  std::string name;         // "pytorch"
  std::string min_version;  // "2.1"; empty = any version
};

// Weights of the criteria in the total score (docs/advise.md#ranking).
struct Weights {
  double compute_adequacy = 1, bandwidth_fit = 1, precision = 1, ecosystem = 1, energy_efficiency = 1,
         tco = 1;
};

// The configuration a user has or plans (e.g. the 8 x A100 already bought),
// scored next to the recommendations.
struct Baseline {
  std::string accelerator;
  int count = 1;
  std::optional<Precision> precision;
};

// A price the user supplies (a quote, a negotiated rate) for a part whose
// catalog price is unknown or differs; shown with its source.
struct PriceOverride {
  std::string accelerator;
  std::optional<double> list_usd;
  std::optional<double> cloud_usd_per_hour;
  std::string source;
};

struct Scenario {
  std::string file;         // where it was read (messages)
  std::string name;
  std::string description;

  // Workload.
  std::string model;        // zoo id, or a model file path (resolved against the scenario's folder)
  std::string model_line;   // "file:line" of workload.model, for messages
  workload::Task task = workload::Task::infer;
  std::vector<Precision> precisions;   // allowed, in order of preference (compute precision)
  // Inference: weights and KV cache in their own formats ("w4a16", "fp8-kv"
  // in precisions); empty: the compute precision (docs/model.md#precision).
  std::optional<Precision> weight_precision, kv_precision;
  workload::BuildOptions shape;
  int global_batch = 0;                // training: samples per optimizer step

  // Objective: exactly one kind.
  ObjectiveKind objective = ObjectiveKind::throughput;
  double throughput_per_s = 0;         // in the workload's unit (samples/s or tokens/s)
  double p99_latency_s = 0;            // per request
  double arrival_rate_per_s = 0;       // requests/s (Poisson)
  std::array<double, 3> network_rtt_s{};  // added to latency, by catalog::FormFactor
  double train_samples = 0;            // samples to train on (tokens / seq_len when given in tokens)
  double train_tokens = 0;             // as given (0 when given in samples)
  // Training to the MLPerf Training quality target: the samples come from the
  // reference convergence points at global_batch and the timed evaluations
  // count (model::time_to_target).
  bool train_to_target = false;
  double deadline_s = 0;
  double straggler_cv = 0.05;          // per-step time coefficient of variation of one worker

  // Constraints.
  std::optional<double> budget_capex_usd;
  std::optional<double> budget_cloud_usd_per_hour;
  std::optional<double> max_power_per_device_w;
  std::optional<double> max_power_total_w;
  std::vector<catalog::FormFactor> form_factors;   // empty = any
  int max_devices = 1024;
  std::vector<std::string> vendors_include, vendors_exclude;
  std::vector<std::string> accelerators_include, accelerators_exclude;
  std::vector<FrameworkRequirement> frameworks;
  std::vector<std::string> runtimes;       // each required ("tensorrt", "cann")
  std::vector<std::string> custom_ops;     // one of these languages required ("cuda", "ascend-c")
  bool consumer_parts = true;              // false: exclude parts with a `consumer` catalog caveat

  // Economics.
  double horizon_years = 3;
  double energy_usd_per_kwh = 0.128;
  double pue = 1.58;
  double utilisation = 0.5;
  std::optional<double> amortisation_years;  // capex charged = capex x min(1, horizon / this)
  Deployment deployment = Deployment::on_prem;
  double storage_bytes_per_s = 2e9;          // model load path for cold start
  std::vector<PriceOverride> prices;         // economics.prices, applied over the catalog
  std::string today;                         // "YYYY-MM-DD" from the caller's clock; empty = prices are not aged

  // Facility (docs/advise.md#facility): the power one rack may draw and
  // whether the floor has liquid cooling. A purchase unit (a catalog system)
  // that needs more is rejected, saying so.
  std::optional<double> rack_kw;
  std::optional<bool> liquid_cooling;

  std::optional<Baseline> baseline;
  Weights weights;
  // rank_by: score (default) or least_capacity, for "what would have been
  // enough?": the least compute (devices x peak at the chosen precision)
  // that meets the objective first, the score breaking ties.
  bool rank_least_capacity = false;
  std::vector<std::string> defaults_used;    // economics keys that took their documented default
};

// Parses and validates a scenario. `file` names it in messages. Unknown
// keys, wrong types, out-of-range values and contradictions (a capex budget
// on cloud, a training objective with task infer, a vendor both included and
// excluded, ...) are Errc::invalid_input, all reported at once.
Result<Scenario> parse_scenario(std::string_view text, const std::string& file);

// "2.10" > "2.9": dotted numeric comparison (non-numeric parts compare as text).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace rooftop::advise
