#include "core/yaml.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/text.h"

namespace rooftop {

Result<YAML::Node> load_yaml(std::string_view text, const std::string& name) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string ctx = name;
    if (!e.mark.is_null()) ctx += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    return make_error(Errc::invalid_input, "malformed YAML: " + e.msg, ctx);
  }
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Errc::not_found, "cannot open file", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(Errc::io, "read error", path);
  return ss.str();
}

std::string yaml_where(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().is_null()) return file;
  return file + ":" + std::to_string(node.Mark().line + 1);
}

Result<void> Diagnostics::to_result() const {
  if (errors.empty()) return {};
  Error e = errors.front();
  for (std::size_t i = 1; i < errors.size(); ++i) e.message += "\n  " + errors[i].what();
  return make_error(std::move(e));
}

YamlMap::YamlMap(YAML::Node node, std::string file, std::string what, Diagnostics* diag)
    : node_(std::move(node)), file_(std::move(file)), what_(std::move(what)), diag_(diag) {
  if (!node_.IsMap()) {
    valid_ = false;
    error(node_, what_ + " must be a mapping of key: value");
  }
}

bool YamlMap::has(const std::string& key) const { return valid_ && node_[key].IsDefined(); }

void YamlMap::error(const YAML::Node& at, const std::string& message, Errc code) {
  if (diag_) diag_->add(code, message, where(at));
}

YAML::Node YamlMap::raw(const std::string& key) {
  known_.insert(key);
  if (!valid_) return YAML::Node();
  return node_[key];
}

std::optional<double> yaml_number(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull() || !n.IsScalar()) return std::nullopt;
  return parse_double(n.Scalar());
}

namespace {
bool absent(const YAML::Node& n) { return !n.IsDefined() || n.IsNull(); }
}  // namespace

std::optional<std::string> YamlMap::str(const std::string& key, bool required) {
  YAML::Node n = raw(key);
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required key '" + key + "' in " + what_);
    return std::nullopt;
  }
  if (!n.IsScalar()) {
    error(n, "'" + key + "' must be a string");
    return std::nullopt;
  }
  return n.Scalar();
}

std::optional<double> YamlMap::num(const std::string& key, bool required, double min, double max) {
  YAML::Node n = raw(key);
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required key '" + key + "' in " + what_);
    return std::nullopt;
  }
  std::optional<double> v = yaml_number(n);
  if (!v) {
    error(n, "'" + key + "' must be a number, got '" + (n.IsScalar() ? n.Scalar() : std::string("a collection")) + "'");
    return std::nullopt;
  }
  if (*v < min || *v > max) {
    std::ostringstream msg;
    msg << "'" << key << "' = " << *v << " is out of range";
    if (std::isfinite(min) && std::isfinite(max)) msg << " [" << min << ", " << max << "]";
    else if (std::isfinite(min)) msg << " (must be >= " << min << ")";
    else msg << " (must be <= " << max << ")";
    error(n, msg.str());
    return std::nullopt;
  }
  return v;
}

std::optional<long long> YamlMap::integer(const std::string& key, bool required, long long min, long long max) {
  YAML::Node n = raw(key);
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required key '" + key + "' in " + what_);
    return std::nullopt;
  }
  std::optional<long long> v = n.IsScalar() ? parse_int(n.Scalar()) : std::nullopt;
  if (!v) {
    error(n, "'" + key + "' must be a whole number");
    return std::nullopt;
  }
  if (*v < min || *v > max) {
    error(n, "'" + key + "' = " + std::to_string(*v) + " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> YamlMap::boolean(const std::string& key, bool required) {
  YAML::Node n = raw(key);
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required key '" + key + "' in " + what_);
    return std::nullopt;
  }
  std::string s = n.IsScalar() ? to_lower(n.Scalar()) : "";
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  error(n, "'" + key + "' must be true or false");
  return std::nullopt;
}

std::vector<std::string> YamlMap::str_list(const std::string& key, bool required) {
  YAML::Node n = raw(key);
  std::vector<std::string> out;
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required key '" + key + "' in " + what_);
    return out;
  }
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence()) {
    error(n, "'" + key + "' must be a list of strings");
    return out;
  }
  for (const YAML::Node& item : n) {
    if (!item.IsScalar()) {
      error(item, "'" + key + "' items must be strings");
      continue;
    }
    out.push_back(item.Scalar());
  }
  return out;
}

std::optional<YamlMap> YamlMap::map(const std::string& key, bool required) {
  YAML::Node n = raw(key);
  if (absent(n)) {
    if (required && valid_) error(node_, "missing required section '" + key + "' in " + what_);
    return std::nullopt;
  }
  if (!n.IsMap()) {
    error(n, "'" + key + "' must be a mapping");
    return std::nullopt;
  }
  return YamlMap(n, file_, what_ + "." + key, diag_);
}

std::optional<std::string> YamlMap::choice(const std::string& key, const std::vector<std::string>& choices,
                                           bool required) {
  std::optional<std::string> v = str(key, required);
  if (!v) return v;
  for (const std::string& c : choices) {
    if (c == *v) return v;
  }
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i) list += (i ? ", " : "") + choices[i];
  error(node_[key], "'" + key + "' must be one of: " + list + " (got '" + *v + "')");
  return std::nullopt;
}

void YamlMap::finish() {
  if (!valid_) return;
  std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& kv : node_) {
    std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (known_.count(k)) continue;
    std::string msg = "unknown key '" + k + "' in " + what_;
    std::vector<std::string> near = closest_matches(k, known, 1);
    if (!near.empty()) msg += " (did you mean '" + near.front() + "'?)";
    error(kv.first, msg);
  }
}

}  // namespace rooftop
