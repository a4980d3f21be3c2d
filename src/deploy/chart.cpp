// Plain manifests or a Helm chart (templates with value substitution only).
#include "deploy/chart.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace rooftop::deploy {

namespace {

std::string placeholder(const std::string& key) { return "{{ .Values." + key + " }}"; }

bool named(const ChartValue& v, const std::string& kind, const std::string& field) {
  for (const std::string& f : v.fields) {
    if (f == field || f == kind + ":" + field) return true;
  }
  return false;
}

// label="VALUE" -> label="{{ .Values.KEY }}" inside a query string.
void templatize_matcher(Tree& s, const ChartValue& v, const std::string& label) {
  if (!s.is_string() || !v.value.is_string()) return;
  const std::string from = label + "=\"" + v.value.get<std::string>() + "\"";
  const std::string to = label + "=\"" + placeholder(v.key) + "\"";
  std::string text = s.get<std::string>();
  std::size_t at = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    const char before = at == 0 ? '{' : text[at - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '_') {  // "xnamespace=": another label
      at += from.size();
      continue;
    }
    text.replace(at, from.size(), to);
    at += to.size();
  }
  s = text;
}

void templatize(Tree& t, const ChartValue& v, const std::string& kind) {
  if (t.is_object()) {
    for (auto& [k, child] : t.items()) {
      const auto matcher = std::find_if(v.matchers.begin(), v.matchers.end(),
                                        [&](const LabelMatcher& m) { return m.member == k; });
      if (matcher != v.matchers.end()) {
        templatize_matcher(child, v, matcher->label);
      } else if (named(v, kind, k) && child == v.value) {
        child = placeholder(v.key);
      } else if (named(v, kind, k) && child.is_array()) {
        for (Tree& item : child) {
          if (item == v.value) item = placeholder(v.key);
        }
      } else {
        templatize(child, v, kind);
      }
    }
  } else if (t.is_array()) {
    for (Tree& child : t) templatize(child, v, kind);
  }
}

// The emitter quotes "{{ ... }}" (it would read back as a flow mapping);
// in a template a placeholder that is a whole scalar stands unquoted for the
// value it becomes. One inside a longer string (a query) keeps its quotes.
std::string unquote_placeholders(const std::string& yaml) {
  static const std::regex kQuoted(R"re((^|\n)([ ]*(?:- )?(?:[^\n"':]+: )?)(["'])(\{\{ \.Values\.[A-Za-z0-9_.]+ \}\})\3(?=\n|$))re");
  return std::regex_replace(yaml, kQuoted, "$1$2$4");
}

}  // namespace

std::vector<File> write_manifests(const std::vector<Manifest>& manifests, const std::vector<File>& extra,
                                  Format format, const Chart& chart) {
  std::vector<File> files;
  if (format == Format::plain) {
    for (const Manifest& m : manifests) files.push_back({m.path, to_yaml(m.tree)});
    for (const File& f : extra) files.push_back(f);
    return files;
  }
  const std::string dir = chart.name + "/";
  Tree meta = Tree{{"apiVersion", "v2"},
                   {"name", chart.name},
                   {"description", chart.description},
                   {"type", "application"},
                   {"version", ROOFTOP_VERSION_STRING},
                   {"appVersion", ROOFTOP_VERSION_STRING}};
  files.push_back({dir + "Chart.yaml", to_yaml(meta)});
  Tree values = Tree::object();
  for (const ChartValue& v : chart.values) values[v.key] = v.value;
  files.push_back({dir + "values.yaml", to_yaml(values)});
  for (const Manifest& m : manifests) {
    Tree t = m.tree;
    const std::string kind = t.value("kind", "");
    for (const ChartValue& v : chart.values) templatize(t, v, kind);
    files.push_back({dir + "templates/" + m.path, unquote_placeholders(to_yaml(t))});
  }
  for (const File& f : extra) files.push_back({dir + "files/" + f.path, f.content});
  return files;
}

}  // namespace rooftop::deploy
