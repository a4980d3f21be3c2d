// `rooftop catalog list|show|validate`: browse the accelerator catalog
// (embedded entries plus --catalog overlays) and check entry files against
// the schema in docs/catalog.md before adding them.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/catalog.h"
#include "command.h"
#include "core/text.h"
#include "core/yaml.h"
#include "inputs.h"
#include "jobs.h"
#include "report/report.h"

namespace rooftop::app {
namespace {

using catalog::Accelerator;
using catalog::Sourced;
using nlohmann::json;

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

struct CatalogOptions {
  std::string kind, vendor, id;
  std::vector<std::string> files;
  bool json = false;
  bool missing = false;
};

// 989 -> "989", 494.5 -> "494.5", 19500 -> "19500"
std::string num(double v) {
  return plain(v);
}

std::string scaled(const Sourced& s, double divisor, const std::string& unit = "", const std::string& unknown = "-") {
  if (!s.known()) return unknown;
  return num(*s.value / divisor) + (unit.empty() ? "" : " " + unit);
}

json j_opt(const Sourced& s) { return s.known() ? json(*s.value) : json(nullptr); }

json missing_json(const Accelerator& a) {
  json arr = json::array();
  for (const catalog::MissingField& m : catalog::missing_fields(a))
    arr.push_back({{"field", m.field}, {"reason", m.reason.empty() ? json(nullptr) : json(m.reason)}});
  return arr;
}

// Derived values keyed by field: {"compute.bf16": "56 cores x ..."}.
json derived_json(const Accelerator& a) {
  json out = json::object();
  auto add = [&](const std::string& field, const Sourced& s) {
    if (!s.derived.empty()) out[field] = s.derived;
  };
  for (Precision p : kAllPrecisions) add("compute." + std::string(to_string(p)), a.peak(p));
  add("compute.units", a.compute_units);
  add("compute.dla_int8", a.dla_int8_ops);
  add("memory.capacity_gb", a.memory_bytes);
  add("memory.bandwidth_gb_s", a.memory_bytes_per_s);
  add("memory.sram_mb", a.sram_bytes);
  add("interconnect.scale_up", a.scale_up.bytes_per_s_per_direction);
  add("interconnect.scale_out", a.scale_out.bytes_per_s_per_direction);
  add("interconnect.host", a.host.bytes_per_s_per_direction);
  add("power.tdp_w", a.power_w);
  return out;
}

std::string price_text(const Accelerator& a) {
  if (a.price.list_usd.known()) return usd(*a.price.list_usd.value);
  if (a.price.cloud_usd_per_hour.known()) return usd_per_hour(*a.price.cloud_usd_per_hour.value);
  return "-";
}

std::string fp16_bf16(const Accelerator& a) {
  const Sourced& fp16 = a.peak(Precision::fp16);
  return scaled(fp16.known() ? fp16 : a.peak(Precision::bf16), 1e12);
}

json entry_json(const Accelerator& a) {
  json peak = json::object();
  for (Precision p : kAllPrecisions) peak[std::string(to_string(p))] = j_opt(a.peak(p));
  auto link = [](const catalog::Link& l) {
    return json{{"name", l.name.empty() ? json(nullptr) : json(l.name)},
                {"bytes_per_s_per_direction", j_opt(l.bytes_per_s_per_direction)}};
  };
  json frameworks = json::array();
  for (const catalog::Framework& f : a.software.frameworks)
    frameworks.push_back({{"name", f.name}, {"version", f.version.empty() ? json(nullptr) : json(f.version)}});
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return json{
      {"id", a.id},
      {"name", a.name},
      {"vendor", a.vendor},
      {"aliases", a.aliases},
      {"kind", std::string(to_string(a.kind))},
      {"form_factor", std::string(to_string(a.form_factor))},
      {"launch_year", a.launch_year ? json(*a.launch_year) : json(nullptr)},
      {"peak_flop_per_s", peak},
      {"precisions", [&] {
         json p = json::array();
         for (Precision x : a.precisions()) p.push_back(std::string(to_string(x)));
         return p;
       }()},
      {"gemm", {{"units", j_opt(a.compute_units)},
                {"tile_m", j_opt(a.tile_m)},
                {"tile_n", j_opt(a.tile_n)},
                {"tile_k", j_opt(a.tile_k)},
                {"tile_min", j_opt(a.tile_min)},
                {"attention_fraction", j_opt(a.attention_fraction)},
                {"dla_int8_ops", j_opt(a.dla_int8_ops)}}},
      {"memory_bytes", j_opt(a.memory_bytes)},
      {"memory_bytes_per_s", j_opt(a.memory_bytes_per_s)},
      {"memory_type", a.memory_type.empty() ? json(nullptr) : json(a.memory_type)},
      {"sram_bytes", j_opt(a.sram_bytes)},
      {"scale_up", link(a.scale_up)},
      {"scale_up_domain",
       {{"topology", a.domain.topology == catalog::Topology::unknown ? json(nullptr)
                                                                     : json(std::string(to_string(a.domain.topology)))},
        {"peers", j_opt(a.domain.peers)},
        {"devices", j_opt(a.domain.devices)},
        {"latency_s", j_opt(a.domain.latency_s)}}},
      {"scale_out", link(a.scale_out)},
      {"scale_out_latency_s", j_opt(a.scale_out_latency_s)},
      {"devices_per_node", j_opt(a.devices_per_node)},
      {"host", link(a.host)},
      {"power_w", j_opt(a.power_w)},
      {"price", {{"list_usd", j_opt(a.price.list_usd)},
                 {"list_date", a.price.list_date.empty() ? json(nullptr) : json(a.price.list_date)},
                 {"cloud_usd_per_hour", j_opt(a.price.cloud_usd_per_hour)},
                 {"cloud_date", a.price.cloud_date.empty() ? json(nullptr) : json(a.price.cloud_date)},
                 {"cloud_provider", a.price.cloud_provider.empty() ? json(nullptr) : json(a.price.cloud_provider)},
                 {"cloud_region", a.price.cloud_region.empty() ? json(nullptr) : json(a.price.cloud_region)}}},
      {"cloud_only", a.cloud_only},
      {"missing", missing_json(a)},
      {"derived", derived_json(a)},
      {"software", {{"stacks", a.software.stacks}, {"frameworks", frameworks},
                    {"custom_kernels", a.software.custom_kernels}}},
      {"efficiency", {{"compute", opt(a.calibration.compute_efficiency)},
                      {"memory", opt(a.calibration.memory_efficiency)}}},
      {"caveats", [&] {
         json c = json::array();
         for (const catalog::Caveat& k : a.caveats)
           c.push_back({{"kind", std::string(to_string(k.kind))}, {"text", k.text}, {"source", k.source}});
         return c;
       }()},
      {"notes", a.notes},
      {"origin", a.origin},
  };
}

// A value as `catalog show` prints it: with its formula when derived, with
// the reason when unknown.
std::string annotated(const Sourced& s, std::string text) {
  if (!s.derived.empty()) text += " (derived: " + s.derived + ")";
  if (!s.known() && !s.missing_reason.empty()) text += " (" + s.missing_reason + ")";
  return text;
}

// Rows of `catalog show`: field, value (base units converted back to the
// file's units), source key. The same list feeds the JSON `sources` map.
struct FieldRow {
  std::string field, value, citation;
};

std::vector<FieldRow> field_rows(const Accelerator& a) {
  std::vector<FieldRow> rows;
  auto add = [&](std::string field, std::string value, std::string citation = {}) {
    rows.push_back({std::move(field), std::move(value), std::move(citation)});
  };
  auto add_s = [&](std::string field, const Sourced& s, double div, const std::string& unit) {
    add(std::move(field), annotated(s, scaled(s, div, unit, "unknown")), s.source);
  };
  add("launch_year", a.launch_year ? std::to_string(*a.launch_year) : "unknown", a.launch_year_source);
  for (Precision p : kAllPrecisions)
    add_s("compute." + std::string(to_string(p)), a.peak(p), 1e12, is_integer(p) ? "TOPS" : "TFLOP/s");
  // How GEMMs run (docs/model.md#gemm-shape), when the entry says.
  if (a.compute_units.known()) add_s("compute.units", a.compute_units, 1, "units");
  if (a.tile_m.known() && a.tile_n.known()) {
    std::string tile = plain(*a.tile_m.value) + " x " + plain(*a.tile_n.value);
    if (a.tile_k.known()) tile += ", k step " + plain(*a.tile_k.value);
    if (a.tile_min.known()) tile += ", down to " + plain(*a.tile_min.value);
    add("compute.tile", tile, a.tile_m.source);
  }
  if (a.attention_fraction.known()) add_s("compute.attention", a.attention_fraction, 1, "of peak");
  if (a.dla_int8_ops.known()) add_s("compute.dla_int8", a.dla_int8_ops, 1e12, "TOPS");
  add_s("memory.capacity", a.memory_bytes, kGiB, "GiB");
  add_s("memory.bandwidth", a.memory_bytes_per_s, 1e9, "GB/s");
  add("memory.type", a.memory_type.empty() ? "unknown" : a.memory_type);
  add_s("memory.sram", a.sram_bytes, kMiB, "MiB");
  auto link = [&](const std::string& field, const catalog::Link& l) {
    std::string v = l.name.empty() ? "none listed" : l.name;
    if (!l.name.empty())
      v += ", " + annotated(l.bytes_per_s_per_direction,
                            scaled(l.bytes_per_s_per_direction, 1e9, "GB/s per direction", "bandwidth unknown"));
    add(field, v, l.bytes_per_s_per_direction.source);
  };
  link("interconnect.scale_up", a.scale_up);
  // How the part is deployed (docs/catalog.md#systems).
  const catalog::ScaleUpDomain& d = a.domain;
  add("interconnect.scale_up.topology", d.topology == catalog::Topology::unknown ? "unknown" : std::string(to_string(d.topology)));
  if (d.topology == catalog::Topology::full_mesh || d.peers.known()) add_s("interconnect.scale_up.peers", d.peers, 1, "peer links");
  add_s("interconnect.scale_up.domain", d.devices, 1, "devices");
  // Without a catalog latency the model uses its own per-hop default.
  auto latency = [&](std::string field, const Sourced& l) {
    if (l.known()) add_s(std::move(field), l, 1e-6, "us per hop");
    else add(std::move(field), "model default (docs/model.md#collectives)");
  };
  latency("interconnect.scale_up.latency", d.latency_s);
  link("interconnect.scale_out", a.scale_out);
  latency("interconnect.scale_out.latency", a.scale_out_latency_s);
  add_s("interconnect.devices_per_node", a.devices_per_node, 1, "devices");
  link("interconnect.host", a.host);
  add_s("power.tdp", a.power_w, 1, "W");
  auto dated = [](const Sourced& s, const std::string& unit, const std::string& date, const std::string& provider) {
    if (!s.known()) return annotated(s, "unknown");
    std::string v = (unit.empty() ? usd(*s.value) : usd_per_hour(*s.value)) + " (" + date +
                    (provider.empty() ? "" : ", " + provider) + ")";
    return v;
  };
  const catalog::Price& pr = a.price;
  std::string where = pr.cloud_provider + (pr.cloud_region.empty() ? "" : ", " + pr.cloud_region);
  add("price.list", a.cloud_only ? "none: cloud-only part" : dated(pr.list_usd, "", pr.list_date, ""), pr.list_usd.source);
  add("price.cloud", dated(pr.cloud_usd_per_hour, "/h", pr.cloud_date, where), pr.cloud_usd_per_hour.source);
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? std::string("unknown") : out;
  };
  std::vector<std::string> fw;
  for (const catalog::Framework& f : a.software.frameworks) fw.push_back(f.version.empty() ? f.name : f.name + " " + f.version);
  add("software.stacks", joined(a.software.stacks), a.software.source);
  add("software.frameworks", joined(fw), a.software.source);
  add("software.custom_kernels", joined(a.software.custom_kernels), a.software.source);
  if (a.calibration.compute_efficiency || a.calibration.memory_efficiency) {
    auto frac = [](const std::optional<double>& v) { return v ? num(*v) : std::string("model default"); };
    add("efficiency.compute", frac(a.calibration.compute_efficiency), a.calibration.source);
    add("efficiency.memory", frac(a.calibration.memory_efficiency), a.calibration.source);
  }
  for (std::size_t i = 0; i < a.caveats.size(); ++i) {
    const catalog::Caveat& k = a.caveats[i];
    add("caveats." + std::to_string(i + 1), std::string(to_string(k.kind)) + ": " + k.text, k.source);
  }
  return rows;
}

// `catalog list --missing`: for each entry, the buyer-facing figures it does
// not give and the reason it states ("no reason given" when it states none).
int print_missing(const std::vector<const Accelerator*>& shown, bool as_json) {
  std::size_t with_gaps = 0, unexplained = 0;
  json arr = json::array();
  report::Table t;
  t.headers = {"ID", "FIELD", "WHY UNKNOWN"};
  for (const Accelerator* a : shown) {
    std::vector<catalog::MissingField> gaps = catalog::missing_fields(*a);
    with_gaps += gaps.empty() ? 0 : 1;
    for (const catalog::MissingField& m : gaps) {
      unexplained += m.reason.empty() ? 1 : 0;
      t.rows.push_back({a->id, m.field, m.reason.empty() ? "no reason given" : m.reason});
    }
    arr.push_back({{"id", a->id}, {"missing", missing_json(*a)}});
  }
  if (as_json) {
    std::printf("%s\n", json{{"accelerators", arr}}.dump(2).c_str());
    return kExitOk;
  }
  if (!t.rows.empty()) std::printf("%s", t.render_text().c_str());
  std::printf("%zu of %zu accelerator%s leave a figure unknown; %zu unknown figure%s give no reason\n", with_gaps,
              shown.size(), shown.size() == 1 ? "" : "s", unexplained, unexplained == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace

Result<std::vector<const Accelerator*>> select_accelerators(const catalog::Catalog& cat, const std::string& kind_name,
                                                            const std::string& vendor) {
  std::set<std::string> vendors;
  for (const Accelerator& a : cat.accelerators) vendors.insert(a.vendor);
  std::optional<catalog::Kind> kind;
  if (!kind_name.empty()) {
    kind = catalog::parse_kind(kind_name);
    if (!kind) return make_error({Errc::invalid_input, "unknown kind '" + kind_name + "'; use one of: gpu, tpu, npu, fpga, asic, cpu, edge", "--kind"});
  }
  if (!vendor.empty() && !vendors.count(to_lower(vendor))) {
    std::vector<std::string> all(vendors.begin(), vendors.end());
    std::string list;
    for (const std::string& v : all) list += (list.empty() ? "" : ", ") + v;
    std::string msg = "unknown vendor '" + vendor + "'";
    std::vector<std::string> near = closest_matches(vendor, all, 1);
    if (!near.empty()) msg += " (did you mean '" + near.front() + "'?)";
    return make_error({Errc::invalid_input, msg + "; the catalog has: " + list, "--vendor"});
  }
  std::vector<const Accelerator*> shown;
  for (const Accelerator& a : cat.accelerators) {
    if (kind && a.kind != *kind) continue;
    if (!vendor.empty() && a.vendor != to_lower(vendor)) continue;
    shown.push_back(&a);
  }
  return shown;
}

json catalog_list_json(const std::vector<const Accelerator*>& shown) {
  json arr = json::array();
  for (const Accelerator* a : shown) arr.push_back(entry_json(*a));
  return json{{"accelerators", arr}};
}

json accelerator_json(const Accelerator& a) {
  json j = entry_json(a);
  json sources = json::object();
  for (const FieldRow& r : field_rows(a)) {
    if (!r.citation.empty()) sources[r.field] = {{"key", catalog::source_key(a, r.citation)}, {"citation", r.citation}};
  }
  j["sources"] = sources;
  return j;
}

namespace {

int run_list(const CatalogOptions& o, const GlobalOptions& global) {
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return report_error(cat.error());
  Result<std::vector<const Accelerator*>> selected = select_accelerators(*cat, o.kind, o.vendor);
  if (!selected) return report_error(selected.error());
  const std::vector<const Accelerator*>& shown = *selected;
  if (o.missing) return print_missing(shown, o.json);
  if (o.json) {
    std::printf("%s\n", catalog_list_json(shown).dump(2).c_str());
    return kExitOk;
  }
  using report::Align;
  report::Table t;
  t.headers = {"ID", "KIND", "VENDOR", "FP16/BF16 TFLOP/s", "INT8 TOP/s", "MEMORY GiB", "BW TB/s", "POWER W", "PRICE"};
  t.align = {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
             Align::right};
  for (const Accelerator* a : shown) {
    t.rows.push_back({a->id, std::string(to_string(a->kind)), a->vendor, fp16_bf16(*a), scaled(a->peak(Precision::int8), 1e12),
                      scaled(a->memory_bytes, kGiB), scaled(a->memory_bytes_per_s, 1e12), scaled(a->power_w, 1),
                      price_text(*a)});
  }
  std::printf("%s", t.render_text().c_str());
  std::printf("%zu accelerator%s (dense peaks; '-' = unknown). Details: rooftop catalog show ID\n", shown.size(),
              shown.size() == 1 ? "" : "s");
  return kExitOk;
}

int run_show(const CatalogOptions& o, const GlobalOptions& global) {
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return report_error(cat.error());
  Result<const Accelerator*> found = cat->get(o.id);
  if (!found) return report_error(found.error());
  const Accelerator& a = **found;
  if (o.json) {
    std::printf("%s\n", accelerator_json(a).dump(2).c_str());
    return kExitOk;
  }
  std::vector<FieldRow> rows = field_rows(a);
  std::printf("%s: %s\n", a.id.c_str(), a.name.c_str());
  std::string aliases;
  for (const std::string& s : a.aliases) aliases += (aliases.empty() ? "" : ", ") + s;
  std::printf("vendor %s, kind %s, form factor %s%s\n", a.vendor.c_str(), std::string(to_string(a.kind)).c_str(),
              std::string(to_string(a.form_factor)).c_str(), aliases.empty() ? "" : (", aliases: " + aliases).c_str());
  std::printf("from %s\n\n", a.origin.c_str());
  report::Table t;
  t.headers = {"FIELD", "SOURCE", "VALUE"};
  for (const FieldRow& r : rows) t.rows.push_back({r.field, r.citation.empty() ? "-" : catalog::source_key(a, r.citation), r.value});
  std::printf("%s", t.render_text().c_str());
  if (!a.notes.empty()) std::printf("\nNotes: %s\n", a.notes.c_str());
  std::printf("\nSources:\n");
  for (const auto& [key, citation] : a.sources) std::printf("  %s: %s\n", key.c_str(), citation.c_str());
  return kExitOk;
}

int run_validate(const CatalogOptions& o) {
  json files = json::array();
  std::size_t bad_files = 0, problems = 0;
  for (const std::string& path : o.files) {
    std::vector<Error> errors;
    Result<std::string> text = read_file(path);
    if (!text) errors.push_back(text.error());
    else errors = catalog::check_accelerator({path, *text});
    json errs = json::array();
    for (const Error& e : errors) {
      errs.push_back({{"where", e.context}, {"message", e.message}});
      if (!o.json) std::fprintf(stderr, "%s\n", e.what().c_str());
    }
    if (!o.json && errors.empty()) std::printf("ok %s\n", path.c_str());
    files.push_back({{"file", path}, {"ok", errors.empty()}, {"errors", errs}});
    bad_files += errors.empty() ? 0 : 1;
    problems += errors.size();
  }
  if (o.json) std::printf("%s\n", json{{"files", files}, {"ok", bad_files == 0}}.dump(2).c_str());
  if (bad_files == 0) return kExitOk;
  if (!o.json)
    std::fprintf(stderr, "rooftop: error: %zu problem(s) in %zu of %zu file(s)\n", problems, bad_files, o.files.size());
  return kExitBadInput;
}

}  // namespace

Command add_catalog_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<CatalogOptions>();
  CLI::App* cat = app.add_subcommand("catalog", "Browse and check the accelerator catalog (peaks, memory, links, power, price, software)");
  cat->require_subcommand(1);
  cat->footer(
      "Examples:\n"
      "  rooftop catalog list --kind gpu --vendor nvidia\n"
      "  rooftop catalog show h100 --json\n"
      "  rooftop --catalog my-card.yaml catalog validate my-card.yaml\n"
      "Schema: docs/catalog.md");

  CLI::App* list = cat->add_subcommand("list", "One line per accelerator: dense peaks, memory, bandwidth, power, price");
  list->add_option("--kind", o->kind, "Only this kind: gpu, tpu, npu, fpga, asic, cpu, edge");
  list->add_option("--vendor", o->vendor, "Only this vendor (e.g. nvidia, amd, google)");
  list->add_flag("--json", o->json, "Machine-readable output: {\"accelerators\": [...]} in base units");
  list->add_flag("--missing", o->missing,
                 "For each entry, the figures it leaves unknown (TDP, memory, peaks, link, price) and why");
  list->footer(
      "Examples:\n  rooftop catalog list\n  rooftop catalog list --kind edge\n  rooftop catalog list --vendor amd --json\n"
      "  rooftop catalog list --missing");

  CLI::App* show = cat->add_subcommand("show", "Every field of one accelerator with the source of each number");
  show->add_option("id", o->id, "Accelerator id or alias (e.g. nvidia-h100-sxm5-80gb, h100)")->required();
  show->add_flag("--json", o->json, "Machine-readable output, with a `sources` map from field to citation");
  show->footer("Examples:\n  rooftop catalog show nvidia-h100-sxm5-80gb\n  rooftop catalog show h100 --json");

  CLI::App* validate = cat->add_subcommand("validate", "Check accelerator YAML files against the schema (docs/catalog.md)");
  validate->add_option("files", o->files, "YAML files to check")->required();
  validate->add_flag("--json", o->json, "Machine-readable output: {\"files\": [{file, ok, errors}]}");
  validate->footer(
      "Prints 'ok FILE' for each valid file and every problem as FILE:LINE: message;\n"
      "exits 2 when any file has a problem.\n"
      "Examples:\n  rooftop catalog validate data/accelerators/*.yaml\n  rooftop catalog validate --json my-card.yaml");

  const GlobalOptions* g = &global;
  return Command{cat, [o, g, list, show, validate]() {
                   if (list->parsed()) return run_list(*o, *g);
                   if (show->parsed()) return run_show(*o, *g);
                   if (validate->parsed()) return run_validate(*o);
                   return kExitBadInput;
                 }};
}

}  // namespace rooftop::app
