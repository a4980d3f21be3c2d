// Hand-computed checks of the advisor's formulas (docs/advise.md).
#include <gtest/gtest.h>

#include <cmath>

#include "advise/formulas.h"

namespace rooftop::advise {
namespace {

TEST(NormalQuantile, KnownValues) {
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.99), 2.326348, 1e-6);
  EXPECT_NEAR(normal_quantile(0.01), -2.326348, 1e-6);
  EXPECT_NEAR(normal_quantile(1e-4), -3.719016, 1e-5);
}

TEST(ErlangQuantile, MatchesExactWithinWilsonHilfertyError) {
  // Exponential median ln2 / rate; Wilson-Hilferty is within ~1.5 % at k = 1.
  EXPECT_NEAR(erlang_quantile(1, 2.0, 0.5), std::log(2.0) / 2, 0.015 * std::log(2.0) / 2);
  // Erlang(10, 1) median 9.6687.
  EXPECT_NEAR(erlang_quantile(10, 1.0, 0.5), 9.6687, 0.01);
  // Exponential p99 = ln(100) / rate = 4.605 at rate 1.
  EXPECT_NEAR(erlang_quantile(1, 1.0, 0.99), std::log(100.0), 0.05 * std::log(100.0));
  EXPECT_EQ(erlang_quantile(0, 1.0, 0.99), 0.0);
}

TEST(ServingLatency, StaticBatchOfOneIsMD1) {
  // rho = 50 / (1 / 0.01) = 0.5; E[W] = 0.5 * 0.01 / (2 * 0.5) = 0.005;
  // p99 wait = E[W] / rho * ln(rho / 0.01) = 0.01 * ln 50 = 0.039120.
  ServingLatency l = serving_latency(1, 0.01, 50, false);
  EXPECT_NEAR(l.utilisation, 0.5, 1e-12);
  EXPECT_EQ(l.fill_p99_s, 0.0);
  EXPECT_NEAR(l.queue_p99_s, 0.01 * std::log(50.0), 1e-9);
  EXPECT_NEAR(l.p99_s, 0.01 + 0.01 * std::log(50.0), 1e-9);
}

TEST(ServingLatency, ContinuousBatchingHasNoFillWait) {
  // 10 slots, 1 s each, 5 req/s: rho 0.5, per-request service 0.1 s.
  ServingLatency l = serving_latency(10, 1.0, 5, true);
  EXPECT_NEAR(l.utilisation, 0.5, 1e-12);
  EXPECT_EQ(l.fill_p99_s, 0.0);
  EXPECT_NEAR(l.p99_s, 1.0 + 0.1 * std::log(50.0), 1e-9);
}

TEST(ServingLatency, StaticBatchWaitsForTheBatchToFill) {
  ServingLatency l = serving_latency(8, 0.02, 100, false);
  EXPECT_NEAR(l.fill_p99_s, erlang_quantile(7, 100, 0.99), 1e-12);
  EXPECT_GT(l.fill_p99_s, 7.0 / 100);  // above the mean fill time of the first request
}

TEST(ServingLatency, OverloadIsInfinite) {
  ServingLatency l = serving_latency(4, 0.1, 40, false);  // capacity exactly 40/s
  EXPECT_GE(l.utilisation, 1.0);
  EXPECT_TRUE(std::isinf(l.p99_s));
}

TEST(ServingLatency, MoreLoadNeverLowersTheQueueWait) {
  double prev = 0;
  for (double rate = 1; rate < 99; rate += 7) {
    double q = serving_latency(1, 0.01, rate, true).queue_p99_s;
    EXPECT_GE(q, prev);
    prev = q;
  }
}

TEST(Stragglers, ExpectedMaxOfNormals) {
  EXPECT_EQ(expected_max_normal(1), 0.0);
  EXPECT_NEAR(expected_max_normal(2), 1 / std::sqrt(M_PI), 0.03);  // exact 0.5642
  EXPECT_NEAR(expected_max_normal(1000), 3.241, 0.05);              // tables of normal order statistics
  EXPECT_EQ(straggler_factor(1, 0.1), 1.0);
  EXPECT_NEAR(straggler_factor(1000, 0.05), 1 + 0.05 * expected_max_normal(1000), 1e-12);
  EXPECT_GT(straggler_factor(64, 0.05), straggler_factor(8, 0.05));
}

// Two 300 W devices, 3 years half busy, PUE 1.5, $0.10/kWh.
TcoInput two_300w_devices() {
  TcoInput in;
  in.count = 2;
  in.power_w = 300;
  in.horizon_years = 3;
  in.utilisation = 0.5;
  in.pue = 1.5;
  in.energy_usd_per_kwh = 0.1;
  return in;
}

TEST(Tco, OnPremCapexPlusEnergyTimesPue) {
  TcoInput in = two_300w_devices();
  in.unit_price_usd = 10000;
  TcoOutput t = tco(in);
  // 300 W x 2 x 0.5 x 26298 h x 1.5 / 1000 = 11834.1 kWh.
  ASSERT_TRUE(t.tco_usd);
  EXPECT_NEAR(*t.energy_kwh, 11834.1, 1e-6);
  EXPECT_NEAR(*t.energy_usd, 1183.41, 1e-6);
  EXPECT_NEAR(*t.capex_usd, 20000, 1e-9);
  EXPECT_NEAR(*t.tco_usd, 21183.41, 1e-6);
  in.amortisation_years = 6;  // half of the useful life falls in the horizon
  EXPECT_NEAR(*tco(in).capex_usd, 10000, 1e-9);
}

TEST(Tco, CloudChargesDeviceHours) {
  TcoInput in;
  in.count = 2;
  in.cloud = true;
  in.cloud_usd_per_hour = 2;
  in.utilisation = 0.5;
  TcoOutput t = tco(in);
  ASSERT_TRUE(t.cloud_usd);
  EXPECT_NEAR(*t.cloud_usd, 2 * 2 * 3 * kHoursPerYear * 0.5, 1e-6);
  EXPECT_EQ(*t.tco_usd, *t.cloud_usd);
}

// The price that would give a TCO, hand-computed from the case above:
// 21183.41 - 1183.41 energy = 20000 capex = 2 devices x $10,000.
TEST(Tco, PriceForTcoInvertsIt) {
  TcoInput in = two_300w_devices();
  ASSERT_TRUE(price_for_tco(in, 21183.41));
  EXPECT_NEAR(*price_for_tco(in, 21183.41), 10000, 1e-6);
  in.amortisation_years = 6;  // half the capex is charged: twice the price
  EXPECT_NEAR(*price_for_tco(in, 21183.41), 20000, 1e-6);
  EXPECT_FALSE(price_for_tco(in, 1000)) << "energy alone costs 1183.41";
  in.power_w.reset();
  EXPECT_FALSE(price_for_tco(in, 21183.41)) << "energy unknown";
  // Renting: 2 devices x 3 years x 8766 h x 0.5 busy = 26298 device-hours.
  in.cloud = true;
  ASSERT_TRUE(price_for_tco(in, 52596));
  EXPECT_NEAR(*price_for_tco(in, 52596), 2.0, 1e-9);
}

// Hand-computed: 2 devices over 26298 busy-equivalent hours at u = 1:
// energy 23668.2 kWh x $0.10 = $2366.82; renting at $2/h = $105192; capex
// $20000 -> u* = 20000 / (105192 - 2366.82) = 0.194503.
TEST(Tco, BreakEvenUtilisationOfRentVsBuy) {
  TcoInput in = two_300w_devices();
  in.unit_price_usd = 10000;
  in.cloud_usd_per_hour = 2;
  ASSERT_TRUE(break_even_utilisation(in));
  const double u = *break_even_utilisation(in);
  EXPECT_NEAR(u, 20000 / (105192 - 2366.82), 1e-6);
  // At u the two cost the same; above it buying is cheaper.
  in.utilisation = u;
  TcoOutput buy = tco(in);
  in.cloud = true;
  EXPECT_NEAR(*tco(in).cloud_usd, *buy.tco_usd, 1e-6);
  in.cloud = false;
  in.cloud_usd_per_hour = 0.04;  // less than the energy it saves: renting always wins
  EXPECT_FALSE(break_even_utilisation(in));
  in.cloud_usd_per_hour.reset();
  EXPECT_FALSE(break_even_utilisation(in));
}

TEST(Tco, UnknownPriceStaysUnknown) {
  TcoInput in;
  in.power_w = 100;
  TcoOutput t = tco(in);
  EXPECT_FALSE(t.capex_usd);
  EXPECT_FALSE(t.tco_usd);
  EXPECT_TRUE(t.energy_usd);
  in.power_w.reset();
  in.unit_price_usd = 1000;
  EXPECT_FALSE(tco(in).tco_usd);  // energy unknown without a TDP
}

TEST(Pareto, DominatedPointsAreOff) {
  std::vector<bool> f = pareto_front({{1, 1}, {2, 0}, {2, 2}, {1, 1}, {0, 3}});
  EXPECT_EQ(f, (std::vector<bool>{true, true, false, true, true}));
}

TEST(Pareto, IndependentOfOrder) {
  std::vector<std::vector<double>> pts = {{3, 1, 2}, {1, 3, 2}, {2, 2, 2}, {3, 3, 3}, {1, 1, 5}};
  std::vector<bool> f = pareto_front(pts);
  std::reverse(pts.begin(), pts.end());
  std::vector<bool> r = pareto_front(pts);
  std::reverse(r.begin(), r.end());
  EXPECT_EQ(f, r);
  EXPECT_FALSE(f[3]);
}

TEST(PrecisionRisk, StatesTheKnownPitfalls) {
  EXPECT_EQ(precision_risk(Precision::fp32, workload::Task::train).score, 1.0);
  PrecisionRisk fp16 = precision_risk(Precision::fp16, workload::Task::train);
  EXPECT_NE(fp16.text.find("65504"), std::string::npos);
  EXPECT_NE(fp16.text.find("loss scaling"), std::string::npos);
  EXPECT_NE(precision_risk(Precision::int8, workload::Task::infer).text.find("calibration"), std::string::npos);
  EXPECT_LT(precision_risk(Precision::int4, workload::Task::infer).score,
            precision_risk(Precision::int8, workload::Task::infer).score);
  EXPECT_LT(precision_risk(Precision::fp8, workload::Task::infer).score,
            precision_risk(Precision::bf16, workload::Task::infer).score);
}

}  // namespace
}  // namespace rooftop::advise
