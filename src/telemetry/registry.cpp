// The one explicit list of telemetry backends (STYLE.md "Backends"). Vendor
// backends are always compiled; each dlopens its library at run time.
#include <cstdlib>

#include <fmt/format.h>

#include "core/text.h"
#include "telemetry/backends/backends.h"

namespace rooftop::telemetry {

std::vector<std::string> backend_names() { return enum_names(kBackendKinds); }

std::string backends_help() {
  std::string list;
  for (const auto& [kind, name] : kBackendKinds)
    list += fmt::format("{}{}{}", list.empty() ? "" : ", ", name, kind == BackendKind::fake ? ":TRACE" : "");
  return "auto (each optional), or a comma list of " + list + " (each required)";
}

Result<std::unique_ptr<Backend>> make_backend(std::string_view spec, const BackendOptions& opts) {
  const std::string s = trim(spec);
  const std::string kind_text = s.substr(0, s.find(':'));
  const std::optional<BackendKind> kind = enum_parse(kBackendKinds, kind_text);
  if (!kind || (*kind != BackendKind::fake && kind_text != s))
    return make_error(Errc::invalid_input, did_you_mean("backend", s, backend_names()), "--backends");
  switch (*kind) {
    case BackendKind::proc: {
      std::string node = opts.node_name;
      if (node.empty()) {
        if (const char* env = std::getenv("NODE_NAME")) node = trim(env);
      }
      return make_proc_backend(opts.proc_root, node);
    }
    case BackendKind::nvml: {
      std::string lib = opts.nvml_library;
      if (lib.empty()) {
        if (const char* env = std::getenv("ROOFTOP_NVML_LIBRARY")) lib = env;
      }
      return make_nvml_backend(lib);
    }
    case BackendKind::rocm: return make_rocm_backend();
    case BackendKind::ascend: return make_ascend_backend();
    case BackendKind::fake:
      if (s.size() > 5) return make_fake_backend(s.substr(5), opts.clock_s);
      return make_error(Errc::invalid_input, "the fake backend needs a trace: fake:PATH (see data/traces/)",
                        "--backends");
  }
  return make_error(Errc::invalid_input, did_you_mean("backend", s, backend_names()), "--backends");
}

Result<std::vector<std::unique_ptr<Backend>>> make_backends(std::string_view list, const BackendOptions& opts) {
  std::vector<std::unique_ptr<Backend>> out;
  const std::string l = trim(list);
  std::vector<std::string> specs;
  if (l == "auto") {
    for (const auto& [kind, name] : kBackendKinds) {
      if (kind != BackendKind::fake) specs.emplace_back(name);
    }
  } else {
    specs = split(l, ',');
  }
  if (specs.empty() || l.empty()) return make_error(Errc::invalid_input, "no backend given", "--backends");
  for (const std::string& spec : specs) {
    auto b = make_backend(spec, opts);
    if (!b) return make_error(b.error());
    (*b)->set_required(l != "auto");
    out.push_back(std::move(*b));
  }
  return out;
}

}  // namespace rooftop::telemetry
