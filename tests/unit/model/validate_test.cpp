// Measurement CSV parsing and per-row predictions (`rooftop validate`) on a
// hand-built catalog.
#include <gtest/gtest.h>

#include "model/model.h"
#include "model/serve_sim.h"
#include "model/validate.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::matmul_model;
using testing::test_gpu;

const char* const kHeader =
    "id,accelerator_id,model_id,category,accelerator_count,workload,scenario,precision,batch_size,metric,"
    "metric_value,unit,notes\n";

catalog::Catalog one_gpu() {
  catalog::Catalog c;
  c.accelerators.push_back(test_gpu());
  return c;
}

WorkloadLoader loader() {
  return [](const std::string& id, const workload::BuildOptions&) -> Result<workload::Workload> {
    if (id == "test-mlp") return matmul_model(1e9);
    if (id == "test-llm") return testing::llm_model();
    if (id == "llama-2-70b") {  // a small LLM under the id MLPerf's Interactive bounds are given for
      workload::Workload w = testing::llm_model();
      w.id = id;
      return w;
    }
    if (id == "test-recsys") {
      workload::Workload w = matmul_model(1e9);
      w.id = id;
      w.family = workload::Family::recsys;
      w.pairs_per_sample = 100;
      return w;
    }
    return make_error(Errc::not_found, "unknown model '" + id + "'");
  };
}

TEST(Csv, ParsesQuotedFieldsAndMultilineCells) {
  std::string text = std::string(kHeader) +
                     "R1,test-gpu,gemm,microbench_gemm,1,\"dense matmul, best shape 8192x8192x8192\",microbench,"
                     "BF16,,\"TFLOP/s, \"\"mean\"\"\",70.5,TFLOP/s,\"two\nlines\"\n"
                     "R2,test-gpu,test-mlp,mlperf_inference,2,x,Offline,,\"32 (BS32)\",samples/s,100,samples/s,\n";
  std::vector<MeasurementRow> rows = *parse_measurements(text, "m.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].workload, "dense matmul, best shape 8192x8192x8192");
  EXPECT_EQ(rows[0].metric, "TFLOP/s, \"mean\"");
  EXPECT_DOUBLE_EQ(rows[0].measured, 70.5);
  EXPECT_EQ(rows[0].line, 2);
  EXPECT_EQ(rows[1].line, 4);
  EXPECT_EQ(rows[1].count, 2);
}

TEST(Csv, MissingColumnsNameThemWithLineOne) {
  Result<std::vector<MeasurementRow>> r = parse_measurements("id,accelerator_id\nA,b\n", "m.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "m.csv:1");
  EXPECT_NE(r.error().message.find("metric_value"), std::string::npos);
}

TEST(Csv, BadNumbersNameTheLine) {
  std::string text = std::string(kHeader) + "R1,test-gpu,gemm,microbench_gemm,1,x,m,BF16,,m,abc,TFLOP/s,\n";
  Result<std::vector<MeasurementRow>> r = parse_measurements(text, "m.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "m.csv:2");
  text = std::string(kHeader) + "R1,test-gpu,gemm,microbench_gemm,two,x,m,BF16,,m,1,TFLOP/s,\n";
  EXPECT_EQ(parse_measurements(text, "m.csv").error().context, "m.csv:2");
  text = std::string(kHeader) + "R1,test-gpu,gemm\n";
  EXPECT_NE(parse_measurements(text, "m.csv").error().message.find("fields"), std::string::npos);
}

MeasurementRow row(std::string category, std::string model, std::string workload, std::string precision,
                   std::string metric, std::string unit, double measured, int count = 1) {
  MeasurementRow r;
  r.id = "R";
  r.accelerator_id = "test-gpu";
  r.model_id = std::move(model);
  r.category = std::move(category);
  r.workload = std::move(workload);
  r.precision = std::move(precision);
  r.metric = std::move(metric);
  r.unit = std::move(unit);
  r.measured = measured;
  r.count = count;
  r.scenario = "Offline";
  return r;
}

TEST(Rows, GemmIsOneMatmulOfTheShapeInTheText) {
  catalog::Catalog c = one_gpu();
  RowResult r = predict_row(row("microbench_gemm", "gemm", "best shape 8192x8192x8192", "BF16", "max", "TFLOP/s", 70),
                            c, loader());
  ASSERT_TRUE(r.predicted) << r.reason;
  EXPECT_NEAR(*r.predicted, *gemm_flop_per_s(c.accelerators[0], Precision::bf16, 8192, 8192, 8192) / 1e12, 1e-9);
  EXPECT_NEAR(r.error_pct, (*r.predicted - 70) / 70 * 100, 1e-9);
  RowResult fp8 = predict_row(row("microbench_gemm", "gemm", "8x8x8", "FP8 (e4m3fn)", "max", "TFLOP/s", 1), c, loader());
  EXPECT_FALSE(fp8.predicted);
  EXPECT_NE(fp8.reason.find("fp16"), std::string::npos);
}

TEST(Rows, StreamAllReduceAndCopy) {
  catalog::Catalog c = one_gpu();
  RowResult s = predict_row(row("microbench_memory_bw", "stream-triad", "triad, fp64, 128Mi-element buffers",
                                "FP64 data", "bw", "GB/s", 800), c, loader());
  ASSERT_TRUE(s.predicted) << s.reason;
  EXPECT_NEAR(*s.predicted, 800, 1);
  RowResult ar = predict_row(row("microbench_interconnect", "all-reduce", "all-reduce, 16GiB payload, one node", "",
                                 "all-reduce busbw", "GB/s", 80, 8), c, loader());
  ASSERT_TRUE(ar.predicted) << ar.reason;
  EXPECT_NEAR(*ar.predicted, 80, 0.1);
  RowResult nodes = predict_row(row("microbench_interconnect", "all-reduce", "all-reduce, 4GiB, 4 nodes x 8", "",
                                    "busbw", "GB/s", 300, 32), c, loader());
  EXPECT_FALSE(nodes.predicted);
  EXPECT_NE(nodes.reason.find("nodes"), std::string::npos);
  RowResult copy = predict_row(row("microbench_interconnect", "device-copy", "bidirectional_memcpy", "",
                                   "bidirectional copy", "GB/s", 150, 2), c, loader());
  ASSERT_TRUE(copy.predicted);
  EXPECT_NEAR(*copy.predicted, 160, 0.01);
}

// The request an fp16 inference row of test-mlp at batch 1 amounts to.
Request fp16_batch1(const catalog::Accelerator& a, const workload::Workload& w) {
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.batch = 1;
  return req;
}

TEST(Rows, LlmServerRowsComeFromTheSchedulerSimulation) {
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "test-llm", "x", "FP16", "tokens/s", "tokens/s", 400, 1);
  m.scenario = "Server";
  RowResult r = predict_row(m, c, loader());
  ASSERT_TRUE(r.predicted) << r.reason;
  catalog::Accelerator a = test_gpu();
  workload::Workload w = testing::llm_model();
  Request req = fp16_batch1(a, w);
  req.batch.reset();  // the row gives none
  req.scenario = Scenario::server;
  req.detail = false;
  Result<ServePrediction> v = simulate_server(req, ServeOptions{});
  ASSERT_TRUE(v) << v.error().what();
  EXPECT_GT(v->max_rate_per_s, 0);
  EXPECT_DOUBLE_EQ(*r.predicted, v->max_tokens_per_s);
  EXPECT_NE(r.method.find("server simulation"), std::string::npos);
  // Within the llama2-70b bounds (the default for an LLM the table lacks).
  EXPECT_LE(v->at_max.ttft_s.p99, 2.0);
  EXPECT_LE(v->at_max.tpot_s.p99, 0.2);
}

// MLPerf's Interactive scenario: the Server run judged at p99 TTFT 450 ms
// and TPOT 40 ms (llama2-70b), whether the scenario cell or the benchmark
// name says it; a model MLPerf gives no Interactive bounds for is refused by name.
TEST(Rows, InteractiveRowsMeetTheTighterBounds) {
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "llama-2-70b", "x", "FP16", "tokens/s", "tokens/s", 400, 1);
  m.scenario = "Server";
  RowResult server = predict_row(m, c, loader());
  ASSERT_TRUE(server.predicted) << server.reason;
  m.scenario = "Interactive";
  RowResult inter = predict_row(m, c, loader());
  ASSERT_TRUE(inter.predicted) << inter.reason;
  EXPECT_NE(inter.method.find("Interactive bounds"), std::string::npos) << inter.method;
  EXPECT_LT(*inter.predicted, *server.predicted);
  m.scenario = "Server";
  m.workload = "llama2-70b-interactive-99 (MLPerf Inf v5.0)";
  RowResult named = predict_row(m, c, loader());
  ASSERT_TRUE(named.predicted) << named.reason;
  EXPECT_DOUBLE_EQ(*named.predicted, *inter.predicted);

  catalog::Accelerator a = test_gpu();
  workload::Workload w = *loader()("llama-2-70b", {});
  Request req = fp16_batch1(a, w);
  req.batch.reset();
  req.scenario = Scenario::server;
  ServeOptions so;
  so.bounds = *interactive_bounds(w);
  Result<ServePrediction> v = simulate_server(req, so);
  ASSERT_TRUE(v) << v.error().what();
  EXPECT_LE(v->at_max.ttft_s.p99, 0.45);
  EXPECT_LE(v->at_max.tpot_s.p99, 0.04);

  MeasurementRow other = row("mlperf_inference", "test-llm", "x", "FP16", "tokens/s", "tokens/s", 400, 1);
  other.scenario = "Interactive";
  RowResult refused = predict_row(other, c, loader());
  EXPECT_FALSE(refused.predicted);
  EXPECT_NE(refused.reason.find("Interactive bounds for llama-2-70b"), std::string::npos) << refused.reason;
}

// A row the catalog or zoo cannot place names the missing part or model
// from the CSV's own description columns, not an empty id.
TEST(Rows, MissingPartsAndModelsAreNamed) {
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "test-mlp", "x", "FP16", "samples/s", "samples/s", 400, 1);
  m.accelerator_id = "";
  m.columns = {{"accelerator", "Intel Xeon Platinum 8592+"}};
  RowResult r = predict_row(m, c, loader());
  EXPECT_FALSE(r.predicted);
  EXPECT_EQ(r.reason, "column accelerator_id is empty: the catalog has no entry for 'Intel Xeon Platinum 8592+'");
  MeasurementRow t = row("mlperf_training", "", "rgat (MLPerf Training v4.0, Sub/system)", "BF16", "minutes", "minutes", 10, 8);
  RowResult u = predict_row(t, c, loader());
  EXPECT_FALSE(u.predicted);
  EXPECT_EQ(u.reason, "column model_id is empty: the zoo has no model for 'rgat'");
}

// `validate --by`: any column, each group's MdAPE, median speed ratio and worst row.
TEST(Validation, GroupsByAnyColumn) {
  catalog::Catalog c = one_gpu();
  std::vector<MeasurementRow> rows;
  for (const char* sc : {"Offline", "Server", "Offline"}) {
    MeasurementRow m = row("mlperf_inference", "test-llm", "x", "FP16", "tokens/s", "tokens/s", 400, 1);
    m.scenario = sc;
    m.columns = {{"scenario", sc}, {"software_stack", "stack-a"}};
    rows.push_back(m);
  }
  rows[2].id = "third";
  rows[2].measured = 4;  // far off
  Validation v = validate(rows, c, loader());
  Result<std::vector<GroupSummary>> g = group_by(v, {"scenario", "vendor"});
  ASSERT_TRUE(g) << g.error().what();
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].key, (std::vector<std::string>{"Offline", "test"}));
  EXPECT_EQ((*g)[0].rows, 2);
  EXPECT_EQ((*g)[0].worst_id, "third");
  EXPECT_GT((*g)[0].median_speed_ratio, 1);
  EXPECT_EQ((*g)[1].key[0], "Server");
  Result<std::vector<GroupSummary>> bad = group_by(v, {"nope"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().context, "--by");
  EXPECT_NE(bad.error().message.find("software_stack"), std::string::npos);
}

TEST(Rows, RecommenderBatchesCountUserItemPairs) {
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "test-recsys", "x", "FP16", "samples/s", "samples/s", 400, 1);
  m.batch = "25000";  // pairs: 250 samples of 100 pairs
  RowResult r = predict_row(m, c, loader());
  ASSERT_TRUE(r.predicted) << r.reason;
  EXPECT_NE(r.method.find("batch 250 "), std::string::npos) << r.method;
}

TEST(Rows, InferenceRowsGoThroughPredictPerAccelerator) {
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "test-mlp", "x", "FP16", "samples/s", "samples/s", 400, 4);
  m.batch = "1";
  RowResult r = predict_row(m, c, loader());
  ASSERT_TRUE(r.predicted) << r.reason;
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request req = fp16_batch1(a, w);
  EXPECT_NEAR(*r.predicted, predict(req)->throughput, 1e-6);
  m.scenario = "SingleStream";
  m.unit = "ms";
  RowResult ss = predict_row(m, c, loader());
  EXPECT_NEAR(*ss.predicted, predict(req)->latency_s * 1e3, 1e-9);
  m.model_id = "nope";
  EXPECT_NE(predict_row(m, c, loader()).reason.find("nope"), std::string::npos);
  m.accelerator_id = "other-gpu";
  EXPECT_FALSE(predict_row(m, c, loader()).predicted);
}

TEST(Rows, AFormatThePartLacksIsReadAsTheOneItRuns) {
  // The test GPU has fp16/bf16/fp32 peaks only: "INT4" is weight-only int4
  // with fp16 math; "FP8" has no 8-bit counterpart and stays unpredicted.
  catalog::Catalog c = one_gpu();
  MeasurementRow m = row("mlperf_inference", "test-mlp", "x", "INT4", "samples/s", "samples/s", 400);
  m.batch = "1";
  RowResult r = predict_row(m, c, loader());
  ASSERT_TRUE(r.predicted) << r.reason;
  EXPECT_NE(r.method.find("int4 read as int4 weights with fp16 math"), std::string::npos) << r.method;
  m.precision = "INT4 weights";
  EXPECT_NEAR(*predict_row(m, c, loader()).predicted, *r.predicted, 1e-9);
  m.precision = "FP8";
  EXPECT_FALSE(predict_row(m, c, loader()).predicted);
  // A part with fp8 but no int8 runs an "INT8" row at fp8.
  c.accelerators[0].peak_flop_per_s[static_cast<std::size_t>(Precision::fp8)] = {200e12, "test"};
  m.precision = "INT8";
  RowResult q = predict_row(m, c, loader());
  ASSERT_TRUE(q.predicted) << q.reason;
  EXPECT_NE(q.method.find("fp8 math (no int8 peak in the catalog)"), std::string::npos) << q.method;
}

TEST(Rows, PublishedSpellingsOfUnitsScenariosAndPrecisions) {
  catalog::Catalog c = one_gpu();
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request req = fp16_batch1(a, w);
  const double per_s = predict(req)->throughput;
  MeasurementRow m = row("mlperf_inference", "test-mlp", "x", "FP16", "throughput", "samples/s", 400);
  m.batch = "1";
  for (const char* unit : {"images/s", "FPS", "queries/s", "samples/s"}) {
    m.unit = unit;
    RowResult r = predict_row(m, c, loader());
    ASSERT_TRUE(r.predicted) << unit << ": " << r.reason;
    EXPECT_NEAR(*r.predicted, per_s, 1e-6) << unit;
  }
  // "latency" and SingleStream: one sample; MultiStream: one query of 8.
  m.unit = "ms";
  m.batch = "";
  m.scenario = "latency";
  EXPECT_NEAR(*predict_row(m, c, loader()).predicted, predict(req)->latency_s * 1e3, 1e-9);
  m.scenario = "Single Stream";
  EXPECT_NEAR(*predict_row(m, c, loader()).predicted, predict(req)->latency_s * 1e3, 1e-9);
  m.scenario = "MultiStream";
  req.batch = 8;
  RowResult ms = predict_row(m, c, loader());
  ASSERT_TRUE(ms.predicted) << ms.reason;
  EXPECT_NEAR(*ms.predicted, predict(req)->latency_s * 1e3, 1e-9);
  req.batch = 1;
  // Precisions: weights only, mixed (the first format named computes), quantized (the default).
  m.scenario = "Offline";
  m.unit = "samples/s";
  m.batch = "1";
  m.precision = "INT4 weights";
  RowResult w4 = predict_row(m, c, loader());
  ASSERT_TRUE(w4.predicted) << w4.reason;
  EXPECT_NE(w4.method.find("int4 weights"), std::string::npos) << w4.method;
  m.precision = "FP16/FP8 mixed UNet";
  RowResult mixed = predict_row(m, c, loader());
  ASSERT_TRUE(mixed.predicted) << mixed.reason;
  EXPECT_NEAR(*mixed.predicted, per_s, 1e-6);
  m.precision = "quantized";
  EXPECT_TRUE(predict_row(m, c, loader()).predicted);
  m.precision = "w4a16";
  EXPECT_TRUE(predict_row(m, c, loader()).predicted);
  // What still cannot be predicted names the column and the value.
  m.precision = "mystery";
  RowResult bad = predict_row(m, c, loader());
  EXPECT_FALSE(bad.predicted);
  EXPECT_NE(bad.reason.find("column precision: 'mystery'"), std::string::npos) << bad.reason;
  m.precision = "FP16";
  m.unit = "furlongs/s";
  bad = predict_row(m, c, loader());
  EXPECT_NE(bad.reason.find("column unit: 'furlongs/s'"), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("images/s"), std::string::npos);
  m.unit = "samples/s";
  m.scenario = "Bursty";
  bad = predict_row(m, c, loader());
  EXPECT_NE(bad.reason.find("column scenario: 'Bursty'"), std::string::npos) << bad.reason;
  m.scenario = "single-stream LLM decode tokens/s";
  m.unit = "tokens/s";
  bad = predict_row(m, c, loader());
  EXPECT_FALSE(bad.predicted);
  EXPECT_NE(bad.reason.find("not an LLM"), std::string::npos) << bad.reason;
  m.scenario = "Offline";
  m.model_id = "nope";
  EXPECT_NE(predict_row(m, c, loader()).reason.find("column model_id"), std::string::npos);
}

TEST(Validate, MedianOverPredictedRowsOnly) {
  EXPECT_DOUBLE_EQ(median_abs({-10, 2, 30}), 10);
  EXPECT_DOUBLE_EQ(median_abs({-10, 2, 30, -4}), 7);
  catalog::Catalog c = one_gpu();
  std::vector<MeasurementRow> rows = {
      row("microbench_memory_bw", "stream", "triad", "FP64", "bw", "GB/s", 800),
      row("microbench_gemm", "gemm", "no shape here", "BF16", "max", "TFLOP/s", 70)};
  Validation v = validate(rows, c, loader());
  EXPECT_EQ(v.predicted, 1);
  ASSERT_TRUE(v.mdape_pct);
  EXPECT_LT(*v.mdape_pct, 1);
  EXPECT_NE(v.rows[1].reason.find("MxNxK"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::model
