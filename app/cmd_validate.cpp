// `rooftop validate FILE.csv`: predicts every row of a measurement CSV (the
// format of tests/data/validation/measurements.csv) from its columns alone
// and reports the error of each and the median absolute percentage error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
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
  std::string cv;   // --cv GROUP: "system" or "part-model"; empty: no cross-validation
};

// One line of the cross-validation summary: the rows of one category,
// vendor or model.
struct CvLine {
  std::string key;
  int rows = 0, covered = 0;
  std::vector<double> physics, fitted, cv;   // error % of each row
  std::vector<double> cv_ratio;
};

std::vector<CvLine> cv_lines(const CrossValidation& x, const std::string& dimension) {
  std::vector<CvLine> out;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < x.rows.size(); ++i) {
    const model::CalRow& c = x.rows[i];
    const model::RowResult& r = x.cv.rows[c.index];
    const std::string key = dimension == "all"        ? "all end-to-end rows"
                            : dimension == "category" ? r.category
                            : dimension == "vendor"   ? c.vendor
                                                      : c.model;
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh) {
      CvLine line;
      line.key = key;
      out.push_back(std::move(line));
    }
    CvLine& l = out[it->second];
    ++l.rows;
    l.physics.push_back((c.speed_ratio - 1) * 100);
    const double in_sample = model::calibrated_ratio(c, model::row_factors(x.fitted, c));
    l.fitted.push_back((in_sample - 1) * 100);
    l.cv.push_back((x.cv_ratio[i] - 1) * 100);
    l.cv_ratio.push_back(x.cv_ratio[i]);
    if (r.range && r.measured >= r.range->first && r.measured <= r.range->second) ++l.covered;
  }
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

json cv_json(const CrossValidation& x) {
  json dims = json::object();
  for (const char* d : {"all", "category", "vendor", "model"}) {
    json lines = json::array();
    for (const CvLine& l : cv_lines(x, d))
      lines.push_back({{"key", l.key},
                       {"rows", l.rows},
                       {"mdape_physics", model::median_abs(l.physics)},
                       {"mdape_fitted_in_sample", model::median_abs(l.fitted)},
                       {"mdape_cv", model::median_abs(l.cv)},
                       {"median_speed_ratio_cv", median_of(l.cv_ratio)},
                       {"range_coverage", l.rows ? static_cast<double>(l.covered) / l.rows : 0.0}});
    dims[d] = lines;
  }
  json params = json::array();
  for (const model::CalParameter& p : x.fitted.parameters)
    params.push_back({{"name", p.name()}, {"value", p.value}, {"low", p.low}, {"high", p.high}, {"rows", p.rows},
                      {"groups", p.groups}, {"models", p.models}, {"parts", p.parts},
                      {"mdape_before", p.mdape_before}, {"mdape_after", p.mdape_after}});
  return {{"group", x.group_kind}, {"groups", x.groups}, {"rows", x.rows.size()}, {"range_coverage", x.coverage},
          {"by", dims}, {"parameters", params}};
}

std::string cv_text(const CrossValidation& x) {
  std::string out = fmt::format(
      "cross-validation: each {} left out in turn ({} groups), its rows predicted by parameters fitted on the rest\n",
      x.group_kind == "system" ? "submitter's system" : "accelerator x model", x.groups);
  for (const char* d : {"all", "category", "vendor", "model"}) {
    report::Table t;
    t.headers = {d == std::string("all") ? "" : d, "rows", "physics", "fitted (in sample)", "cross-validated",
                 "speed ratio (cv)", "80 % range covers"};
    t.align = {report::Align::left, report::Align::right, report::Align::right, report::Align::right,
               report::Align::right, report::Align::right, report::Align::right};
    for (const CvLine& l : cv_lines(x, d))
      t.rows.push_back({l.key, std::to_string(l.rows), fmt::format("{:.1f} %", model::median_abs(l.physics)),
                        fmt::format("{:.1f} %", model::median_abs(l.fitted)),
                        fmt::format("{:.1f} %", model::median_abs(l.cv)), fmt::format("{:.2f}", median_of(l.cv_ratio)),
                        fmt::format("{:.0f} %", l.rows ? 100.0 * l.covered / l.rows : 0.0)});
    out += "\n" + t.render_text();
  }
  out += fmt::format(
      "\nMdAPE of end-to-end rows: physics alone, with the parameters fitted on every row, and cross-validated "
      "(the figure to quote). speed ratio: median predicted / measured speed, above 1 is too fast. {} parameters "
      "fitted on every row (`rooftop calibrate` writes them).\n",
      x.fitted.parameters.size());
  return out;
}

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
                    {"range", r.range ? json{r.range->first, r.range->second} : json(nullptr)},
                    {"stack", r.stack.empty() ? json(nullptr) : json(r.stack)},
                    {"group", r.group},
                    {"parameters", r.parameters},
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

Result<model::Validation> run_validation(const std::vector<std::string>& files, const GlobalOptions& global,
                                         bool physics, bool shares) {
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
  // Rows share a few models: each (id, shape) is read once.
  auto cache = std::make_shared<std::map<std::string, Result<workload::Workload>>>();
  model::WorkloadLoader load = [cache](const std::string& id,
                                       const workload::BuildOptions& shape) -> Result<workload::Workload> {
    if (trim(id).empty()) return make_error(Errc::invalid_input, "no model_id");
    auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("-"); };
    const std::string key = id + "|" + opt(shape.seq_len) + "|" + opt(shape.input_tokens) + "|" +
                            opt(shape.output_tokens) + "|" + opt(shape.image_size) + "|" +
                            opt(shape.pairs_per_sample) + "|" + opt(shape.vocab) + "|" + (shape.static_kv ? "s" : "p");
    auto it = cache->find(key);
    if (it == cache->end()) {
      WorkloadInputs in;
      in.build = shape;
      it = cache->emplace(key, load_workload(id, in)).first;
    }
    return it->second;
  };
  Result<std::vector<model::ConvergencePoint>> rcps = load_rcps();
  if (!rcps) return make_error(rcps.error());
  Result<std::optional<model::Calibration>> calibration = load_calibration(global);
  if (!calibration) return make_error(calibration.error());
  model::ValidateOptions opts;
  if (*calibration && !physics) opts.calibration = &**calibration;
  opts.shares = shares;
  model::Validation v = model::validate(rows, *cat, load, *rcps, opts);
  // Each end-to-end prediction carries the range a prediction of its kind
  // carries (the shipped cross-validated bands), as predict prints it.
  if (!physics) {
    Result<std::vector<model::ErrorBand>> bands = load_error_bands();
    if (!bands) return make_error(bands.error());
    for (model::RowResult& r : v.rows) {
      if (!r.predicted || r.task.empty()) continue;
      const model::Sureness u = model::sureness(*bands, r.task, r.scenario, r.family, r.vendor, r.precision,
                                                r.time_metric ? 0 : *r.predicted, r.time_metric ? *r.predicted : 0);
      const std::optional<model::Range>& x = r.time_metric ? u.latency_s : u.throughput;
      if (x) r.range = std::pair{x->low, x->high};
    }
  }
  return v;
}

Result<CrossValidation> run_cross_validation(const std::vector<std::string>& files, const GlobalOptions& global,
                                             const std::string& group_kind) {
  if (group_kind != "system" && group_kind != "part-model")
    return make_error(Errc::invalid_input, "unknown group '" + group_kind + "'; accepted: system, part-model", "--cv");
  Result<model::Validation> v = run_validation(files, global, /*physics=*/true, /*shares=*/true);
  if (!v) return make_error(v.error());
  CrossValidation out;
  out.group_kind = group_kind;
  out.physics = std::move(*v);
  out.rows = model::calibration_rows(out.physics);
  std::set<std::string> groups;
  for (model::CalRow& r : out.rows) {
    if (group_kind == "part-model") r.group = r.part + " x " + r.model;
    groups.insert(r.group);
  }
  out.groups = static_cast<int>(groups.size());
  out.fitted = model::fit(out.rows);
  out.cv_ratio = model::cross_validate(out.rows);
  const std::vector<std::pair<double, double>> ranges = model::cv_ranges(out.rows, out.cv_ratio);
  out.cv = out.physics;
  std::vector<double> errors;
  int covered = 0;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    model::RowResult& r = out.cv.rows[out.rows[i].index];
    const double ratio = out.cv_ratio[i];   // predicted / measured speed
    r.predicted = r.time_metric ? r.measured / ratio : r.measured * ratio;
    r.error_pct = (*r.predicted - r.measured) / r.measured * 100;
    // The range is of measured / predicted speed: a time's range inverts it.
    const auto [lo, hi] = ranges[i];
    r.range = r.time_metric ? std::pair{*r.predicted / hi, *r.predicted / lo} : std::pair{*r.predicted * lo, *r.predicted * hi};
    if (r.measured >= r.range->first && r.measured <= r.range->second) ++covered;
    r.parameters.clear();
    for (const model::CalParameter& p : out.fitted.parameters)
      if (p.stack == out.rows[i].stack && p.vendor == out.rows[i].vendor && p.task == out.rows[i].task)
        r.parameters.push_back(p.name());
  }
  for (const model::RowResult& r : out.cv.rows)
    if (r.predicted) errors.push_back(r.error_pct);
  out.cv.mdape_pct = errors.empty() ? std::optional<double>() : model::median_abs(errors);
  out.coverage = out.rows.empty() ? 0 : static_cast<double>(covered) / static_cast<double>(out.rows.size());
  return out;
}

namespace {

int run_validate(const ValidateOptions& o, const GlobalOptions& global) {
  const std::vector<std::string> cols = by_columns(o.by);
  if (!o.by.empty() && cols.empty())
    return report_error(Error{Errc::invalid_input, "give one or more column names, e.g. --by vendor,model,scenario", "--by"});
  std::optional<CrossValidation> cv;
  model::Validation plain_v;
  if (!o.cv.empty()) {
    Result<CrossValidation> x = run_cross_validation(o.files, global, o.cv);
    if (!x) return report_error(x.error());
    cv = std::move(*x);
  } else {
    Result<model::Validation> r = run_validation(o.files, global);
    if (!r) return report_error(r.error());
    plain_v = std::move(*r);
  }
  const model::Validation& v = cv ? cv->cv : plain_v;
  std::vector<model::GroupSummary> groups;
  if (!cols.empty()) {
    Result<std::vector<model::GroupSummary>> g = model::group_by(v, cols);
    if (!g) return report_error(g.error());
    groups = std::move(*g);
  }
  std::string out;
  if (o.bands) {
    if (!cv) return report_error(Error{Errc::invalid_input, "the bands are built from cross-validated rows: add --cv system", "--bands"});
    out = model::error_bands_csv(model::error_bands(cv->rows, cv->cv_ratio));
  } else if (o.json) {
    json j = validation_json(v);
    if (!cols.empty()) j["by"] = groups_json(cols, groups);
    if (cv) j["cv"] = cv_json(*cv);
    out = j.dump(2) + "\n";
  } else if (cv) {
    out = cols.empty() ? cv_text(*cv) : groups_text(cols, groups);
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
  sub->add_option("--cv", o->cv,
                  "Cross-validate the calibration (GROUP defaults to system): predict the rows by physics, then for each group (system: a "
                  "submitter's system; part-model: accelerator x model, the harder test) refit the stack "
                  "parameters without it and predict its rows. Prints MdAPE physics / fitted / cross-validated and "
                  "the coverage of the 80 % ranges per category, vendor and model; with --by, the groups' "
                  "cross-validated errors")
      ->type_name("[GROUP]")
      ->expected(0, 1);
  sub->add_flag("--bands", o->bands,
                "With --cv: print the 80 % ranges of the cross-validated rows per task, scenario, workload family "
                "and vendor as CSV (what predictions carry: data/validation/error-bands.csv, docs/model.md#ranges)");
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
      "  rooftop validate tests/data/validation/measurements.csv tests/data/validation/training.csv --cv\n"
      "  rooftop validate tests/data/validation/measurements.csv --cv part-model --by vendor\n"
      "  rooftop --no-calibration validate tests/data/validation/measurements.csv");
  return {sub, [o, &global, sub] {
            if (sub->count("--cv") > 0 && o->cv.empty()) o->cv = "system";
            return run_validate(*o, global);
          }};
}

}  // namespace rooftop::app
