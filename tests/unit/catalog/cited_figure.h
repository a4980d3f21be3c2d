// Shared by the catalog tests that check entry figures against the words of
// the source each entry cites (training_parts_test.cpp, coverage_parts_test.cpp,
// system_fields_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"

namespace rooftop::catalog::test {

// The embedded catalog, loaded once.
inline const Catalog& shipped_catalog() {
  static const Catalog catalog = [] {
    Result<Catalog> c = load_catalog(embedded_sources(), {});
    EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message + " at " + c.error().context);
    return c ? *c : Catalog{};
  }();
  return catalog;
}

// One figure as its source states it (or as its formula gives it), in the
// entry file's units, with the source key the entry names and words of that
// citation stating the value or its inputs.
struct CitedFigure {
  const char* id;
  const char* field;
  double value;
  const char* key;
  const char* quote;
  bool derived;  // the entry carries a formula
};

// `s` is f's figure in `a`, `scale` its base units per file unit: the value
// agrees within 1 %, names the source key, the citation holds the quoted
// words, and a formula is shown exactly when the figure is derived.
inline void expect_agrees_with_citation(const Accelerator& a, const Sourced& s, double scale, const CitedFigure& f) {
  ASSERT_TRUE(s.known()) << f.id << " " << f.field << " is unknown";
  EXPECT_LE(std::fabs(*s.value / scale - f.value) / f.value, 0.01)
      << f.id << " " << f.field << " = " << *s.value / scale << ", source gives " << f.value;
  EXPECT_EQ(source_key(a, s.source), f.key) << f.id << " " << f.field;
  EXPECT_NE(s.source.find(f.quote), std::string::npos)
      << f.id << " " << f.field << ": citation '" << f.key << "' does not contain \"" << f.quote << "\"";
  EXPECT_EQ(!s.derived.empty(), f.derived) << f.id << " " << f.field << " formula: '" << s.derived << "'";
}

// One figure of a multi-device system in the file's units: a precision
// ("bf16") in TFLOP/s, "link" (scale-up) and "scale_out" in GB/s per
// direction, the domain's "domain" and "peers" and "devices_per_node" as
// counts. Null for an unknown name.
inline const Sourced* system_figure(const Accelerator& a, const std::string& field, double* scale) {
  *scale = 1;
  if (std::optional<Precision> p = parse_precision(field)) {
    *scale = 1e12;
    return &a.peak(*p);
  }
  if (field == "link" || field == "scale_out") {
    *scale = 1e9;
    return field == "link" ? &a.scale_up.bytes_per_s_per_direction : &a.scale_out.bytes_per_s_per_direction;
  }
  if (field == "domain") return &a.domain.devices;
  if (field == "peers") return &a.domain.peers;
  if (field == "devices_per_node") return &a.devices_per_node;
  return nullptr;
}

// Every figure of `figures` (system_figure's names) agrees with its citation.
inline void expect_system_figures_agree(const std::vector<CitedFigure>& figures) {
  for (const CitedFigure& f : figures) {
    const Accelerator* a = shipped_catalog().find(f.id);
    ASSERT_NE(a, nullptr) << f.id;
    double scale = 1;
    const Sourced* figure = system_figure(*a, f.field, &scale);
    ASSERT_NE(figure, nullptr) << "unknown field " << f.field;
    expect_agrees_with_citation(*a, *figure, scale, f);
  }
}

// How a part's scale-up domain is wired, as its reference system has it.
struct ExpectedTopology {
  const char* id;
  Topology topology;
};

inline void expect_topologies(const std::vector<ExpectedTopology>& expected) {
  for (const ExpectedTopology& e : expected) {
    const Accelerator* a = shipped_catalog().find(e.id);
    ASSERT_NE(a, nullptr) << e.id;
    EXPECT_EQ(a->domain.topology, e.topology) << e.id << " is " << to_string(a->domain.topology);
  }
}

}  // namespace rooftop::catalog::test
