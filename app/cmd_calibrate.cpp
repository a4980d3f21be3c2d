// `rooftop calibrate FILE...`: fits the named, bounded software-stack
// efficiencies of docs/model.md#calibration on published end-to-end rows,
// judges them by cross-validation, and writes data/calibration.yaml and the
// ranges predictions carry (data/validation/error-bands.csv).
// `rooftop calibrate --show` lists the parameters predictions use.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "inputs.h"
#include "jobs.h"
#include "model/calibration.h"
#include "model/ranges.h"
#include "report/report.h"

namespace rooftop::app {
namespace {

using nlohmann::json;

struct CalibrateOptions {
  std::vector<std::string> files;
  std::string out = "data/calibration.yaml";
  std::string bands_out = "data/validation/error-bands.csv";
  std::string cv = "system";
  bool show = false;
  bool json = false;
};

json parameters_json(const model::Calibration& c) {
  json params = json::array();
  for (const model::CalParameter& p : c.parameters)
    params.push_back({{"name", p.name()},
                      {"stack", p.stack},
                      {"vendor", p.vendor},
                      {"task", p.task},
                      {"class", std::string(model::to_string(p.cls))},
                      {"value", p.value},
                      {"low", p.low},
                      {"high", p.high},
                      {"rows", p.rows},
                      {"groups", p.groups},
                      {"models", p.models},
                      {"parts", p.parts},
                      {"mdape_before", p.mdape_before},
                      {"mdape_after", p.mdape_after}});
  return {{"source", c.source}, {"cv", c.cv}, {"parameters", params}};
}

std::string parameters_text(const model::Calibration& c) {
  report::Table t;
  t.headers = {"stack", "vendor", "task", "class", "factor", "bounds", "rows", "systems", "models", "parts",
               "MdAPE before -> after"};
  t.align = {report::Align::left,  report::Align::left,  report::Align::left,  report::Align::left,
             report::Align::right, report::Align::right, report::Align::right, report::Align::right,
             report::Align::right, report::Align::right, report::Align::right};
  for (const model::CalParameter& p : c.parameters)
    t.rows.push_back({p.stack, p.vendor, p.task, std::string(model::to_string(p.cls)), fmt::format("{:.3f}", p.value),
                      fmt::format("{:g}-{:g}", p.low, p.high), std::to_string(p.rows), std::to_string(p.groups),
                      std::to_string(p.models), std::to_string(p.parts),
                      fmt::format("{:.1f} -> {:.1f} %", p.mdape_before, p.mdape_after)});
  std::string out = c.parameters.empty() ? std::string("no fitted parameter: predictions are physics alone\n")
                                         : t.render_text();
  if (!c.source.empty()) out += "fitted by: " + c.source + "\n";
  if (!c.cv.empty()) out += "judged by: " + c.cv + "\n";
  out += "Each factor scales the efficiency of one operator class on one software stack family for one vendor's "
         "parts (classes: ";
  for (std::size_t i = 0; i < model::kOpClasses.size(); ++i)
    out += (i ? "; " : "") + std::string(model::kOpClasses[i].name) + ": " + std::string(model::kOpClasses[i].covers);
  out += "). docs/model.md#calibration\n";
  return out;
}

Result<void> write_text(const std::string& path, const std::string& text, const char* flag) {
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return make_error(Errc::invalid_input, "folder '" + dir.string() + "' does not exist", std::string(flag) + " " + path);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return make_error(Errc::io, "cannot write " + tmp, flag);
    f << text;
    if (!f.flush()) return make_error(Errc::io, "cannot write " + tmp, flag);
  }
  std::filesystem::rename(tmp, path, ec);   // whole file or nothing
  if (ec) return make_error(Errc::io, "cannot replace " + path + ": " + ec.message(), flag);
  return {};
}

int run_calibrate(const CalibrateOptions& o, const GlobalOptions& global) {
  if (o.show) {
    if (!o.files.empty())
      return report_error(Error{Errc::invalid_input, "--show lists the parameters in use; it takes no CSV", "--show"});
    Result<std::optional<model::Calibration>> c = load_calibration(global);
    if (!c) return report_error(c.error());
    const model::Calibration none;
    const model::Calibration& cal = *c ? **c : none;
    const std::string out = o.json ? parameters_json(cal).dump(2) + "\n" : parameters_text(cal);
    std::fputs(out.c_str(), stdout);
    return kExitOk;
  }
  if (o.files.empty())
    return report_error(Error{Errc::invalid_input, "give the measurement CSVs to fit on, or --show", "calibrate"});
  if (!global.quiet) std::fprintf(stderr, "calibrate: predicting every row by physics, with its class shares...\n");
  Result<CrossValidation> x = run_cross_validation(o.files, global, o.cv);
  if (!x) return report_error(x.error());
  model::Calibration fitted = x->fitted;
  std::string names;
  for (const std::string& f : o.files) names += (names.empty() ? "" : " ") + std::filesystem::path(f).filename().string();
  fitted.source = "rooftop calibrate " + names + " (" + std::to_string(x->rows.size()) + " end-to-end rows)";
  std::vector<double> physics, cv;
  for (std::size_t i = 0; i < x->rows.size(); ++i)
    physics.push_back((x->rows[i].speed_ratio - 1) * 100), cv.push_back((x->cv_ratio[i] - 1) * 100);
  fitted.cv = fmt::format("leave one {} out ({} groups): MdAPE {:.1f} % physics, {:.1f} % cross-validated; 80 % ranges "
                          "cover {:.0f} % of the rows",
                          x->group_kind == "system" ? "system" : "accelerator x model", x->groups,
                          model::median_abs(physics), model::median_abs(cv), x->coverage * 100);
  if (Result<void> w = write_text(o.out, model::calibration_yaml(fitted), "-o"); !w) return report_error(w.error());
  const std::string bands = model::error_bands_csv(model::error_bands(x->rows, x->cv_ratio));
  if (Result<void> w = write_text(o.bands_out, bands, "--bands-out"); !w) return report_error(w.error());
  std::string out;
  if (o.json) {
    json j = parameters_json(fitted);
    j["cv_summary"] = cv_json(*x);
    j["written"] = {o.out, o.bands_out};
    out = j.dump(2) + "\n";
  } else {
    out = parameters_text(fitted) + "\n" + cv_text(*x) + "\nwrote " + o.out + " and " + o.bands_out + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_calibrate_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* sub = app.add_subcommand(
      "calibrate",
      "Fit the model's software-stack efficiencies on published results: predicts every end-to-end row of the\n"
      "CSVs by physics, fits one bounded factor per (stack family, vendor, task, operator class) that rows of at\n"
      "least two models and two systems support, cross-validates them (each system left out in turn), and writes\n"
      "the parameters (data/calibration.yaml, which the binary embeds) and the 80 % ranges predictions carry\n"
      "(data/validation/error-bands.csv). --show lists the parameters predictions use.");
  sub->add_option("file", o->files, "Measurement CSV(s) in the format of tests/data/validation/measurements.csv");
  sub->add_option("-o,--output", o->out, "Where to write the parameters (default data/calibration.yaml)")
      ->type_name("FILE");
  sub->add_option("--bands-out", o->bands_out,
                  "Where to write the cross-validated ranges (default data/validation/error-bands.csv)")
      ->type_name("FILE");
  sub->add_option("--cv", o->cv, "Cross-validation group: system (default) or part-model (accelerator x model)")
      ->type_name("GROUP");
  sub->add_flag("--show", o->show, "List the parameters in use (the embedded ones, or --calibration FILE)");
  sub->add_flag("--json", o->json, "Machine-readable output");
  sub->footer(
      "Examples:\n"
      "  rooftop calibrate --show\n"
      "  rooftop calibrate tests/data/validation/measurements.csv tests/data/validation/training.csv \\\n"
      "      -o /tmp/calibration.yaml --bands-out /tmp/bands.csv\n"
      "  rooftop --calibration /tmp/calibration.yaml predict --model resnet50 --accelerator h100");
  return {sub, [o, &global] { return run_calibrate(*o, global); }};
}

}  // namespace rooftop::app
