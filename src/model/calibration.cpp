// Calibration on the published record: the class and stack tables, the
// YAML form of data/calibration.yaml, the fit, cross-validation and the
// shrunk ranges (docs/model.md#calibration).
#include "model/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "core/text.h"
#include "core/yaml.h"
#include "model/validate.h"

namespace rooftop::model {

namespace {
constexpr bool classes_follow_the_enum() {
  for (std::size_t i = 0; i < kOpClasses.size(); ++i)
    if (static_cast<std::size_t>(kOpClasses[i].cls) != i) return false;
  return true;
}
static_assert(classes_follow_the_enum(), "kOpClasses needs one row per OpClass, in enum order");
}  // namespace

std::string_view to_string(OpClass c) { return kOpClasses[static_cast<std::size_t>(c)].name; }

std::optional<OpClass> parse_op_class(std::string_view s) {
  for (const OpClassInfo& c : kOpClasses)
    if (c.name == s) return c.cls;
  return std::nullopt;
}

OpClass op_class(const workload::Operator& op) {
  using workload::OpKind;
  if (op.phase == workload::Phase::decode) return OpClass::decode;
  switch (op.kind) {
    case OpKind::matmul: return OpClass::gemm;
    case OpKind::conv: return OpClass::conv;
    case OpKind::attention: return OpClass::attention;
    case OpKind::embedding: return OpClass::gather;
    default: return OpClass::vector;
  }
}

std::string stack_family(std::string_view software) {
  const std::string s = to_lower(trim(software));
  if (s.empty()) return "";
  for (const StackInfo& st : kStacks)
    for (std::string_view t : st.tokens)
      if (!t.empty() && s.find(t) != std::string::npos) return std::string(st.id);
  return "other";
}

bool known_stack(std::string_view id) {
  if (id == "other") return true;
  return std::any_of(std::begin(kStacks), std::end(kStacks), [&](const StackInfo& s) { return s.id == id; });
}

std::string default_stack(const catalog::Accelerator& a, workload::Task task) {
  const bool train = task == workload::Task::train;
  if (a.vendor == "nvidia") return train ? "ngc" : "tensorrt";
  if (a.vendor == "google") return "xla";
  if (a.vendor == "amd" && a.kind == catalog::Kind::gpu) return train ? "pytorch" : "vllm";
  if (a.vendor == "intel" && a.kind == catalog::Kind::asic) return "synapse";
  if (a.vendor == "intel" && a.kind == catalog::Kind::cpu) return "pytorch";
  if (a.vendor == "untether") return "imaigine";
  return "";
}

std::string CalParameter::name() const { return stack + "/" + vendor + "/" + task + "/" + std::string(to_string(cls)); }

// ---- YAML ------------------------------------------------------------------

Result<Calibration> parse_calibration(std::string_view text, const std::string& name) {
  Result<YAML::Node> root = load_yaml(text, name);
  if (!root) return make_error(root.error());
  Diagnostics diag;
  YamlMap top(*root, name, "calibration", &diag);
  Calibration c;
  if (top.valid()) {
    c.source = top.str("source").value_or("");
    c.cv = top.str("cv").value_or("");
    YAML::Node list = top.raw("parameters");
    if (list && !list.IsNull() && !list.IsSequence()) top.error(list, "'parameters' must be a list");
    if (list && list.IsSequence()) {
      std::set<std::string> seen;
      for (const YAML::Node& n : list) {
        YamlMap m(n, name, "calibration parameter", &diag);
        if (!m.valid()) continue;
        CalParameter p;
        p.stack = m.str("stack", true).value_or("");
        p.vendor = m.str("vendor", true).value_or("");
        std::optional<std::string> task = m.choice("task", {"infer", "train"}, true);
        p.task = task.value_or("infer");
        std::vector<std::string> classes;
        for (const OpClassInfo& k : kOpClasses) classes.emplace_back(k.name);
        std::optional<std::string> cls = m.choice("class", classes, true);
        if (cls) p.cls = *parse_op_class(*cls);
        p.low = m.num("low", true, kFactorLow, kFactorHigh).value_or(kFactorLow);
        p.high = m.num("high", true, kFactorLow, kFactorHigh).value_or(kFactorHigh);
        std::optional<double> v = m.num("value", true, kFactorLow, kFactorHigh);
        p.value = v.value_or(1);
        if (v && (*v < p.low || *v > p.high)) m.error(n["value"], "value must lie within [low, high]");
        p.rows = static_cast<int>(m.integer("rows", true, 1).value_or(1));
        p.groups = static_cast<int>(m.integer("groups", true, 1).value_or(1));
        p.models = static_cast<int>(m.integer("models", true, 1).value_or(1));
        p.parts = static_cast<int>(m.integer("parts", true, 1).value_or(1));
        p.mdape_before = m.num("mdape_before", true, 0).value_or(0);
        p.mdape_after = m.num("mdape_after", true, 0).value_or(0);
        if (!p.stack.empty() && !known_stack(p.stack)) m.error(n["stack"], "unknown stack family '" + p.stack + "'");
        m.finish();
        if (!seen.insert(p.name()).second) m.error("parameter " + p.name() + " is given twice");
        c.parameters.push_back(std::move(p));
      }
    }
    top.finish();
  }
  if (!diag.ok()) return make_error(diag.to_result().error());
  return c;
}

namespace {
// A YAML double-quoted scalar: quotes and backslashes escaped, control
// characters as \xNN, so any text reads back as itself.
std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}
std::string fmt_num(double v, const char* fmt = "%.4g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

std::string calibration_yaml(const Calibration& c) {
  std::string out =
      "# Fitted software-stack efficiencies (docs/model.md#calibration), written by\n"
      "# `rooftop calibrate`; `rooftop calibrate --show` lists them. Each factor scales\n"
      "# the efficiency of one operator class on one stack family for one vendor's\n"
      "# parts and one task; rows, groups (systems), models and parts are what it\n"
      "# was fitted on, mdape_* its rows' error before and after (in sample).\n";
  out += "source: " + yaml_quoted(c.source) + "\n";
  out += "cv: " + yaml_quoted(c.cv) + "\n";
  out += "parameters:\n";
  for (const CalParameter& p : c.parameters) {
    out += "  - {stack: " + yaml_quoted(p.stack) + ", vendor: " + yaml_quoted(p.vendor) + ", task: " + p.task + ", class: " +
           std::string(to_string(p.cls)) + ", value: " + fmt_num(p.value) + ", low: " + fmt_num(p.low) + ", high: " +
           fmt_num(p.high) + ", rows: " + std::to_string(p.rows) + ", groups: " + std::to_string(p.groups) +
           ", models: " + std::to_string(p.models) + ", parts: " + std::to_string(p.parts) +
           ", mdape_before: " + fmt_num(p.mdape_before, "%.1f") + ", mdape_after: " + fmt_num(p.mdape_after, "%.1f") + "}\n";
  }
  if (c.parameters.empty()) out += "  []\n";
  return out;
}

Calibrated calibrated_for(const Calibration& cal, std::string_view stack, std::string_view vendor,
                          workload::Task task) {
  Calibrated out;
  out.stack = std::string(stack);
  const std::string_view t = workload::to_string(task);
  for (const CalParameter& p : cal.parameters) {
    if (p.stack != stack || p.vendor != vendor || p.task != t) continue;
    out.factor[static_cast<std::size_t>(p.cls)] = p.value;
    out.assumptions.push_back(
        {"calibration." + p.name(), fmt_num(p.value, "%.3f"),
         "data/calibration.yaml: fitted on " + std::to_string(p.rows) + " published rows (" +
             std::to_string(p.groups) + " systems, " + std::to_string(p.models) + " models, " +
             std::to_string(p.parts) + " parts), their MdAPE " + fmt_num(p.mdape_before, "%.1f") + " % -> " +
             fmt_num(p.mdape_after, "%.1f") + " %; bounds " + fmt_num(p.low) + "-" + fmt_num(p.high) +
             " (docs/model.md#calibration)"});
  }
  return out;
}

// ---- Fitting ---------------------------------------------------------------

std::array<double, kOpClassCount> class_shares(const Evaluator& ev, const Plan& plan) {
  std::array<double, kOpClassCount> share{};
  const double base = ev.quick(plan).throughput;
  if (!(base > 0)) return share;
  for (std::size_t c = 0; c < kOpClassCount; ++c) {
    if (c == static_cast<std::size_t>(OpClass::serving)) continue;
    Calibrated half = ev.request().calibrated;
    half.factor[c] *= 0.5;
    const double slower = ev.with_calibration(half).quick(plan).throughput;
    if (slower > 0) share[c] = std::max(0.0, base / slower - 1);
  }
  return share;
}

double calibrated_ratio(const CalRow& r, const std::array<double, kOpClassCount>& factor) {
  double t = 1;
  for (std::size_t c = 0; c < kOpClassCount; ++c) {
    if (c == static_cast<std::size_t>(OpClass::serving) || r.share[c] <= 0) continue;
    t += r.share[c] * (1 / factor[c] - 1);
  }
  const std::size_t serving = static_cast<std::size_t>(OpClass::serving);
  if (r.share[serving] == 1) t /= factor[serving];
  else if (r.share[serving] > 0) t /= std::pow(factor[serving], r.share[serving]);
  return r.speed_ratio / std::max(1e-9, t);
}

namespace {

using FitKey = std::tuple<std::string, std::string, std::string, std::size_t>;  // stack, vendor, task, class

FitKey key_of(const CalRow& r, std::size_t c) { return {r.stack, r.vendor, r.task, c}; }

double huber_log(double ratio) {
  const double x = std::fabs(std::log(ratio)), d = 0.1;
  return x <= d ? x * x / 2 : d * (x - d / 2);
}

double ratio_mdape(const std::vector<double>& ratios) {
  std::vector<double> e;
  for (double r : ratios) e.push_back((r - 1) * 100);
  return median_abs(std::move(e));
}

}  // namespace

std::array<double, kOpClassCount> row_factors(const Calibration& cal, const CalRow& r) {
  std::array<double, kOpClassCount> f;
  f.fill(1);
  for (const CalParameter& p : cal.parameters)
    if (p.stack == r.stack && p.vendor == r.vendor && p.task == r.task) f[static_cast<std::size_t>(p.cls)] = p.value;
  return f;
}

Calibration fit(const std::vector<CalRow>& rows, const FitOptions& opts) {
  // Which parameters the rows support.
  struct Support {
    std::vector<std::size_t> rows;
    std::set<std::string> groups, models, parts;
  };
  std::map<FitKey, Support> support;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CalRow& r = rows[i];
    if (r.stack.empty() || r.stack == "other" || !(r.speed_ratio > 0) || !std::isfinite(r.speed_ratio)) continue;
    for (std::size_t c = 0; c < kOpClassCount; ++c) {
      if (r.share[c] < opts.min_share) continue;
      Support& s = support[key_of(r, c)];
      s.rows.push_back(i);
      s.groups.insert(r.group), s.models.insert(r.model), s.parts.insert(r.part);
    }
  }
  std::vector<FitKey> keys;
  for (const auto& [k, s] : support)
    if (static_cast<int>(s.rows.size()) >= opts.min_rows && static_cast<int>(s.groups.size()) >= opts.min_groups &&
        static_cast<int>(s.models.size()) >= opts.min_models)
      keys.push_back(k);
  // Each row's factors, by reference into one table of values: row_slots[i]
  // lists (class, parameter) for the parameters row i uses.
  std::vector<double> value(keys.size(), 1.0);
  // A warm start (cross-validation folds start from the fit on every row).
  if (opts.start)
    for (std::size_t k = 0; k < keys.size(); ++k)
      for (const CalParameter& p : opts.start->parameters)
        if (p.stack == std::get<0>(keys[k]) && p.vendor == std::get<1>(keys[k]) && p.task == std::get<2>(keys[k]) &&
            static_cast<std::size_t>(p.cls) == std::get<3>(keys[k]))
          value[k] = p.value;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<std::size_t, std::size_t>>> slots;
  for (std::size_t k = 0; k < keys.size(); ++k)
    slots[{std::get<0>(keys[k]), std::get<1>(keys[k]), std::get<2>(keys[k])}].push_back({std::get<3>(keys[k]), k});
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> row_slots(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto it = slots.find({rows[i].stack, rows[i].vendor, rows[i].task});
    if (it != slots.end()) row_slots[i] = it->second;
  }
  std::vector<std::vector<std::size_t>> members(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) members[k] = support[keys[k]].rows;
  auto factors_of = [&](std::size_t i) {
    std::array<double, kOpClassCount> f;
    f.fill(1);
    for (const auto& [c, k] : row_slots[i]) f[c] = value[k];
    return f;
  };
  auto loss = [&](std::size_t k) {
    // The prior: prior_weight rows that say physics is right (a factor of 1).
    double l = opts.prior_weight * huber_log(value[k]);
    for (std::size_t i : members[k]) l += huber_log(calibrated_ratio(rows[i], factors_of(i)));
    return l;
  };
  // Coordinate descent, golden-section search on log(value) per parameter.
  const double lo = std::log(kFactorLow), hi = std::log(kFactorHigh), g = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double moved = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const double before = value[k];
      // From a warm start the minimum is near: search within +-0.5 in log first.
      double a = lo, b = hi;
      if (opts.start) a = std::max(lo, std::log(before) - 0.5), b = std::min(hi, std::log(before) + 0.5);
      double x1 = b - g * (b - a), x2 = a + g * (b - a);
      value[k] = std::exp(x1);
      double f1 = loss(k);
      value[k] = std::exp(x2);
      double f2 = loss(k);
      for (int it = 0; it < 28; ++it) {
        if (f1 < f2) {
          b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a);
          value[k] = std::exp(x1);
          f1 = loss(k);
        } else {
          a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a);
          value[k] = std::exp(x2);
          f2 = loss(k);
        }
      }
      value[k] = std::exp((a + b) / 2);
      moved = std::max(moved, std::fabs(std::log(value[k] / before)));
    }
    if (moved < 1e-4) break;
  }
  Calibration out;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const Support& s = support[keys[k]];
    CalParameter p;
    p.stack = std::get<0>(keys[k]), p.vendor = std::get<1>(keys[k]), p.task = std::get<2>(keys[k]);
    p.cls = static_cast<OpClass>(std::get<3>(keys[k]));
    p.value = value[k], p.low = kFactorLow, p.high = kFactorHigh;
    p.rows = static_cast<int>(s.rows.size());
    p.groups = static_cast<int>(s.groups.size()), p.models = static_cast<int>(s.models.size());
    p.parts = static_cast<int>(s.parts.size());
    std::vector<double> before, after;
    for (std::size_t i : s.rows) before.push_back(rows[i].speed_ratio), after.push_back(calibrated_ratio(rows[i], factors_of(i)));
    p.mdape_before = ratio_mdape(before), p.mdape_after = ratio_mdape(after);
    out.parameters.push_back(std::move(p));
  }
  return out;
}

std::vector<double> cross_validate(const std::vector<CalRow>& rows, const FitOptions& given) {
  std::vector<double> out(rows.size(), 0);
  const Calibration all = fit(rows, given);
  FitOptions opts = given;
  opts.start = &all;
  std::map<std::string, std::vector<std::size_t>> by_group;
  for (std::size_t i = 0; i < rows.size(); ++i) by_group[rows[i].group].push_back(i);
  for (const auto& [group, members] : by_group) {
    std::vector<CalRow> rest;
    rest.reserve(rows.size());
    for (const CalRow& r : rows)
      if (r.group != group) rest.push_back(r);
    const Calibration c = fit(rest, opts);
    for (std::size_t i : members) out[i] = calibrated_ratio(rows[i], row_factors(c, rows[i]));
  }
  return out;
}

namespace {
// The q-quantile of weighted values (sorted by value; linear in the
// cumulative weight at each value's midpoint).
double weighted_quantile(std::vector<std::pair<double, double>> vw, double q) {
  std::sort(vw.begin(), vw.end());
  double total = 0;
  for (const auto& [v, w] : vw) total += w;
  double cum = 0, prev_mid = 0, prev_v = vw.front().first;
  for (std::size_t i = 0; i < vw.size(); ++i) {
    const double mid = (cum + vw[i].second / 2) / total;
    if (mid >= q) {
      if (i == 0) return vw[0].first;
      const double t = (q - prev_mid) / std::max(1e-12, mid - prev_mid);
      return prev_v + t * (vw[i].first - prev_v);
    }
    cum += vw[i].second, prev_mid = mid, prev_v = vw[i].first;
  }
  return vw.back().first;
}
}  // namespace

std::pair<double, double> shrunk_range(const std::vector<double>& group_log_ratios,
                                       const std::vector<double>& corpus_log_ratios, double shrink, double coverage) {
  std::vector<std::pair<double, double>> vw;
  for (double x : group_log_ratios) vw.push_back({x, 1.0});
  if (!corpus_log_ratios.empty() && shrink > 0)
    for (double x : corpus_log_ratios) vw.push_back({x, shrink / static_cast<double>(corpus_log_ratios.size())});
  if (vw.empty()) return {1, 1};
  const double tail = (1 - coverage) / 2;
  return {std::exp(weighted_quantile(vw, tail)), std::exp(weighted_quantile(vw, 1 - tail))};
}

std::vector<std::pair<double, double>> cv_ranges(const std::vector<CalRow>& rows, const std::vector<double>& cv_ratio,
                                                 double shrink) {
  std::vector<std::pair<double, double>> out;
  out.reserve(rows.size());
  auto same_band = [](const CalRow& a, const CalRow& b) {
    return a.task == b.task && a.family == b.family && a.vendor == b.vendor && a.scenario == b.scenario;
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> group, corpus;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (rows[j].group == rows[i].group || !(cv_ratio[j] > 0)) continue;
      const double x = -std::log(cv_ratio[j]);
      corpus.push_back(x);
      if (same_band(rows[i], rows[j])) group.push_back(x);
    }
    out.push_back(shrunk_range(group, corpus, shrink));
  }
  return out;
}

}  // namespace rooftop::model
