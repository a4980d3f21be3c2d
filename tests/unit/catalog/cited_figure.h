// Shared by the catalog tests that check entry figures against the words of
// the source each entry cites (training_parts_test.cpp, coverage_parts_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "catalog/catalog.h"

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

}  // namespace rooftop::catalog::test
