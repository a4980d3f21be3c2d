// Advise, the main job: a scenario (workload, objective, constraints,
// economics) is evaluated on every catalog accelerator. For each one the
// advisor picks a precision among those allowed, sizes the device count and
// the batch (serving: the continuous-batching server simulated for LLMs, a
// queueing model of request batching otherwise; training: a
// search over data/tensor/pipeline splits and micro-batches), checks the
// constraints, and scores five criteria (compute adequacy,
// bandwidth fit, precision, ecosystem, energy efficiency and TCO). The
// result is the ranked feasible set with its Pareto front, the rejected
// accelerators with one-line reasons, and an explanation per finalist.
//
// Pure: catalog + workload + scenario in, Advice out (app/cmd_advise.cpp
// does the I/O). Formulas and their sources: docs/advise.md.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advise/scenario.h"
#include "catalog/catalog.h"
#include "core/result.h"
#include "model/convergence.h"
#include "model/calibration.h"
#include "model/ranges.h"
#include "report/report.h"
#include "workload/workload.h"

namespace rooftop::advise {

// Money over the horizon. Empty = unknown (a catalog price or TDP is missing).
struct Cost {
  std::optional<double> capex_usd;   // on-prem: list price x count (amortised share)
  std::optional<double> energy_usd;  // on-prem: kWh x PUE x price
  std::optional<double> cloud_usd;   // cloud: device-hours x $/h
  std::optional<double> tco_usd;     // capex + energy, or cloud
  std::optional<double> energy_kwh;  // facility energy (PUE included)
  std::string list_price_date;       // date of the list price used ("2024-06", "undated"); empty = not used
  std::string cloud_price_date;      // date of the cloud price used; empty = not used
  bool rented = false;               // tco_usd is renting (cloud, or `either` where renting is the cheaper)
};

// An unpriced finalist ranked above the best priced one: the highest price
// per device at which it would still outscore that one (docs/advise.md#unknown-prices).
struct PriceToWin {
  bool any_price = false;  // it outscores it whatever it costs (its other criteria lead)
  double usd = 0;          // per device: a list price, or a rate per device-hour when per_hour
  bool per_hour = false;
};

// The five criteria, each 0..1 (docs/advise.md#scores). The fifth criterion is
// two numbers: energy efficiency and TCO (empty when the price is unknown).
struct Scores {
  double compute_adequacy = 0;
  double bandwidth_fit = 0;
  double precision = 0;
  double ecosystem = 0;
  std::optional<double> energy_efficiency;
  std::optional<double> tco;
  double total = 0;  // weighted mean of the known scores
};

// Training only: the split found by the search.
struct TrainPlan {
  int data = 1, tensor = 1, pipeline = 1;
  int micro_batch = 1;
  int grad_accumulation = 1;       // micro-batches per optimizer step per data-parallel rank
  double step_s = 0;               // one optimizer step, straggler penalty included
  double compute_s = 0;            // pipeline compute of one step (bubble included)
  double tp_comm_s = 0;            // tensor-parallel all-reduces per step
  double dp_comm_s = 0;            // gradient ring all-reduce per step
  double bubble_fraction = 0;      // (p-1)/(k+p-1)
  double straggler_factor = 1;     // E[max of N workers] / mean
  double eta = 0;                  // bandwidth utilisation of the gradient all-reduce ((N-1)/N x B_effective / B_max)
  double memory_bytes = 0;         // per device
  double steps = 0;
  double time_to_train_s = 0;
};

// One operator on a roofline: x = FLOP/byte, y = attained FLOP/s.
struct OpPoint {
  std::string name;
  double intensity = 0;
  double flop_per_s = 0;
  double time_share = 0;
};

// Serving with a p99 objective: the request latency the sizing used. For a
// decoder LLM it comes from the event-driven continuous-batching simulation
// (model::simulate_server at the scenario's rate over the replicas), with
// TTFT and TPOT; otherwise from the queueing formula (docs/advise.md#serving).
// Network round trip not included.
struct ServingFigures {
  bool simulated = false;
  double latency_p99_s = 0;
  std::optional<double> ttft_p99_s, tpot_p99_s;  // simulated only
  int requests = 0;                              // simulated requests (one replica)
  long preemptions = 0;                          // sequences evicted when KV blocks ran out
};

struct Candidate {
  const catalog::Accelerator* accelerator = nullptr;
  int count = 1;                    // devices in total
  int replica_devices = 1;          // serving: devices holding one model copy
  Precision precision = Precision::fp16;
  int batch = 1;                    // per device (training: micro-batch)
  double throughput = 0;            // all devices, in `throughput_unit`
  std::string throughput_unit;
  double latency_s = 0;             // serving: p99 per request; training: optimizer step
  double service_s = 0;             // serving: time to compute one batch
  double utilisation = 0;           // demand / capacity (serving: rho; training: time / deadline)
  double memory_bytes = 0;          // per device
  std::optional<double> cold_start_s;
  std::optional<double> power_w;    // all devices at TDP
  std::optional<double> perf_per_w; // throughput / power
  double achieved_flop_per_s = 0;   // per device, from the per-operator rooflines
  Cost cost;
  Scores scores;
  bool priced = false;              // TCO known
  std::optional<PriceToWin> price_to_win;  // unpriced and ranked above the best priced finalist
  // The unit the part is bought (or rented) in, from the catalog's systems:
  // the one that leaves the fewest devices over; nullptr when none holds it.
  const catalog::System* system = nullptr;
  std::optional<double> break_even_utilisation;  // buying and renting both priced: above it buying is cheaper
  bool pareto = false;
  bool meets_objective = true;      // false only for a baseline that misses it
  std::optional<TrainPlan> train;
  std::optional<ServingFigures> serving;  // serving with a p99 objective
  // The parallel plan in `rooftop predict --plan` syntax: predict with the
  // same model, accelerator, count, task and precision and this plan
  // reproduces throughput, step time (serving: service time) and memory.
  std::string plan;
  std::string precision_risk;
  std::vector<OpPoint> ops;         // the heaviest operators, for the roofline
  std::vector<std::string> explanation;  // criterion by criterion
  std::vector<std::string> notes;        // unknowns and assumptions specific to this part
  // How sure the figures are: the model's measured error on published rows
  // of this task, workload family and vendor (empty when advise ran without
  // error bands).
  std::optional<model::Sureness> sure;
};

struct Rejection {
  std::string accelerator;
  std::string reason;               // one line
  // How close it came to the objective (for "closest misses"): the value
  // achieved and its shortfall as a ratio >= 1 (1 = met); empty when the
  // rejection is not about the objective (vendor, ecosystem, ...).
  std::optional<double> achieved;
  std::optional<double> shortfall;
};

struct Assumption {
  std::string name, value, source;
};

struct Advice {
  // The catalog the candidates point into: the input with the scenario's
  // economics.prices applied.
  std::shared_ptr<const catalog::Catalog> catalog;
  std::string scenario_name;
  std::string model;
  std::string throughput_unit;
  std::vector<Candidate> candidates;  // ranked, best first
  std::vector<Rejection> rejected;    // sorted by accelerator id
  std::optional<Candidate> baseline;  // the scenario's current/planned setup, scored alike
  std::vector<Assumption> assumptions;
  long long configs_evaluated = 0;
};

// Runs the advisor. Errors: the scenario's model cannot be costed (no
// operators), or the baseline names an unknown accelerator. An empty feasible
// set is not an error here: see nothing_feasible().
// `rcps`: MLCommons' reference convergence points, for a train_to_target objective.
// `bands`: the model's error bands (docs/model.md#ranges); each candidate's
// `sure` comes from them. `calibration`: the fitted stack factors every
// candidate's predictions use, on its vendor's default stack
// (model::default_stack); none: physics alone.
Result<Advice> advise(const Scenario& s, const catalog::Catalog& cat, const workload::Workload& w,
                      const std::vector<model::ConvergencePoint>& rcps = {},
                      const std::vector<model::ErrorBand>& bands = {},
                      const model::Calibration* calibration = nullptr);

// When no candidate is feasible: "nothing meets 20 ms p99; closest:
// X at 27 ms, ..." naming up to three closest misses; empty otherwise.
std::string nothing_feasible(const Scenario& s, const Advice& a);

// The report: summary table, explanation per finalist, a roofline per
// finalist with the workload's operators, cost vs performance with the Pareto
// front, TCO breakdown bars, rejected list and assumptions.
// for_terminal leaves out the "how to read this" section (for the report only).
report::Document build_report(const Scenario& s, const Advice& a, std::size_t top, bool for_terminal = false);

// The answer in one sentence: "Buy 2 x Intel Gaudi 3 (bf16): 655 samples/s, 25 h
// to train, $38.7 k over 4 years; 2nd choice 2 x NVIDIA H100 at +73 % cost."
// It names the best finalist whose price is known (Buy or Rent, as its TCO
// is counted, with the TCO the table shows and the precision the table
// shows), then the unpriced finalists ranked above it with the price at
// which each would win. With no priced finalist it recommends nothing to
// buy; with no feasible part, says so with the closest misses.
std::string answer_line(const Scenario& s, const Advice& a);

// The precision a configuration runs, as the table shows it: the compute
// format, then the weights' and KV cache's own formats when the scenario
// sets them for serving ("fp8+int4-weights+fp8-kv", a form the scenario's
// `precisions:` accepts).
std::string precision_label(const Scenario& s, const Candidate& c);

// True when the slow end of a candidate's likely range (the model's measured
// error on published rows like it, docs/model.md#ranges) misses the
// scenario's objective although the prediction meets it.
bool objective_at_risk(const Scenario& s, const Candidate& c);

}  // namespace rooftop::advise
