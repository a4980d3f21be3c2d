// The Server-scenario simulation: hand-computed scheduler traces (TTFTs,
// chunked prefill, paged KV admission and preemption), the offline formula
// reproduced when every request is present at time 0, and the trace reader.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "model/serve_sim.h"
#include "unit/model/fixtures.h"
#include "workload/workload.h"

namespace rooftop::model {
namespace {

// 10 ms per iteration plus 0.1 ms per prefill token.
double hand_price(const Iteration& it) { return 0.010 + 1e-4 * it.prefill_tokens; }

std::vector<ServeRequest> five_requests() {
  return {{0.000, 100, 3}, {0.005, 50, 2}, {0.100, 200, 1}, {0.100, 100, 2}, {0.500, 10, 1}};
}

TEST(ServeSim, FiveRequestTraceOneSequenceAtATime) {
  SchedulerConfig cfg;
  cfg.max_seqs = 1;
  cfg.kv_blocks = 1000;
  ServeStats s = simulate(five_requests(), cfg, hand_price);
  // r0: prefill 100 (20 ms) -> first token at 0.020; two decodes -> done at 0.040.
  // r1 (arrived 0.005) waits: prefill 50 (15 ms) at 0.040 -> 0.055; decode -> 0.065.
  // r2, r3 arrive at 0.1: r2 prefill 200 (30 ms) -> 0.130, one token, done;
  // r3 prefill 100 (20 ms) -> 0.150; decode -> 0.160. r4 at 0.5: 11 ms.
  ASSERT_EQ(s.first_token_s.size(), 5u);
  EXPECT_NEAR(s.first_token_s[0], 0.020, 1e-12);
  EXPECT_NEAR(s.first_token_s[1], 0.055, 1e-12);
  EXPECT_NEAR(s.first_token_s[2], 0.130, 1e-12);
  EXPECT_NEAR(s.first_token_s[3], 0.150, 1e-12);
  EXPECT_NEAR(s.first_token_s[4], 0.511, 1e-12);
  EXPECT_NEAR(s.finish_s[0], 0.040, 1e-12);
  EXPECT_NEAR(s.finish_s[3], 0.160, 1e-12);
  // TTFTs 0.020, 0.050, 0.030, 0.050, 0.011: nearest-rank p50 is the 3rd.
  EXPECT_NEAR(s.ttft_s.p50, 0.030, 1e-12);
  EXPECT_NEAR(s.ttft_s.p99, 0.050, 1e-12);
  // TPOT after the first token: r0 (0.040 - 0.020) / 2, r1 0.010, r3 0.010.
  EXPECT_NEAR(s.tpot_s.p99, 0.010, 1e-12);
  EXPECT_EQ(s.requests, 5);
  EXPECT_EQ(s.iterations, 9);
}

TEST(ServeSim, FiveRequestTraceContinuousBatching) {
  SchedulerConfig cfg;
  cfg.max_seqs = 2;
  cfg.kv_blocks = 1000;
  ServeStats s = simulate(five_requests(), cfg, hand_price);
  // r0 prefill -> 0.020. Then r0 decodes while r1 (50 tokens) is prefilled:
  // 15 ms -> 0.035 (r1's first token). Both decode: 0.045, done.
  // r2 and r3 prefill together (300 tokens, 40 ms) -> 0.140; r3 decodes -> 0.150.
  EXPECT_NEAR(s.first_token_s[0], 0.020, 1e-12);
  EXPECT_NEAR(s.first_token_s[1], 0.035, 1e-12);
  EXPECT_NEAR(s.first_token_s[2], 0.140, 1e-12);
  EXPECT_NEAR(s.first_token_s[3], 0.140, 1e-12);
  EXPECT_NEAR(s.first_token_s[4], 0.511, 1e-12);
  EXPECT_NEAR(s.finish_s[0], 0.045, 1e-12);
  EXPECT_NEAR(s.finish_s[1], 0.045, 1e-12);
  EXPECT_NEAR(s.finish_s[3], 0.150, 1e-12);
}

TEST(ServeSim, ChunkedPrefillSharesTheTokenBudget) {
  SchedulerConfig cfg;
  cfg.max_seqs = 4;
  cfg.kv_blocks = 1000;
  cfg.chunk_tokens = 64;
  ServeStats s = simulate({{0.0, 100, 2}, {0.005, 50, 1}}, cfg, hand_price);
  // 1: r0 chunk 64 (16.4 ms). 2: r0's last 36 + r1's first 28 (16.4 ms) ->
  // r0's first token at 0.0328. 3: r0 decodes (1 token of budget) + r1's
  // last 22 (12.2 ms) -> 0.045: r1's token, r0's second: both done.
  EXPECT_NEAR(s.first_token_s[0], 0.0328, 1e-12);
  EXPECT_NEAR(s.first_token_s[1], 0.0450, 1e-12);
  EXPECT_NEAR(s.finish_s[0], 0.0450, 1e-12);
  EXPECT_EQ(s.iterations, 3);
}

// One second per iteration: times count iterations.
double one_second(const Iteration&) { return 1.0; }

TEST(ServeSim, PagedKvAdmitsWhileBlocksLast) {
  SchedulerConfig cfg;
  cfg.max_seqs = 10;
  cfg.block_tokens = 16;
  cfg.kv_blocks = 10;
  // 64-token prompts take 4 blocks; their first decode needs a 5th.
  ServeStats s = simulate({{0, 64, 2}, {0, 64, 2}, {0, 64, 2}}, cfg, one_second);
  // 1: A and B prefilled (8 blocks), C needs 4 of the 2 left: waits.
  // 2: A and B decode (one new block each, 0 left) and finish.
  // 3: C prefilled; 4: C decodes.
  EXPECT_DOUBLE_EQ(s.first_token_s[0], 1);
  EXPECT_DOUBLE_EQ(s.first_token_s[1], 1);
  EXPECT_DOUBLE_EQ(s.first_token_s[2], 3);
  EXPECT_DOUBLE_EQ(s.finish_s[2], 4);
  EXPECT_EQ(s.preemptions, 0);
}

TEST(ServeSim, ADecodeWithoutABlockEvictsTheNewestSequence) {
  SchedulerConfig cfg;
  cfg.max_seqs = 10;
  cfg.block_tokens = 16;
  cfg.kv_blocks = 8;
  ServeStats s = simulate({{0, 64, 3}, {0, 64, 3}}, cfg, one_second);
  // 1: both prefilled (8 blocks). 2: A needs a 5th block: B is evicted
  // (recompute: 64 + 1 tokens, 5 blocks); A decodes. 3: A decodes (no new
  // block) and finishes. 4: B's 65 tokens again, its second token. 5: B done.
  EXPECT_EQ(s.preemptions, 1);
  EXPECT_DOUBLE_EQ(s.finish_s[0], 3);
  EXPECT_DOUBLE_EQ(s.first_token_s[1], 1);
  EXPECT_DOUBLE_EQ(s.finish_s[1], 5);
}

TEST(ServeSim, BeamsShareThePromptBlocks) {
  SchedulerConfig cfg;
  cfg.max_seqs = 10;
  cfg.block_tokens = 16;
  cfg.kv_blocks = 4;
  cfg.prompt_kv_share = 0.25;  // 4 beams
  // 128 prompt tokens weigh 32 units (2 blocks): two requests fit at once.
  ServeStats s = simulate({{0, 128, 1}, {0, 128, 1}, {0, 128, 1}}, cfg, one_second);
  EXPECT_DOUBLE_EQ(s.first_token_s[1], 1);
  EXPECT_DOUBLE_EQ(s.first_token_s[2], 2);
}

// A small decoder with paired prefill and decode operators (a projection
// and fused attention over the KV cache), built like the transformer
// builder builds them.
workload::Workload paired_llm() {
  workload::Workload w;
  w.id = "test-paired-llm";
  w.family = workload::Family::decoder_llm;
  w.throughput_unit = "tokens/s";
  w.input_tokens = 120;
  w.output_tokens = 40;
  const double h = 2048, kv = 512, I = w.input_tokens, ctx = I + w.output_tokens / 2.0;
  w.kv_elems_per_token = 2 * 16 * kv;
  auto op = [&](const char* name, workload::OpKind kind, workload::Phase ph, double flops, double weights, double in,
                double out) {
    workload::Operator o;
    o.name = name, o.kind = kind, o.phase = ph, o.repeat = 16;
    o.flops = flops, o.weight_elems = weights, o.params = weights, o.in_elems = in, o.out_elems = out;
    w.ops.push_back(o);
  };
  using workload::OpKind;
  using workload::Phase;
  op("qkv", OpKind::matmul, Phase::prefill, 2 * h * (h + 2 * kv) * I, h * (h + 2 * kv), h * I, (h + 2 * kv) * I);
  op("sdpa", OpKind::attention, Phase::prefill, 4 * h * I * (I + 1) / 2, 0, (h + 2 * kv) * I, h * I);
  op("mlp", OpKind::matmul, Phase::prefill, 2 * h * 4 * h * I, 4 * h * h, h * I, 4 * h * I);
  op("qkv", OpKind::matmul, Phase::decode, 2 * h * (h + 2 * kv), h * (h + 2 * kv), h, h + 2 * kv);
  op("sdpa", OpKind::attention, Phase::decode, 4 * h * ctx, 0, h + 2 * kv * ctx, h);
  op("mlp", OpKind::matmul, Phase::decode, 2 * h * 4 * h, 4 * h * h, h, 4 * h);
  w.params = w.active_params = 16 * (h * (h + 2 * kv) + 4 * h * h);
  w.activation_elems_per_sample = 5 * h * I;
  return w;
}

TEST(ServeSim, EveryRequestAtTimeZeroReproducesTheOfflineFormula) {
  catalog::Accelerator a = testing::test_gpu();
  for (const workload::Workload& w : {testing::llm_model(), paired_llm()}) {
    Request req;
    req.accelerator = &a;
    req.workload = &w;
    req.precision = Precision::fp16;
    const int B = 8;
    req.batch = B;
    Result<Prediction> off = predict(req);
    ASSERT_TRUE(off) << off.error().what();
    Result<IterationTime> price = roofline_iteration_time(req, Precision::fp16, off->plan);
    ASSERT_TRUE(price) << price.error().what();
    // Three full batches present at time 0, whole prompts, KV to spare.
    std::vector<ServeRequest> all(3 * B, ServeRequest{0, w.input_tokens, w.output_tokens});
    SchedulerConfig cfg;
    cfg.max_seqs = B;
    cfg.kv_blocks = 1e9;
    ServeStats s = simulate(all, cfg, *price);
    // throughput = B x O / (P(B) + (O - 1) x S(B)), the prefill of the whole
    // batch then O - 1 decode steps, three times over.
    EXPECT_NEAR(s.tokens_per_s, off->throughput, 1e-9 * off->throughput) << w.id;
    EXPECT_EQ(s.iterations, 3 * w.output_tokens) << w.id;
  }
}

// The simulation prices iterations with the evaluator's own step pricing:
// with every request present at time 0 it reproduces predict's offline
// throughput on real parts and models, at 16 and 8 bits, with and without
// tensor parallelism (whose all-reduces stay 16-bit under fp8 math), dense
// and mixture of experts.
TEST(ServeSim, EveryRequestAtTimeZeroReproducesPredictOnTheZoo) {
  Result<catalog::Catalog> cat = catalog::load_catalog(catalog::embedded_sources(), {});
  ASSERT_TRUE(cat) << cat.error().what();
  const catalog::Accelerator* h100 = cat->find("nvidia-h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  for (const char* id : {"llama-3.1-8b", "mixtral-8x7b"}) {
    Result<workload::Workload> w = workload::build_zoo(id, {});
    ASSERT_TRUE(w) << w.error().what();
    for (Precision p : {Precision::fp16, Precision::fp8}) {
      for (int tp : {1, 8}) {
        if (std::string(id) == "mixtral-8x7b" && tp == 1 && p == Precision::fp16) continue;  // 93 GiB of weights
        Request req;
        req.accelerator = h100;
        req.workload = &*w;
        req.precision = p;
        req.count = tp;
        req.plan.tp = tp;
        const int B = 8;
        req.batch = B;
        Result<Evaluator> ev = Evaluator::make(req);
        ASSERT_TRUE(ev) << ev.error().what();
        Result<Prediction> off = ev->search();
        ASSERT_TRUE(off) << id << " tp " << tp << ": " << off.error().what();
        ASSERT_EQ(off->plan.tp, tp);
        Result<IterationTime> price = ev->iteration_time(off->plan);
        ASSERT_TRUE(price) << price.error().what();
        std::vector<ServeRequest> all(3 * B, ServeRequest{0, w->input_tokens, w->output_tokens});
        SchedulerConfig cfg;
        cfg.max_seqs = B;
        cfg.kv_blocks = 1e9;
        ServeStats s = simulate(all, cfg, *price);
        EXPECT_NEAR(s.tokens_per_s, off->throughput, 1e-3 * off->throughput)
            << id << " " << to_string(p) << " tp " << tp;
      }
    }
  }
}

TEST(ServeSim, OnePassModelsBatchQueuedRequests) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::matmul_model(1e9);
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.batch = 16;
  Result<Prediction> off = predict(req);
  ASSERT_TRUE(off);
  Result<IterationTime> price = roofline_iteration_time(req, Precision::fp16, off->plan);
  ASSERT_TRUE(price);
  // 64 requests at time 0, batches of 16: four passes of latency(16).
  SchedulerConfig cfg;
  cfg.max_seqs = 16;
  cfg.kv_blocks = 1e12;
  ServeStats s = simulate(std::vector<ServeRequest>(64, ServeRequest{0, 1, 1}), cfg, *price);
  EXPECT_EQ(s.iterations, 4);
  EXPECT_NEAR(s.tokens_per_s, off->throughput, 1e-9 * off->throughput);
  EXPECT_NEAR(s.latency_s.p99, 4 * off->latency_s, 1e-12);
  // The Server scenario: within the default 100 ms p99, about the offline
  // throughput at most (a finite run may end before a queue barely above
  // capacity breaks the bound).
  req.batch.reset();
  req.scenario = Scenario::server;
  Result<ServePrediction> v = simulate_server(req, ServeOptions{});
  ASSERT_TRUE(v) << v.error().what();
  EXPECT_FALSE(v->llm);
  EXPECT_DOUBLE_EQ(v->bounds.latency_s, 0.1);
  EXPECT_GT(v->max_rate_per_s, 0);
  EXPECT_LE(v->at_max.latency_s.p99, 0.1);
  req.scenario = Scenario::offline;
  EXPECT_LT(v->max_rate_per_s, 1.05 * predict(req)->throughput);
}

TEST(ServeSim, MixedIterationsReadTheWeightsOnce) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = paired_llm();
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  Result<IterationTime> price = roofline_iteration_time(req, Precision::fp16, Plan{});
  ASSERT_TRUE(price);
  Iteration dec{0, 0, 4, 4 * 140.0};
  Iteration pre{64, 64 * 65 / 2.0, 0, 0};
  Iteration both{64, 64 * 65 / 2.0, 4, 4 * 140.0};
  const double sum = (*price)(dec) + (*price)(pre);
  EXPECT_LT((*price)(both), sum);
  EXPECT_GT((*price)(both), std::max((*price)(dec), (*price)(pre)));
}

// advise's options: no highest-rate search, and a cap on the ten minutes
// of Poisson traffic; the run at the rate is the same one.
TEST(ServeSim, RateOnlyRunsAndTheRequestCap) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::llm_model();
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.scenario = Scenario::server;
  ServeOptions o;
  o.rate_per_s = 10;  // ten minutes: 6,000 requests, over the 1,500 cap
  Result<ServePrediction> full = simulate_server(req, o);
  ASSERT_TRUE(full) << full.error().what();
  EXPECT_EQ(full->at_rate.requests, 1500);
  EXPECT_GT(full->max_rate_per_s, 0);
  o.max_rate = false;
  Result<ServePrediction> rate_only = simulate_server(req, o);
  ASSERT_TRUE(rate_only);
  EXPECT_EQ(rate_only->max_rate_per_s, 0);
  EXPECT_EQ(rate_only->at_max.requests, 0);
  EXPECT_EQ(rate_only->at_rate.latency_s.p99, full->at_rate.latency_s.p99);
  o.max_requests = 1000;
  Result<ServePrediction> capped = simulate_server(req, o);
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->at_rate.requests, 1000);
  o.requests = 1000;
  o.max_requests = 0;
  Result<ServePrediction> fixed = simulate_server(req, o);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->at_rate.latency_s.p99, capped->at_rate.latency_s.p99);
  o.requests = 0;
  o.rate_per_s = 0.1;  // one minute of traffic is 60 requests: the 500 floor holds under the cap
  EXPECT_EQ(simulate_server(req, o)->at_rate.requests, 500);
}

// The rate search stops a run once its p99 can no longer meet a bound:
// the rate it finds is still the edge that whole runs draw.
TEST(ServeSim, TheHighestRateIsTheEdgeWholeRunsDraw) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::llm_model();
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.scenario = Scenario::server;
  Result<ServePrediction> found = simulate_server(req, ServeOptions{});
  ASSERT_TRUE(found) << found.error().what();
  ASSERT_GT(found->max_rate_per_s, 0);
  EXPECT_FALSE(found->at_max.failed_bounds);
  auto whole_run_meets = [&](double rate) {
    ServeOptions o;
    o.rate_per_s = rate;
    o.max_rate = false;
    Result<ServePrediction> r = simulate_server(req, o);
    EXPECT_TRUE(r);
    EXPECT_FALSE(r->at_rate.failed_bounds);   // a whole run: never stopped
    const ServeBounds& b = r->bounds;
    return r->at_rate.requests > 0 && (b.ttft_s <= 0 || r->at_rate.ttft_s.p99 <= b.ttft_s) &&
           (b.tpot_s <= 0 || r->at_rate.tpot_s.p99 <= b.tpot_s) &&
           (b.latency_s <= 0 || r->at_rate.latency_s.p99 <= b.latency_s);
  };
  EXPECT_TRUE(whole_run_meets(found->max_rate_per_s));
  // Passing is not monotone in the rate at the edge (each rate draws its own
  // arrivals and count), but well past it a whole run fails.
  EXPECT_FALSE(whole_run_meets(found->max_rate_per_s * 1.3));
}

TEST(ServeSim, PercentilesAreNearestRank) {
  std::vector<double> v = {5, 1, 4, 2, 3, 6, 7, 8, 9, 10};
  Percentiles p = percentiles(v);
  EXPECT_DOUBLE_EQ(p.p50, 5);
  EXPECT_DOUBLE_EQ(p.p90, 9);
  EXPECT_DOUBLE_EQ(p.p99, 10);
  std::vector<double> none;
  EXPECT_DOUBLE_EQ(percentiles(none).p99, 0);
}

TEST(ServeTrace, ParsesLengthsAndArrivals) {
  bool arrivals = false;
  Result<std::vector<ServeRequest>> t =
      parse_serve_trace("# a comment\narrival_s,input_tokens,output_tokens\n0,100,10\n0.5,20,3\n", "t.csv", &arrivals);
  ASSERT_TRUE(t) << t.error().what();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_TRUE(arrivals);
  EXPECT_DOUBLE_EQ((*t)[1].arrival_s, 0.5);
  EXPECT_EQ((*t)[1].input_tokens, 20);
  EXPECT_EQ((*t)[1].output_tokens, 3);
  Result<std::vector<ServeRequest>> lengths = parse_serve_trace("input_tokens,output_tokens\n7,8\n", "t.csv", &arrivals);
  ASSERT_TRUE(lengths);
  EXPECT_FALSE(arrivals);
}

TEST(ServeTrace, BadInputNamesTheLineAndColumn) {
  auto err = [](std::string_view text) {
    Result<std::vector<ServeRequest>> t = parse_serve_trace(text, "t.csv");
    EXPECT_FALSE(t);
    return t ? std::string() : t.error().what();
  };
  EXPECT_NE(err("input_tokens,output_tokens\n10,zero\n").find("t.csv:2"), std::string::npos);
  EXPECT_NE(err("input_tokens,output_tokens\n10,zero\n").find("output_tokens 'zero'"), std::string::npos);
  EXPECT_NE(err("input_tokens,output_tokens\n10\n").find("expected 2 fields"), std::string::npos);
  EXPECT_NE(err("input_tokens,prompt\n1,2\n").find("unknown column 'prompt'"), std::string::npos);
  EXPECT_NE(err("arrival_s\n1\n").find("needs input_tokens and output_tokens"), std::string::npos);
  EXPECT_NE(err("input_tokens,output_tokens,arrival_s\n1,2,-1\n").find("arrival_s '-1'"), std::string::npos);
  EXPECT_NE(err("").find("empty trace"), std::string::npos);
  EXPECT_NE(err("input_tokens,output_tokens\n").find("no requests"), std::string::npos);
}

TEST(ServeBoundsTable, MlperfBoundsPerModel) {
  workload::Workload w = testing::llm_model();
  w.id = "llama-3.1-405b";
  ServeBounds b = server_bounds(w, std::nullopt);
  EXPECT_DOUBLE_EQ(b.ttft_s, 6.0);
  EXPECT_DOUBLE_EQ(b.tpot_s, 0.175);
  w.id = "gpt-j-6b";
  EXPECT_DOUBLE_EQ(server_bounds(w, std::nullopt).latency_s, 20.0);
  // Without a decode phase: the latency target bounds the whole request.
  w = testing::matmul_model(1e6);
  w.id = "some-cnn";
  EXPECT_DOUBLE_EQ(server_bounds(w, 0.05).latency_s, 0.05);
  EXPECT_DOUBLE_EQ(server_bounds(w, std::nullopt).latency_s, 0.1);
  w.id = "resnet50";
  EXPECT_DOUBLE_EQ(server_bounds(w, std::nullopt).latency_s, 0.015);
  // An LLM the table lacks: llama2-70b's bounds, the target replacing TPOT.
  w = testing::llm_model();
  EXPECT_DOUBLE_EQ(server_bounds(w, std::nullopt).ttft_s, 2.0);
  EXPECT_DOUBLE_EQ(server_bounds(w, 0.05).tpot_s, 0.05);
}

}  // namespace
}  // namespace rooftop::model
