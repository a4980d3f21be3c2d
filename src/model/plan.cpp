// Parsing and printing parallel plans (plan.h).
#include "model/plan.h"

#include "core/text.h"

namespace rooftop::model {

namespace {

// The plan keys, in canonical print order (one table: parse and print use it).
enum class Key { dp, tp, pp, ep, vp, mb, ga, zero, recompute, sp };
struct KeyName {
  Key key;
  const char* name;
};
constexpr KeyName kKeys[] = {{Key::dp, "dp"},     {Key::tp, "tp"},     {Key::pp, "pp"}, {Key::ep, "ep"},
                             {Key::vp, "vp"},     {Key::mb, "mb"},     {Key::ga, "ga"}, {Key::zero, "zero"},
                             {Key::recompute, "recompute"}, {Key::sp, "sp"}};

std::string key_list() {
  std::string s;
  for (const KeyName& k : kKeys) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

Unexpected bad(const std::string& msg) { return make_error(Errc::invalid_input, msg, "--plan"); }

}  // namespace

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

Result<PlanSpec> parse_plan(std::string_view text) {
  PlanSpec spec;
  if (trim(text).empty()) return bad("empty plan; write key=value pairs such as dp=8,tp=4 (keys: " + key_list() + ")");
  for (const std::string& raw : split(text, ',')) {
    std::string item = trim(raw);
    std::size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos)
      return bad("'" + item + "' is not key=value (keys: " + key_list() + ")");
    std::string name = to_lower(trim(item.substr(0, eq)));
    std::string value = to_lower(trim(item.substr(eq + 1)));
    const KeyName* k = nullptr;
    for (const KeyName& c : kKeys)
      if (name == c.name) k = &c;
    if (!k) return bad("unknown plan key '" + name + "' (keys: " + key_list() + ")");
    if (k->key == Key::recompute) {
      if (value == "none") spec.recompute = Recompute::none;
      else if (value == "selective") spec.recompute = Recompute::selective;
      else if (value == "full") spec.recompute = Recompute::full;
      else return bad("recompute='" + value + "' is not none, selective or full");
      continue;
    }
    if (k->key == Key::sp) {
      if (value == "1" || value == "true" || value == "on") spec.sp = true;
      else if (value == "0" || value == "false" || value == "off") spec.sp = false;
      else return bad("sp='" + value + "' is not 0 or 1");
      continue;
    }
    if (k->key == Key::zero && value == "fsdp") value = "3";
    std::optional<long long> n = parse_int(value);
    if (k->key == Key::zero) {
      if (!n || *n < 0 || *n > 3) return bad("zero='" + value + "' is not 0, 1, 2, 3 or fsdp");
      spec.zero = static_cast<int>(*n);
      continue;
    }
    if (!n || *n < 1 || *n > (1 << 24))
      return bad(name + "='" + value + "' is not a whole number >= 1");
    int v = static_cast<int>(*n);
    switch (k->key) {
      case Key::dp: spec.dp = v; break;
      case Key::tp: spec.tp = v; break;
      case Key::pp: spec.pp = v; break;
      case Key::ep: spec.ep = v; break;
      case Key::vp: spec.vp = v; break;
      case Key::mb: spec.mb = v; break;
      case Key::ga: spec.ga = v; break;
      default: break;
    }
  }
  return spec;
}

std::string to_string(const Plan& p) {
  std::string s;
  for (const KeyName& k : kKeys) {
    std::string v;
    switch (k.key) {
      case Key::dp: v = std::to_string(p.dp); break;
      case Key::tp: v = std::to_string(p.tp); break;
      case Key::pp: v = std::to_string(p.pp); break;
      case Key::ep: v = std::to_string(p.ep); break;
      case Key::vp: v = std::to_string(p.vp); break;
      case Key::mb: v = std::to_string(p.mb); break;
      case Key::ga: v = std::to_string(p.ga); break;
      case Key::zero: v = std::to_string(p.zero); break;
      case Key::recompute: v = std::string(to_string(p.recompute)); break;
      case Key::sp: v = p.sp ? "1" : "0"; break;
    }
    s += (s.empty() ? "" : ",") + std::string(k.name) + "=" + v;
  }
  return s;
}

Plan plan_from(const PlanSpec& spec) {
  Plan p;
  p.dp = spec.dp.value_or(1), p.tp = spec.tp.value_or(1), p.pp = spec.pp.value_or(1), p.ep = spec.ep.value_or(1);
  p.vp = spec.vp.value_or(1), p.mb = spec.mb.value_or(1), p.ga = spec.ga.value_or(1), p.zero = spec.zero.value_or(0);
  p.recompute = spec.recompute.value_or(Recompute::none);
  p.sp = spec.sp.value_or(false);
  return p;
}

}  // namespace rooftop::model
