// The catalog as a whole: the embedded entries overlaid by user files or
// folders (--catalog), lookup by id or alias with "did you mean", and the
// small enum conversions. Parsing one entry lives in parse.cpp.
#include <algorithm>
#include <filesystem>
#include <map>

#include "catalog/catalog.h"
#include "core/text.h"
#include "core/yaml.h"
#include "embedded/embedded.h"

namespace rooftop::catalog {

namespace fs = std::filesystem;

std::string_view to_string(Kind k) { return enum_name(kKinds, k); }
std::string_view to_string(PurchaseUnit u) { return enum_name(kPurchaseUnits, u); }
std::string_view to_string(Cooling c) { return enum_name(kCoolings, c); }

std::string_view to_string(FormFactor f) { return enum_name(kFormFactors, f); }

std::optional<Kind> parse_kind(std::string_view s) { return enum_parse(kKinds, to_lower(s)); }

std::string_view to_string(CaveatKind k) { return kCaveatKinds[static_cast<std::size_t>(k)]; }

bool Accelerator::has_caveat(CaveatKind k) const {
  for (const Caveat& c : caveats) {
    if (c.kind == k) return true;
  }
  return false;
}

std::optional<FormFactor> parse_form_factor(std::string_view s) { return enum_parse(kFormFactors, to_lower(s)); }

std::vector<Precision> Accelerator::precisions() const {
  std::vector<Precision> out;
  for (Precision p : kAllPrecisions) {
    if (supports(p)) out.push_back(p);
  }
  return out;
}

const Accelerator* Catalog::find(std::string_view id_or_alias) const {
  std::string q = to_lower(trim(id_or_alias));
  for (const Accelerator& a : accelerators) {
    if (a.id == q) return &a;
  }
  for (const Accelerator& a : accelerators) {
    if (std::find(a.aliases.begin(), a.aliases.end(), q) != a.aliases.end()) return &a;
  }
  return nullptr;
}

Result<const Accelerator*> Catalog::get(std::string_view id_or_alias) const {
  if (const Accelerator* a = find(id_or_alias)) return a;
  std::vector<std::string> names = ids();
  for (const Accelerator& a : accelerators) names.insert(names.end(), a.aliases.begin(), a.aliases.end());
  std::string msg = did_you_mean("accelerator", id_or_alias, names);
  if (msg.find("did you mean") == std::string::npos) msg += " (see `rooftop catalog list`)";
  return make_error(Errc::not_found, msg);
}

std::vector<std::string> Catalog::ids() const {
  std::vector<std::string> out;
  for (const Accelerator& a : accelerators) out.push_back(a.id);
  return out;
}

std::vector<MissingField> missing_fields(const Accelerator& a) {
  std::vector<MissingField> out;
  auto check = [&](const char* field, const Sourced& s) {
    if (!s.known()) out.push_back({field, s.missing_reason});
  };
  bool any_peak = false, any_reason = false;
  for (Precision p : kAllPrecisions) {
    const Sourced& s = a.peak(p);
    any_peak = any_peak || s.known();
    if (s.known() || s.missing_reason.empty()) continue;
    any_reason = true;
    out.push_back({"compute." + std::string(to_string(p)), s.missing_reason});
  }
  if (!any_peak && !any_reason) out.push_back({"compute", ""});
  check("memory.capacity_gb", a.memory_bytes);
  check("memory.bandwidth_gb_s", a.memory_bytes_per_s);
  if (!a.scale_up.name.empty()) check("interconnect.scale_up.gb_s_per_direction", a.scale_up.bytes_per_s_per_direction);
  if (!a.scale_out.name.empty()) check("interconnect.scale_out.gb_s_per_direction", a.scale_out.bytes_per_s_per_direction);
  check("power.tdp_w", a.power_w);
  const Price& pr = a.price;
  if (a.cloud_only) {
    check("price.cloud_usd_per_hour", pr.cloud_usd_per_hour);
  } else if (!pr.list_usd.known() && !pr.cloud_usd_per_hour.known()) {
    std::string reason = pr.list_usd.missing_reason;
    if (!pr.cloud_usd_per_hour.missing_reason.empty())
      reason += (reason.empty() ? "" : "; cloud: ") + pr.cloud_usd_per_hour.missing_reason;
    out.push_back({"price", reason});
  }
  return out;
}

std::string source_key(const Accelerator& a, const std::string& citation) {
  for (const auto& [key, text] : a.sources) {
    if (text == citation) return key;
  }
  return {};
}

std::vector<SourceText> embedded_sources() {
  std::vector<SourceText> out;
  for (const char* dir : {"accelerators/", "systems/"}) {
    for (const EmbeddedFile& f : embedded_files_under(dir)) {
      std::string path(f.path);
      if (path.size() < 5 || (path.substr(path.size() - 5) != ".yaml" && path.substr(path.size() - 4) != ".yml")) continue;
      out.push_back(SourceText{"embedded:" + path, std::string(f.content)});
    }
  }
  return out;
}

namespace {

bool is_yaml_name(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// One overlay path as SourceTexts: the file itself, or a folder's *.yaml
// files in name order.
Result<std::vector<SourceText>> read_layer(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return make_error(Errc::not_found, "no such catalog file or folder", path);
  std::vector<std::string> files;
  if (fs::is_directory(st)) {
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file() && is_yaml_name(e.path())) files.push_back(e.path().string());
    }
    if (ec) return make_error(Errc::io, "cannot list folder: " + ec.message(), path);
    if (files.empty()) return make_error(Errc::invalid_input, "folder has no .yaml catalog entries", path);
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  std::vector<SourceText> out;
  for (const std::string& f : files) {
    Result<std::string> text = read_file(f);
    if (!text) return make_error(text.error());
    out.push_back(SourceText{f, std::move(*text)});
  }
  return out;
}

// One layer's entries: parts and systems.
struct Layer {
  std::vector<Accelerator> accelerators;
  std::vector<System> systems;
};

// Parses one layer; all problems go to `diag`. Duplicate ids inside the
// layer are an error (which one would win is not obvious).
Layer parse_layer(const std::vector<SourceText>& layer, Diagnostics& diag) {
  Layer out;
  std::map<std::string, std::string> origin_of;
  auto first = [&](const std::string& id, const std::string& origin, const char* what) {
    auto [it, inserted] = origin_of.emplace(id, origin);
    if (!inserted) diag.add(Errc::invalid_input, std::string("duplicate ") + what + " id '" + id + "' (also defined in " + it->second + ")", origin);
    return inserted;
  };
  for (const SourceText& src : layer) {
    if (is_system_entry(src)) {
      Result<System> y = parse_system(src);
      if (!y) diag.errors.push_back(y.error());
      else if (first(y->id, y->origin, "system")) out.systems.push_back(std::move(*y));
      continue;
    }
    Result<Accelerator> a = parse_accelerator(src);
    if (!a) {
      diag.errors.push_back(a.error());
      continue;
    }
    if (first(a->id, a->origin, "accelerator")) out.accelerators.push_back(std::move(*a));
  }
  return out;
}

// An alias (or id) that names two entries would make lookups ambiguous.
void check_names_unique(const std::vector<Accelerator>& all, Diagnostics& diag) {
  std::map<std::string, const Accelerator*> owner;
  for (const Accelerator& a : all) owner[a.id] = &a;
  for (const Accelerator& a : all) {
    for (const std::string& alias : a.aliases) {
      auto [it, inserted] = owner.emplace(alias, &a);
      if (!inserted && it->second != &a)
        diag.add(Errc::invalid_input,
                 "alias '" + alias + "' of " + a.id + " is already the id or an alias of " + it->second->id + " (" +
                     it->second->origin + ")",
                 a.origin);
    }
  }
}

}  // namespace

Result<Catalog> load_catalog(const std::vector<SourceText>& base, const std::vector<std::string>& overlay_paths) {
  std::vector<std::vector<SourceText>> overlays;
  for (const std::string& path : overlay_paths) {
    Result<std::vector<SourceText>> layer = read_layer(path);
    if (!layer) return make_error(layer.error());
    overlays.push_back(std::move(*layer));
  }
  return layer_catalog(base, overlays);
}

Result<Catalog> layer_catalog(const std::vector<SourceText>& base, const std::vector<std::vector<SourceText>>& overlays) {
  Diagnostics diag;
  std::map<std::string, Accelerator> by_id;
  std::map<std::string, System> systems;
  auto add = [&](Layer layer) {
    for (Accelerator& a : layer.accelerators) by_id[a.id] = std::move(a);
    for (System& y : layer.systems) systems[y.id] = std::move(y);
  };
  add(parse_layer(base, diag));
  for (const std::vector<SourceText>& layer : overlays) {
    add(parse_layer(layer, diag));
  }
  Catalog cat;
  for (auto& [id, a] : by_id) cat.accelerators.push_back(std::move(a));
  check_names_unique(cat.accelerators, diag);
  // A system holds a part of the catalog, named by its id.
  for (auto& [id, y] : systems) {
    Result<const Accelerator*> a = cat.get(y.accelerator);
    if (!a) diag.add(Errc::invalid_input, "system " + y.id + " holds " + a.error().message, y.origin);
    else y.accelerator = (*a)->id;
    cat.systems.push_back(std::move(y));
  }
  ROOFTOP_TRY(diag.to_result());
  return cat;
}

std::vector<const System*> Catalog::systems_for(std::string_view id) const {
  std::vector<const System*> out;
  for (const System& y : systems) {
    if (y.accelerator == id) out.push_back(&y);
  }
  return out;
}

namespace {
struct TopologyName {
  Topology topology;
  const char* name;
};
constexpr TopologyName kTopologies[] = {{Topology::unknown, "unknown"},   {Topology::switched, "switch"},
                                        {Topology::full_mesh, "full_mesh"}, {Topology::ring, "ring"},
                                        {Topology::torus_2d, "torus_2d"},   {Topology::torus_3d, "torus_3d"}};
}  // namespace

std::string_view to_string(Topology t) {
  for (const TopologyName& n : kTopologies)
    if (n.topology == t) return n.name;
  return "unknown";
}

std::optional<Topology> parse_topology(std::string_view s) {
  for (const TopologyName& n : kTopologies)
    if (n.topology != Topology::unknown && s == n.name) return n.topology;
  return std::nullopt;
}

}  // namespace rooftop::catalog
