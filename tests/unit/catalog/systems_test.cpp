// Systems as sold (data/systems/*.yaml, docs/catalog.md#systems-as-sold): the schema
// is strict like a part's, a system holds a part of the catalog, and every
// embedded system cites its figures and dates its prices.
#include <gtest/gtest.h>

#include <set>

#include "catalog/catalog.h"

namespace rooftop::catalog {
namespace {

const std::string kNode =
    "id: test-node\nname: Test Node\nvendor: local\nsources:\n  s: \"a datasheet\"\n  p: \"a dated quote\"\n"
    "holds: {accelerator: nvidia-h100-sxm5-80gb, count: {value: 8, source: s}}\nunit: node\n"
    "host: {source: s, cpu: \"2 x CPU\", memory_gb: 2048, nics: \"8 x 400 Gb/s\"}\n"
    "power: {source: s, system_w: 10200, cooling: air}\nrack_units: {value: 8, source: s}\n"
    "price:\n  list_usd: {value: 300000, date: \"2025-01\", source: p}\n";

std::string messages(const std::vector<Error>& errors) {
  std::string out;
  for (const Error& e : errors) out += e.context + ": " + e.message + "\n";
  return out;
}

TEST(Systems, ParsesAnEntryInBaseUnits) {
  SourceText src{"test-node.yaml", kNode};
  ASSERT_TRUE(is_system_entry(src));
  Result<System> y = parse_system(src);
  ASSERT_TRUE(y) << y.error().what();
  EXPECT_EQ(y->accelerator, "nvidia-h100-sxm5-80gb");
  EXPECT_EQ(*y->accelerators.value, 8);
  EXPECT_EQ(y->unit, PurchaseUnit::node);
  EXPECT_EQ(y->host_cpu, "2 x CPU");
  EXPECT_DOUBLE_EQ(*y->host_memory_bytes.value, 2048 * 1073741824.0);
  EXPECT_EQ(*y->power_w.value, 10200);
  EXPECT_EQ(y->power_w.source, "a datasheet");
  EXPECT_EQ(y->cooling, Cooling::air);
  EXPECT_EQ(*y->rack_units.value, 8);
  EXPECT_EQ(*y->price.list_usd.value, 300000);
  EXPECT_EQ(y->price.list_date, "2025-01");
  EXPECT_FALSE(is_system_entry({"part.yaml", "id: x\nname: x\n"}));
}

TEST(Systems, BadEntriesSayWhatIsWrongWithFileAndLine) {
  std::string bad = kNode;
  bad.replace(bad.find("count: {value: 8, source: s}"), 28, "size: 8");
  bad.replace(bad.find("unit: node"), 10, "unit: pallet");
  bad.replace(bad.find("cooling: air"), 12, "cooling: gas");
  bad += "colour: red\n";
  std::string msg = messages(check_accelerator({"test-node.yaml", bad}));
  EXPECT_NE(msg.find("missing 'holds.count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test-node.yaml:7: unknown key 'size' in system.holds"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'unit' must be one of: node, rack, slice, instance, card, kit (got 'pallet')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("got 'gas'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key 'colour'"), std::string::npos) << msg;
  // A cooling claim needs a source; so does a price's date.
  std::string unsourced = kNode;
  unsourced.replace(unsourced.find("{source: s, system_w: 10200"), 27, "{system_w: {value: 10200, source: s}");
  unsourced.replace(unsourced.find("date: \"2025-01\", "), 17, "");
  msg = messages(check_accelerator({"test-node.yaml", unsourced}));
  EXPECT_NE(msg.find("'power.cooling' has no source"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'date'"), std::string::npos) << msg;
}

TEST(Systems, ASystemHoldsAPartOfTheCatalog) {
  std::vector<SourceText> src = embedded_sources();
  std::string stray = kNode;
  stray.replace(stray.find("nvidia-h100-sxm5-80gb"), 21, "nvidia-h100-sxm9");
  src.push_back({"test-node.yaml", stray});
  Result<Catalog> c = load_catalog(src, {});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().what().find("system test-node holds unknown accelerator 'nvidia-h100-sxm9'; did you mean"),
            std::string::npos)
      << c.error().what();
  // An alias resolves to the part's id.
  src.back().text = kNode;
  src.back().text.replace(src.back().text.find("nvidia-h100-sxm5-80gb"), 21, "H100");
  c = load_catalog(src, {});
  ASSERT_TRUE(c) << c.error().what();
  bool found = false;
  for (const System* y : c->systems_for("nvidia-h100-sxm5-80gb")) found |= y->id == "test-node";
  EXPECT_TRUE(found);
}

// The shipped systems: each holds a catalog part, cites every known figure,
// dates every price, and a cloud-only one (an instance, a slice) has no list price.
TEST(Systems, EmbeddedSystemsAreSourcedAndDated) {
  Result<Catalog> c = load_catalog(embedded_sources(), {});
  ASSERT_TRUE(c) << c.error().what();
  ASSERT_GE(c->systems.size(), 10u);
  std::set<PurchaseUnit> units;
  for (const System& y : c->systems) {
    units.insert(y.unit);
    ASSERT_NE(c->find(y.accelerator), nullptr) << y.id;
    ASSERT_TRUE(y.accelerators.known()) << y.id;
    EXPECT_FALSE(y.accelerators.source.empty()) << y.id;
    for (const Sourced* f : {&y.power_w, &y.rack_units, &y.host_memory_bytes, &y.price.list_usd, &y.price.cloud_usd_per_hour}) {
      if (f->known()) { EXPECT_FALSE(f->source.empty()) << y.id; }
    }
    if (y.price.list_usd.known()) { EXPECT_FALSE(y.price.list_date.empty()) << y.id; }
    if (y.price.cloud_usd_per_hour.known()) { EXPECT_FALSE(y.price.cloud_date.empty()) << y.id; }
    if (y.cloud_only) { EXPECT_FALSE(y.price.list_usd.known()) << y.id; }
    if (y.cooling != Cooling::unknown) { EXPECT_FALSE(y.cooling_source.empty()) << y.id; }
  }
  for (PurchaseUnit u : {PurchaseUnit::node, PurchaseUnit::rack, PurchaseUnit::slice, PurchaseUnit::instance, PurchaseUnit::kit})
    EXPECT_TRUE(units.count(u)) << to_string(u);
  // The DGX B200's figures, as its user guide gives them.
  const System* dgx = nullptr;
  for (const System* y : c->systems_for("nvidia-b200-sxm-180gb")) dgx = y->id == "nvidia-dgx-b200" ? y : dgx;
  ASSERT_NE(dgx, nullptr);
  EXPECT_EQ(*dgx->power_w.value, 14300);
  EXPECT_NE(dgx->power_w.source.find("14.3 kW max"), std::string::npos);
  EXPECT_EQ(*dgx->rack_units.value, 10);
  EXPECT_NE(dgx->rack_units.source.find("10U"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::catalog
