// Error bands from validation rows and the ranges predictions carry
// (model/ranges.h), by hand.
#include <gtest/gtest.h>

#include "model/ranges.h"

namespace rooftop::model {
namespace {

RowResult e2e(std::string task, std::string family, std::string vendor, std::string precision, double measured,
              double predicted, bool time = false) {
  RowResult r;
  r.id = "R";
  r.measured = measured;
  r.predicted = predicted;
  r.task = std::move(task), r.family = std::move(family), r.vendor = std::move(vendor);
  r.precision = std::move(precision);
  r.time_metric = time;
  return r;
}

TEST(ErrorBands, RatiosOfMeasuredToPredictedThroughput) {
  Validation v;
  v.rows.push_back(e2e("infer", "cnn", "nvidia", "int8", 90, 100));    // 0.9
  v.rows.push_back(e2e("infer", "cnn", "nvidia", "fp16", 120, 100));   // 1.2
  v.rows.push_back(e2e("infer", "cnn", "nvidia", "int8", 2, 1, true)); // time: measured 2 ms, predicted 1 -> 0.5
  v.rows.push_back(e2e("train", "encoder", "intel", "bf16", 10, 8, true));  // 8 / 10 = 0.8
  RowResult micro;  // micro-benchmarks carry no band key
  micro.predicted = 1;
  micro.measured = 2;
  v.rows.push_back(micro);
  RowResult skipped = e2e("infer", "cnn", "amd", "int8", 1, 1);
  skipped.predicted.reset();
  v.rows.push_back(skipped);
  std::vector<ErrorBand> b = error_bands(v);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].task, "infer");
  EXPECT_EQ(b[0].rows, 3);
  EXPECT_DOUBLE_EQ(b[0].ratio_low, 0.5);
  EXPECT_DOUBLE_EQ(b[0].ratio_high, 1.2);
  EXPECT_EQ(b[0].precisions, (std::vector<std::string>{"fp16", "int8"}));
  EXPECT_EQ(b[1].vendor, "intel");
  EXPECT_DOUBLE_EQ(b[1].ratio_low, 0.8);
  // The CSV round trip keeps everything (ratios to 3 decimals).
  Result<std::vector<ErrorBand>> back = parse_error_bands(error_bands_csv(b), "b.csv");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].precisions, b[0].precisions);
  EXPECT_DOUBLE_EQ((*back)[0].ratio_high, 1.2);
  EXPECT_EQ((*back)[1].rows, 1);
}

TEST(ErrorBands, ParserNamesTheLine) {
  Result<std::vector<ErrorBand>> r =
      parse_error_bands("task,family,vendor,rows,ratio_low,ratio_high,precisions\ninfer,cnn,nvidia,0,1,1,int8\n", "b.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "b.csv:2");
  EXPECT_FALSE(parse_error_bands("h\ninfer,cnn\n", "b.csv"));
}

TEST(Sureness, RangeAroundTheValueIncludingIt) {
  std::vector<ErrorBand> bands = {{"infer", "cnn", "nvidia", 3, 0.5, 1.2, {"fp16", "int8"}},
                                  {"infer", "decoder_llm", "intel", 1, 0.4, 0.4, {"fp8"}}};
  Sureness s = sureness(bands, "infer", "cnn", "nvidia", "int8", 1000, 0.01);
  ASSERT_TRUE(s.throughput && s.latency_s);
  EXPECT_DOUBLE_EQ(s.throughput->low, 500);
  EXPECT_DOUBLE_EQ(s.throughput->high, 1200);
  EXPECT_DOUBLE_EQ(s.latency_s->low, 0.01 / 1.2);
  EXPECT_DOUBLE_EQ(s.latency_s->high, 0.02);
  EXPECT_FALSE(s.unvalidated);
  EXPECT_EQ(s.throughput->basis, "3 published inference rows of nvidia CNN workloads (measured / predicted 0.50-1.20)");
  // One row below the prediction: the range runs from it up to the prediction.
  s = sureness(bands, "infer", "decoder_llm", "intel", "fp8", 100, 0);
  ASSERT_TRUE(s.throughput);
  EXPECT_DOUBLE_EQ(s.throughput->low, 40);
  EXPECT_DOUBLE_EQ(s.throughput->high, 100);
  EXPECT_FALSE(s.latency_s);
  // One row is "row"; the family is named in words.
  EXPECT_EQ(s.throughput->basis, "1 published inference row of intel decoder LLM workloads (measured / predicted 0.40-0.40)");
  // A precision none of the rows was checked in: the range, but unvalidated.
  s = sureness(bands, "infer", "cnn", "nvidia", "bf16", 1000, 0.01);
  EXPECT_TRUE(s.throughput);
  EXPECT_TRUE(s.unvalidated);
  EXPECT_NE(s.note.find("none of the published inference rows of nvidia CNN workloads was checked in bf16"), std::string::npos) << s.note;
  // No band: unvalidated, no range.
  s = sureness(bands, "train", "cnn", "amd", "bf16", 1000, 1);
  EXPECT_FALSE(s.throughput);
  EXPECT_TRUE(s.unvalidated);
  EXPECT_EQ(s.note, "no published training rows of amd CNN workloads check this combination");
}

}  // namespace
}  // namespace rooftop::model
