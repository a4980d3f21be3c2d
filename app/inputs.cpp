#include "inputs.h"

#include <filesystem>

#include "core/text.h"
#include "embedded/embedded.h"
#include "core/yaml.h"
#include "onnx/onnx.h"

namespace rooftop::app {

Result<catalog::Catalog> load_catalog(const GlobalOptions& global) {
  return catalog::load_catalog(catalog::embedded_sources(), global.catalog_paths);
}

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}
}  // namespace

Result<onnx::ImportOptions> onnx_options(const WorkloadInputs& in) {
  onnx::ImportOptions opts;
  for (const std::string& spec : in.onnx_inputs) {
    Result<onnx::InputShape> s = onnx::parse_input_shape(spec);
    if (!s) return make_error(s.error());
    opts.inputs.push_back(std::move(*s));
  }
  if (in.onnx_batch) {
    if (*in.onnx_batch <= 0) return make_error(Errc::invalid_input, "must be a positive whole number", "--batch");
    opts.batch = *in.onnx_batch;
  }
  return opts;
}

Result<workload::Workload> load_workload(const std::string& ref, const WorkloadInputs& in) {
  if (ends_with(ref, ".onnx")) {
    Result<onnx::ImportOptions> opts = onnx_options(in);
    if (!opts) return make_error(opts.error());
    Result<onnx::ImportedModel> m = onnx::import_file(ref, *opts);
    if (!m) return make_error(m.error());
    return std::move(m->workload);
  }
  // A Hugging Face config.json, or the model folder holding one.
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(ref, ec);
  if (ends_with(ref, ".json") || folder) {
    const std::string file = folder ? (std::filesystem::path(ref) / "config.json").string() : ref;
    if (folder && !std::filesystem::exists(file, ec))
      return make_error(Errc::invalid_input, "a model folder must hold a Hugging Face config.json", ref);
    Result<std::string> text = read_file(file);
    if (!text) return make_error(text.error());
    return workload::parse_hf_config(*text, file, in.build);
  }
  if (ends_with(ref, ".yaml") || ends_with(ref, ".yml") || std::filesystem::exists(ref)) {
    Result<std::string> text = read_file(ref);
    if (!text) return make_error(text.error());
    return workload::parse_workload_yaml(*text, ref, in.build);
  }
  return workload::build_zoo(ref, in.build);
}

Result<workload::Workload> load_benchmark_workload(const std::string& ref, WorkloadInputs in, std::string* applied) {
  Result<workload::Workload> w = load_workload(ref, in);
  if (!w) return w;
  const model::Benchmark* b = model::mlperf_benchmark(w->id);
  if (!b) return w;
  const workload::BuildOptions before = in.build;
  std::string how = model::apply_training_shape(*b, w->seq_len, in.build);
  if (in.build.seq_len != before.seq_len || in.build.pairs_per_sample != before.pairs_per_sample ||
      in.build.vocab != before.vocab) {
    w = load_workload(ref, in);
    if (!w) return w;
  }
  if (b->lora) {
    *w = workload::with_lora(std::move(*w));
    how += std::string(how.empty() ? "" : ", ") + "LoRA adapters on frozen weights";
  }
  if (applied) *applied = how.empty() ? "" : "MLPerf " + std::string(b->benchmark) + " trains with " + how;
  return w;
}

Result<std::vector<model::ConvergencePoint>> load_rcps() {
  for (const EmbeddedFile& f : embedded_files_under("mlperf/rcp.csv"))
    return model::parse_rcp(f.content, "embedded:" + std::string(f.path));
  return make_error(Errc::internal, "data/mlperf/rcp.csv is not embedded");
}

Result<std::optional<model::Calibration>> load_calibration(const GlobalOptions& global) {
  if (global.no_calibration) {
    if (!global.calibration_path.empty())
      return make_error(Errc::invalid_input, "give --calibration FILE or --no-calibration, not both", "--no-calibration");
    return std::optional<model::Calibration>();
  }
  if (!global.calibration_path.empty()) {
    Result<std::string> text = read_file(global.calibration_path);
    if (!text) return make_error(text.error().code, text.error().message, "--calibration " + global.calibration_path);
    Result<model::Calibration> c = model::parse_calibration(*text, global.calibration_path);
    if (!c) return make_error(c.error());
    return std::optional<model::Calibration>(std::move(*c));
  }
  for (const EmbeddedFile& f : embedded_files_under("calibration.yaml")) {
    Result<model::Calibration> c = model::parse_calibration(f.content, "embedded:" + std::string(f.path));
    if (!c) return make_error(c.error());
    return std::optional<model::Calibration>(std::move(*c));
  }
  return make_error(Errc::internal, "data/calibration.yaml is not embedded");
}

Result<std::string> resolve_stack(const std::string& named, const catalog::Accelerator& a, workload::Task task) {
  if (named.empty()) return model::default_stack(a, task);
  const std::string id = to_lower(trim(named));
  if (model::known_stack(id)) return id;
  std::vector<std::string> ids;
  for (const model::StackInfo& s : model::kStacks) ids.emplace_back(s.id);
  ids.emplace_back("other");
  return make_error(Errc::invalid_input, did_you_mean("software stack family", id, ids), "--stack");
}

Result<std::vector<model::ErrorBand>> load_error_bands() {
  for (const EmbeddedFile& f : embedded_files_under("validation/error-bands.csv"))
    return model::parse_error_bands(f.content, "embedded:" + std::string(f.path));
  return make_error(Errc::internal, "data/validation/error-bands.csv is not embedded");
}

}  // namespace rooftop::app
