// Manifests as trees, written either as plain files or as a Helm chart whose
// templates use only `{{ .Values.KEY }}` substitution (so rendering them with
// the default values gives back the plain files; tests/e2e/deploy_artifacts.sh).
#pragma once

// Private to the deploy module (its sources and its test include it): the
// structs below hold trees by value, so this header needs the whole of
// nlohmann::json, which deploy/deploy.h and deploy/yaml_out.h keep out.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "deploy/deploy.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

struct Manifest {
  std::string path;   // "deployment.yaml"
  Tree tree;
};

// A chart value: every member named one of `fields` ("name", or "Kind:name"
// for that kind's documents only) whose value equals `value`, or a list
// item of such a member that does, becomes `{{ .Values.<key> }}` in the
// templates. Inside a string member named by one of `matchers` (a PromQL
// query), the label matcher label="<value>" becomes label="{{ .Values.<key> }}".
struct LabelMatcher {
  std::string member;  // "query"
  std::string label;   // "namespace"
};

struct ChartValue {
  std::string key;
  std::vector<std::string> fields;
  Tree value;
  std::vector<LabelMatcher> matchers = {};
};

struct Chart {
  std::string name;                 // DNS label
  std::string description;
  std::vector<ChartValue> values;
};

// Plain: each manifest as YAML, then `extra` unchanged. Helm: NAME/Chart.yaml,
// NAME/values.yaml, NAME/templates/<manifest>, and NAME/files/<extra>.
std::vector<File> write_manifests(const std::vector<Manifest>& manifests, const std::vector<File>& extra,
                                  Format format, const Chart& chart);

}  // namespace rooftop::deploy
