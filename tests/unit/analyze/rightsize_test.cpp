// The advise scenario analyze builds for an observed load: the measured
// demand as a throughput objective, the current part as baseline, and
// everything else (workload, constraints, economics) as the user wrote it.
#include <gtest/gtest.h>

#include "analyze/rightsize.h"

namespace rooftop::analyze {
namespace {

TEST(Rightsize, ScenarioKeepsConstraintsAndReplacesObjectiveAndBaseline) {
  advise::Scenario base;
  base.name = "chat";
  base.model = "llama-3.1-8b";
  base.objective = advise::ObjectiveKind::latency;
  base.p99_latency_s = 15;
  base.arrival_rate_per_s = 4;
  base.max_devices = 16;
  base.max_power_total_w = 20000;
  base.form_factors = {catalog::FormFactor::datacenter};
  base.deployment = advise::Deployment::cloud;
  base.baseline = advise::Baseline{"nvidia-t4", 8, std::nullopt};

  advise::Scenario s = rightsizing_scenario(base, "nvidia-a100-sxm4-80gb", 2, 1234.5);
  EXPECT_EQ(s.objective, advise::ObjectiveKind::throughput);
  EXPECT_DOUBLE_EQ(s.throughput_per_s, 1234.5);
  EXPECT_EQ(s.p99_latency_s, 0);
  EXPECT_EQ(s.arrival_rate_per_s, 0);
  ASSERT_TRUE(s.baseline);
  EXPECT_EQ(s.baseline->accelerator, "nvidia-a100-sxm4-80gb");
  EXPECT_EQ(s.baseline->count, 2);
  EXPECT_FALSE(s.baseline->precision);
  EXPECT_EQ(s.model, base.model);
  EXPECT_EQ(s.max_devices, 16);
  EXPECT_EQ(s.max_power_total_w, 20000);
  EXPECT_EQ(s.form_factors, base.form_factors);
  EXPECT_EQ(s.deployment, advise::Deployment::cloud);
  EXPECT_EQ(s.name, "chat");
}

}  // namespace
}  // namespace rooftop::analyze
