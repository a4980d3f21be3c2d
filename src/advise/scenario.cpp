// Reading an advise scenario from YAML: strict keys, ranges, and the
// contradictions that make a scenario meaningless (docs/advise.md#scenario).
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "advise/scenario.h"
#include "core/text.h"
#include "core/yaml.h"

namespace rooftop::advise {

std::string_view to_string(ObjectiveKind k) {
  switch (k) {
    case ObjectiveKind::throughput: return "throughput";
    case ObjectiveKind::latency: return "latency";
    case ObjectiveKind::train: return "train";
  }
  return "?";
}

std::string_view to_string(Deployment d) {
  switch (d) {
    case Deployment::on_prem: return "on_prem";
    case Deployment::cloud: return "cloud";
    case Deployment::either: return "either";
  }
  return "?";
}

int compare_versions(std::string_view a, std::string_view b) {
  std::vector<std::string> pa = split(a, '.'), pb = split(b, '.');
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    std::string x = i < pa.size() ? pa[i] : "0", y = i < pb.size() ? pb[i] : "0";
    std::optional<long long> nx = parse_int(x), ny = parse_int(y);
    int c = (nx && ny) ? (*nx < *ny ? -1 : *nx > *ny ? 1 : 0) : x.compare(y) < 0 ? -1 : x.compare(y) > 0 ? 1 : 0;
    if (c != 0) return c;
  }
  return 0;
}

namespace {

const std::vector<std::string> kTasks = {"infer", "train"};
const std::vector<std::string> kDeployments = {"on_prem", "on-prem", "cloud", "either"};

bool looks_like_path(const std::string& m) {
  std::string l = to_lower(m);
  auto ends = [&](std::string_view s) { return l.size() >= s.size() && l.compare(l.size() - s.size(), s.size(), s) == 0; };
  return m.find('/') != std::string::npos || ends(".yaml") || ends(".yml") || ends(".onnx");
}

// "pytorch>=2.1", "pytorch 2.1" or "pytorch".
FrameworkRequirement parse_framework(const std::string& text) {
  std::string t = trim(text);
  std::size_t cut = t.find_first_of(">= ");
  FrameworkRequirement f;
  f.name = to_lower(trim(t.substr(0, cut)));
  if (cut != std::string::npos) {
    std::size_t v = t.find_first_not_of(">= ", cut);
    if (v != std::string::npos) f.min_version = trim(t.substr(v));
  }
  return f;
}

void read_workload(YamlMap& m, Scenario& s) {
  if (auto model = m.str("model", true)) {
    s.model = *model;
    s.model_line = m.where(m.node()["model"]);
    if (looks_like_path(s.model) && !std::filesystem::path(s.model).is_absolute()) {
      std::filesystem::path dir = std::filesystem::path(m.file()).parent_path();
      if (!dir.empty() && !std::filesystem::exists(s.model)) s.model = (dir / s.model).string();
    }
  }
  if (auto task = m.choice("task", kTasks, true)) s.task = *workload::parse_task(*task);
  YAML::Node pn = m.node()["precisions"];
  for (const std::string& p : m.str_list("precisions", true)) {
    std::optional<PrecisionSpec> spec = parse_precision_spec(p);
    if (!spec) {
      m.error(pn, "unknown precision '" + p + "' in precisions (accepted: " + std::string(kPrecisionForms) + ")");
      continue;
    }
    // Weights and KV formats ("w4a16", "fp8-kv") hold for every compute precision listed.
    if (spec->weights && spec->weights != spec->compute) s.weight_precision = spec->weights;
    if (spec->kv) s.kv_precision = spec->kv;
    std::optional<Precision> prec = spec->compute;
    if (prec && std::find(s.precisions.begin(), s.precisions.end(), *prec) == s.precisions.end()) s.precisions.push_back(*prec);
  }
  if (m.has("precisions") && s.precisions.empty()) m.error(pn, "precisions must list at least one compute precision");
  auto opt_int = [&](const char* key, std::optional<int>& out) {
    if (auto v = m.integer(key, false, 1, 1 << 20)) out = static_cast<int>(*v);
  };
  opt_int("seq_len", s.shape.seq_len);
  opt_int("input_tokens", s.shape.input_tokens);
  opt_int("output_tokens", s.shape.output_tokens);
  opt_int("image_size", s.shape.image_size);
  if (auto g = m.integer("global_batch", false, 1, 1 << 24)) s.global_batch = static_cast<int>(*g);
  m.finish();
}

void read_objective(YamlMap& m, Scenario& s) {
  // Every key is known up front, so a typo's "did you mean" can name any of them.
  for (const char* k : {"throughput_per_s", "p99_latency_s", "arrival_rate_per_s", "network_rtt_s", "train_samples",
                        "train_tokens", "train_to_target", "deadline_hours", "straggler_cv"}) {
    m.allow(k);
  }
  int kinds = 0;
  if (auto v = m.num("throughput_per_s", false, 1e-9)) {
    s.objective = ObjectiveKind::throughput;
    s.throughput_per_s = *v;
    ++kinds;
  }
  if (auto v = m.num("p99_latency_s", false, 1e-9)) {
    s.objective = ObjectiveKind::latency;
    s.p99_latency_s = *v;
    ++kinds;
    if (auto r = m.num("arrival_rate_per_s", true, 1e-9)) s.arrival_rate_per_s = *r;
  } else if (m.has("arrival_rate_per_s")) {
    m.num("arrival_rate_per_s");
    m.error(m.node()["arrival_rate_per_s"], "arrival_rate_per_s needs p99_latency_s");
  }
  if (auto rtt = m.map("network_rtt_s")) {
    for (catalog::FormFactor f : {catalog::FormFactor::datacenter, catalog::FormFactor::workstation,
                                  catalog::FormFactor::edge}) {
      if (auto v = rtt->num(std::string(catalog::to_string(f)), false, 0)) s.network_rtt_s[static_cast<int>(f)] = *v;
    }
    rtt->finish();
  }
  std::optional<double> samples = m.num("train_samples", false, 1);
  std::optional<double> tokens = m.num("train_tokens", false, 1);
  const std::optional<std::string> target = m.choice("train_to_target", {"mlperf"});
  if (samples || tokens || target) {
    s.objective = ObjectiveKind::train;
    ++kinds;
    if (int(bool(samples)) + int(bool(tokens)) + int(bool(target)) > 1)
      m.error(m.node()[target ? "train_to_target" : "train_tokens"],
              "give one of train_samples, train_tokens, train_to_target");
    s.train_samples = samples.value_or(0);
    s.train_tokens = tokens.value_or(0);
    s.train_to_target = target.has_value();
    if (auto d = m.num("deadline_hours", true, 1e-6)) s.deadline_s = *d * 3600;
  } else if (m.has("deadline_hours")) {
    m.num("deadline_hours");
    m.error(m.node()["deadline_hours"], "deadline_hours needs train_samples, train_tokens or train_to_target");
  }
  if (auto cv = m.num("straggler_cv", false, 0, 1)) s.straggler_cv = *cv;
  if (kinds != 1) {
    m.error(kinds == 0 ? "objective needs one of throughput_per_s, p99_latency_s (with arrival_rate_per_s), "
                         "train_samples/train_tokens/train_to_target (with deadline_hours)"
                       : "objective must have exactly one of throughput_per_s, p99_latency_s, "
                         "train_samples/train_tokens/train_to_target");
  }
  m.finish();
}

void read_pair(YamlMap& m, const char* key, std::vector<std::string>& include, std::vector<std::string>& exclude) {
  if (auto sub = m.map(key)) {
    for (const std::string& v : sub->str_list("include")) include.push_back(to_lower(v));
    for (const std::string& v : sub->str_list("exclude")) exclude.push_back(to_lower(v));
    for (const std::string& v : include) {
      if (std::find(exclude.begin(), exclude.end(), v) != exclude.end()) {
        sub->error("contradictory constraints: '" + v + "' is both included and excluded in " + key);
      }
    }
    sub->finish();
  }
}

void read_constraints(YamlMap& m, Scenario& s) {
  if (auto b = m.map("budget")) {
    s.budget_capex_usd = b->num("capex_usd", false, 0);
    s.budget_cloud_usd_per_hour = b->num("cloud_usd_per_hour", false, 0);
    b->finish();
  }
  if (auto p = m.map("power")) {
    s.max_power_per_device_w = p->num("per_device_w", false, 0);
    s.max_power_total_w = p->num("total_w", false, 0);
    p->finish();
  }
  YAML::Node ffn = m.node()["form_factor"];
  for (const std::string& f : m.str_list("form_factor")) {
    if (auto ff = catalog::parse_form_factor(to_lower(f))) s.form_factors.push_back(*ff);
    else m.error(ffn, "unknown form_factor '" + f + "' (datacenter, workstation, edge)");
  }
  if (auto n = m.integer("max_devices", false, 1, 65536)) s.max_devices = static_cast<int>(*n);
  if (auto c = m.boolean("consumer_parts")) s.consumer_parts = *c;
  read_pair(m, "vendors", s.vendors_include, s.vendors_exclude);
  read_pair(m, "accelerators", s.accelerators_include, s.accelerators_exclude);
  if (auto e = m.map("ecosystem")) {
    for (const std::string& f : e->str_list("frameworks")) s.frameworks.push_back(parse_framework(f));
    for (const std::string& r : e->str_list("runtimes")) s.runtimes.push_back(to_lower(r));
    for (const std::string& c : e->str_list("custom_ops")) s.custom_ops.push_back(to_lower(c));
    e->finish();
  }
  m.finish();
}

void read_economics(YamlMap& m, Scenario& s) {
  auto take = [&](const char* key, double& out, double lo, double hi) {
    if (auto v = m.num(key, false, lo, hi)) out = *v;
    else if (!m.has(key)) s.defaults_used.push_back(key);
  };
  take("horizon_years", s.horizon_years, 0.01, 50);
  take("energy_usd_per_kwh", s.energy_usd_per_kwh, 0, 10);
  take("pue", s.pue, 1, 5);
  take("utilisation", s.utilisation, 0.001, 1);
  s.amortisation_years = m.num("amortisation_years", false, 0.1, 50);
  if (auto d = m.choice("deployment", kDeployments))
    s.deployment = *d == "cloud" ? Deployment::cloud : *d == "either" ? Deployment::either : Deployment::on_prem;
  if (auto st = m.num("storage_gb_s", false, 1e-3)) s.storage_bytes_per_s = *st * 1e9;
  if (auto prices = m.map("prices")) {
    for (const auto& kv : prices->node()) {
      const std::string id = kv.first.Scalar();
      prices->allow(id);
      if (!kv.second.IsMap()) {
        prices->error(kv.second, "prices." + id + " must be a mapping {list_usd, cloud_usd_per_hour, source}");
        continue;
      }
      YamlMap pm(kv.second, m.file(), "economics.prices." + id, m.diagnostics());
      PriceOverride po;
      po.accelerator = to_lower(id);
      po.list_usd = pm.num("list_usd", false, 0);
      po.cloud_usd_per_hour = pm.num("cloud_usd_per_hour", false, 0);
      po.source = pm.str("source", true).value_or("");
      if (!po.list_usd && !po.cloud_usd_per_hour) pm.error("give list_usd or cloud_usd_per_hour");
      pm.finish();
      s.prices.push_back(po);
    }
    prices->finish();
  }
  m.finish();
}

void read_baseline(YamlMap& m, Scenario& s) {
  Baseline b;
  b.accelerator = m.str("accelerator", true).value_or("");
  b.count = static_cast<int>(m.integer("count", true, 1, 65536).value_or(1));
  if (auto p = m.str("precision")) {
    b.precision = parse_precision(*p);
    if (!b.precision) m.error(m.node()["precision"], "unknown precision '" + *p + "'");
  }
  m.finish();
  s.baseline = b;
}

void read_weights(YamlMap& m, Weights& w) {
  auto take = [&](const char* key, double& out) {
    if (auto v = m.num(key, false, 0, 100)) out = *v;
  };
  take("compute_adequacy", w.compute_adequacy);
  take("bandwidth_fit", w.bandwidth_fit);
  take("precision", w.precision);
  take("ecosystem", w.ecosystem);
  take("energy_efficiency", w.energy_efficiency);
  take("tco", w.tco);
  m.finish();
}

// Contradictions between sections, located at the scenario's top level.
void check_consistency(YamlMap& root, Scenario& s) {
  const bool train = s.task == workload::Task::train;
  if (train != (s.objective == ObjectiveKind::train)) {
    root.error(train ? "contradictory scenario: task train needs a train_samples/train_tokens objective"
                     : "contradictory scenario: a train_samples/train_tokens objective needs task train");
  }
  if (train && s.global_batch == 0) root.error("workload.global_batch is required for training");
  if (!train && s.global_batch != 0) root.error("workload.global_batch applies to training only");
  if (train) {
    for (Precision p : s.precisions) {
      if (is_integer(p)) root.error("contradictory scenario: " + std::string(to_string(p)) + " is inference-only; training needs a float precision");
    }
  }
  if (s.deployment == Deployment::cloud && s.budget_capex_usd) {
    root.error("contradictory constraints: budget.capex_usd is a purchase budget but economics.deployment is cloud (use budget.cloud_usd_per_hour)");
  }
  if (s.deployment == Deployment::on_prem && s.budget_cloud_usd_per_hour) {
    root.error("contradictory constraints: budget.cloud_usd_per_hour needs economics.deployment: cloud or either");
  }
  if (s.baseline && s.baseline->count > s.max_devices) {
    root.error("contradictory constraints: baseline.count " + std::to_string(s.baseline->count) +
               " exceeds constraints.max_devices " + std::to_string(s.max_devices));
  }
}

}  // namespace

Result<Scenario> parse_scenario(std::string_view text, const std::string& file) {
  Result<YAML::Node> doc = load_yaml(text, file);
  if (!doc) return make_error(doc.error());
  Diagnostics diag;
  YamlMap root(*doc, file, "scenario", &diag);
  Scenario s;
  s.file = file;
  if (root.valid()) {
    s.name = root.str("name", true).value_or("");
    s.description = root.str("description").value_or("");
    if (auto w = root.map("workload", true)) read_workload(*w, s);
    if (auto o = root.map("objective", true)) read_objective(*o, s);
    if (auto c = root.map("constraints")) read_constraints(*c, s);
    if (auto e = root.map("economics")) read_economics(*e, s);
    else s.defaults_used = {"horizon_years", "energy_usd_per_kwh", "pue", "utilisation"};
    if (auto f = root.map("facility")) {
      s.rack_kw = f->num("rack_kw", false, 0.1, 10000);
      s.liquid_cooling = f->boolean("liquid_cooling");
      f->finish();
    }
    if (auto b = root.map("baseline")) read_baseline(*b, s);
    if (auto w = root.map("weights")) read_weights(*w, s.weights);
    if (auto r = root.choice("rank_by", {"score", "least_capacity"})) s.rank_least_capacity = *r == "least_capacity";
    root.finish();
    if (diag.ok()) check_consistency(root, s);
  }
  Result<void> ok = diag.to_result();
  if (!ok) return make_error(ok.error());
  return s;
}

}  // namespace rooftop::advise
