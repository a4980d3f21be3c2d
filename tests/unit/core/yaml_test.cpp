#include "core/yaml.h"

#include <gtest/gtest.h>

namespace rooftop {
namespace {

TEST(Yaml, SyntaxErrorHasLine) {
  auto r = load_yaml("a: 1\nb: [1, 2\n", "x.yaml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::invalid_input);
  EXPECT_NE(r.error().context.find("x.yaml:"), std::string::npos);
}

TEST(Yaml, StrictMapReportsUnknownKeysAndTypes) {
  auto node = load_yaml("name: t4\ncount: many\nbatch: 4\ntypo_key: 1\n", "s.yaml");
  ASSERT_TRUE(node);
  Diagnostics diag;
  YamlMap m(*node, "s.yaml", "scenario", &diag);
  EXPECT_EQ(*m.str("name"), "t4");
  EXPECT_FALSE(m.num("count"));
  EXPECT_EQ(*m.integer("batch", true, 1, 1024), 4);
  EXPECT_FALSE(m.str("missing", true));
  m.finish();
  ASSERT_EQ(diag.errors.size(), 3u);
  EXPECT_EQ(diag.errors[0].context, "s.yaml:2");
  EXPECT_NE(diag.errors[1].message.find("missing required key 'missing'"), std::string::npos);
  EXPECT_EQ(diag.errors[2].context, "s.yaml:4");
  EXPECT_NE(diag.errors[2].message.find("unknown key 'typo_key'"), std::string::npos);
  auto res = diag.to_result();
  EXPECT_FALSE(res);
}

TEST(Yaml, NullIsUnknownNotError) {
  auto node = load_yaml("fp8: null\nint4: ~\n", "c.yaml");
  Diagnostics diag;
  YamlMap m(*node, "c.yaml", "compute", &diag);
  EXPECT_FALSE(m.num("fp8"));
  EXPECT_FALSE(m.num("int4"));
  m.finish();
  EXPECT_TRUE(diag.ok());
}

TEST(Yaml, RangeChecks) {
  auto node = load_yaml("batch: -3\n", "c.yaml");
  Diagnostics diag;
  YamlMap m(*node, "c.yaml", "x", &diag);
  EXPECT_FALSE(m.integer("batch", true, 1));
  ASSERT_EQ(diag.errors.size(), 1u);
  EXPECT_NE(diag.errors[0].message.find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace rooftop
