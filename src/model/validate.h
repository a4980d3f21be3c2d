// Checking the model against published measurements (`rooftop validate`):
// reads a CSV in the format of tests/data/validation/measurements.csv and
// predicts each row from its columns alone. GEMM rows become one matmul of
// the shape in the workload text, memory-bandwidth rows a streaming kernel,
// all-reduce rows a ring collective over the catalog link (nccl-tests busbw),
// and MLPerf rows a full predict() of the zoo model in the row's scenario.
// Pure: the caller reads the file and supplies the workload loader.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/result.h"
#include "model/calibration.h"
#include "model/convergence.h"
#include "workload/workload.h"

namespace rooftop::model {

// One measurement row, typed. `line` is the 1-based line it starts on.
struct MeasurementRow {
  int line = 0;
  std::string id, accelerator_id, model_id, category, workload, precision, batch, scenario, metric, unit;
  std::string software;    // software_stack (optional column)
  int count = 1;           // accelerator_count
  double measured = 0;     // metric_value (per accelerator for throughput rows)
  // Every column of the row by its header name (what `validate --by` groups on).
  std::vector<std::pair<std::string, std::string>> columns;
};

// Parses the CSV (RFC 4180 quoting, fields may span lines). Errors
// (Errc::invalid_input, context "name:line"): missing required columns,
// a row with the wrong number of fields, a number that does not parse.
Result<std::vector<MeasurementRow>> parse_measurements(std::string_view text, const std::string& name);

struct RowResult {
  std::string id, accelerator, model, category, metric, unit;
  double measured = 0;
  std::optional<double> predicted;   // in the row's unit, per accelerator; empty when not predictable
  double error_pct = 0;              // (predicted - measured) / measured x 100
  std::string reason;                // why there is no prediction
  std::string method;                // how it was predicted ("gemm 2048x2048x13312 bf16")
  // End-to-end rows: what the row checks, for the error bands predictions
  // carry (model/ranges.h); empty for micro-benchmarks.
  std::string task, family, vendor, precision;
  bool time_metric = false;          // latency or time to train (lower is better)
  std::string scenario;              // offline, server, single-stream, train (end-to-end rows)
  std::string stack;                 // software stack family (model/calibration.h)
  std::string group;                 // the submitter's system, for cross-validation
  std::vector<std::string> parameters;   // calibration parameters the prediction used
  // Time share of each operator class (ValidateOptions::shares).
  std::optional<std::array<double, kOpClassCount>> shares;
  // The 80 % range of the prediction (validate --cv: from cross-validated
  // residuals of the other systems), in the row's unit.
  std::optional<std::pair<double, double>> range;
  std::vector<std::pair<std::string, std::string>> columns;  // the row's CSV columns
  // Predicted speed / measured speed: predicted / measured for a rate,
  // measured / predicted for a time (so > 1 is always "too fast").
  double speed_ratio() const;
};

struct Validation {
  std::vector<RowResult> rows;
  std::optional<double> mdape_pct;   // median |error| over predicted rows
  int predicted = 0;
};

// How rows are predicted: with a calibration (none: pure physics), and
// whether each end-to-end row also measures its class shares (calibrate,
// validate --cv: six more evaluations of the row's plan).
struct ValidateOptions {
  const Calibration* calibration = nullptr;
  bool shares = false;
};

// The submitter's system a row comes from ("AMD/1xMI300X_2xEPYC-9374F", from
// the MLPerf results path in its source column), else its part and count.
std::string system_of(const MeasurementRow& row);

using WorkloadLoader =
    std::function<Result<workload::Workload>(const std::string& model_id, const workload::BuildOptions& shape)>;

// `rcps`: MLCommons reference convergence points for mlperf_training rows
// (time to train = samples to the target / predicted samples per second).
RowResult predict_row(const MeasurementRow& row, const catalog::Catalog& cat, const WorkloadLoader& load,
                      const std::vector<ConvergencePoint>& rcps = {}, const ValidateOptions& opts = {});
Validation validate(const std::vector<MeasurementRow>& rows, const catalog::Catalog& cat, const WorkloadLoader& load,
                    const std::vector<ConvergencePoint>& rcps = {}, const ValidateOptions& opts = {});

// The fit's view of the predicted end-to-end rows that carry shares.
std::vector<CalRow> calibration_rows(const Validation& v);

// MdAPE per category, and for micro-benchmark vs end-to-end rows.
struct GroupError {
  std::string group;   // "microbench_gemm", ..., "micro-benchmark", "end-to-end"
  int predicted = 0, rows = 0;
  double mdape_pct = 0;
};
std::vector<GroupError> group_errors(const Validation& v);

// `validate --by COLUMN,...`: the rows grouped by the values of any CSV
// columns (or `vendor`, `accelerator`, `model`, which fall back to the
// catalog and the row's ids), each group's MdAPE, median speed ratio
// (RowResult::speed_ratio) and worst row. Groups in order of first row.
// Errors: a column no row has (the message lists those that exist).
struct GroupSummary {
  std::vector<std::string> key;     // the group's value of each column
  int rows = 0, predicted = 0;
  double mdape_pct = 0;
  double median_speed_ratio = 0;
  std::string worst_id;             // the predicted row of largest |error|
  double worst_error_pct = 0;
};
Result<std::vector<GroupSummary>> group_by(const Validation& v, const std::vector<std::string>& columns);

// Median of |x| (0 for an empty list).
double median_abs(std::vector<double> values);

}  // namespace rooftop::model
