// Building a catalog: layers, overlays, lookups and "did you mean".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/catalog.h"

namespace rooftop::catalog {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(ROOFTOP_SOURCE_DIR) + "/tests/data/catalog/";

std::string entry(const std::string& id, double fp16, const std::string& aliases = "[]") {
  return "id: " + id + "\nname: " + id + "\nvendor: local\nkind: gpu\nform_factor: datacenter\naliases: " + aliases +
         "\nsources:\n  s: test\ncompute:\n  source: s\n  fp16: " + std::to_string(fp16) + "\n";
}

TEST(CatalogLoad, EmbeddedHasTheH100) {
  std::vector<SourceText> src = embedded_sources();
  bool found = false;
  for (const SourceText& s : src) found |= s.name == "embedded:accelerators/nvidia-h100-sxm5-80gb.yaml";
  EXPECT_TRUE(found);
  Result<Catalog> cat = load_catalog(src, {});
  ASSERT_TRUE(cat.has_value()) << cat.error().what();
  const Accelerator* h100 = cat->find("nvidia-h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(*h100->peak(Precision::fp16).value, 989e12);
  EXPECT_EQ(h100->origin, "embedded:accelerators/nvidia-h100-sxm5-80gb.yaml");
}

TEST(CatalogLoad, SortedAndFoundByAliasCaseInsensitively) {
  Result<Catalog> cat = load_catalog({{"b.yaml", entry("b", 2)}, {"a.yaml", entry("a", 1, "[Alpha]")}}, {});
  ASSERT_TRUE(cat.has_value()) << cat.error().what();
  EXPECT_EQ(cat->ids(), (std::vector<std::string>{"a", "b"}));
  ASSERT_NE(cat->find("ALPHA"), nullptr);
  EXPECT_EQ(cat->find("alpha")->id, "a");
  EXPECT_EQ(cat->find("B")->id, "b");
  EXPECT_EQ(cat->find("c"), nullptr);
}

TEST(CatalogLoad, OverlayFileReplacesSameId) {
  std::vector<SourceText> base = {{"embedded:accelerators/nvidia-h100-sxm5-80gb.yaml", entry("nvidia-h100-sxm5-80gb", 989)},
                                  {"good-card.yaml", entry("good-card", 1)}};
  Result<Catalog> cat = load_catalog(base, {kData + "overlay/nvidia-h100-sxm5-80gb.yaml", kData + "good-card.yaml"});
  ASSERT_TRUE(cat.has_value()) << cat.error().what();
  ASSERT_EQ(cat->accelerators.size(), 2u);
  const Accelerator* h = cat->find("nvidia-h100-sxm5-80gb");
  EXPECT_DOUBLE_EQ(*h->peak(Precision::fp16).value, 700e12);
  EXPECT_EQ(h->calibration.compute_efficiency, 1.0);
  EXPECT_EQ(h->origin, kData + "overlay/nvidia-h100-sxm5-80gb.yaml");
  EXPECT_DOUBLE_EQ(*cat->find("good-card")->peak(Precision::fp16).value, 80e12);
}

TEST(CatalogLoad, OverlayFolderReadsEveryYaml) {
  Result<Catalog> cat = load_catalog({}, {kData + "overlay"});
  ASSERT_TRUE(cat.has_value()) << cat.error().what();
  EXPECT_EQ(cat->ids(), std::vector<std::string>{"nvidia-h100-sxm5-80gb"});
}

TEST(CatalogLoad, MissingPathIsNotFoundNamingIt) {
  Result<Catalog> cat = load_catalog({}, {"/nonexistent/cards.yaml"});
  ASSERT_FALSE(cat.has_value());
  EXPECT_EQ(cat.error().code, Errc::not_found);
  EXPECT_EQ(cat.error().context, "/nonexistent/cards.yaml");
}

TEST(CatalogLoad, DuplicateIdInOneLayerIsAnError) {
  Result<Catalog> cat = load_catalog({{"x", entry("a", 1)}, {"y", entry("a", 2)}}, {});
  ASSERT_FALSE(cat.has_value());
  EXPECT_NE(cat.error().message.find("duplicate accelerator id 'a'"), std::string::npos) << cat.error().what();
  EXPECT_EQ(cat.error().context, "y");
}

TEST(CatalogLoad, AmbiguousAliasIsAnError) {
  Result<Catalog> cat = load_catalog({{"a.yaml", entry("a", 1, "[fast]")}, {"b.yaml", entry("b", 1, "[fast]")}}, {});
  ASSERT_FALSE(cat.has_value());
  EXPECT_NE(cat.error().message.find("alias 'fast'"), std::string::npos) << cat.error().what();
}

TEST(CatalogLoad, ErrorsInAnyEntryAreReported) {
  Result<Catalog> cat = load_catalog({{"a.yaml", entry("a", 1)}}, {kData + "broken-card.yaml"});
  ASSERT_FALSE(cat.has_value());
  EXPECT_EQ(cat.error().code, Errc::invalid_input);
  EXPECT_NE(cat.error().context.find("broken-card.yaml:"), std::string::npos);
}

TEST(CatalogLoad, GetSuggestsCloseIds) {
  Result<Catalog> cat = load_catalog({{"nvidia-h100-sxm5-80gb.yaml", entry("nvidia-h100-sxm5-80gb", 1)},
                                      {"nvidia-t4.yaml", entry("nvidia-t4", 1)}},
                                     {});
  ASSERT_TRUE(cat.has_value());
  Result<const Accelerator*> a = cat->get("nvidia-h100-sxm5-80g");
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, Errc::not_found);
  EXPECT_NE(a.error().message.find("did you mean: nvidia-h100-sxm5-80gb"), std::string::npos) << a.error().message;
  Result<const Accelerator*> ok = cat->get("nvidia-t4");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ((*ok)->id, "nvidia-t4");
  Result<const Accelerator*> far = cat->get("zzzzzzzzzzzz");
  ASSERT_FALSE(far.has_value());
  EXPECT_NE(far.error().message.find("rooftop catalog list"), std::string::npos);
}

TEST(CatalogLoad, KindAndFormFactorNames) {
  for (Kind k : {Kind::gpu, Kind::tpu, Kind::npu, Kind::fpga, Kind::asic, Kind::cpu, Kind::edge})
    EXPECT_EQ(parse_kind(to_string(k)), k);
  EXPECT_EQ(parse_kind("GPU"), Kind::gpu);
  EXPECT_FALSE(parse_kind("dsp").has_value());
  EXPECT_EQ(parse_form_factor("workstation"), FormFactor::workstation);
  EXPECT_FALSE(parse_form_factor("rack").has_value());
}

}  // namespace
}  // namespace rooftop::catalog
