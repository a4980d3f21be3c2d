// Strict, line-numbered reading of YAML input files (catalog entries, custom
// models, scenarios, traces). yaml-cpp parses; YamlMap walks one mapping,
// records which keys were read, and reports every problem as an Error whose
// context is "file:line" of the offending node. Unknown keys are errors, so a
// typo never silently falls back to a default. Problems are collected rather
// than returned one at a time, so a user sees all of them at once (mold-style).
#pragma once

#include <yaml-cpp/yaml.h>

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rooftop {

// Parses `text`; a syntax error becomes Errc::invalid_input with "name:line:col".
Result<YAML::Node> load_yaml(std::string_view text, const std::string& name);

// Reads a whole file and parses it; a missing file is Errc::not_found.
Result<std::string> read_file(const std::string& path);

// "file:line" (1-based) for a node; "file" alone when the node has no mark.
std::string yaml_where(const std::string& file, const YAML::Node& node);

// Errors collected while reading one input file.
struct Diagnostics {
  std::vector<Error> errors;
  void add(Errc code, std::string message, std::string context) {
    errors.push_back(Error{code, std::move(message), std::move(context)});
  }
  bool ok() const { return errors.empty(); }
  // One Error listing all problems (first line = first problem), or success.
  Result<void> to_result() const;
};

class YamlMap {
 public:
  // `what` names the object in messages ("accelerator", "scenario.constraints").
  YamlMap(YAML::Node node, std::string file, std::string what, Diagnostics* diag);

  bool valid() const { return valid_; }  // false when the node was not a mapping
  bool has(const std::string& key) const;
  const YAML::Node& node() const { return node_; }

  // Getters mark the key as known. A missing optional key, or an explicit
  // null / ~, gives nullopt. A wrong type or value out of [min, max] adds an
  // error and gives nullopt. `required` adds an error when the key is absent.
  YAML::Node raw(const std::string& key);
  std::optional<std::string> str(const std::string& key, bool required = false);
  std::optional<double> num(const std::string& key, bool required = false,
                            double min = -std::numeric_limits<double>::infinity(),
                            double max = std::numeric_limits<double>::infinity());
  std::optional<long long> integer(const std::string& key, bool required = false,
                                   long long min = std::numeric_limits<long long>::min(),
                                   long long max = std::numeric_limits<long long>::max());
  std::optional<bool> boolean(const std::string& key, bool required = false);
  // A list of strings; a single scalar is accepted as a one-element list.
  std::vector<std::string> str_list(const std::string& key, bool required = false);
  // A nested mapping; nullopt when absent (error when required) or not a map.
  std::optional<YamlMap> map(const std::string& key, bool required = false);
  // One of `choices`; anything else is an error naming them.
  std::optional<std::string> choice(const std::string& key, const std::vector<std::string>& choices,
                                    bool required = false);

  // Marks a key as known without reading it (for keys handled elsewhere).
  void allow(const std::string& key) { known_.insert(key); }
  // Reports keys never read or allowed as "unknown key", with a suggestion.
  void finish();

  // Adds an error located at `at` (or at this map).
  void error(const YAML::Node& at, const std::string& message, Errc code = Errc::invalid_input);
  void error(const std::string& message) { error(node_, message); }
  std::string where(const YAML::Node& at) const { return yaml_where(file_, at); }
  const std::string& file() const { return file_; }
  const std::string& what() const { return what_; }
  Diagnostics* diagnostics() const { return diag_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string what_;
  Diagnostics* diag_;
  std::set<std::string> known_;
  bool valid_ = true;
};

// Reads a scalar node as a number/string, nullopt on null or type mismatch.
std::optional<double> yaml_number(const YAML::Node& n);

}  // namespace rooftop
