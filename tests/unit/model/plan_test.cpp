// Parallel plans: the string syntax, its errors, and hand-computed training
// steps for each schedule, ZeRO stage and recompute mode; every collective
// against its formula; predict --plan reproducing a searched plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/internal.h"
#include "model/model.h"
#include "model/plan.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::matmul_model;
using testing::test_gpu;

TEST(Plan, ParsesEveryKeyAndPrintsItBack) {
  Result<PlanSpec> s = parse_plan("dp=8, tp=4,pp=2,mb=1,ga=16,zero=fsdp,recompute=selective,sp=1,ep=2,vp=3");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s->dp, 8);
  EXPECT_EQ(*s->tp, 4);
  EXPECT_EQ(*s->pp, 2);
  EXPECT_EQ(*s->mb, 1);
  EXPECT_EQ(*s->ga, 16);
  EXPECT_EQ(*s->zero, 3);
  EXPECT_EQ(*s->recompute, Recompute::selective);
  EXPECT_TRUE(*s->sp);
  EXPECT_EQ(*s->ep, 2);
  EXPECT_EQ(*s->vp, 3);
  Plan p;
  p.dp = 8, p.tp = 4, p.pp = 2, p.ga = 16, p.zero = 1, p.recompute = Recompute::full, p.sp = true;
  std::string text = to_string(p);
  EXPECT_EQ(text, "dp=8,tp=4,pp=2,ep=1,vp=1,mb=1,ga=16,zero=1,recompute=full,sp=1");
  Result<PlanSpec> back = parse_plan(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back->zero, 1);
  EXPECT_EQ(*back->recompute, Recompute::full);
  EXPECT_TRUE(parse_plan("tp=2")->empty() == false);
}

TEST(Plan, ErrorsNameTheOffendingKeyOrValue) {
  auto message = [](const char* text) {
    Result<PlanSpec> s = parse_plan(text);
    EXPECT_FALSE(s) << text;
    EXPECT_EQ(s.error().code, Errc::invalid_input);
    EXPECT_EQ(s.error().context, "--plan");
    return s.error().message;
  };
  EXPECT_NE(message("dp=8,tq=2").find("'tq'"), std::string::npos);
  EXPECT_NE(message("tp=0").find("tp='0'"), std::string::npos);
  EXPECT_NE(message("tp=two").find("tp='two'"), std::string::npos);
  EXPECT_NE(message("zero=4").find("zero='4'"), std::string::npos);
  EXPECT_NE(message("recompute=some").find("'some'"), std::string::npos);
  EXPECT_NE(message("dp8").find("'dp8'"), std::string::npos);
  EXPECT_FALSE(parse_plan(""));
}

TEST(Plan, PredictRejectsPlansThatDoNotFitTheCountOrTheModel) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  w.heads = 12;
  w.layers = 4;
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  r.task = workload::Task::train;
  r.count = 8;
  auto error = [&](const char* text) {
    r.plan = *parse_plan(text);
    Result<Prediction> p = predict(r);
    EXPECT_FALSE(p) << text;
    EXPECT_EQ(p.error().code, Errc::invalid_input);
    return p.error().message;
  };
  EXPECT_NE(error("tp=3").find("does not divide --count 8"), std::string::npos);
  EXPECT_NE(error("dp=3,tp=2").find("dp=3"), std::string::npos);
  EXPECT_NE(error("tp=8").find("tp=8 does not divide the 12 attention heads"), std::string::npos);
  EXPECT_NE(error("pp=8").find("pp=8"), std::string::npos);
  EXPECT_NE(error("tp=2,ep=2").find("ep=2"), std::string::npos);
}

// 1F1B runs at its slowest stage: the LM head after the layer stack sits
// whole on the last stage, so growing it slows every pipeline slot by all of
// its growth, not by 1/pp of it.
TEST(Plan, TheLastStageCarriesTheHeadWhole) {
  catalog::Accelerator a = test_gpu();
  auto model = [](double head_flops) {
    workload::Workload w = matmul_model(1e8);
    w.layers = 4;
    w.heads = 8;
    w.ops[0].name = "layers.fc";
    w.ops[0].repeat = 4;
    workload::Operator head = testing::one_op(workload::OpKind::matmul, head_flops, 1e6, 1000, 1000);
    head.name = "lm_head";
    head.params = 1e6;
    w.ops.push_back(head);
    w.params = w.active_params = 4e8 + 1e6;
    return w;
  };
  struct Run {
    double latency_s, head_mb_s;
  };
  auto run = [&](const workload::Workload& w) {
    Request r;
    r.accelerator = &a;
    r.workload = &w;
    r.task = workload::Task::train;
    r.count = 2;
    r.plan = *parse_plan("dp=1,tp=1,pp=2,vp=1,mb=64,ga=8,zero=0");
    Prediction p = *predict(r);
    double head = 0;  // one micro-batch, forward + backward (per_op holds k / pp of them)
    for (const OpPrediction& o : p.per_op)
      if (o.name == "lm_head" && o.phase != workload::Phase::optimizer) head += o.time_s * 2 / 8;
    return Run{p.latency_s, head};
  };
  const workload::Workload small = model(2e9), big = model(2e10);
  const Run x = run(small), y = run(big);
  const double grown = y.head_mb_s - x.head_mb_s, slots = 8 + 1;  // k + (pp - 1)
  ASSERT_GT(grown, 0);
  EXPECT_NEAR(y.latency_s - x.latency_s, slots * grown, 1e-9 * y.latency_s);
  // An even split would have charged half of it.
  EXPECT_GT(y.latency_s - x.latency_s, 1.9 * slots * grown / 2);
  // An unrolled graph (one operator per layer, no repeated stack) keeps the
  // even split: its stages cannot be told apart.
  workload::Workload unrolled_small = small, unrolled_big = big;
  for (workload::Workload* w : {&unrolled_small, &unrolled_big}) {
    workload::Operator layer = w->ops[0];
    layer.repeat = 1;
    w->ops.erase(w->ops.begin());
    for (int i = 0; i < 4; ++i) {
      layer.name = "layer" + std::to_string(i) + ".fc";
      w->ops.insert(w->ops.begin() + i, layer);
    }
  }
  const Run u = run(unrolled_small), v = run(unrolled_big);
  EXPECT_NEAR(v.latency_s - u.latency_s, slots * (v.head_mb_s - u.head_mb_s) / 2, 1e-9 * v.latency_s);
}

// Hand-built fabric: 8-device domains at 100 GB/s (x 0.8), 1 us per step;
// 25 GB/s per device across domains, 5 us per step.
detail::Fabric fabric() {
  detail::Fabric f;
  f.up.name = "up";
  f.up.peak_bytes_per_s = 100e9;
  f.link_efficiency = 0.8;
  f.up_latency_s = 1e-6;
  f.domain = 8;
  f.out_name = "net";
  f.out_bytes_per_s = 25e9;
  f.out_latency_s = 5e-6;
  return f;
}

TEST(Collectives, InsideOneDomainAreRings) {
  detail::Fabric f = fabric();
  using detail::Collective;
  const double S = 8e9, B = 80e9;
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::all_reduce, S, 8, 1, f), 2 * 7.0 / 8 * S / B + 14e-6);
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::reduce_scatter, S, 8, 1, f), 7.0 / 8 * S / B + 7e-6);
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::all_gather, S, 4, 2, f), 3.0 / 4 * S / B + 3e-6);
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::all_to_all, S, 8, 1, f), 7.0 / 8 * S / B + 7e-6);
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::p2p, S, 2, 1, f), S / B + 1e-6);
  EXPECT_DOUBLE_EQ(detail::collective_s(Collective::all_reduce, S, 1, 1, f), 0);
}

TEST(Collectives, ATorusRunsOneRingPerDimension) {
  detail::Fabric f = fabric();
  using detail::Collective;
  f.domain = 4096;
  f.torus_dims = 3;
  const double S = 8e9, B = 80e9;
  // 4,096 chips of a 3D torus: three rings of 16, 3 x 15 = 45 latency steps per pass, not 4,095.
  EXPECT_NEAR(detail::collective_s(Collective::all_reduce, S, 4096, 1, f), 2 * 4095.0 / 4096 * S / B + 2 * 45e-6, 1e-12);
  EXPECT_NEAR(detail::collective_s(Collective::reduce_scatter, S, 4096, 1, f), 4095.0 / 4096 * S / B + 45e-6, 1e-12);
  // A 2D torus of 256: two rings of 16.
  f.torus_dims = 2;
  EXPECT_NEAR(detail::collective_s(Collective::all_gather, S, 256, 1, f), 255.0 / 256 * S / B + 30e-6, 1e-12);
  // All-to-all still pairs every rank; small groups never take more steps than a flat ring.
  EXPECT_NEAR(detail::collective_s(Collective::all_to_all, S, 256, 1, f), 255.0 / 256 * S / B + 255e-6, 1e-12);
  EXPECT_NEAR(detail::collective_s(Collective::all_reduce, S, 2, 1, f), 2 * 0.5 * S / B + 2e-6, 1e-12);
}

TEST(Collectives, FullMeshUsesOnlyThePeerLinksARingNeeds) {
  detail::Fabric f = fabric();
  f.up.peers = 7;  // the 100 GB/s is the sum over 7 peer links
  const double S = 1e9;
  EXPECT_DOUBLE_EQ(detail::collective_s(detail::Collective::all_reduce, S, 2, 1, f),
                   2 * 0.5 * S / (100e9 / 7 * 0.8) + 2e-6);
}

TEST(Collectives, AcrossDomainsAreHierarchical) {
  detail::Fabric f = fabric();
  using detail::Collective;
  const double S = 8e9, up = 80e9, out = 20e9;
  // 64 ranks, stride 1: 8 per domain, 8 domains. Reduce-scatter + all-gather
  // inside (S), all-reduce across on S / 8 with a tree's 2 log2(8) steps;
  // the two levels are pipelined, the slower one sets the time.
  double inside = 2 * (7.0 / 8 * S / up + 7e-6);
  double across = 2 * 7.0 / 8 * (S / 8) / out + 2 * 3 * 5e-6;
  EXPECT_NEAR(detail::collective_s(Collective::all_reduce, S, 64, 1, f), std::max(inside, across), 1e-12);
  f.out_bytes_per_s = 2.5e9;  // a slow network: the cross-domain level dominates
  EXPECT_NEAR(detail::collective_s(Collective::all_reduce, S, 64, 1, f),
              2 * 7.0 / 8 * (S / 8) / 2e9 + 2 * 3 * 5e-6, 1e-12);
  f.out_bytes_per_s = 25e9;
  // Stride 8 (a data-parallel group over tensor-parallel groups of 8): one
  // rank per domain, everything crosses the network.
  EXPECT_EQ(detail::ranks_per_domain(16, 8, f), 1);
  EXPECT_NEAR(detail::collective_s(Collective::all_reduce, S, 16, 8, f), 2 * 15.0 / 16 * S / out + 2 * 4 * 5e-6, 1e-12);
  // Stride 2: 4 ranks of the group per domain.
  EXPECT_EQ(detail::ranks_per_domain(16, 2, f), 4);
  // All-to-all over 16 ranks, 8 per domain: 7/16 of the buffer inside, 8/16 across (not pipelined).
  EXPECT_NEAR(detail::collective_s(Collective::all_to_all, S, 16, 1, f),
              S * 7 / 16 / up + 7e-6 + S * 8 / 16 / out + 1 * 5e-6, 1e-12);
  // A pipeline send between domains goes over the network.
  EXPECT_NEAR(detail::collective_s(Collective::p2p, S, 2, 8, f), S / out + 5e-6, 1e-12);
}

// A training request for `count` devices, without per-operator detail.
Request train_request(const catalog::Accelerator& a, const workload::Workload& w, int count) {
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  r.task = workload::Task::train;
  r.count = count;
  r.detail = false;
  return r;
}

// A training step by hand: one matmul layer on the test GPU.
struct Step {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9, 1e3);
  Request req() {
    Request r;
    r.accelerator = &a;
    r.workload = &w;
    r.task = workload::Task::train;
    r.precision = Precision::bf16;
    r.count = 8;
    r.detail = false;
    return r;
  }
};

TEST(TrainingSchedule, OneF1BBubbleIsPMinusOneOverKPlusPMinusOne) {
  Step t;
  t.w.layers = 16;
  Plan p;
  p.dp = 1, p.pp = 8, p.ga = 24, p.mb = 1;
  Request r = t.req();
  Prediction pr = *evaluate(r, p);
  // Stage time s per micro-batch: step = (k + p - 1) s + optimizer; bubble = (p-1) s / that.
  Plan one = p;
  one.ga = 1;
  Prediction p1 = *evaluate(r, one);
  double s = (pr.latency_s - p1.latency_s) / 23;  // each extra micro-batch adds one stage slot
  double opt = p1.latency_s - 8 * s;
  EXPECT_NEAR(pr.bubble_fraction, 7 * s / (31 * s + opt), 1e-9);
  // Interleaving (vp virtual stages) divides the bubble by vp.
  p.vp = 2;
  Prediction pv = *evaluate(r, p);
  EXPECT_LT(pv.bubble_fraction, pr.bubble_fraction);
  EXPECT_GT(pv.communication.pipeline_s, pr.communication.pipeline_s);  // twice the sends
}

// Pipeline sends: each tensor rank sends 1/t of the boundary activation;
// without sequence parallel the receiving stage all-gathers it (Megatron's
// scatter/gather), with it the activation stays split.
TEST(TrainingSchedule, PipelineSendsScatterOverTheTensorRanks) {
  Step t;
  t.w.layers = 16;
  t.w.heads = 8;
  Request r = t.req();
  Plan p;
  p.dp = 1, p.tp = 2, p.pp = 4, p.ga = 8, p.mb = 2, p.sp = false;
  detail::Fabric f = *detail::fabric_for(t.a, efficiency_for(t.a));
  using detail::Collective;
  const double a = 1e3 * 2 * 2;  // 1,000 elements per sample x 2 samples x 2 bytes (bf16)
  const double slots = 8 + 3.0;  // k + (p - 1) micro-batch slots
  const double p2p = detail::collective_s(Collective::p2p, a / 2, 2, 2, f);
  const double gather = detail::collective_s(Collective::all_gather, a, 2, 1, f);
  EXPECT_NEAR(evaluate(r, p)->communication.pipeline_s, slots * 2 * (p2p + gather), 1e-15);
  p.sp = true;
  EXPECT_NEAR(evaluate(r, p)->communication.pipeline_s, slots * 2 * p2p, 1e-15);
}

TEST(TrainingSchedule, ZeroStagesKeepOrAddDataParallelTraffic) {
  Step t;
  Request r = t.req();
  Plan p;
  p.dp = 8, p.mb = 1;
  detail::Fabric f = *detail::fabric_for(t.a, efficiency_for(t.a));
  const double grads = 2e9;  // 1e9 trainable parameters in bf16
  auto data_s = [&](int zero) {
    p.zero = zero;
    return evaluate(r, p)->communication.data_s;
  };
  using detail::Collective;
  EXPECT_DOUBLE_EQ(data_s(0), detail::collective_s(Collective::all_reduce, grads, 8, 1, f));
  // ZeRO-1/2: reduce-scatter + all-gather, the all-reduce's volume.
  EXPECT_NEAR(data_s(1), data_s(0), 1e-12);
  EXPECT_NEAR(data_s(2), data_s(0), 1e-12);
  // ZeRO-3: + a parameter all-gather in forward and in backward per micro-batch.
  p.ga = 3;
  EXPECT_NEAR(data_s(3), detail::collective_s(Collective::reduce_scatter, grads, 8, 1, f) +
                             6 * detail::collective_s(Collective::all_gather, grads, 8, 1, f),
              1e-12);
}

TEST(TrainingSchedule, RecomputeAddsForwardWork) {
  Step t;
  t.w.layers = 10, t.w.hidden = 10, t.w.heads = 1, t.w.seq_len = 100;
  t.w.train_activation_elems_per_sample = 1e5;
  Request r = t.req();
  Plan p;
  p.mb = 4;
  Prediction none = *evaluate(r, p);
  p.recompute = Recompute::full;
  Prediction full = *evaluate(r, p);
  // Full recompute runs the forward pass twice: the step grows by one forward.
  r.detail = true;
  p.recompute = Recompute::none;
  Prediction d = *evaluate(r, p);
  double forward = 0;
  for (const OpPrediction& o : d.per_op)
    if (o.phase == workload::Phase::forward) forward += o.time_s;
  EXPECT_NEAR(full.latency_s - none.latency_s, forward, 1e-12);
  EXPECT_LT(full.memory.activations_bytes, none.memory.activations_bytes);
}

TEST(TrainingSchedule, TensorParallelStaysInsideTheDomainUnlessForced) {
  catalog::Accelerator a = test_gpu();
  a.domain.devices = {8, "test"};
  a.scale_out = {"TestNet", {25e9, "test"}};
  workload::Workload w = matmul_model(2e11);  // 3.2 TB of training state: needs sharding
  w.heads = 64;
  w.layers = 64;
  Request r = train_request(a, w, 64);
  Prediction p = *predict(r);
  EXPECT_LE(p.parallelism.tensor, 8);
  EXPECT_NE(p.communication.link.find("TestNet"), std::string::npos);
  r.plan.tp = 16;  // forced out of the domain
  r.plan.zero = 3;
  Result<Prediction> forced = predict(r);
  ASSERT_TRUE(forced) << forced.error().message;
  EXPECT_EQ(forced->parallelism.tensor, 16);
}

// A deep pipeline over a slow link: the search takes the interleaved schedule
// when its smaller bubble pays for the extra sends, only with layers / (pp x
// vp) whole and a step's micro-batches a multiple of pp.
TEST(TrainingSchedule, SearchInterleavesStagesWhenTheBubbleCostsMore) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(2e10);
  w.heads = 8;
  w.layers = 48;
  Request r = train_request(a, w, 8);
  r.plan = *parse_plan("dp=1,tp=1,pp=8,mb=1,ga=8,zero=0,recompute=none");
  Prediction p = *predict(r);
  EXPECT_GT(p.plan.vp, 1);
  EXPECT_EQ(w.layers % (p.plan.pp * p.plan.vp), 0);
  r.plan.vp = 1;
  EXPECT_LT(predict(r)->throughput, p.throughput);
  // ga = 4 is not a multiple of pp = 8: Megatron cannot interleave it.
  r.plan = *parse_plan("dp=1,tp=1,pp=8,mb=1,ga=4,zero=0,recompute=none");
  EXPECT_EQ(predict(r)->plan.vp, 1);
  // 40 layers over 8 stages (5 each) cannot split into 2 or more chunks of whole layers.
  w.layers = 40;
  r.plan = *parse_plan("dp=1,tp=1,pp=8,mb=1,ga=8,zero=0,recompute=none");
  EXPECT_EQ(predict(r)->plan.vp, 1);
}

// Every divisor split: 12 devices at a global batch of 4 need a factor of 3
// in tensor or pipeline parallel (dp divides 4), which powers of two alone
// cannot give; pipeline stages keep whole layers (12 layers: 3 or 6 stages).
TEST(TrainingSchedule, SearchCoversEveryDivisorSplit) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  w.heads = 12;
  w.layers = 12;
  Request r = train_request(a, w, 12);
  r.global_batch = 4;
  Result<Prediction> p = predict(r);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->plan.dp * p->plan.tp * p->plan.pp, 12);
  EXPECT_EQ(4 % p->plan.dp, 0);
  EXPECT_EQ((p->plan.tp * p->plan.pp) % 3, 0);
  EXPECT_EQ(w.layers % p->plan.pp, 0);
  // Stages of uneven depth only at powers of two: with tp = 4, the 3 devices
  // left would need 3 stages of 10 layers (or dp = 3, which does not divide 4).
  w.layers = 10;
  r.plan = *parse_plan("tp=4");
  p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("no plan splits global batch 4"), std::string::npos) << p.error().message;
}

// Under a fixed global batch the search prefers the smallest micro-batch
// within 1 % of the best, except for a network with batch norms, whose
// statistics gradient accumulation would split: there the largest one that
// fits (docs/model.md#plans).
TEST(TrainingSchedule, BatchNormNetworksKeepTheWholeBatchInOneMicroBatch) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e6, 1e7);
  workload::Operator norm = w.ops[0];
  norm.name = "bn";
  norm.kind = workload::OpKind::norm;
  norm.flops = 2e7;
  norm.weight_elems = norm.params = 2;
  w.ops.push_back(norm);
  w.train_activation_elems_per_sample = 2e7;
  Request r = train_request(a, w, 1);
  r.global_batch = 64;
  Result<Prediction> other = predict(r);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_LT(other->plan.mb, 64);  // the per-sample work dwarfs the launches: a small micro-batch is within 1 %
  EXPECT_EQ(other->plan.mb * other->plan.ga, 64);
  w.family = workload::Family::cnn;  // a CNN's norms are batch norms
  Result<Prediction> cnn = predict(r);
  ASSERT_TRUE(cnn) << cnn.error().message;
  EXPECT_EQ(cnn->plan.mb, 64);
  EXPECT_EQ(cnn->plan.ga, 1);
  // A memory too small for the whole batch: the largest micro-batch that fits.
  a.memory_bytes = {2.0 * testing::kGiB, "test"};
  cnn = predict(r);
  ASSERT_TRUE(cnn) << cnn.error().message;
  EXPECT_GT(cnn->plan.ga, 1);
  r.plan = *parse_plan("mb=" + std::to_string(cnn->plan.mb * 2));
  EXPECT_FALSE(predict(r));
}

TEST(TrainingSchedule, PredictWithTheSearchedPlanReproducesIt) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(3e10);
  w.heads = 32;
  w.layers = 32;
  Request r = train_request(a, w, 16);
  Prediction searched = *predict(r);
  r.plan = *parse_plan(to_string(searched.plan));
  Prediction again = *predict(r);
  EXPECT_DOUBLE_EQ(again.latency_s, searched.latency_s);
  EXPECT_DOUBLE_EQ(again.throughput, searched.throughput);
  EXPECT_DOUBLE_EQ(again.memory.required_bytes, searched.memory.required_bytes);
}

// ZeRO-3's parameter gathers and the gradient reduce-scatter share the
// data-parallel links: each fits behind the compute on its own, but together
// they keep the links busy longer than the compute runs, so the step waits
// for the rest (sync + gathers - forward and backward).
TEST(TrainingSchedule, ZeroThreeTrafficCannotOverlapMoreThanTheLinksCarry) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);  // 2 GB of bf16 parameters and gradients
  w.heads = 8;
  Request r = train_request(a, w, 8);
  r.precision = Precision::bf16;
  r.detail = true;
  const double bw = 100e9 * 0.8, lat = 0.6e-6;
  const double shard_s = 7.0 / 8 * 2e9 / bw + 7 * lat;  // one reduce-scatter or all-gather over 8 ranks
  const double sync = shard_s, gathers = 2 * shard_s;   // k = 1: forward and backward gathers
  bool traffic_bound = false;
  for (int mb = 1; mb <= 4096 && !traffic_bound; mb *= 2) {
    r.plan = *parse_plan("dp=8,tp=1,pp=1,ga=1,zero=3,recompute=none,mb=" + std::to_string(mb));
    Prediction p = *predict(r);
    double forward = 0, backward = 3e-6;  // the weight-gradient kernel's launch
    for (const OpPrediction& o : p.per_op) {
      if (o.phase == workload::Phase::forward) forward += o.time_s;
      if (o.phase == workload::Phase::backward) backward += o.time_s;
    }
    EXPECT_NEAR(p.communication.data_s, sync + gathers, 1e-12);
    const double window = forward + backward;
    const double hidden_each = std::max(0.0, sync - backward) + std::max(0.0, gathers - window);
    if (sync + gathers - window <= hidden_each + 1e-6) continue;
    traffic_bound = true;
    EXPECT_NEAR(p.communication.exposed_s, sync + gathers - window, 1e-9) << "mb " << mb;
  }
  EXPECT_TRUE(traffic_bound) << "no micro-batch where the gathers and the sync each hide but not together";
}

}  // namespace
}  // namespace rooftop::model
