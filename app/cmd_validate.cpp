// `rooftop validate FILE.csv`: predicts every row of a measurement CSV (the
// format of tests/data/validation/measurements.csv) from its columns alone
// and reports the error of each and the median absolute percentage error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "core/yaml.h"
#include "inputs.h"
#include "jobs.h"
#include "model/ranges.h"
#include "model/validate.h"
#include "report/report.h"

namespace rooftop::app {
namespace {

using nlohmann::json;

struct ValidateOptions {
  std::vector<std::string> files;
  bool json = false;
  bool bands = false;
  std::string by;   // "vendor,model,scenario"
};

std::vector<std::string> by_columns(const std::string& by) {
  std::vector<std::string> cols;
  for (const std::string& c : split(by, ','))
    if (!trim(c).empty()) cols.push_back(trim(c));
  return cols;
}

json groups_json(const std::vector<std::string>& cols, const std::vector<model::GroupSummary>& groups) {
  json out = json::array();
  for (const model::GroupSummary& g : groups) {
    json key = json::object();
    for (std::size_t i = 0; i < cols.size(); ++i) key[cols[i]] = g.key[i];
    out.push_back({{"key", key},
                   {"rows", g.rows},
                   {"predicted_rows", g.predicted},
                   {"mdape", g.predicted ? json(g.mdape_pct) : json(nullptr)},
                   {"median_speed_ratio", g.predicted ? json(g.median_speed_ratio) : json(nullptr)},
                   {"worst", g.predicted ? json{{"id", g.worst_id}, {"error_pct", g.worst_error_pct}} : json(nullptr)}});
  }
  return out;
}

std::string groups_text(const std::vector<std::string>& cols, const std::vector<model::GroupSummary>& groups) {
  report::Table t;
  t.headers = cols;
  for (const char* h : {"rows", "predicted", "MdAPE", "speed ratio", "worst row"}) t.headers.push_back(h);
  t.align.assign(cols.size(), report::Align::left);
  for (int i = 0; i < 4; ++i) t.align.push_back(report::Align::right);
  t.align.push_back(report::Align::left);
  for (const model::GroupSummary& g : groups) {
    std::vector<std::string> row = g.key;
    for (std::string& c : row)
      if (c.empty()) c = "-";
    row.push_back(std::to_string(g.rows));
    row.push_back(std::to_string(g.predicted));
    row.push_back(g.predicted ? fmt::format("{:.1f} %", g.mdape_pct) : "n/a");
    row.push_back(g.predicted ? fmt::format("{:.2f}", g.median_speed_ratio) : "n/a");
    row.push_back(g.predicted ? fmt::format("{} ({:+.1f} %)", g.worst_id, g.worst_error_pct) : "-");
    t.rows.push_back(std::move(row));
  }
  return t.render_text() +
         "speed ratio: median of predicted / measured speed (measured / predicted for times): above 1 is too fast\n";
}


std::string text_output(const model::Validation& v) {
  report::Table t;
  t.headers = {"id", "accelerator", "model", "unit", "measured", "predicted", "error", "how"};
  t.align = {report::Align::left, report::Align::left, report::Align::left, report::Align::left,
             report::Align::right, report::Align::right, report::Align::right, report::Align::left};
  std::string skipped;
  for (const model::RowResult& r : v.rows) {
    if (!r.predicted) {
      skipped += fmt::format("  {}: {}\n", r.id, r.reason);
      continue;
    }
    t.rows.push_back({r.id, r.accelerator, r.model, r.unit, plain(r.measured), plain(*r.predicted),
                      fmt::format("{:+.1f} %", r.error_pct), r.method});
  }
  std::string out = t.render_text();
  out += fmt::format("\npredicted {} of {} rows; MdAPE {}\n", v.predicted, v.rows.size(),
                     v.mdape_pct ? fmt::format("{:.1f} %", *v.mdape_pct) : std::string("n/a"));
  for (const model::GroupError& e : model::group_errors(v))
    out += fmt::format("  {}: {} of {} rows, MdAPE {}\n", e.group, e.predicted, e.rows,
                       e.predicted ? fmt::format("{:.1f} %", e.mdape_pct) : std::string("n/a"));
  if (!skipped.empty()) out += "not predicted:\n" + skipped;
  return out;
}

}  // namespace

json validation_json(const model::Validation& v) {
  json rows = json::array();
  for (const model::RowResult& r : v.rows) {
    rows.push_back({{"id", r.id},
                    {"accelerator", r.accelerator},
                    {"model", r.model},
                    {"category", r.category},
                    {"metric", r.metric},
                    {"unit", r.unit},
                    {"measured", r.measured},
                    {"predicted", r.predicted ? json(*r.predicted) : json(nullptr)},
                    {"error_pct", r.predicted ? json(r.error_pct) : json(nullptr)},
                    {"method", r.method.empty() ? json(nullptr) : json(r.method)},
                    {"reason", r.reason.empty() ? json(nullptr) : json(r.reason)}});
  }
  json groups = json::array();
  for (const model::GroupError& e : model::group_errors(v))
    groups.push_back({{"group", e.group}, {"predicted_rows", e.predicted}, {"rows", e.rows},
                      {"mdape", e.predicted ? json(e.mdape_pct) : json(nullptr)}});
  return {{"rows", rows},
          {"predicted_rows", v.predicted},
          {"total_rows", v.rows.size()},
          {"mdape", v.mdape_pct ? json(*v.mdape_pct) : json(nullptr)},
          {"groups", groups}};
}

Result<model::Validation> run_validation(const std::vector<std::string>& files, const GlobalOptions& global) {
  std::vector<model::MeasurementRow> rows;
  for (const std::string& file : files) {
    Result<std::string> text = read_file(file);
    if (!text) return make_error(text.error());
    Result<std::vector<model::MeasurementRow>> more = model::parse_measurements(*text, file);
    if (!more) return make_error(more.error());
    rows.insert(rows.end(), more->begin(), more->end());
  }
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return make_error(cat.error());
  model::WorkloadLoader load = [](const std::string& id, const workload::BuildOptions& shape) -> Result<workload::Workload> {
    if (trim(id).empty()) return make_error(Errc::invalid_input, "no model_id");
    WorkloadInputs in;
    in.build = shape;
    return load_workload(id, in);
  };
  Result<std::vector<model::ConvergencePoint>> rcps = load_rcps();
  if (!rcps) return make_error(rcps.error());
  return model::validate(rows, *cat, load, *rcps);
}

namespace {

int run_validate(const ValidateOptions& o, const GlobalOptions& global) {
  const std::vector<std::string> cols = by_columns(o.by);
  if (!o.by.empty() && cols.empty())
    return report_error(Error{Errc::invalid_input, "give one or more column names, e.g. --by vendor,model,scenario", "--by"});
  Result<model::Validation> r = run_validation(o.files, global);
  if (!r) return report_error(r.error());
  const model::Validation& v = *r;
  std::vector<model::GroupSummary> groups;
  if (!cols.empty()) {
    Result<std::vector<model::GroupSummary>> g = model::group_by(v, cols);
    if (!g) return report_error(g.error());
    groups = std::move(*g);
  }
  std::string out;
  if (o.bands) {
    out = model::error_bands_csv(model::error_bands(v));
  } else if (o.json) {
    json j = validation_json(v);
    if (!cols.empty()) j["by"] = groups_json(cols, groups);
    out = j.dump(2) + "\n";
  } else {
    out = cols.empty() ? text_output(v) : groups_text(cols, groups);
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_validate_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check the performance model against published measurements: predicts every row of a CSV in\n"
      "the format of tests/data/validation/measurements.csv (GEMM TFLOP/s, STREAM bandwidth,\n"
      "all-reduce busbw, MLPerf throughput and latency, MLPerf Training time to train in minutes,\n"
      "training tokens/s) from its columns alone, prints predicted vs measured, the median absolute\n"
      "percentage error (MdAPE) per category and for micro-benchmark vs end-to-end rows, and why a\n"
      "row cannot be predicted.");
  sub->add_option("file", o->files, "Measurement CSV(s); rows of several files are checked together")->required();
  sub->add_flag("--bands", o->bands,
                "Print the error bands of the end-to-end rows per task, workload family and vendor as CSV (the "
                "ranges predictions carry: data/validation/error-bands.csv, docs/model.md#ranges)");
  sub->add_option("--by", o->by,
                  "Group the rows by these columns (comma-separated: any CSV column, or vendor, accelerator, model) "
                  "and print each group's MdAPE, median speed ratio (predicted / measured speed; above 1 is too "
                  "fast) and worst row instead of every row");
  sub->add_flag("--json", o->json, "Machine-readable output: rows with id, measured, predicted, reason; mdape (%)");
  sub->footer(
      "Examples:\n"
      "  rooftop validate tests/data/validation/measurements.csv\n"
      "  rooftop validate my-cluster-results.csv --json | jq .mdape\n"
      "  rooftop validate tests/data/validation/measurements.csv --by category,scenario\n"
      "  rooftop validate tests/data/validation/measurements.csv tests/data/validation/training.csv --bands");
  return {sub, [o, &global] { return run_validate(*o, global); }};
}

}  // namespace rooftop::app
