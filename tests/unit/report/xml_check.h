// A tiny XML well-formedness check for the report tests: balanced and
// properly nested tags, quoted attributes, known entities only. Enough to
// catch what a renderer can get wrong (unescaped text, unclosed elements);
// not a general XML parser.
#pragma once

#include <string>
#include <vector>

namespace rooftop::report::testing {

// "" when `xml` is well-formed, otherwise what is wrong and where.
inline std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  auto entity_ok = [&](std::size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"}) {
      if (xml.compare(at, std::string(e).size(), e) == 0) return true;
    }
    return false;
  };
  while (i < xml.size()) {
    char c = xml[i];
    if (c == '&') {
      if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (c == '>') return "stray '>' at " + std::to_string(i);
    if (c != '<') {
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      std::size_t end = xml.find("-->", i);
      if (end == std::string::npos) return "unclosed comment";
      i = end + 3;
      continue;
    }
    bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    std::string name;
    while (j < xml.size() && xml[j] != ' ' && xml[j] != '>' && xml[j] != '/' && xml[j] != '\n') name += xml[j++];
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    char quote = 0;
    bool self_closing = false;
    for (; j < xml.size(); ++j) {
      if (quote) {
        if (xml[j] == quote) quote = 0;
        else if (xml[j] == '<') return "'<' inside an attribute of <" + name + ">";
        else if (xml[j] == '&' && !entity_ok(j)) return "bad entity in an attribute of <" + name + ">";
        continue;
      }
      if (xml[j] == '"' || xml[j] == '\'') quote = xml[j];
      else if (xml[j] == '<') return "'<' inside tag <" + name + ">";
      else if (xml[j] == '>') break;
    }
    if (j >= xml.size()) return "unterminated tag <" + name + ">";
    self_closing = xml[j - 1] == '/';
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> does not close " + (open.empty() ? std::string("anything") : "<" + open.back() + ">");
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
    i = j + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  return "";
}

}  // namespace rooftop::report::testing
