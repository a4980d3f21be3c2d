// Parsing one catalog entry: units, sources, strictness and line numbers.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.h"
#include "core/yaml.h"

namespace rooftop::catalog {
namespace {

std::string fixture(const std::string& name) {
  Result<std::string> text = read_file(std::string(ROOFTOP_SOURCE_DIR) + "/tests/data/catalog/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text.value_or("");
}

// A minimal valid entry; tests append or substitute lines.
const char* kMinimal =
    "id: t-card\n"                    // 1
    "name: T Card\n"                  // 2
    "vendor: local\n"                 // 3
    "kind: npu\n"                     // 4
    "form_factor: edge\n"             // 5
    "sources:\n"                      // 6
    "  s: \"test sheet\"\n"           // 7
    "compute:\n"                      // 8
    "  source: s\n"                   // 9
    "  int8: 40\n";                   // 10

Result<Accelerator> parse(const std::string& text, const std::string& name = "t-card.yaml") {
  return parse_accelerator(SourceText{name, text});
}

TEST(CatalogParse, GoodFileInBaseUnits) {
  Result<Accelerator> a = parse(fixture("good-card.yaml"), "tests/data/catalog/good-card.yaml");
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_EQ(a->id, "good-card");
  EXPECT_EQ(a->kind, Kind::gpu);
  EXPECT_EQ(a->form_factor, FormFactor::workstation);
  EXPECT_EQ(a->launch_year, 2023);
  EXPECT_DOUBLE_EQ(*a->peak(Precision::fp16).value, 80e12);
  EXPECT_DOUBLE_EQ(*a->peak(Precision::int8).value, 160e12);
  EXPECT_DOUBLE_EQ(*a->memory_bytes.value, 16.0 * 1073741824.0);  // GB taken as 2^30
  EXPECT_DOUBLE_EQ(*a->memory_bytes_per_s.value, 500e9);           // GB/s as 10^9
  EXPECT_DOUBLE_EQ(*a->sram_bytes.value, 32.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(*a->host.bytes_per_s_per_direction.value, 32e9);
  EXPECT_EQ(a->host.name, "PCIe Gen4 x16");
  EXPECT_TRUE(a->scale_up.name.empty());
  EXPECT_DOUBLE_EQ(*a->power_w.value, 250);
  EXPECT_DOUBLE_EQ(*a->price.list_usd.value, 1999);
  EXPECT_EQ(a->price.list_date, "2024-05");
  EXPECT_EQ(a->price.list_usd.source, "Test fixture price list, 2024-05");
  EXPECT_EQ(a->peak(Precision::fp16).source, "Good Card datasheet, rev 1 (test fixture)");
  ASSERT_EQ(a->software.frameworks.size(), 2u);
  EXPECT_EQ(a->software.frameworks[0].version, "2.4");
  EXPECT_EQ(a->software.frameworks[1].name, "onnxruntime");
  EXPECT_EQ(a->aliases, std::vector<std::string>{"goodie"});
  EXPECT_EQ(source_key(*a, a->power_w.source), "sheet");
}

TEST(CatalogParse, GemmStructureFields) {
  Result<Accelerator> a = parse(std::string(kMinimal) +
                                "  units: 16\n  tile_m: 128\n  tile_n: {value: 256, source: s}\n  tile_k: 64\n"
                                "  tile_min: 64\n  attention_fraction: 0.7\n  dla_int8: {value: 10, source: s, derived: \"20 sparse / 2\"}\n");
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_DOUBLE_EQ(*a->compute_units.value, 16);
  EXPECT_DOUBLE_EQ(*a->tile_m.value, 128);
  EXPECT_DOUBLE_EQ(*a->tile_n.value, 256);
  EXPECT_DOUBLE_EQ(*a->tile_k.value, 64);
  EXPECT_DOUBLE_EQ(*a->tile_min.value, 64);
  EXPECT_DOUBLE_EQ(*a->attention_fraction.value, 0.7);
  EXPECT_DOUBLE_EQ(*a->dla_int8_ops.value, 10e12);
  EXPECT_EQ(a->dla_int8_ops.derived, "20 sparse / 2");
  EXPECT_EQ(a->compute_units.source, "test sheet");
  // A fraction above 1 and a zero tile are refused with the field's name.
  Result<Accelerator> bad = parse(std::string(kMinimal) + "  attention_fraction: 1.4\n  tile_m: 0\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().what().find("compute.attention_fraction"), std::string::npos) << bad.error().what();
  EXPECT_NE(bad.error().what().find("compute.tile_m"), std::string::npos) << bad.error().what();
}

TEST(CatalogParse, NullAndAbsentAreUnknown) {
  Result<Accelerator> a = parse(fixture("good-card.yaml"), "good-card.yaml");
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_FALSE(a->peak(Precision::fp8).known());   // null
  EXPECT_FALSE(a->peak(Precision::fp64).known());  // absent
  EXPECT_FALSE(a->price.cloud_usd_per_hour.known());
  EXPECT_FALSE(a->supports(Precision::fp8));
  std::vector<Precision> expected = {Precision::fp32, Precision::fp16, Precision::bf16, Precision::int8};
  EXPECT_EQ(a->precisions(), expected);
}

TEST(CatalogParse, UnknownKeyHasLineNumberAndSuggestion) {
  Result<Accelerator> a = parse(std::string(kMinimal) + "  fp166: 80\n");
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().context, "t-card.yaml:11");
  EXPECT_NE(a.error().message.find("unknown key 'fp166' in accelerator.compute (did you mean 'fp16'?)"),
            std::string::npos)
      << a.error().message;
}

TEST(CatalogParse, SparseFiguresAreRejected) {
  Result<Accelerator> a = parse(std::string(kMinimal) + "  fp16_sparse: 80\n");
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().context, "t-card.yaml:11");
  EXPECT_NE(a.error().message.find("dense peaks only"), std::string::npos) << a.error().message;
}

TEST(CatalogParse, NumberWithoutSourceIsAnError) {
  std::string text = std::string(kMinimal) + "memory:\n  capacity_gb: 8\n";
  Result<Accelerator> a = parse(text);
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().context, "t-card.yaml:12");
  EXPECT_NE(a.error().message.find("has no source"), std::string::npos) << a.error().message;
}

TEST(CatalogParse, OwnSourceOverridesSection) {
  std::string text = std::string(kMinimal) + "  fp16: {value: 20, source: s}\nmemory:\n  capacity_gb: {value: 8, source: s}\n";
  Result<Accelerator> a = parse(text);
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_DOUBLE_EQ(*a->memory_bytes.value, 8.0 * 1073741824.0);
  EXPECT_EQ(a->memory_bytes.source, "test sheet");
}

TEST(CatalogParse, UndefinedAndUnusedSourceKeys) {
  std::string text = std::string(kMinimal) + "  fp16: {value: 20, source: sheeet}\n";
  std::vector<Error> errors = check_accelerator({"t-card.yaml", text});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("unknown source 'sheeet'"), std::string::npos) << errors[0].message;

  std::string unused = std::string(kMinimal);
  unused.insert(unused.find("compute:"), "  spare: \"never cited\"\n");
  errors = check_accelerator({"t-card.yaml", unused});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].context, "t-card.yaml:8");
  EXPECT_NE(errors[0].message.find("source 'spare' is never used"), std::string::npos) << errors[0].message;
}

TEST(CatalogParse, BadValuesAreRejected) {
  struct Case {
    std::string line, expect;
  };
  const Case cases[] = {
      {"  fp16: -5\n", "must be positive"},
      {"  fp16: 0\n", "must be positive"},
      {"  fp16: 989 TFLOPS\n", "must be a number in TFLOP/s"},
      {"  fp16: 989000\n", "is implausible"},  // GFLOP/s written as TFLOP/s
      {"  int4: [1, 2]\n", "must be a number in TOPS"},
  };
  for (const Case& c : cases) {
    std::vector<Error> errors = check_accelerator({"t-card.yaml", std::string(kMinimal) + c.line});
    ASSERT_EQ(errors.size(), 1u) << c.line;
    EXPECT_EQ(errors[0].context, "t-card.yaml:11") << c.line;
    EXPECT_NE(errors[0].message.find(c.expect), std::string::npos) << c.line << " -> " << errors[0].message;
  }
  std::vector<Error> bw = check_accelerator(
      {"t-card.yaml", std::string(kMinimal) + "memory:\n  source: s\n  bandwidth_gb_s: 200000000\n"});
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_NE(bw[0].message.find("implausible"), std::string::npos);
}

// kMinimal + `text` has an error whose first message contains `expect`.
void expect_first_error(const std::string& text, const std::string& expect) {
  std::vector<Error> errors = check_accelerator({"t-card.yaml", std::string(kMinimal) + text});
  ASSERT_FALSE(errors.empty()) << text;
  EXPECT_NE(errors[0].message.find(expect), std::string::npos) << text << " -> " << errors[0].message;
}

// A buyer-facing figure written as null must say why; a reason on a known
// value, or a derived formula on an unknown one, is a mistake.
TEST(CatalogParse, NullNeedsAMissingReason) {
  std::vector<Error> bare = check_accelerator({"t-card.yaml", std::string(kMinimal) + "power:\n  tdp_w: null\n"});
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].context, "t-card.yaml:12");
  EXPECT_NE(bare[0].message.find("'power.tdp_w' is null without a reason"), std::string::npos) << bare[0].message;

  Result<Accelerator> ok = parse(std::string(kMinimal) +
                                 "power:\n  tdp_w: {value: null, missing_reason: \"vendor publishes none\"}\n"
                                 "interconnect:\n  scale_up: {name: X-Link, gb_s_per_direction: {value: null, "
                                 "missing_reason: \"per-link rate not published\"}}\n");
  ASSERT_TRUE(ok.has_value()) << ok.error().what();
  EXPECT_FALSE(ok->power_w.known());
  EXPECT_EQ(ok->power_w.missing_reason, "vendor publishes none");
  std::vector<MissingField> missing = missing_fields(*ok);
  auto reason_of = [&](const std::string& field) {
    for (const MissingField& m : missing)
      if (m.field == field) return m.reason;
    return std::string("(not listed)");
  };
  EXPECT_EQ(reason_of("power.tdp_w"), "vendor publishes none");
  EXPECT_EQ(reason_of("interconnect.scale_up.gb_s_per_direction"), "per-link rate not published");
  EXPECT_EQ(reason_of("memory.bandwidth_gb_s"), "");  // absent: listed, with no reason
  EXPECT_EQ(reason_of("compute"), "(not listed)");    // int8 is known

  // A compute precision written as null is one the part lacks: no reason needed.
  EXPECT_TRUE(check_accelerator({"t-card.yaml", std::string(kMinimal) + "  fp64: null\n"}).empty());

  const std::pair<std::string, std::string> wrong[] = {
      {"power:\n  tdp_w: {value: null}\n", "'power.tdp_w' is null without a reason"},
      {"power:\n  tdp_w: {value: 300, source: s, missing_reason: \"x\"}\n", "takes no missing_reason"},
      {"power:\n  tdp_w: {value: null, missing_reason: \"x\", derived: \"2 x 3\"}\n", "has no 'derived' formula"},
      {"memory:\n  bandwidth_gb_s: null\n", "'memory.bandwidth_gb_s' is null without a reason"},
      {"price:\n  list_usd: null\n", "'price.list_usd' is null without a reason"},
  };
  for (const auto& [text, expect] : wrong) expect_first_error(text, expect);
}

TEST(CatalogParse, DerivedValueKeepsItsFormula) {
  Result<Accelerator> a = parse(std::string(kMinimal) +
                                "  bf16: {value: 108.97, source: s, derived: \"56 cores x 1.9 GHz x 1024\"}\n");
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_DOUBLE_EQ(*a->peak(Precision::bf16).value, 108.97e12);
  EXPECT_EQ(a->peak(Precision::bf16).derived, "56 cores x 1.9 GHz x 1024");
  EXPECT_TRUE(a->peak(Precision::int8).derived.empty());
}

// Prices carry a date; a cloud price names its provider and region; a
// cloud-only part has no purchase price.
TEST(CatalogParse, PricesNeedDateProviderAndRegion) {
  Result<Accelerator> a = parse(std::string(kMinimal) +
                                "cloud_only: true\n"
                                "price:\n  cloud_usd_per_hour: {value: 4.2, date: \"2026-05\", provider: \"Cloud X\", "
                                "region: us-east-1, source: s}\n");
  ASSERT_TRUE(a.has_value()) << a.error().what();
  EXPECT_TRUE(a->cloud_only);
  EXPECT_EQ(a->price.cloud_region, "us-east-1");
  EXPECT_EQ(a->price.cloud_provider, "Cloud X");
  for (const MissingField& m : missing_fields(*a)) EXPECT_NE(m.field.rfind("price", 0), 0u) << m.field;  // price known

  const std::pair<std::string, std::string> wrong[] = {
      {"price:\n  list_usd: {value: 999, source: s}\n", "missing required key 'date'"},
      {"price:\n  list_usd: 999\n  source: s\n", "needs a date"},
      {"price:\n  cloud_usd_per_hour: {value: 4.2, date: \"2026-05\", provider: X, source: s}\n",
       "missing required key 'region'"},
      {"cloud_only: true\nprice:\n  list_usd: {value: 999, date: \"2026\", source: s}\n", "is cloud_only"},
  };
  for (const auto& [text, expect] : wrong) expect_first_error(text, expect);
}

TEST(CatalogParse, IdMustBeLowercaseAndMatchFileName) {
  std::vector<Error> errors = check_accelerator({"dir/other-name.yaml", kMinimal});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].context, "dir/other-name.yaml:1");
  EXPECT_NE(errors[0].message.find("does not match the file name"), std::string::npos);

  std::string upper = kMinimal;
  upper.replace(0, 10, "id: T_Card");
  errors = check_accelerator({"t-card-test", upper});  // not a file name: stem not checked
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("must be lowercase"), std::string::npos);
}

TEST(CatalogParse, MissingRequiredAndBadChoice) {
  std::vector<Error> errors = check_accelerator({"x.yaml", "id: x\nkind: gizmo\nform_factor: edge\nsources: {}\ncompute: {}\n"});
  std::string all;
  for (const Error& e : errors) all += e.what() + "\n";
  EXPECT_NE(all.find("missing required key 'name'"), std::string::npos) << all;
  EXPECT_NE(all.find("missing required key 'vendor'"), std::string::npos) << all;
  EXPECT_NE(all.find("x.yaml:2: 'kind' must be one of: gpu, tpu"), std::string::npos) << all;
}

TEST(CatalogParse, PriceNeedsADate) {
  std::string text = std::string(kMinimal) + "price:\n  list_usd: {value: 100, source: s}\n";
  std::vector<Error> errors = check_accelerator({"t-card.yaml", text});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("missing required key 'date'"), std::string::npos) << errors[0].message;

  errors = check_accelerator({"t-card.yaml", std::string(kMinimal) + "price:\n  list_usd: {value: 100, date: May 2024, source: s}\n"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'date' must be YYYY, YYYY-MM or YYYY-MM-DD"), std::string::npos) << errors[0].message;

  Result<Accelerator> ok = parse(std::string(kMinimal) +
                                 "price:\n  cloud_usd_per_hour: {value: 2.5, date: \"2024-05-01\", provider: test, region: eu-west-1, source: s}\n");
  ASSERT_TRUE(ok.has_value()) << ok.error().what();
  EXPECT_DOUBLE_EQ(*ok->price.cloud_usd_per_hour.value, 2.5);
  EXPECT_EQ(ok->price.cloud_date, "2024-05-01");
  EXPECT_EQ(ok->price.cloud_provider, "test");
}

TEST(CatalogParse, DuplicateKeyAndMalformedYaml) {
  std::vector<Error> errors = check_accelerator({"t-card.yaml", std::string(kMinimal) + "  int8: 50\n"});
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].context, "t-card.yaml:11");
  EXPECT_NE(errors[0].message.find("duplicate key 'int8'"), std::string::npos);

  errors = check_accelerator({"t-card.yaml", "id: [unclosed\n"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("malformed YAML"), std::string::npos);
}

TEST(CatalogParse, AllProblemsReportedInFileOrder) {
  std::vector<Error> errors = check_accelerator({"broken-card.yaml", fixture("broken-card.yaml")});
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].context, "broken-card.yaml:12");  // fp16_sparse
  EXPECT_EQ(errors[1].context, "broken-card.yaml:14");  // capacity without source
  EXPECT_EQ(errors[2].context, "broken-card.yaml:15");  // bandwidth without source ...
  EXPECT_EQ(errors[3].context, "broken-card.yaml:15");  // ... and negative
  EXPECT_NE(errors[3].message.find("must be positive"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::catalog
