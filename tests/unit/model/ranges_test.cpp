// Error bands from validation rows and the ranges predictions carry
// (model/ranges.h), by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/ranges.h"

namespace rooftop::model {
namespace {

CalRow row(std::string task, std::string scenario, std::string family, std::string vendor, std::string precision,
           std::string group) {
  CalRow r;
  r.task = std::move(task), r.scenario = std::move(scenario), r.family = std::move(family);
  r.vendor = std::move(vendor), r.precision = std::move(precision), r.group = std::move(group);
  return r;
}

TEST(ErrorBands, CrossValidatedRatiosPerBandPlusOnePerTask) {
  std::vector<CalRow> rows;
  std::vector<double> cv;
  // Ten nvidia CNN offline rows, speed ratios 0.8 .. 1.25: measured / predicted 1.25 .. 0.8.
  for (int i = 0; i < 10; ++i) {
    rows.push_back(row("infer", "offline", "cnn", "nvidia", i % 2 ? "int8" : "fp16", "S" + std::to_string(i)));
    cv.push_back(0.8 + 0.05 * i);
  }
  rows.push_back(row("train", "train", "encoder", "intel", "bf16", "T"));
  cv.push_back(1.25);   // measured / predicted 0.8
  std::vector<ErrorBand> b = error_bands(rows, cv, /*shrink=*/0);
  ASSERT_EQ(b.size(), 4u);   // two bands and one "*" per task, sorted ("*" first)
  EXPECT_EQ(b[0].family, "*");
  const ErrorBand& cnn = b[1];
  EXPECT_EQ(cnn.task, "infer");
  EXPECT_EQ(cnn.scenario, "offline");
  EXPECT_EQ(cnn.rows, 10);
  // The 10th and 90th percentiles of 1 / (0.8 .. 1.25), not the extremes.
  EXPECT_GT(cnn.ratio_low, 1 / 1.25);
  EXPECT_LT(cnn.ratio_high, 1 / 0.8);
  EXPECT_LT(cnn.ratio_low, 1.0);
  EXPECT_GT(cnn.ratio_high, 1.0);
  EXPECT_EQ(cnn.precisions, (std::vector<std::string>{"fp16", "int8"}));
  EXPECT_EQ(b[2].family, "*");
  EXPECT_EQ(b[3].vendor, "intel");
  EXPECT_NEAR(b[3].ratio_low, 0.8, 1e-12);
  // The CSV round trip keeps everything (ratios to 3 decimals).
  Result<std::vector<ErrorBand>> back = parse_error_bands(error_bands_csv(b), "b.csv");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 4u);
  EXPECT_EQ((*back)[1].precisions, cnn.precisions);
  EXPECT_EQ((*back)[1].scenario, "offline");
  EXPECT_NEAR((*back)[3].ratio_high, 0.8, 1e-3);
  EXPECT_EQ((*back)[3].rows, 1);
}

TEST(ErrorBands, AFewRowsAreShrunkTowardTheCorpus) {
  std::vector<CalRow> rows;
  std::vector<double> cv;
  for (int i = 0; i < 40; ++i) {
    rows.push_back(row("infer", "offline", "cnn", "nvidia", "int8", "S" + std::to_string(i)));
    cv.push_back(i % 2 ? 0.6 : 1.6);   // a wide corpus
  }
  rows.push_back(row("infer", "offline", "cnn", "intel", "int8", "X"));
  cv.push_back(1.0);                   // one row, dead on
  std::vector<ErrorBand> b = error_bands(rows, cv, 10);
  const auto it = std::find_if(b.begin(), b.end(), [](const ErrorBand& x) { return x.vendor == "intel"; });
  ASSERT_NE(it, b.end());
  // One row alone would give a zero-width band; the corpus widens it.
  EXPECT_LT(it->ratio_low, 0.9);
  EXPECT_GT(it->ratio_high, 1.1);
}

TEST(ErrorBands, ParserNamesTheLine) {
  Result<std::vector<ErrorBand>> r =
      parse_error_bands("task,scenario,family,vendor,rows,ratio_low,ratio_high,precisions\ninfer,offline,cnn,nvidia,0,1,1,int8\n", "b.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "b.csv:2");
  EXPECT_FALSE(parse_error_bands("h\ninfer,cnn\n", "b.csv"));
}

TEST(Sureness, TheBandsRangeAroundTheValueWithFallbacks) {
  std::vector<ErrorBand> bands = {{"infer", "offline", "cnn", "nvidia", 3, 0.5, 1.2, {"fp16", "int8"}},
                                  {"infer", "offline", "decoder_llm", "intel", 1, 0.4, 0.9, {"fp8"}},
                                  {"infer", "*", "*", "*", 4, 0.45, 1.1, {"fp16", "fp8", "int8"}}};
  Sureness s = sureness(bands, "infer", "offline", "cnn", "nvidia", "int8", 1000, 0.01);
  ASSERT_TRUE(s.throughput && s.latency_s);
  EXPECT_DOUBLE_EQ(s.throughput->low, 500);
  EXPECT_DOUBLE_EQ(s.throughput->high, 1200);
  EXPECT_DOUBLE_EQ(s.latency_s->low, 0.01 / 1.2);
  EXPECT_DOUBLE_EQ(s.latency_s->high, 0.02);
  EXPECT_FALSE(s.unvalidated);
  EXPECT_EQ(s.throughput->basis,
            "3 published inference rows of nvidia CNN workloads (offline), cross-validated (80 % of measured / "
            "predicted within 0.50-1.20)");
  // A band wholly below the prediction stays below it: the range is what the record says.
  s = sureness(bands, "infer", "offline", "decoder_llm", "intel", "fp8", 100, 0);
  ASSERT_TRUE(s.throughput);
  EXPECT_DOUBLE_EQ(s.throughput->low, 40);
  EXPECT_DOUBLE_EQ(s.throughput->high, 90);
  EXPECT_FALSE(s.latency_s);
  EXPECT_NE(s.throughput->basis.find("1 published inference row of intel decoder LLM workloads"), std::string::npos);
  // A precision none of the rows was checked in: the range, but unvalidated.
  s = sureness(bands, "infer", "offline", "cnn", "nvidia", "bf16", 1000, 0.01);
  EXPECT_TRUE(s.throughput);
  EXPECT_TRUE(s.unvalidated);
  EXPECT_NE(s.note.find("was checked in bf16"), std::string::npos) << s.note;
  // Another scenario of the same family and vendor: its band, unvalidated.
  s = sureness(bands, "infer", "server", "cnn", "nvidia", "int8", 1000, 0.01);
  ASSERT_TRUE(s.throughput);
  EXPECT_DOUBLE_EQ(s.throughput->low, 500);
  EXPECT_TRUE(s.unvalidated);
  EXPECT_NE(s.note.find("no published server row of nvidia CNN workloads"), std::string::npos) << s.note;
  // No band of the family and vendor: the task's corpus-wide band, unvalidated.
  s = sureness(bands, "infer", "offline", "cnn", "amd", "bf16", 1000, 1);
  ASSERT_TRUE(s.throughput);
  EXPECT_DOUBLE_EQ(s.throughput->low, 450);
  EXPECT_TRUE(s.unvalidated);
  EXPECT_NE(s.note.find("the range of every inference row"), std::string::npos) << s.note;
  // Nothing for the task at all: no range.
  s = sureness(bands, "train", "train", "cnn", "amd", "bf16", 1000, 1);
  EXPECT_FALSE(s.throughput);
  EXPECT_TRUE(s.unvalidated);
}

}  // namespace
}  // namespace rooftop::model
