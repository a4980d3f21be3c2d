// The advisor end to end on a small hand-built catalog and workload:
// sizing, constraints, unknown prices, ranking, the Pareto front, and the
// property tests (tightening a constraint never adds candidates; a larger
// budget never lowers the best throughput; ranking ignores catalog order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "advise/advise.h"
#include "advise/formulas.h"
#include "core/text.h"
#include "model/serve_sim.h"
#include "../model/fixtures.h"

namespace rooftop::advise {
namespace {

catalog::Sourced v(double x) { return catalog::Sourced{x, "test"}; }

catalog::Accelerator part(const std::string& id, const std::string& vendor, double tflops, double gb_s, double gb,
                          double watts, std::optional<double> price, catalog::FormFactor ff) {
  catalog::Accelerator a;
  a.id = id;
  a.name = id;
  a.vendor = vendor;
  a.kind = ff == catalog::FormFactor::edge ? catalog::Kind::edge : catalog::Kind::gpu;
  a.form_factor = ff;
  a.peak_flop_per_s[static_cast<int>(Precision::fp32)] = v(tflops * 1e12 / 4);
  a.peak_flop_per_s[static_cast<int>(Precision::fp16)] = v(tflops * 1e12);
  a.peak_flop_per_s[static_cast<int>(Precision::int8)] = v(tflops * 2e12);
  a.memory_bytes = v(gb * 1073741824.0);
  a.memory_bytes_per_s = v(gb_s * 1e9);
  a.memory_type = "HBM";
  a.scale_up = {"link", v(100e9)};
  a.host = {"PCIe Gen4 x16", v(32e9)};
  a.power_w = v(watts);
  if (price) a.price.list_usd = v(*price);
  a.software.stacks = vendor == "huawei" ? std::vector<std::string>{"cann"} : std::vector<std::string>{"cuda", "tensorrt"};
  a.software.frameworks = {{vendor == "huawei" ? "mindspore" : "pytorch", "2.3"}};
  a.software.custom_kernels = {vendor == "huawei" ? "ascend-c" : "cuda"};
  return a;
}

catalog::Catalog toy_catalog() {
  using catalog::FormFactor;
  catalog::Catalog c;
  c.accelerators = {part("big-gpu", "nvidia", 400, 3000, 80, 700, 30000, FormFactor::datacenter),
                    part("mid-gpu", "nvidia", 120, 900, 32, 300, 8000, FormFactor::datacenter),
                    part("small-gpu", "nvidia", 65, 320, 16, 70, 2500, FormFactor::datacenter),
                    part("npu", "huawei", 300, 1600, 64, 400, std::nullopt, FormFactor::datacenter),
                    part("edge-box", "nvidia", 40, 200, 32, 50, 2000, FormFactor::edge)};
  return c;
}

workload::Workload toy_workload() {
  workload::Workload w;
  w.id = "toy";
  w.name = "toy";
  w.family = workload::Family::cnn;
  w.sample = "one input";
  w.params = 5e7;
  w.active_params = 5e7;
  workload::Operator mm{"layers.mm", workload::OpKind::matmul, workload::Phase::forward, 10, 1e9, 5e6, 0, 4096, 4096, 5e6};
  workload::Operator norm{"layers.norm", workload::OpKind::norm, workload::Phase::forward, 10, 2e4, 0, 0, 4096, 4096, 0};
  w.ops = {mm, norm};
  w.activation_elems_per_sample = 1e5;
  w.train_activation_elems_per_sample = 1e6;
  return w;
}

Scenario throughput_scenario(double target) {
  Scenario s;
  s.name = "toy";
  s.model = "toy";
  s.precisions = {Precision::fp16};
  s.objective = ObjectiveKind::throughput;
  s.throughput_per_s = target;
  s.max_devices = 64;
  return s;
}

std::vector<std::string> ids(const Advice& a) {
  std::vector<std::string> out;
  for (const Candidate& c : a.candidates) out.push_back(c.accelerator->id + "x" + std::to_string(c.count));
  return out;
}

Advice run(const Scenario& s, const catalog::Catalog& c = toy_catalog()) {
  Result<Advice> a = advise(s, c, toy_workload());
  EXPECT_TRUE(a) << a.error().what();
  return a ? *a : Advice{};
}

TEST(Advise, SizesEveryPartToMeetTheThroughputTarget) {
  Advice a = run(throughput_scenario(20000));
  ASSERT_FALSE(a.candidates.empty());
  for (const Candidate& c : a.candidates) {
    EXPECT_GE(c.throughput, 20000) << c.accelerator->id;
    EXPECT_LE(c.utilisation, 1.0);
    EXPECT_GE(c.scores.total, 0);
    EXPECT_LE(c.scores.total, 1);
    EXPECT_FALSE(c.explanation.empty());
  }
  EXPECT_GT(a.configs_evaluated, 0);
}

TEST(Advise, UnpricedPartsAreScoredOnWhatIsKnownAndSaySo) {
  Advice a = run(throughput_scenario(20000));
  bool seen_unpriced = false;
  for (const Candidate& c : a.candidates) {
    if (c.priced) continue;
    seen_unpriced = true;
    EXPECT_FALSE(c.scores.tco);
    EXPECT_FALSE(c.pareto);
    EXPECT_NE(c.notes.back().find("no list price in the catalog"), std::string::npos) << c.notes.back();
    EXPECT_NE(c.notes.back().find("scored on the other criteria"), std::string::npos) << c.notes.back();
    EXPECT_EQ(c.notes.back().find("TDP"), std::string::npos) << "the part has a TDP: " << c.notes.back();
  }
  EXPECT_TRUE(seen_unpriced);
}

// The rank is the order of the score the table shows (two decimals): an
// unpriced part is ranked on its merits, not after the priced ones; of two
// rows showing the same score the priced one comes first.
TEST(Advise, RankFollowsTheShownScore) {
  for (double target : {2000.0, 20000.0, 80000.0}) {
    Advice a = run(throughput_scenario(target));
    for (std::size_t i = 1; i < a.candidates.size(); ++i) {
      const Candidate& x = a.candidates[i - 1];
      const Candidate& y = a.candidates[i];
      EXPECT_GE(std::round(x.scores.total * 100), std::round(y.scores.total * 100))
          << "rank " << i << " vs " << i + 1 << " at " << target;
      if (std::round(x.scores.total * 100) == std::round(y.scores.total * 100)) {
        EXPECT_TRUE(x.priced || !y.priced) << "an unpriced part above a priced one of the same shown score at rank " << i;
      }
    }
  }
  // Without a TCO weight, likewise.
  Scenario s = throughput_scenario(20000);
  s.weights.tco = 0;
  Advice a = run(s);
  for (std::size_t i = 1; i < a.candidates.size(); ++i)
    EXPECT_GE(std::round(a.candidates[i - 1].scores.total * 100), std::round(a.candidates[i].scores.total * 100));
}

// Two unpriced parts that show the same score are ordered by their own
// score, not by their id or device count: nothing else tells them apart.
TEST(Advise, UnpricedPartsFollowTheirOwnScore) {
  using catalog::FormFactor;
  catalog::Catalog c;
  // Alike but for 1 W of TDP: npu-b is a hair more efficient, which the
  // table's two decimals do not show.
  c.accelerators = {part("npu-a", "nvidia", 300, 1600, 64, 401, std::nullopt, FormFactor::datacenter),
                    part("npu-b", "nvidia", 300, 1600, 64, 400, std::nullopt, FormFactor::datacenter),
                    part("mid-gpu", "nvidia", 120, 900, 32, 300, 8000, FormFactor::datacenter)};
  Advice a = run(throughput_scenario(20000), c);
  std::vector<const Candidate*> unpriced;
  for (const Candidate& k : a.candidates)
    if (!k.priced) unpriced.push_back(&k);
  ASSERT_EQ(unpriced.size(), 2u);
  ASSERT_EQ(unpriced[0]->count, unpriced[1]->count);
  ASSERT_EQ(std::round(unpriced[0]->scores.total * 100), std::round(unpriced[1]->scores.total * 100));
  EXPECT_GT(unpriced[0]->scores.total, unpriced[1]->scores.total);
  EXPECT_EQ(unpriced[0]->accelerator->id, "npu-b");
}

// An unpriced part ranked above every priced one is not what the answer says
// to buy: the line buys the best priced part and names the unpriced one with
// the price at which it would win. Priced below that, it does win; above, not.
TEST(Advise, AnswerBuysTheBestPricedPartAndSaysWhatAnUnpricedOneMustCost) {
  catalog::Catalog cat = toy_catalog();
  cat.accelerators[2].price.list_usd = catalog::Sourced{};  // small-gpu: unpriced
  Scenario s = throughput_scenario(20000);
  Advice a = run(s, cat);
  ASSERT_GE(a.candidates.size(), 2u);
  const Candidate& top = a.candidates.front();
  ASSERT_EQ(top.accelerator->id, "small-gpu") << "the best part ranks first on its merits";
  ASSERT_FALSE(top.priced);
  ASSERT_TRUE(top.price_to_win && !top.price_to_win->any_price && !top.price_to_win->per_hour);
  auto lead = std::find_if(a.candidates.begin(), a.candidates.end(), [](const Candidate& c) { return c.priced; });
  ASSERT_NE(lead, a.candidates.end());
  const std::string line = answer_line(s, a);
  const std::string buy = "Buy " + std::to_string(lead->count) + " x " + lead->accelerator->name + " (fp16), rank ";
  EXPECT_EQ(line.rfind(buy, 0), 0u) << line;
  EXPECT_NE(line.find(usd(*lead->cost.tco_usd) + " over 3 years"), std::string::npos) << line;
  EXPECT_NE(line.find("ranked above it but unpriced: " + std::to_string(top.count) + " x small-gpu (no list price in the catalog; at " +
                      usd(top.price_to_win->usd) + " or less per device it would win)"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("cost unknown"), std::string::npos) << line;
  const double at = top.price_to_win->usd;
  auto first_with_price = [&](double price) {
    cat.accelerators[2].price.list_usd = v(price);
    return run(s, cat).candidates.front().accelerator->id;
  };
  EXPECT_EQ(first_with_price(0.5 * at), "small-gpu");
  EXPECT_NE(first_with_price(2 * at), "small-gpu");
}

// With no finalist priced there is nothing to buy on cost: the line says so
// and names the best on the known criteria, never "Buy".
TEST(Advise, NoPricedFinalistMeansNothingToBuy) {
  catalog::Catalog cat = toy_catalog();
  for (catalog::Accelerator& x : cat.accelerators) x.price.list_usd = catalog::Sourced{};
  Scenario s = throughput_scenario(20000);
  Advice a = run(s, cat);
  ASSERT_FALSE(a.candidates.empty());
  const std::string line = answer_line(s, a);
  EXPECT_EQ(line.rfind("Nothing to buy on cost: no finalist has a price in the catalog", 0), 0u) << line;
  EXPECT_NE(line.find("best on the known criteria " + std::to_string(a.candidates[0].count) + " x " +
                      a.candidates[0].accelerator->name + " (fp16): "),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("Buy "), std::string::npos) << line;
}

// Under `deployment: either` the verb is the cheaper way to pay, with the
// other figure beside it; the table's TCO is the one the line shows.
TEST(Advise, EitherSaysRentOrBuyByTheCheaperAndGivesBoth) {
  Scenario s = throughput_scenario(1000);
  s.deployment = Deployment::either;
  for (double rate : {0.01, 100.0}) {
    catalog::Catalog c = toy_catalog();
    for (catalog::Accelerator& x : c.accelerators) x.price.cloud_usd_per_hour = v(rate);
    Advice a = run(s, c);
    ASSERT_FALSE(a.candidates.empty());
    const Candidate& best = a.candidates.front();
    ASSERT_TRUE(best.priced && best.cost.cloud_usd && best.cost.capex_usd && best.cost.energy_usd);
    const double buying = *best.cost.capex_usd + *best.cost.energy_usd;
    const std::string line = answer_line(s, a);
    if (rate < 1) {
      EXPECT_TRUE(best.cost.rented);
      EXPECT_EQ(*best.cost.tco_usd, *best.cost.cloud_usd);
      EXPECT_EQ(line.rfind("Rent ", 0), 0u) << line;
      EXPECT_NE(line.find(usd(*best.cost.cloud_usd) + " over 3 years (buying: " + usd(buying) + ")"), std::string::npos) << line;
    } else {
      EXPECT_FALSE(best.cost.rented);
      EXPECT_EQ(*best.cost.tco_usd, buying);
      EXPECT_EQ(line.rfind("Buy ", 0), 0u) << line;
      EXPECT_NE(line.find(usd(buying) + " over 3 years (renting: " + usd(*best.cost.cloud_usd) + ")"), std::string::npos) << line;
    }
  }
}

// The precision on the line and in the table is the one the configuration
// runs, weights' own format included.
TEST(Advise, AnswerLineAndTableNameTheWeightFormat) {
  Scenario s = throughput_scenario(20000);
  s.weight_precision = Precision::int4;
  Advice a = run(s);
  ASSERT_FALSE(a.candidates.empty());
  EXPECT_EQ(precision_label(s, a.candidates[0]), "fp16+int4-weights");
  EXPECT_NE(answer_line(s, a).find("(fp16+int4-weights)"), std::string::npos) << answer_line(s, a);
  std::string md = report::render_markdown(build_report(s, a, 5), "x-").markdown;
  EXPECT_NE(md.find("| fp16+int4-weights |"), std::string::npos);
  s.task = workload::Task::train;  // training keeps one format
  EXPECT_EQ(precision_label(s, a.candidates[0]), "fp16");
}

TEST(Advise, WeightsChangeTheRanking) {
  Scenario s = throughput_scenario(20000);
  s.weights = Weights{0, 0, 0, 0, 0, 1};  // TCO only
  Advice a = run(s);
  ASSERT_GE(a.candidates.size(), 2u);
  ASSERT_TRUE(a.candidates[0].priced);
  for (const Candidate& c : a.candidates) {
    if (c.priced) {
      EXPECT_LE(*a.candidates[0].cost.tco_usd, *c.cost.tco_usd) << c.accelerator->id;
    }
  }
}

TEST(Advise, ConsumerPartsCarryTheirCaveatAndCanBeExcluded) {
  catalog::Catalog cat = toy_catalog();
  for (catalog::Accelerator& x : cat.accelerators) {
    if (x.id == "small-gpu") x.caveats.push_back({catalog::CaveatKind::consumer, "driver licence excludes data centres", "test"});
  }
  Scenario s = throughput_scenario(2000);
  Advice with = run(s, cat);
  auto small = std::find_if(with.candidates.begin(), with.candidates.end(),
                            [](const Candidate& c) { return c.accelerator->id == "small-gpu"; });
  ASSERT_NE(small, with.candidates.end());
  report::Document d = build_report(s, with, 10);
  std::string md = report::render_markdown(d, "x-").markdown;
  EXPECT_NE(md.find("small-gpu: driver licence excludes data centres"), std::string::npos);
  s.consumer_parts = false;
  Advice without = run(s, cat);
  for (const Candidate& c : without.candidates) EXPECT_NE(c.accelerator->id, "small-gpu");
  auto r = std::find_if(without.rejected.begin(), without.rejected.end(),
                        [](const Rejection& x) { return x.accelerator == "small-gpu"; });
  ASSERT_NE(r, without.rejected.end());
  EXPECT_NE(r->reason.find("constraints.consumer_parts"), std::string::npos) << r->reason;
}

TEST(Advise, AnswerLineComesFirstAndNamesTheChoice) {
  Scenario s = throughput_scenario(20000);
  Advice a = run(s);
  ASSERT_GE(a.candidates.size(), 2u);
  ASSERT_TRUE(a.candidates[0].priced);
  std::string line = answer_line(s, a);
  EXPECT_EQ(line.rfind("Buy " + std::to_string(a.candidates[0].count) + " x " + a.candidates[0].accelerator->name, 0), 0u)
      << line;
  EXPECT_NE(line.find("2nd choice"), std::string::npos) << line;
  EXPECT_EQ(line.find("e+"), std::string::npos) << line;
  report::Document d = build_report(s, a, 5);
  ASSERT_FALSE(d.blocks.empty());
  const auto* first = std::get_if<report::Paragraph>(&d.blocks.front());
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first->text.find(line), std::string::npos);
  // Renting: the verb follows how the TCO is counted.
  catalog::Catalog cat = toy_catalog();
  for (catalog::Accelerator& x : cat.accelerators) x.price.cloud_usd_per_hour = v(2.0);
  s.deployment = Deployment::cloud;
  Advice rented = run(s, cat);
  ASSERT_FALSE(rented.candidates.empty());
  EXPECT_TRUE(rented.candidates[0].cost.rented);
  EXPECT_EQ(answer_line(s, rented).rfind("Rent ", 0), 0u) << answer_line(s, rented);
}

// The answer names the unit the part is sold in (a catalog system holding
// it): the one leaving the fewest devices over, and how many the plan uses;
// an instance that is only rented is not offered for buying.
TEST(Advise, AnswerLineNamesTheUnitThePartIsSoldIn) {
  catalog::Catalog cat = toy_catalog();
  auto system = [](const std::string& id, int per, bool cloud_only) {
    catalog::System y;
    y.id = id;
    y.name = id;
    y.accelerator = "small-gpu";
    y.accelerators = v(per);
    y.unit = cloud_only ? catalog::PurchaseUnit::instance : catalog::PurchaseUnit::node;
    y.power_w = v(1500);
    y.cloud_only = cloud_only;
    if (!cloud_only) y.price.list_usd = v(20000);
    return y;
  };
  cat.systems = {system("small-node-8", 8, false), system("small-node-16", 16, false), system("small-cloud-4", 4, true)};
  Scenario s = throughput_scenario(20000);
  Advice a = run(s, cat);
  ASSERT_FALSE(a.candidates.empty());
  const Candidate& best = a.candidates.front();
  ASSERT_EQ(best.accelerator->id, "small-gpu");
  ASSERT_LT(best.count, 8);
  const std::string line = answer_line(s, a);
  EXPECT_NE(line.find("; as sold: 1 x small-node-8 (node of 8, 1.50 kW, $20.0 k; the plan uses " +
                      std::to_string(best.count) + " of the 8)"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("small-cloud-4"), std::string::npos) << line;
  // Without a system for the part, the line says nothing about units.
  cat.systems.clear();
  EXPECT_EQ(answer_line(s, run(s, cat)).find("as sold"), std::string::npos);
}

// The facility's limits apply to the unit bought: a liquid-cooled system on
// an air-cooled floor, or a unit drawing more than a rack may, is rejected,
// saying so; a rented unit is someone else's floor.
TEST(Advise, FacilityRejectsUnitsItCannotHouse) {
  catalog::Catalog cat = toy_catalog();
  catalog::System rack;
  rack.id = rack.name = "small-rack";
  rack.accelerator = "small-gpu";
  rack.accelerators = v(72);
  rack.unit = catalog::PurchaseUnit::rack;
  rack.power_w = v(120000);
  rack.cooling = catalog::Cooling::liquid;
  cat.systems = {rack};
  Scenario s = throughput_scenario(20000);
  auto reason = [&](const Scenario& sc) -> std::string {
    Advice a = run(sc, cat);
    for (const Rejection& r : a.rejected)
      if (r.accelerator == "small-gpu") return r.reason;
    return "";
  };
  EXPECT_EQ(reason(s), "") << "no facility limits: the rack is fine";
  s.liquid_cooling = false;
  EXPECT_EQ(reason(s), "sold as small-rack, which is liquid-cooled: the facility has no liquid cooling (facility.liquid_cooling: false)");
  s.liquid_cooling = true;
  s.rack_kw = 40;
  EXPECT_EQ(reason(s), "sold as small-rack drawing 120 kW per rack, over the facility's 40.0 kW per rack (facility.rack_kw)");
  s.rack_kw = 130;
  EXPECT_EQ(reason(s), "");
}

// Rent vs buy: with both prices known each finalist's TCO line gives the
// break-even utilisation (docs/advise.md#tco).
TEST(Advise, TcoLineGivesTheRentVsBuyBreakEven) {
  catalog::Catalog cat = toy_catalog();
  for (catalog::Accelerator& x : cat.accelerators) x.price.cloud_usd_per_hour = v(2.0);
  Scenario s = throughput_scenario(20000);
  s.deployment = Deployment::either;
  Advice a = run(s, cat);
  ASSERT_FALSE(a.candidates.empty());
  const Candidate& c = a.candidates.front();
  ASSERT_TRUE(c.break_even_utilisation);
  EXPECT_NEAR(*c.break_even_utilisation, *break_even_utilisation([&] {
    TcoInput in;
    in.count = c.count;
    in.unit_price_usd = c.accelerator->price.list_usd.value;
    in.cloud_usd_per_hour = 2.0;
    in.power_w = c.accelerator->power_w.value;
    return in;
  }()), 1e-9);
  bool said = false;
  for (const std::string& e : c.explanation) said |= e.find("rent vs buy: break-even at ") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Advise, AnswerLineCarriesTheModelsMeasuredErrorWhenItIsLarge) {
  Scenario s = throughput_scenario(20000);
  // Published rows of this kind ran at 0.5-0.9 of what the model predicts.
  std::vector<model::ErrorBand> wide = {{"infer", "offline", "cnn", "huawei", 3, 0.5, 0.9, {"fp16"}},
                                        {"infer", "offline", "cnn", "nvidia", 3, 0.5, 0.9, {"fp16"}}};
  Result<Advice> a = advise(s, toy_catalog(), toy_workload(), {}, wide);
  ASSERT_TRUE(a && !a->candidates.empty());
  const Candidate& best = a->candidates.front();
  ASSERT_TRUE(best.sure && best.sure->throughput);
  EXPECT_NEAR(best.sure->throughput->low, 0.5 * best.throughput, 1e-6 * best.throughput);
  EXPECT_NEAR(best.sure->throughput->high, 0.9 * best.throughput, 1e-6 * best.throughput);
  std::string line = answer_line(s, *a);
  EXPECT_NE(line.find("(likely " + si(0.5 * best.throughput, best.throughput_unit) + " to "), std::string::npos) << line;
  // Within 15 % either way: no range on the line.
  std::vector<model::ErrorBand> tight = {{"infer", "offline", "cnn", "nvidia", 3, 0.95, 1.05, {"fp16"}},
                                         {"infer", "offline", "cnn", "huawei", 3, 0.95, 1.05, {"fp16"}}};
  a = advise(s, toy_catalog(), toy_workload(), {}, tight);
  ASSERT_TRUE(a);
  EXPECT_EQ(answer_line(s, *a).find("likely"), std::string::npos) << answer_line(s, *a);
  // No published row of this kind: said so.
  std::vector<model::ErrorBand> other = {{"train", "train", "decoder_llm", "amd", 1, 0.9, 1.0, {"bf16"}}};
  a = advise(s, toy_catalog(), toy_workload(), {}, other);
  ASSERT_TRUE(a);
  EXPECT_NE(answer_line(s, *a).find("(unvalidated: "), std::string::npos) << answer_line(s, *a);
  // Without bands (a library caller), nothing is claimed either way.
  EXPECT_FALSE(run(s).candidates.front().sure.has_value());
}

TEST(Advise, OneCopyOnTheFewestDevicesIsNotOverProvisioned) {
  // A tiny demand: every part serves it with one device far below capacity.
  // One device is the least that can be bought, so its spare capacity is not
  // scored as waste (TCO prices it); only more devices than needed are.
  Advice a = run(throughput_scenario(10));
  ASSERT_FALSE(a.candidates.empty());
  for (const Candidate& c : a.candidates) {
    ASSERT_EQ(c.count, c.replica_devices) << c.accelerator->id;
    EXPECT_LT(c.utilisation, 0.7) << c.accelerator->id;
    EXPECT_EQ(c.scores.compute_adequacy, 1.0) << c.accelerator->id;
    EXPECT_NE(c.explanation.front().find("the least that can be bought"), std::string::npos) << c.explanation.front();
  }
  // With the cost known for all, the cheapest part that meets the demand wins.
  const Candidate& best = a.candidates.front();
  for (const Candidate& c : a.candidates) {
    if (c.priced && best.priced && c.scores.bandwidth_fit == best.scores.bandwidth_fit &&
        c.scores.precision == best.scores.precision && c.scores.ecosystem == best.scores.ecosystem) {
      EXPECT_LE(*best.cost.tco_usd, *c.cost.tco_usd) << c.accelerator->id;
    }
  }
}

TEST(Advise, PrecisionRejectionNeverPrintsAnEmptyList) {
  catalog::Catalog cat = toy_catalog();
  cat.accelerators[0].peak_flop_per_s = {};
  Scenario s = throughput_scenario(2000);
  Advice a = run(s, cat);
  for (const Rejection& r : a.rejected) EXPECT_EQ(r.reason.find("(has )"), std::string::npos) << r.reason;
}

// Deployment decides how a part is priced and whether a rented-only part is
// allowed: on-prem rejects it saying it is cloud-only; cloud prices hours x
// $/hour x utilisation over the horizon; either prices both.
TEST(Advise, DeploymentPricesBuyingRentingOrBoth) {
  catalog::Catalog c = toy_catalog();
  c.accelerators[1].cloud_only = true;  // mid-gpu: rented only
  c.accelerators[1].price.list_usd = catalog::Sourced{};
  for (catalog::Accelerator& a : c.accelerators) a.price.cloud_usd_per_hour = v(2.0);
  Scenario s = throughput_scenario(1000);
  s.horizon_years = 1;
  s.utilisation = 0.5;

  Advice on_prem = run(s, c);
  bool rejected = false;
  for (const Rejection& r : on_prem.rejected) {
    if (r.accelerator != "mid-gpu") continue;
    rejected = true;
    EXPECT_EQ(r.reason.rfind("cloud-only:", 0), 0u) << r.reason;
    EXPECT_NE(r.reason.find("cannot be deployed on-prem"), std::string::npos) << r.reason;
  }
  EXPECT_TRUE(rejected);

  s.deployment = Deployment::cloud;
  Advice cloud = run(s, c);
  ASSERT_FALSE(cloud.candidates.empty());
  for (const Candidate& k : cloud.candidates) {
    ASSERT_TRUE(k.cost.cloud_usd.has_value()) << k.accelerator->id;
    EXPECT_NEAR(*k.cost.cloud_usd, 2.0 * k.count * kHoursPerYear * 0.5, 1e-6) << k.accelerator->id;
    EXPECT_FALSE(k.cost.capex_usd.has_value()) << k.accelerator->id;
  }

  s.deployment = Deployment::either;
  Advice both = run(s, c);
  bool saw_both = false;
  for (const Candidate& k : both.candidates) {
    ASSERT_TRUE(k.cost.cloud_usd.has_value()) << k.accelerator->id;
    if (!k.cost.capex_usd || !k.cost.energy_usd) continue;
    saw_both = true;
    EXPECT_DOUBLE_EQ(*k.cost.tco_usd, std::min(*k.cost.cloud_usd, *k.cost.capex_usd + *k.cost.energy_usd));
  }
  EXPECT_TRUE(saw_both);
}

// A catalog price more than 12 months older than today is flagged.
TEST(Advise, OldPricesAreFlagged) {
  catalog::Catalog c = toy_catalog();
  for (catalog::Accelerator& a : c.accelerators) a.price.list_date = "2024-06";
  Scenario s = throughput_scenario(1000);
  auto flagged = [&](const std::string& today) {
    s.today = today;
    for (const Candidate& k : run(s, c).candidates)
      for (const std::string& n : k.notes)
        if (n.find("list price dated 2024-06 is") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(flagged("2026-12-01"));
  EXPECT_FALSE(flagged("2025-01-15"));
  EXPECT_FALSE(flagged(""));
}

// TCO names the date of every price it uses, in the explanation and in
// Cost; a scenario's own quote carries no date and says so.
TEST(Advise, TcoListsThePriceDateOfEveryPart) {
  catalog::Catalog c = toy_catalog();
  for (catalog::Accelerator& a : c.accelerators) {
    a.price.list_date = "2025-03";
    a.price.cloud_usd_per_hour = v(2.0);
    a.price.cloud_date = "2026-06";
  }
  Scenario s = throughput_scenario(1000);
  s.deployment = Deployment::either;
  Advice a = run(s, c);
  ASSERT_FALSE(a.candidates.empty());
  for (const Candidate& k : a.candidates) {
    EXPECT_EQ(k.cost.cloud_price_date, "2026-06") << k.accelerator->id;
    EXPECT_EQ(k.cost.list_price_date, k.accelerator->price.list_usd.known() ? "2025-03" : "") << k.accelerator->id;
    if (!k.priced) continue;
    bool said = false;
    for (const std::string& e : k.explanation) said = said || e.find("cloud price dated 2026-06") != std::string::npos;
    EXPECT_TRUE(said) << k.accelerator->id;
  }
  s.deployment = Deployment::on_prem;
  s.prices = {PriceOverride{"small-gpu", 1234.0, std::nullopt, "a quote"}};
  for (const Candidate& k : run(s, c).candidates) {
    EXPECT_EQ(k.cost.cloud_price_date, "") << "on-prem uses no cloud price";
    if (k.accelerator->id == "small-gpu") {
      EXPECT_EQ(k.cost.list_price_date, "undated");
    }
  }
}

// A missing framework says whether the part has no software section at all
// or lists other frameworks; a missing memory figure quotes its reason.
TEST(Advise, RejectionsSayExactlyWhatIsMissing) {
  catalog::Catalog c = toy_catalog();
  c.accelerators[2].software = {};                                 // small-gpu: nothing known
  c.accelerators[1].memory_bytes = catalog::Sourced{};
  c.accelerators[1].memory_bytes.missing_reason = "system memory: depends on the DIMMs";
  Scenario s = throughput_scenario(1000);
  s.frameworks = {{"pytorch", ""}};
  std::map<std::string, std::string> why;
  for (const Rejection& r : run(s, c).rejected) why[r.accelerator] = r.reason;
  EXPECT_NE(why["small-gpu"].find("it has no software section"), std::string::npos) << why["small-gpu"];
  EXPECT_NE(why["npu"].find("(it lists mindspore)"), std::string::npos) << why["npu"];
  EXPECT_EQ(why["mid-gpu"], "memory capacity unknown: system memory: depends on the DIMMs; cannot check the fit");
}


TEST(Advise, BudgetNeedsAPrice) {
  Scenario s = throughput_scenario(20000);
  s.budget_capex_usd = 1e9;
  Advice a = run(s);
  auto it = std::find_if(a.rejected.begin(), a.rejected.end(), [](const Rejection& r) { return r.accelerator == "npu"; });
  ASSERT_NE(it, a.rejected.end());
  EXPECT_NE(it->reason.find("no list price"), std::string::npos);
}

TEST(Advise, EcosystemRequirementDecidesCudaVsAscend) {
  Scenario s = throughput_scenario(20000);
  s.frameworks = {{"mindspore", ""}};
  s.custom_ops = {"ascend-c"};
  Advice a = run(s);
  ASSERT_EQ(a.candidates.size(), 1u);
  EXPECT_EQ(a.candidates[0].accelerator->id, "npu");
  s.frameworks = {{"pytorch", "2.1"}};
  s.custom_ops = {"cuda"};
  for (const Candidate& c : run(s).candidates) EXPECT_EQ(c.accelerator->vendor, "nvidia");
  s.frameworks = {{"pytorch", "2.9"}};
  Advice too_new = run(s);
  EXPECT_TRUE(too_new.candidates.empty());
  EXPECT_NE(too_new.rejected[0].reason.find("newest listed is 2.3"), std::string::npos);
}

TEST(Advise, BaselineOverProvisioningScoresLowOnComputeAdequacy) {
  Scenario s = throughput_scenario(2000);
  s.baseline = Baseline{"big-gpu", 8, Precision::fp16};
  Advice a = run(s);
  ASSERT_TRUE(a.baseline);
  EXPECT_EQ(a.baseline->count, 8);
  EXPECT_LT(a.baseline->utilisation, 0.3);
  EXPECT_LT(a.baseline->scores.compute_adequacy, 0.5);
  auto big = std::find_if(a.candidates.begin(), a.candidates.end(),
                          [](const Candidate& c) { return c.accelerator->id == "big-gpu"; });
  ASSERT_NE(big, a.candidates.end());
  EXPECT_LT(big->count, 8);
  EXPECT_GT(big->scores.compute_adequacy, a.baseline->scores.compute_adequacy);
}

TEST(Advise, LatencyObjectiveAndNetworkRoundTrip) {
  Scenario s = throughput_scenario(0);
  s.objective = ObjectiveKind::latency;
  s.p99_latency_s = 0.1;
  s.arrival_rate_per_s = 500;
  Advice a = run(s);
  ASSERT_FALSE(a.candidates.empty());
  for (const Candidate& c : a.candidates) {
    EXPECT_LE(c.latency_s, 0.1) << c.accelerator->id;
    EXPECT_LT(c.utilisation, 1.0);
    ASSERT_TRUE(c.cold_start_s);
  }
  s.network_rtt_s[static_cast<int>(catalog::FormFactor::datacenter)] = 0.38;  // a cloud round trip
  Advice edge = run(s);
  ASSERT_EQ(edge.candidates.size(), 1u);
  EXPECT_EQ(edge.candidates[0].accelerator->id, "edge-box");
}

TEST(Advise, NothingFeasibleNamesTheClosestMisses) {
  Scenario s = throughput_scenario(0);
  s.objective = ObjectiveKind::latency;
  s.p99_latency_s = 1e-5;
  s.arrival_rate_per_s = 10;
  Advice a = run(s);
  EXPECT_TRUE(a.candidates.empty());
  std::string msg = nothing_feasible(s, a);
  EXPECT_NE(msg.find("nothing meets 10"), std::string::npos) << msg;
  EXPECT_NE(msg.find("closest: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("big-gpu at"), std::string::npos) << msg;  // the fastest part misses least
}

// Train the toy model on `samples` samples at global batch 256 within a day.
Scenario train_scenario(double samples) {
  Scenario s = throughput_scenario(0);
  s.task = workload::Task::train;
  s.objective = ObjectiveKind::train;
  s.global_batch = 256;
  s.train_samples = samples;
  s.deadline_s = 24 * 3600;
  return s;
}

TEST(Advise, TrainingSearchMeetsTheDeadline) {
  Scenario s = train_scenario(1e8);
  Advice a = run(s);
  ASSERT_FALSE(a.candidates.empty());
  for (const Candidate& c : a.candidates) {
    ASSERT_TRUE(c.train);
    const TrainPlan& t = *c.train;
    EXPECT_LE(t.time_to_train_s, s.deadline_s);
    EXPECT_EQ(t.data * t.tensor * t.pipeline, c.count);
    EXPECT_EQ(t.data * t.micro_batch * t.grad_accumulation, 256);
    EXPECT_GE(t.straggler_factor, 1.0);
  }
  // A tighter deadline needs at least as many devices on each part.
  Scenario tight = s;
  tight.deadline_s = 6 * 3600;
  Advice b = run(tight);
  for (const Candidate& c : b.candidates) {
    auto same = std::find_if(a.candidates.begin(), a.candidates.end(),
                             [&](const Candidate& x) { return x.accelerator->id == c.accelerator->id; });
    ASSERT_NE(same, a.candidates.end());
    EXPECT_GE(c.count, same->count);
  }
}

// A heavy model buys well under one sample/s per watt: the energy line gives
// it per kW, so the figures keep their digits (never "0.00 samples/s per W").
TEST(Advise, EnergyEfficiencyKeepsItsDigits) {
  workload::Workload heavy = toy_workload();
  for (workload::Operator& op : heavy.ops) op.flops *= 1e4;
  Scenario s = train_scenario(1e6);
  Result<Advice> a = advise(s, toy_catalog(), heavy);
  ASSERT_TRUE(a) << a.error().what();
  ASSERT_FALSE(a->candidates.empty());
  int seen = 0;
  for (const Candidate& c : a->candidates) {
    for (const std::string& line : c.explanation) {
      if (line.rfind("energy efficiency", 0) != 0 || line.find("unknown") != std::string::npos) continue;
      ++seen;
      EXPECT_NE(line.find(" samples/s per kW at TDP (best "), std::string::npos) << line;
      EXPECT_EQ(line.find(" 0.00 "), std::string::npos) << line;
    }
  }
  EXPECT_GT(seen, 0);
  // The light toy model still reads per W.
  Advice b = run(s);
  ASSERT_FALSE(b.candidates.empty());
  bool per_w = false;
  for (const std::string& line : b.candidates[0].explanation) per_w |= line.find(" samples/s per W at TDP") != std::string::npos;
  EXPECT_TRUE(per_w);
}

TEST(Properties, RankingIgnoresCatalogOrder) {
  Scenario s = throughput_scenario(20000);
  catalog::Catalog c = toy_catalog();
  std::vector<std::string> expected = ids(run(s, c));
  std::mt19937 rng(7);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(c.accelerators.begin(), c.accelerators.end(), rng);
    EXPECT_EQ(ids(run(s, c)), expected);
  }
}

TEST(Properties, TighteningAConstraintNeverAddsCandidates) {
  Scenario loose = throughput_scenario(20000);
  std::vector<std::string> base = ids(run(loose));
  std::vector<Scenario> tighter(6, loose);
  tighter[0].max_devices = 4;
  tighter[1].max_power_per_device_w = 300;
  tighter[2].max_power_total_w = 1000;
  tighter[3].budget_capex_usd = 20000;
  tighter[4].vendors_exclude = {"huawei"};
  tighter[5].form_factors = {catalog::FormFactor::edge};
  for (const Scenario& t : tighter) {
    for (const std::string& id : ids(run(t))) {
      EXPECT_NE(std::find(base.begin(), base.end(), id), base.end()) << id;
    }
  }
}

TEST(Properties, LargerBudgetNeverLowersTheBestThroughput) {
  double prev = 0;
  for (double budget : {5e3, 2e4, 5e4, 1e5, 1e6}) {
    Scenario s = throughput_scenario(20000);
    s.budget_capex_usd = budget;
    Advice a = run(s);
    double best = 0;
    for (const Candidate& c : a.candidates) best = std::max(best, c.throughput);
    EXPECT_GE(best, prev) << budget;
    prev = best;
  }
  EXPECT_GT(prev, 0);
}


// One model of serving: advise's p99 for a decoder LLM is the serving
// simulation's (model::simulate_server) for the same configuration and rate,
// and one copy fewer would miss the target (docs/advise.md#serving).
TEST(Advise, LlmLatencyIsTheSimulatedServersP99) {
  Scenario s = throughput_scenario(0);
  s.model = "test-llm";
  s.objective = ObjectiveKind::latency;
  s.p99_latency_s = 0.25;
  s.arrival_rate_per_s = 400;
  const workload::Workload w = model::testing::llm_model();
  Result<Advice> a = advise(s, toy_catalog(), w);
  ASSERT_TRUE(a) << a.error().what();
  ASSERT_FALSE(a->candidates.empty());
  bool several_copies = false;
  for (const Candidate& c : a->candidates) {
    SCOPED_TRACE(c.accelerator->id);
    ASSERT_TRUE(c.serving);
    ASSERT_TRUE(c.serving->simulated);
    EXPECT_LE(c.latency_s, s.p99_latency_s);
    EXPECT_EQ(c.latency_s, c.serving->latency_p99_s);  // no network round trip here
    Result<model::PlanSpec> plan = model::parse_plan(c.plan);
    ASSERT_TRUE(plan);
    model::Request req;
    req.accelerator = c.accelerator;
    req.workload = &w;
    req.count = c.count;
    req.precision = c.precision;
    req.plan = *plan;
    req.scenario = model::Scenario::server;
    model::ServeOptions o;
    o.rate_per_s = s.arrival_rate_per_s;
    o.requests = c.serving->requests;
    o.max_rate = false;
    Result<model::ServePrediction> v = model::simulate_server(req, o);
    ASSERT_TRUE(v) << v.error().what();
    EXPECT_EQ(v->at_rate.latency_s.p99, c.serving->latency_p99_s);
    EXPECT_EQ(v->at_rate.ttft_s.p99, c.serving->ttft_p99_s.value_or(-1));
    EXPECT_EQ(v->at_rate.tpot_s.p99, c.serving->tpot_p99_s.value_or(-1));
    EXPECT_EQ(v->scheduler.max_seqs, c.batch);
    // The fewest copies: one fewer misses the target.
    const int copies = c.count / c.replica_devices;
    if (copies > 1) {
      several_copies = true;
      req.count = c.count - c.replica_devices;
      req.plan.dp = copies - 1;
      o.requests = 0;
      o.max_requests = c.serving->requests;
      Result<model::ServePrediction> fewer = model::simulate_server(req, o);
      ASSERT_TRUE(fewer) << fewer.error().what();
      EXPECT_GT(fewer->at_rate.latency_s.p99, s.p99_latency_s);
    }
  }
  EXPECT_TRUE(several_copies) << "the rate should need more than one copy somewhere";
}

}  // namespace
}  // namespace rooftop::advise
