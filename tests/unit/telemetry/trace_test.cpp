// Trace files: parsing, errors naming line and column, round trip, shipped examples.
#include <gtest/gtest.h>

#include "telemetry/telemetry.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

TEST(Trace, ParsesColumnsInAnyOrderWithEmptyCellsUnknown) {
  auto t = parse_trace("# comment\ngpu,t_s,gpu_util_pct,temp_c,throttle_reasons,job\n1,2.5,50,,0x44,train\n0,0,10,40,,\n",
                       "x.csv");
  ASSERT_TRUE(t) << t.error().what();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].t_s, 0);  // sorted by time
  EXPECT_EQ(t->rows[1].gpu, 1);
  EXPECT_EQ(*t->rows[1].sample.gpu_util_pct, 50);
  EXPECT_FALSE(t->rows[1].sample.temp_c);
  EXPECT_EQ(*t->rows[1].sample.throttle_reasons, 0x44u);
  EXPECT_EQ(t->rows[1].sample.job, "train");
  EXPECT_FALSE(t->rows[0].sample.throttle_reasons);
  EXPECT_EQ(t->rows[0].uuid, "FAKE-host-0");
}

TEST(Trace, ErrorsNameTheLineAndTheColumn) {
  auto unknown = parse_trace("t_s,gpu,gpu_utl_pct\n0,0,1\n", "x.csv");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Errc::invalid_input);
  EXPECT_EQ(unknown.error().context, "x.csv:1");
  EXPECT_NE(unknown.error().message.find("gpu_util_pct"), std::string::npos);  // did you mean

  auto range = parse_trace("t_s,gpu,gpu_util_pct\n0,0,50\n1,0,150\n", "x.csv");
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().context, "x.csv:3");
  EXPECT_NE(range.error().message.find("gpu_util_pct"), std::string::npos);

  EXPECT_FALSE(parse_trace("gpu,temp_c\n0,1\n", "x.csv"));          // no t_s
  EXPECT_FALSE(parse_trace("t_s,gpu\n0,0,1\n", "x.csv"));          // cell count
  EXPECT_FALSE(parse_trace("t_s,gpu\n", "x.csv"));                 // no rows
  EXPECT_FALSE(parse_trace("t_s,gpu,throttle_reasons\n0,0,zz\n", "x.csv"));
  EXPECT_FALSE(parse_trace("t_s,gpu,t_s\n0,0,0\n", "x.csv"));      // duplicate column
  EXPECT_EQ(load_trace("/nonexistent/trace.csv").error().code, Errc::not_found);
}

TEST(Trace, FormatRoundTrips) {
  auto t = load_trace(test::source_path("data/traces/h100x2-training.csv"));
  ASSERT_TRUE(t) << t.error().what();
  auto again = parse_trace(format_trace(*t), "formatted");
  ASSERT_TRUE(again) << again.error().what();
  ASSERT_EQ(again->rows.size(), t->rows.size());
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    EXPECT_EQ(again->rows[i].sample.fb_used_bytes, t->rows[i].sample.fb_used_bytes);
    EXPECT_EQ(again->rows[i].sample.throttle_reasons, t->rows[i].sample.throttle_reasons);
    EXPECT_EQ(again->rows[i].sample.job, t->rows[i].sample.job);
    EXPECT_EQ(again->rows[i].host_iowait_pct, t->rows[i].host_iowait_pct);
  }
}

TEST(Trace, ShippedExamplesParse) {
  for (const char* f : {"data/traces/h100x2-training.csv", "data/traces/a100-idle.csv"}) {
    auto t = load_trace(test::source_path(f));
    ASSERT_TRUE(t) << f << ": " << t.error().what();
    EXPECT_GT(t->rows.size(), 5u);
  }
}

}  // namespace
}  // namespace rooftop::telemetry
