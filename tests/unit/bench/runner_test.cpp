// The runner's statistics, calibration and error handling.
#include <gtest/gtest.h>

#include "bench/runner.h"

namespace rooftop::bench {
namespace {

TEST(Runner, StatsMatchNumpyPercentiles) {
  Stats s = make_stats({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // numpy.percentile([1..5], 10)
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_EQ(s.samples.size(), 5u);
  EXPECT_DOUBLE_EQ(make_stats({7}).p90, 7);
  EXPECT_DOUBLE_EQ(make_stats({}).median, 0);
  EXPECT_DOUBLE_EQ(make_stats({1, 2, 3, 4}).median, 2.5);
}

TEST(Runner, NextRepsAimsPastTheTargetWithinBounds) {
  EXPECT_EQ(next_reps(10, 0.01, 0.2), 250u);   // x25 (1.25 x 0.2 / 0.01)
  EXPECT_EQ(next_reps(10, 0.19, 0.2), 20u);    // at least doubles
  EXPECT_EQ(next_reps(10, 0.0, 0.2), 1000u);   // at most x100
}

TEST(Runner, CalibratesThenTakesSamplesAndComputesRates) {
  int setups = 0, verifies = 0;
  std::vector<std::uint64_t> calls;
  Descriptor d;
  d.name = "fake";
  d.work = [](std::uint64_t reps) { return Work{100.0 * reps, 8.0 * reps}; };
  d.setup = [&]() -> Result<void> { ++setups; return {}; };
  d.run = [&](std::uint64_t reps) {
    calls.push_back(reps);
    volatile double x = 0;
    for (std::uint64_t i = 0; i < reps * 1000; ++i) x = x + 1;
  };
  d.verify = [&]() -> Result<void> { ++verifies; return {}; };
  RunnerOptions o;
  o.min_sample_s = 0.002;
  o.samples = 4;
  auto m = run_benchmark(d, o);
  ASSERT_TRUE(m) << m.error().what();
  EXPECT_EQ(setups, 1);
  EXPECT_EQ(verifies, 1);
  EXPECT_TRUE(m->verified);
  ASSERT_GE(calls.size(), 5u);
  for (std::size_t i = calls.size() - 4; i < calls.size(); ++i) EXPECT_EQ(calls[i], m->reps);
  EXPECT_EQ(m->seconds.samples.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(m->flop_per_s.samples[i], 100.0 * m->reps / m->seconds.samples[i]);
    EXPECT_DOUBLE_EQ(m->bytes_per_s.samples[i], 8.0 * m->reps / m->seconds.samples[i]);
  }
}

TEST(Runner, FailedVerifyIsAnError) {
  Descriptor d;
  d.name = "wrong";
  d.work = [](std::uint64_t) { return Work{1, 0}; };
  d.run = [](std::uint64_t) {};
  d.verify = []() -> Result<void> { return make_error(Errc::internal, "bad sum"); };
  RunnerOptions o;
  o.min_sample_s = 0;
  o.samples = 1;
  auto m = run_benchmark(d, o);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("wrong: result check failed: bad sum"), std::string::npos);
}

TEST(Runner, FailedSetupIsReturned) {
  Descriptor d;
  d.work = [](std::uint64_t) { return Work{}; };
  d.run = [](std::uint64_t) {};
  d.setup = []() -> Result<void> { return make_error(Errc::io, "no memory"); };
  auto m = run_benchmark(d, RunnerOptions{});
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, Errc::io);
}

}  // namespace
}  // namespace rooftop::bench
