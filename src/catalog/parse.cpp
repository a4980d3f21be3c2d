// Reading one accelerator entry (schema: docs/catalog.md) into an Accelerator
// in base units. Strict, because the catalog is the ground every prediction
// stands on: unknown keys, numbers without a source, source keys that are
// undefined or never used, implausible magnitudes (usually a unit slip, e.g.
// GFLOP/s written where TFLOP/s is meant) and a file name that disagrees with
// the id are all errors, each reported with file:line, all at once.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "catalog/catalog.h"
#include "core/text.h"
#include "core/yaml.h"

namespace rooftop::catalog {
namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

// How a number is written in the file: its unit, the factor to base units,
// and the largest plausible value (in file units).
struct Unit {
  const char* name;
  double scale;
  double max;
};
constexpr Unit kTflops{"TFLOP/s", 1e12, 1e5};
constexpr Unit kTops{"TOPS", 1e12, 1e5};
constexpr Unit kGb{"GB", kGiB, 1e5};
constexpr Unit kGbPerS{"GB/s", 1e9, 1e8};  // up to wafer-scale on-chip SRAM (tens of PB/s)
constexpr Unit kLinkGbPerS{"GB/s", 1e9, 1e5};
constexpr Unit kMb{"MB", kMiB, 1e6};
constexpr Unit kWatt{"W", 1, 1e5};
constexpr Unit kUsd{"USD", 1, 1e7};
constexpr Unit kUsdPerHour{"USD/hour", 1, 1e4};
constexpr Unit kFraction{"(fraction)", 1, 1};
constexpr Unit kCount{"devices", 1, 1e6};
constexpr Unit kLinks{"links", 1, 1e3};
constexpr Unit kMicroseconds{"us", 1e-6, 1e6};

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool valid_id(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "embedded:accelerators/x.yaml" or "dir/x.yml" -> "x"; empty when the name
// is not a YAML file name (then the id is not checked against it).
std::string file_stem(const std::string& name) {
  std::size_t slash = name.find_last_of("/:");
  std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  for (const char* ext : {".yaml", ".yml"}) {
    std::string e(ext);
    if (base.size() > e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0)
      return base.substr(0, base.size() - e.size());
  }
  return {};
}

bool valid_date(const std::string& d) {
  // YYYY, YYYY-MM or YYYY-MM-DD
  if (d.size() != 4 && d.size() != 7 && d.size() != 10) return false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    bool dash = i == 4 || i == 7;
    if (dash ? d[i] != '-' : (d[i] < '0' || d[i] > '9')) return false;
  }
  return true;
}

// YAML allows a key twice in one mapping and yaml-cpp keeps the first; a
// duplicated `fp16:` would silently lose one value, so it is an error.
void check_duplicate_keys(const YAML::Node& n, const std::string& file, Diagnostics* diag) {
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second)
        diag->add(Errc::invalid_input, "duplicate key '" + kv.first.Scalar() + "'", yaml_where(file, kv.first));
      check_duplicate_keys(kv.second, file, diag);
    }
  } else if (n.IsSequence()) {
    for (const auto& item : n) check_duplicate_keys(item, file, diag);
  }
}

// "memory.capacity_gb": the key's path as written in the file.
std::string field_name(const YamlMap& m, const std::string& key) {
  std::string section = m.what();
  if (section == "accelerator") return key;
  if (starts_with(section, "accelerator.")) section = section.substr(12);
  return section + "." + key;
}

// Fields a buyer compares: when the file writes them as null it must say why
// (a compute precision written as null is one the part lacks).
bool needs_reason(const std::string& label) {
  static const std::set<std::string> kFields = {"memory.capacity_gb", "memory.bandwidth_gb_s", "power.tdp_w",
                                                "price.list_usd", "price.cloud_usd_per_hour"};
  return kFields.count(label) > 0 || label.ends_with(".gb_s_per_direction");
}

// Holds the file's `sources:` map while the sections are read, resolves
// source keys to citations and remembers which keys were used.
class EntryReader {
 public:
  EntryReader(std::string file, Diagnostics* diag) : file_(std::move(file)), diag_(diag) {}

  void read_sources(YamlMap& top, std::map<std::string, std::string>& out) {
    std::optional<YamlMap> src = top.map("sources", true);
    if (!src) return;
    for (const auto& kv : src->node()) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      src->allow(key);
      if (!kv.second.IsScalar() || trim(kv.second.Scalar()).empty()) {
        src->error(kv.second.IsDefined() && !kv.second.IsNull() ? kv.second : kv.first,
                   "source '" + key + "' must be a non-empty citation text");
        continue;
      }
      out[key] = kv.second.Scalar();
      key_nodes_.emplace(key, kv.first);
    }
    sources_ = &out;
  }

  // The citation for `key` (read at node `at`); marks it used. An unknown key
  // is an error suggesting the closest defined key.
  std::string cite(const std::string& key, const YAML::Node& at) {
    if (!sources_) return {};
    auto it = sources_->find(key);
    if (it == sources_->end()) {
      std::vector<std::string> keys;
      for (const auto& kv : *sources_) keys.push_back(kv.first);
      std::string msg = "unknown source '" + key + "'";
      std::vector<std::string> near = closest_matches(key, keys, 1);
      if (!near.empty()) msg += " (did you mean '" + near.front() + "'?)";
      msg += "; define it under 'sources:'";
      diag_->add(Errc::invalid_input, msg, yaml_where(file_, at));
      return {};
    }
    used_.insert(key);
    return it->second;
  }

  // The section-level `source:` key of `m`, or `fallback` when it has none.
  std::string section_source(YamlMap& m, const std::string& fallback = {}) {
    std::optional<std::string> key = m.str("source");
    if (!key) return fallback;
    cite(*key, m.raw("source"));
    return *key;
  }

  // One number: a plain scalar (sourced by the section's `source:`), or
  // {value, source, missing_reason, derived, ...} whose extra keys `extra`
  // reads (called with whether the value is a map and whether it is known).
  // Null = unknown; a buyer-facing field (kNeedsReason) written as null must
  // say why, with {value: null, missing_reason: "..."}.
  template <typename Extra>
  Sourced number(YamlMap& m, const std::string& key, const std::string& section_key, const Unit& unit,
                 Extra&& extra) {
    YAML::Node n = m.raw(key);
    if (!n.IsDefined()) return Sourced{};
    std::string label = field_name(m, key);
    if (n.IsNull()) {
      if (needs_reason(label))
        m.error(n, "'" + label + "' is null without a reason: write {value: null, missing_reason: \"why no figure is given\"}");
      return Sourced{};
    }
    if (!n.IsMap()) {
      extra(m, false, true);
      Sourced out;
      if (!section_key.empty()) out.source = cite(section_key, n);
      return checked(m, n, n, label, section_key, unit, std::move(out));
    }
    // Note: YAML::Node assignment rebinds the *shared* node in yaml-cpp, so
    // nodes here are only ever initialised, never reassigned.
    YamlMap v(n, file_, label, diag_);
    YAML::Node value_node = v.raw("value");
    if (!value_node.IsDefined()) v.error(n, "missing 'value' in " + label);
    const bool known = value_node.IsDefined() && !value_node.IsNull();
    std::optional<std::string> k = v.str("source", known);
    Sourced out;
    if (k) out.source = cite(*k, v.raw("source"));
    out.missing_reason = trim(v.str("missing_reason").value_or(""));
    out.derived = trim(v.str("derived").value_or(""));
    if (known && !out.missing_reason.empty())
      v.error(v.raw("missing_reason"), "'" + label + "' has a value, so it takes no missing_reason");
    if (!known && value_node.IsDefined() && out.missing_reason.empty())
      v.error(n, "'" + label + "' is null without a reason: add missing_reason: \"why no figure is given\"");
    if (!known && !out.derived.empty()) v.error(v.raw("derived"), "'" + label + "' is null, so it has no 'derived' formula");
    extra(v, true, known);
    v.finish();
    if (!known) return out;
    return checked(m, n, value_node, label, k.value_or(""), unit, std::move(out));
  }

  // The number in `value_node`, checked for type, source, sign and magnitude.
  Sourced checked(YamlMap& m, const YAML::Node& n, const YAML::Node& value_node, const std::string& label,
                  const std::string& source_key, const Unit& unit, Sourced out) {
    std::optional<double> v = yaml_number(value_node);
    if (!v) {
      m.error(value_node, "'" + label + "' must be a number in " + unit.name + ", got '" +
                              (value_node.IsScalar() ? value_node.Scalar() : std::string("a collection")) +
                              "' (write the number alone; the unit is fixed by the key)");
      return out;
    }
    if (source_key.empty()) {
      m.error(n, "'" + label + "' has no source: add 'source: KEY' to the section or write {value: " + fmt_num(*v) +
                     ", source: KEY}");
    }
    if (!(*v > 0)) {
      m.error(value_node, "'" + label + "' = " + fmt_num(*v) + " must be positive (write null when unknown or absent)");
      return out;
    }
    if (*v > unit.max) {
      m.error(value_node, "'" + label + "' = " + fmt_num(*v) + " " + unit.name + " is implausible (at most " +
                              fmt_num(unit.max) + " " + unit.name + "); check the unit");
      return out;
    }
    out.value = *v * unit.scale;
    return out;
  }

  Sourced number(YamlMap& m, const std::string& key, const std::string& section_key, const Unit& unit) {
    return number(m, key, section_key, unit, [](YamlMap&, bool, bool) {});
  }

  void report_unused() {
    if (!sources_) return;
    for (const auto& [key, node] : key_nodes_) {
      if (!used_.count(key))
        diag_->add(Errc::invalid_input, "source '" + key + "' is never used (a typo in a 'source:'?)",
                   yaml_where(file_, node));
    }
  }

  const std::string& file() const { return file_; }
  Diagnostics* diag() const { return diag_; }

 private:
  std::string file_;
  Diagnostics* diag_;
  const std::map<std::string, std::string>* sources_ = nullptr;
  std::map<std::string, YAML::Node> key_nodes_;
  std::set<std::string> used_;
};

// id (equal to the file name), name and vendor, shared by parts and systems.
void read_names(YamlMap& top, EntryReader& r, std::string& id, std::string& name, std::string& vendor) {
  id = top.str("id", true).value_or("");
  if (!id.empty() && !valid_id(id))
    top.error(top.raw("id"), "id '" + id + "' must be lowercase letters, digits, '.', '+' or '-'");
  std::string stem = file_stem(r.file());
  if (!id.empty() && !stem.empty() && stem != id)
    top.error(top.raw("id"), "id '" + id + "' does not match the file name '" + stem + ".yaml'");
  name = top.str("name", true).value_or("");
  vendor = top.str("vendor", true).value_or("");
  if (!vendor.empty() && (!valid_id(vendor) || vendor.find_first_of(".+") != std::string::npos))
    top.error(top.raw("vendor"), "vendor '" + vendor + "' must be lowercase letters, digits or '-'");
}

void read_identity(YamlMap& top, EntryReader& r, Accelerator& a) {
  read_names(top, r, a.id, a.name, a.vendor);
  a.aliases = top.str_list("aliases");
  for (std::string& alias : a.aliases) alias = to_lower(alias);
  if (auto k = top.choice("kind", enum_names(kKinds), true)) a.kind = *parse_kind(*k);
  if (auto f = top.choice("form_factor", enum_names(kFormFactors), true))
    a.form_factor = *parse_form_factor(*f);
  Sourced year = r.number(top, "launch_year", "", Unit{"years", 1, 2100});
  if (year.value) {
    if (*year.value < 1990 || *year.value != std::floor(*year.value))
      top.error(top.raw("launch_year"), "'launch_year' must be a year such as 2022");
    else
      a.launch_year = static_cast<int>(*year.value);
  }
  if (a.launch_year) a.launch_year_source = year.source;
  a.notes = top.str("notes").value_or("");
}

void read_compute(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> c = top.map("compute", true);
  if (!c) return;
  std::string src = r.section_source(*c);
  for (const auto& kv : c->node()) {
    std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key.find("sparse") == std::string::npos) continue;
    c->allow(key);
    c->error(kv.first, "'compute." + key + "': sparse figures are not stored; the catalog holds dense peaks only");
  }
  for (Precision p : kAllPrecisions) {
    a.peak_flop_per_s[static_cast<std::size_t>(p)] =
        r.number(*c, std::string(to_string(p)), src, is_integer(p) ? kTops : kTflops);
  }
  // GEMM execution structure (docs/catalog.md#gemm-structure).
  const Unit count{"units", 1, 1e6};
  a.compute_units = r.number(*c, "units", src, count);
  a.tile_m = r.number(*c, "tile_m", src, Unit{"rows", 1, 4096});
  a.tile_n = r.number(*c, "tile_n", src, Unit{"columns", 1, 4096});
  a.tile_k = r.number(*c, "tile_k", src, Unit{"elements", 1, 4096});
  a.tile_min = r.number(*c, "tile_min", src, Unit{"rows", 1, 4096});
  a.attention_fraction = r.number(*c, "attention_fraction", src, kFraction);
  a.dla_int8_ops = r.number(*c, "dla_int8", src, kTops);
  c->finish();
}

void read_memory(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> m = top.map("memory");
  if (!m) return;
  std::string src = r.section_source(*m);
  a.memory_bytes = r.number(*m, "capacity_gb", src, kGb);
  a.memory_bytes_per_s = r.number(*m, "bandwidth_gb_s", src, kGbPerS);
  a.memory_type = m->str("type").value_or("");
  a.sram_bytes = r.number(*m, "sram_mb", src, kMb);
  m->finish();
}

// `domain` (scale-up) and `latency` (scale-up, scale-out) take the systems
// keys of docs/catalog.md#systems; null: the link has none.
Link read_link(YamlMap& ic, EntryReader& r, const std::string& key, const std::string& section_src,
               ScaleUpDomain* domain = nullptr, Sourced* latency = nullptr) {
  Link link;
  YAML::Node n = ic.raw(key);
  if (!n.IsDefined() || n.IsNull()) return link;
  std::optional<YamlMap> l = ic.map(key);
  if (!l) return link;
  std::string src = r.section_source(*l, section_src);
  link.name = l->str("name", true).value_or("");
  link.bytes_per_s_per_direction = r.number(*l, "gb_s_per_direction", src, kLinkGbPerS);
  if (domain) {
    if (std::optional<std::string> t = l->str("topology")) {
      std::optional<Topology> topo = parse_topology(*t);
      if (!topo) l->error(l->raw("topology"), "'topology' must be switch, full_mesh, ring, torus_2d or torus_3d, got '" + *t + "'");
      else domain->topology = *topo;
    }
    domain->peers = r.number(*l, "peers", src, kLinks);
    domain->devices = r.number(*l, "domain", src, kCount);
  }
  if (latency) *latency = r.number(*l, "latency_us", src, kMicroseconds);
  l->finish();
  return link;
}

void read_interconnect(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> ic = top.map("interconnect");
  if (!ic) return;
  std::string src = r.section_source(*ic);
  a.scale_up = read_link(*ic, r, "scale_up", src, &a.domain, &a.domain.latency_s);
  a.host = read_link(*ic, r, "host", src);
  a.scale_out = read_link(*ic, r, "scale_out", src, nullptr, &a.scale_out_latency_s);
  a.devices_per_node = r.number(*ic, "devices_per_node", src, kCount);
  ic->finish();
}

void read_power(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> p = top.map("power");
  if (!p) return;
  std::string src = r.section_source(*p);
  a.power_w = r.number(*p, "tdp_w", src, kWatt);
  p->finish();
}

// A price needs its date (prices move); the cloud price names its provider
// and region. A part that can only be rented says `cloud_only: true` and has
// no list price.
void read_price(YamlMap& top, EntryReader& r, Price& price, bool& cloud_only) {
  cloud_only = top.boolean("cloud_only").value_or(false);
  std::optional<YamlMap> p = top.map("price");
  if (!p) return;
  std::string src = r.section_source(*p);
  struct Where {
    std::string* date;
    std::string* provider;
    std::string* region;
  };
  auto dated = [](const std::string& key, Where w) {
    return [key, w](YamlMap& m, bool is_map, bool known) {
      if (!is_map) {
        m.error(m.raw(key), "'" + field_name(m, key) + "' needs a date: write {value: X, date: \"2024-05\", source: KEY}");
        return;
      }
      *w.date = m.str("date", known).value_or("");
      if (!w.date->empty() && !valid_date(*w.date))
        m.error(m.raw("date"), "'date' must be YYYY, YYYY-MM or YYYY-MM-DD, got '" + *w.date + "'");
      if (w.provider) *w.provider = m.str("provider", known).value_or("");
      if (w.region) *w.region = m.str("region", known).value_or("");
    };
  };
  price.list_usd = r.number(*p, "list_usd", src, kUsd, dated("list_usd", {&price.list_date, nullptr, nullptr}));
  price.cloud_usd_per_hour =
      r.number(*p, "cloud_usd_per_hour", src, kUsdPerHour,
               dated("cloud_usd_per_hour", {&price.cloud_date, &price.cloud_provider, &price.cloud_region}));
  if (cloud_only && price.list_usd.known())
    p->error(p->raw("list_usd"), "'price.list_usd' is given but the part is cloud_only (it cannot be bought)");
  p->finish();
}

void read_software(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> s = top.map("software");
  if (!s) return;
  std::string key = r.section_source(*s);
  a.software.stacks = s->str_list("stacks");
  a.software.custom_kernels = s->str_list("custom_kernels");
  YAML::Node fw = s->raw("frameworks");
  if (fw.IsDefined() && !fw.IsNull()) {
    if (!fw.IsSequence()) s->error(fw, "'software.frameworks' must be a list of {name, version}");
    else
      for (const YAML::Node& item : fw) {
        Framework f;
        if (item.IsScalar()) {
          f.name = item.Scalar();
        } else {
          YamlMap m(item, r.file(), "software.frameworks[]", r.diag());
          f.name = m.str("name", true).value_or("");
          f.version = m.str("version").value_or("");
          m.finish();
        }
        a.software.frameworks.push_back(std::move(f));
      }
  }
  bool has_content = !a.software.stacks.empty() || !a.software.frameworks.empty() || !a.software.custom_kernels.empty();
  if (has_content && key.empty()) s->error("'software' has no source: add 'source: KEY'");
  if (!key.empty()) a.software.source = r.cite(key, s->raw("source"));
  s->finish();
}

void read_efficiency(YamlMap& top, EntryReader& r, Accelerator& a) {
  std::optional<YamlMap> e = top.map("efficiency");
  if (!e) return;
  std::string key = r.section_source(*e);
  a.calibration.compute_efficiency = r.number(*e, "compute", key, kFraction).value;
  a.calibration.memory_efficiency = r.number(*e, "memory", key, kFraction).value;
  if (!key.empty()) a.calibration.source = r.cite(key, e->raw("source"));
  e->finish();
}

// `caveats:` a list of {kind, text, source}; every caveat cites a source.
void read_caveats(YamlMap& top, EntryReader& r, Accelerator& a) {
  YAML::Node list = top.raw("caveats");
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) {
    top.error(list, "'caveats' must be a list of {kind, text, source}");
    return;
  }
  const std::vector<std::string> kinds(std::begin(kCaveatKinds), std::end(kCaveatKinds));
  for (const YAML::Node& item : list) {
    YamlMap m(item, r.file(), "caveats[]", r.diag());
    if (!m.valid()) continue;
    Caveat c;
    if (auto k = m.choice("kind", kinds, true)) {
      c.kind = static_cast<CaveatKind>(std::find(kinds.begin(), kinds.end(), *k) - kinds.begin());
    }
    c.text = m.str("text", true).value_or("");
    if (auto key = m.str("source", true)) c.source = r.cite(*key, m.raw("source"));
    m.finish();
    a.caveats.push_back(std::move(c));
  }
}

// Problems are found section by section; a reader wants them in file order.
void sort_by_line(std::vector<Error>& errors) {
  auto line_of = [](const Error& e) {
    std::size_t colon = e.context.find_last_of(':');
    std::optional<long long> line = colon == std::string::npos ? std::nullopt : parse_int(e.context.substr(colon + 1));
    return line.value_or(0);
  };
  std::stable_sort(errors.begin(), errors.end(),
                   [&](const Error& x, const Error& y) { return line_of(x) < line_of(y); });
}

// One entry file, part or system: parsed YAML, no duplicate keys, the
// `sources:` map read first, then `body(top, reader, entry)` reads the
// sections; unknown keys and unused sources are reported, in file order.
template <class Entry, class Body>
Entry read_document(const SourceText& src, Diagnostics& diag, const char* what, Body body) {
  Entry e;
  e.origin = src.name;
  Result<YAML::Node> root = load_yaml(src.text, src.name);
  if (!root) {
    diag.errors.push_back(root.error());
    return e;
  }
  check_duplicate_keys(*root, src.name, &diag);
  YamlMap top(*root, src.name, what, &diag);
  if (!top.valid()) return e;
  EntryReader r(src.name, &diag);
  r.read_sources(top, e.sources);
  body(top, r, e);
  top.finish();
  r.report_unused();
  sort_by_line(diag.errors);
  return e;
}

Accelerator read_entry(const SourceText& src, Diagnostics& diag) {
  return read_document<Accelerator>(src, diag, "accelerator", [](YamlMap& top, EntryReader& r, Accelerator& a) {
    read_identity(top, r, a);
    read_compute(top, r, a);
    read_memory(top, r, a);
    read_interconnect(top, r, a);
    read_power(top, r, a);
    read_price(top, r, a.price, a.cloud_only);
    read_software(top, r, a);
    read_efficiency(top, r, a);
    read_caveats(top, r, a);
  });
}

// A system entry (docs/catalog.md#systems-as-sold): what it holds and how it is
// bought, its host, power, rack space and cooling, and its price per unit.
void read_system_sections(YamlMap& top, EntryReader& r, System& y) {
  read_names(top, r, y.id, y.name, y.vendor);
  if (std::optional<YamlMap> h = top.map("holds", true)) {
    y.accelerator = h->str("accelerator", true).value_or("");
    y.accelerators = r.number(*h, "count", r.section_source(*h), kCount);
    if (!h->raw("count").IsDefined())
      h->error("missing 'holds.count': how many accelerators one unit holds");
    else if (y.accelerators.known() && (*y.accelerators.value < 1 || *y.accelerators.value != std::floor(*y.accelerators.value)))
      h->error(h->raw("count"), "'holds.count' must be a whole number of at least 1");
    h->finish();
  }
  if (auto u = top.choice("unit", enum_names(kPurchaseUnits), true))
    y.unit = enum_parse(kPurchaseUnits, *u).value_or(PurchaseUnit::node);
  if (std::optional<YamlMap> h = top.map("host")) {
    const std::string key = r.section_source(*h);
    y.host_cpu = h->str("cpu").value_or("");
    y.nics = h->str("nics").value_or("");
    y.host_memory_bytes = r.number(*h, "memory_gb", key, kGb);
    if ((!y.host_cpu.empty() || !y.nics.empty()) && key.empty()) h->error("'host' has no source: add 'source: KEY'");
    h->finish();
  }
  if (std::optional<YamlMap> p = top.map("power", true)) {
    const std::string key = r.section_source(*p);
    y.power_w = r.number(*p, "system_w", key, Unit{"W", 1, 1e7});
    if (auto c = p->choice("cooling", enum_names(kCoolings), false)) {
      y.cooling = enum_parse(kCoolings, *c).value_or(Cooling::unknown);
      if (y.cooling != Cooling::unknown && key.empty()) p->error(p->raw("cooling"), "'power.cooling' has no source: add 'source: KEY'");
      else if (y.cooling != Cooling::unknown) y.cooling_source = r.cite(key, p->raw("source"));
    }
    p->finish();
  }
  y.rack_units = r.number(top, "rack_units", "", Unit{"U", 1, 60});
  read_price(top, r, y.price, y.cloud_only);
  y.notes = top.str("notes").value_or("");
}

System read_system(const SourceText& src, Diagnostics& diag) {
  return read_document<System>(src, diag, "system", read_system_sections);
}

}  // namespace

Result<Accelerator> parse_accelerator(const SourceText& src) {
  Diagnostics diag;
  Accelerator a = read_entry(src, diag);
  if (!diag.ok()) return make_error(diag.to_result().error());
  return a;
}

std::vector<Error> check_accelerator(const SourceText& src) {
  Diagnostics diag;
  if (is_system_entry(src)) read_system(src, diag);
  else read_entry(src, diag);
  return diag.errors;
}

Result<System> parse_system(const SourceText& src) {
  Diagnostics diag;
  System y = read_system(src, diag);
  if (!diag.ok()) return make_error(diag.to_result().error());
  return y;
}

bool is_system_entry(const SourceText& src) {
  Result<YAML::Node> root = load_yaml(src.text, src.name);
  return root && root->IsMap() && (*root)["holds"].IsDefined();
}

}  // namespace rooftop::catalog
