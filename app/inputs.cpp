#include "inputs.h"

#include <filesystem>

#include "core/text.h"
#include "core/yaml.h"

namespace rooftop::app {

Result<catalog::Catalog> load_catalog(const GlobalOptions& global) {
  return catalog::load_catalog(catalog::embedded_sources(), global.catalog_paths);
}

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}
}  // namespace

Result<workload::Workload> load_workload(const std::string& ref, const WorkloadInputs& in) {
  if (ends_with(ref, ".onnx")) {
    return make_error(Errc::unsupported, "ONNX import is not built into this binary", ref);
  }
  if (ends_with(ref, ".yaml") || ends_with(ref, ".yml") || std::filesystem::exists(ref)) {
    Result<std::string> text = read_file(ref);
    if (!text) return make_error(text.error());
    return workload::parse_workload_yaml(*text, ref, in.build);
  }
  return workload::build_zoo(ref, in.build);
}

}  // namespace rooftop::app
