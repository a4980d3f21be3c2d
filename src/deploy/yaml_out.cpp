#include "deploy/yaml_out.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <regex>

namespace rooftop::deploy {

namespace {

bool needs_quotes(const std::string& s) {
  static const std::regex kAmbiguous(
      R"(^(|~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$)");
  return std::regex_match(s, kAmbiguous);
}

void emit(YAML::Emitter& out, const Tree& t) {
  switch (t.type()) {
    case Tree::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : t.items()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
    case Tree::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& v : t) emit(out, v);
      out << YAML::EndSeq;
      break;
    case Tree::value_t::string: {
      const std::string& s = t.get_ref<const std::string&>();
      if (needs_quotes(s)) out << YAML::DoubleQuoted;
      if (s.find('\n') != std::string::npos) out << YAML::Literal;
      out << s;
      break;
    }
    case Tree::value_t::boolean: out << t.get<bool>(); break;
    case Tree::value_t::number_integer: out << t.get<long long>(); break;
    case Tree::value_t::number_unsigned: out << t.get<unsigned long long>(); break;
    case Tree::value_t::number_float: out << t.get<double>(); break;
    default: out << YAML::Null; break;
  }
}

}  // namespace

std::string to_yaml(const Tree& t) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  emit(out, t);
  return std::string(out.c_str()) + "\n";
}

}  // namespace rooftop::deploy
