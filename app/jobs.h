// What the commands compute, as values: each command file runs its job
// through one of these functions and prints the result, as text or as the
// JSON below; the Python module (python/) calls the same functions and
// returns the same JSON. Errors are values, with the input they name.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/advise.h"
#include "catalog/catalog.h"
#include "command.h"
#include "model/model.h"
#include "model/convergence.h"
#include "model/ranges.h"
#include "model/serve_sim.h"
#include "model/validate.h"
#include "workload/workload.h"

namespace rooftop::app {

// ---- predict (app/cmd_predict.cpp) -------------------------------------
struct PredictOptions {
  std::string model, accelerator, task = "infer", precision, scenario = "offline", latency_target, plan, trace;
  std::optional<double> rate;
  std::optional<int> requests;
  double chunk_tokens = 2048;
  bool scenario_given = false;  // --scenario was on the command line
  int count = 1;
  std::optional<int> batch, input_tokens, output_tokens, seq, global_batch;
  std::string kv_cache = "paged";
  std::string stack;            // --stack: the software stack family whose calibration applies
  bool to_target = false;
  bool lora = false;
  int grad_accumulation = 1;
  double straggler_cv = 0;
  int top = 10;
  bool json = false;
};

// A prediction with what the output adds to it: the time to the MLPerf
// target (--to-target), the error band, and the server simulation.
struct PredictOutcome {
  model::Prediction prediction;
  std::optional<model::TimeToTarget> to_target;
  model::Sureness sure;
  std::optional<model::ServePrediction> served;
};

Result<PredictOutcome> run_prediction(const PredictOptions& o, const GlobalOptions& global);
// What `predict --json` prints.
nlohmann::json prediction_json(const PredictOutcome& r);

// ---- catalog (app/cmd_catalog.cpp) -------------------------------------
// The entries `catalog list` shows for --kind and --vendor ("" = all).
Result<std::vector<const catalog::Accelerator*>> select_accelerators(const catalog::Catalog& cat,
                                                                     const std::string& kind,
                                                                     const std::string& vendor);
// What `catalog list --json` prints: {"accelerators": [...]}.
nlohmann::json catalog_list_json(const std::vector<const catalog::Accelerator*>& shown);
// What `catalog show ID --json` prints (the entry and its `sources` map).
nlohmann::json accelerator_json(const catalog::Accelerator& a);

// ---- workload (app/cmd_workload.cpp) -----------------------------------
struct WorkloadShowOptions {
  std::string model;
  int batch = 1;
  std::optional<int> seq, input_tokens, output_tokens, image_size;
  std::string precision = "fp16";
  std::string task = "infer";
  std::vector<std::string> onnx_inputs;
  int top = 20;
  bool json = false;
};

// What `workload show MODEL --json` prints.
Result<nlohmann::json> workload_show_json(const WorkloadShowOptions& o);
// What `workload list --json` prints: {"models": [...]}.
Result<nlohmann::json> workload_list_json();

// ---- validate (app/cmd_validate.cpp) -----------------------------------
// Every row of the measurement CSVs, predicted (with the calibration
// load_calibration gives, unless `physics`; `shares`: each end-to-end row
// also measures its operator-class shares, for calibrate and --cv).
Result<model::Validation> run_validation(const std::vector<std::string>& files, const GlobalOptions& global,
                                         bool physics = false, bool shares = false);

// Calibration judged by cross-validation (`validate --cv`, `calibrate`):
// the rows predicted by physics with their class shares, the parameters
// fitted on every row, and `cv`: the same rows with each group left out of
// the fit in turn and predicted (predicted, error_pct and range replaced).
struct CrossValidation {
  model::Validation physics, cv;
  std::vector<model::CalRow> rows;     // the end-to-end rows fitted on
  std::vector<double> cv_ratio;        // per rows[i]: speed ratio with its group left out
  model::Calibration fitted;           // on every row
  std::string group_kind;              // "system" or "part-model"
  int groups = 0;
  double coverage = 0;                 // share of rows whose measured value lies in its 80 % range
};
// `group_kind`: "system" (the submitter's system) or "part-model"
// (accelerator x model); anything else is an error naming --cv.
Result<CrossValidation> run_cross_validation(const std::vector<std::string>& files, const GlobalOptions& global,
                                             const std::string& group_kind);
// Its summary (MdAPE physics / fitted / cross-validated and range coverage
// per category, vendor and model), as `validate --cv` prints it.
std::string cv_text(const CrossValidation& x);
nlohmann::json cv_json(const CrossValidation& x);
// What `validate --json` prints.
nlohmann::json validation_json(const model::Validation& v);

// ---- advise (app/cmd_advise.cpp) ---------------------------------------
struct AdviseOutcome {
  advise::Scenario scenario;
  advise::Advice advice;
};

// The advice for a scenario's YAML text; `name` is the input it came from
// (a file name), which messages cite.
Result<AdviseOutcome> run_advice(const std::string& text, const std::string& name, const GlobalOptions& global);
// What `advise --json --top N` prints.
nlohmann::json advice_json(const AdviseOutcome& r, std::size_t top);
// The error `advise` ends with when no candidate is feasible (after printing).
Error nothing_feasible_error(const AdviseOutcome& r, const std::string& name);

}  // namespace rooftop::app
