// predict(): hand-computed inference, LLM, training, memory and parallelism
// cases on the hand-built fixtures, and its errors.
#include <gtest/gtest.h>

#include "model/model.h"
#include "model/plan.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::kGiB;
using testing::llm_model;
using testing::matmul_model;
using testing::test_gpu;

Request request(const catalog::Accelerator& a, const workload::Workload& w) {
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  return r;
}

TEST(Predict, OneLayerByHand) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.precision = Precision::fp16;
  r.batch = 1;
  Prediction p = *predict(r);
  // Bytes (1e9 weights + 2e3 activations) x 2 at 0.8 TB/s; + 3 us overhead.
  double time_s = 2.000004e9 / 0.8e12 + 3e-6;
  EXPECT_NEAR(p.latency_s, time_s, 1e-12);
  EXPECT_NEAR(p.throughput, 1 / time_s, 1e-6);
  EXPECT_EQ(p.throughput_unit, "samples/s");
  EXPECT_EQ(p.bound, Bound::memory);
  ASSERT_EQ(p.per_op.size(), 1u);
  EXPECT_DOUBLE_EQ(p.per_op[0].share, 1);
  EXPECT_DOUBLE_EQ(p.memory.weights_bytes, 2e9);
  EXPECT_DOUBLE_EQ(p.memory.capacity_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(p.memory.usable_bytes, 72 * kGiB);
  EXPECT_TRUE(p.memory.fits);
  EXPECT_FALSE(p.assumptions.empty());
}

// A --plan key that does not apply to inference is refused by name, never
// ignored; its neutral value (the canonical plan string advise prints) is fine.
TEST(Predict, TrainingKeysOfAnInferencePlanAreRefused) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = llm_model();
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.count = 2;
  for (const char* text : {"ga=4", "zero=1", "recompute=full", "sp=1"}) {
    req.plan = *parse_plan(text);
    Result<Prediction> p = predict(req);
    ASSERT_FALSE(p) << text;
    EXPECT_EQ(p.error().context, "--plan");
    EXPECT_NE(p.error().message.find("training-only"), std::string::npos) << p.error().message;
  }
  req.plan = *parse_plan("dp=2,tp=1,pp=1,ep=1,vp=1,mb=4,ga=1,zero=0,recompute=none,sp=0");
  EXPECT_TRUE(predict(req));
  workload::Workload moe = testing::moe_model(1e8, 4e8, 8);
  req.workload = &moe;
  req.plan = *parse_plan("dp=2,ep=2");
  Result<Prediction> p = predict(req);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("expert parallelism at inference is not modelled"), std::string::npos);
}

TEST(Predict, DetailOffSkipsPerOp) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.detail = false;
  EXPECT_TRUE(predict(r)->per_op.empty());
}

TEST(Predict, DefaultPrecision) {
  catalog::Accelerator a = test_gpu();
  EXPECT_EQ(*default_precision(a, workload::Task::infer), Precision::bf16);
  EXPECT_EQ(*default_precision(a, workload::Task::train), Precision::bf16);
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::int8)] = {200e12, "test"};
  EXPECT_EQ(*default_precision(a, workload::Task::infer), Precision::int8);
  EXPECT_EQ(*default_precision(a, workload::Task::train), Precision::bf16);
  // A part the catalog knows only at 4 bits infers at 4 bits; training needs a 16- or 32-bit rate.
  catalog::Accelerator four = test_gpu();
  for (auto& peak : four.peak_flop_per_s) peak = {};
  four.peak_flop_per_s[static_cast<std::size_t>(Precision::fp4)] = {1000e12, "test"};
  EXPECT_EQ(*default_precision(four, workload::Task::infer), Precision::fp4);
  EXPECT_FALSE(default_precision(four, workload::Task::train));
}

TEST(Predict, UnsupportedPrecisionNamesTheOnesItHas) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.precision = Precision::fp8;
  Result<Prediction> p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, Errc::unsupported);
  EXPECT_NE(p.error().message.find("fp8"), std::string::npos);
  EXPECT_NE(p.error().message.find("fp16"), std::string::npos);
  EXPECT_NE(p.error().message.find("bf16"), std::string::npos);
  // The catalog's reason for the missing rate is quoted.
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::fp8)].missing_reason = "the vendor publishes no FP8 rate";
  p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("(the vendor publishes no FP8 rate)"), std::string::npos) << p.error().message;
}

TEST(Predict, MissingBandwidthIsAClearError) {
  catalog::Accelerator a = test_gpu();
  a.memory_bytes_per_s = {};
  workload::Workload w = matmul_model(1e9);
  Result<Prediction> p = predict(request(a, w));
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("bandwidth"), std::string::npos);
}

TEST(Predict, BadRequests) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.batch = 0;
  EXPECT_EQ(predict(r).error().context, "--batch");
  r.batch = -3;
  EXPECT_EQ(predict(r).error().code, Errc::invalid_input);
  r = request(a, w);
  r.count = 0;
  EXPECT_EQ(predict(r).error().context, "--count");
  r = request(a, w);
  r.task = workload::Task::train;
  r.precision = Precision::fp32;
  r.grad_accumulation = 0;
  EXPECT_FALSE(predict(r));
}

TEST(Predict, DoesNotFitSaysByHowMuchAndSuggestsCount) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e11);  // 200 GB of fp16 weights
  Request r = request(a, w);
  r.precision = Precision::fp16;
  Result<Prediction> p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, Errc::invalid_input);
  EXPECT_NE(p.error().message.find("short by"), std::string::npos);
  EXPECT_NE(p.error().message.find("try --count 4"), std::string::npos);
  // With 8 attention heads, tensor parallel stops at 8: more devices than
  // that cannot hold it either, and the message says why instead of
  // suggesting a count that does not divide the heads.
  w.heads = 8;
  r.count = 6;
  p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("try --count 8"), std::string::npos) << p.error().message;
  w = matmul_model(1e12);  // 2 TB of fp16 weights: 250 GB per device at tp = 8
  w.heads = 8;
  r.count = 64;
  p = predict(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("tp=8,"), std::string::npos) << p.error().message;
  EXPECT_EQ(p.error().message.find("try --count"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("tensor parallel stops at the 8 attention heads"), std::string::npos);
}

TEST(Predict, TensorParallelWhenOneDeviceCannotHoldIt) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e11);
  Request r = request(a, w);
  r.precision = Precision::fp16;
  r.count = 8;
  Prediction p = *predict(r);
  EXPECT_EQ(p.parallelism.tensor, 4);
  EXPECT_EQ(p.parallelism.data, 2);
  EXPECT_NEAR(p.memory.weights_bytes, 50e9, 1);
  EXPECT_EQ(p.communication.link, "TestLink");
  EXPECT_GT(p.communication.time_s, 0);
  a.scale_up = {};
  a.host = {};
  EXPECT_FALSE(predict(r));
}

TEST(Predict, TensorParallelForKvRoomWhenItServesMoreTokens) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = llm_model();
  // 34e9 fp16 weights (63.3 GiB) fit one 80 GiB device (72 GiB usable), but
  // leave room for few sequences; two-way tensor parallel halves the weights
  // per device and holds far more sequences.
  w.params = w.active_params = 34e9;
  for (workload::Operator& op : w.ops) op.weight_elems = op.params = 34e9;
  Request r = request(a, w);
  r.precision = Precision::fp16;
  r.count = 2;
  Prediction p = *predict(r);
  EXPECT_EQ(p.parallelism.tensor, 2);
  EXPECT_EQ(p.parallelism.data, 1);
  r.plan.tp = 1;
  Prediction dp = *predict(r);
  EXPECT_EQ(dp.parallelism.data, 2);
  EXPECT_GT(p.throughput, dp.throughput);
  EXPECT_GT(p.batch, 2 * dp.batch);
}

TEST(Predict, DataParallelInferenceScalesLinearly) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.batch = 16;
  double one = predict(r)->throughput;
  r.count = 4;
  Prediction four = *predict(r);
  EXPECT_NEAR(four.throughput, 4 * one, 1e-9 * one);
  EXPECT_EQ(four.parallelism.data, 4);
  EXPECT_TRUE(four.communication.link.empty());
}

TEST(Predict, TrainingMemoryIsSixteenBytesPerParameter) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.batch = 1;
  Prediction p = *predict(r);
  EXPECT_EQ(p.precision, Precision::bf16);
  EXPECT_DOUBLE_EQ(p.memory.weights_bytes + p.memory.gradients_bytes + p.memory.optimizer_bytes, 16e9);
  EXPECT_DOUBLE_EQ(p.memory.activations_bytes, 2000);
  r.precision = Precision::int8;
  EXPECT_FALSE(predict(r));
}

// fp8 training (Transformer Engine): the matmuls run at the fp8 peak; every
// other operator, the memory, the gradient all-reduce and the optimizer
// state are those of bf16 training.
TEST(Predict, Fp8TrainingRunsOnlyTheMatmulsInFp8) {
  catalog::Accelerator a = test_gpu();
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::fp8)] = {200e12, "test"};
  workload::Workload w = matmul_model(1e9);
  w.ops.push_back(testing::one_op(workload::OpKind::norm, 5e4, 0, 1e4, 1e4));
  w.ops.back().name = "norm";
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.batch = 1024;  // 2,000 FLOPs per weight byte: the matmul is compute-bound
  r.count = 2;
  r.plan = *parse_plan("dp=2,tp=1,zero=0");
  Prediction bf = *predict(r);
  r.precision = Precision::fp8;
  Prediction f8 = *predict(r);
  EXPECT_EQ(f8.precision, Precision::fp8);
  ASSERT_EQ(bf.per_op.size(), f8.per_op.size());
  int matmuls = 0, others = 0;
  for (std::size_t i = 0; i < bf.per_op.size(); ++i) {
    const OpPrediction &x = bf.per_op[i], &y = f8.per_op[i];
    ASSERT_EQ(x.name, y.name);
    EXPECT_DOUBLE_EQ(x.bytes, y.bytes) << x.name;  // tensors at 16 bits either way
    if (x.kind == workload::OpKind::matmul) {
      ++matmuls;
      EXPECT_EQ(x.bound, Bound::compute) << x.name;
      EXPECT_NEAR(y.time_s - 3e-6, (x.time_s - 3e-6) / 2, 1e-9) << x.name;  // twice the peak, same fixed cost
    } else {
      ++others;
      EXPECT_DOUBLE_EQ(x.time_s, y.time_s) << x.name;
    }
  }
  EXPECT_GT(matmuls, 0);
  EXPECT_GT(others, 0);
  EXPECT_DOUBLE_EQ(f8.memory.required_bytes, bf.memory.required_bytes);
  EXPECT_DOUBLE_EQ(f8.communication.data_s, bf.communication.data_s);
  EXPECT_LT(f8.latency_s, bf.latency_s);
  bool said = false;
  for (const Assumption& x : f8.assumptions) said |= x.name == "precisions" && x.value.find("fp8 matmuls, bf16 tensors") == 0;
  EXPECT_TRUE(said);
  // Tensors need a 16-bit format: a part with fp8 alone cannot train in fp8.
  catalog::Accelerator only8 = a;
  only8.peak_flop_per_s[static_cast<std::size_t>(Precision::bf16)] = {};
  only8.peak_flop_per_s[static_cast<std::size_t>(Precision::fp16)] = {};
  r.accelerator = &only8;
  Result<Prediction> no = predict(r);
  ASSERT_FALSE(no);
  EXPECT_NE(no.error().message.find("16 bits"), std::string::npos);
}

TEST(Predict, TrainingFlopsAreThreeTimesForward) {
  // 2 FLOPs per parameter per sample forward, 4 backward: 6 in all (not the seeds' 3).
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.batch = 8;
  Prediction p = *predict(r);
  double fwd = 0, bwd = 0;
  for (const OpPrediction& o : p.per_op) {
    if (o.phase == workload::Phase::forward) fwd += o.flops;
    if (o.phase == workload::Phase::backward) bwd += o.flops;
  }
  EXPECT_NEAR(fwd, 2e9 * 8, 1e6);
  EXPECT_NEAR(fwd + bwd, 6e9 * 8, 6e9 * 8 * 0.01);
}

TEST(Predict, TrainingAllReduceAccumulationAndStragglers) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.batch = 4;
  r.count = 8;
  r.plan.tp = 1;  // pure data parallel (the search would add tensor parallel to hide the all-reduce)
  r.plan.zero = 0;
  Prediction p1 = *predict(r);
  double ar = ring_allreduce_s(2e9, 8, 100e9 * 0.8, 0.6e-6);
  EXPECT_NEAR(p1.communication.time_s, ar, 1e-12);
  EXPECT_DOUBLE_EQ(p1.communication.bytes, 2e9);
  EXPECT_NEAR(p1.communication.eta, 7.0 / 8 * 0.8, 0.01);
  // Only the all-reduce time beyond the last micro-batch's backward pass is exposed.
  double backward_s = 0;
  for (const OpPrediction& o : p1.per_op)
    if (o.phase == workload::Phase::backward) backward_s += o.time_s;
  // The matmul's backward pass is two kernels (input and weight gradients):
  // a second 3 us launch beyond the per-op rows.
  double exposed = std::max(0.0, ar - (backward_s + 3e-6));
  EXPECT_GT(exposed, 0);
  // Step(k) = k x (forward + backward) + optimizer + exposed all-reduce.
  r.grad_accumulation = 2;
  double l2 = predict(r)->latency_s;
  r.grad_accumulation = 4;
  Prediction p4 = *predict(r);
  EXPECT_NEAR(p4.latency_s - p1.latency_s, 3 * (l2 - p1.latency_s), 1e-9);
  EXPECT_GT(p4.throughput, p1.throughput);
  // Stragglers stretch the compute part by 1 + cv x E[max of 8 normals].
  r.grad_accumulation = 1;
  r.straggler_cv = 0.1;
  Prediction ps = *predict(r);
  EXPECT_NEAR(ps.latency_s - exposed, (p1.latency_s - exposed) * straggler_factor(8, 0.1), 1e-9);
}

TEST(Predict, TheLastGradientBucketIsAlwaysExposed) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(5e7);  // 1e8 bytes of bf16 gradients
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.precision = Precision::bf16;
  r.count = 8;
  r.plan.dp = 8, r.plan.tp = 1, r.plan.zero = 0, r.plan.mb = 4096;
  Prediction p = *predict(r);
  // The whole all-reduce (2.2 ms) hides behind the 10 ms backward pass, but
  // the last 25 MiB bucket is ready only when the backward pass ends.
  const double ar = ring_allreduce_s(1e8, 8, 80e9, 0.6e-6);
  const double last = ring_allreduce_s(25.0 * 1024 * 1024, 8, 80e9, 0.6e-6);
  EXPECT_NEAR(p.communication.data_s, ar, 1e-12);
  EXPECT_NEAR(p.communication.exposed_s, last, 1e-12);
  // One micro-batch's forward pass, what an evaluation step costs.
  double forward_s = 0;
  for (const OpPrediction& o : p.per_op)
    if (o.phase == workload::Phase::forward) forward_s += o.time_s;
  EXPECT_NEAR(p.eval_stage_s, forward_s, 1e-12);
}

TEST(Predict, ExpertGradientsSyncOverTheExpertReplicas) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = testing::moe_model(1e6, 8e6, 8);
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.precision = Precision::bf16;
  r.count = 8;
  r.plan.dp = 8, r.plan.tp = 1, r.plan.zero = 0, r.plan.mb = 1, r.plan.ep = 4;
  Prediction p = *predict(r);
  // Dense 2e6 bytes over 8 ranks; each rank's 2e6 experts (4e6 bytes) over their 2 replicas.
  EXPECT_NEAR(p.communication.data_s,
              ring_allreduce_s(2e6, 8, 80e9, 0.6e-6) + ring_allreduce_s(4e6, 2, 80e9, 0.6e-6), 1e-12);
  EXPECT_DOUBLE_EQ(p.memory.weights_bytes, 2.0 * (1e6 + 2e6));
}

TEST(Predict, TheSearchShardsExpertsWhenTheyDoNotFit) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = testing::moe_model(1e9, 40e9, 16);
  w.train_activation_elems_per_sample = 0;
  Request r = request(a, w);
  r.task = workload::Task::train;
  r.precision = Precision::bf16;
  r.count = 16;
  r.plan.tp = 1, r.plan.pp = 1, r.plan.zero = 0, r.plan.mb = 1;
  // Without ZeRO, 16 bytes per parameter: 16 GB dense + 40e9 / ep x 16 bytes
  // of experts; only ep = 16 (40 GB of experts) fits in 72 GiB.
  Result<Prediction> p = predict(r);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->plan.ep, 16);
  EXPECT_DOUBLE_EQ(p->memory.weights_bytes, 2.0 * (1e9 + 40e9 / 16));
  // A fixed ep is kept, and one that does not fit says so.
  r.plan.ep = 8;
  EXPECT_FALSE(predict(r));
}

TEST(Predict, LlmSingleStreamByHand) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = llm_model();
  Request r = request(a, w);
  r.precision = Precision::fp16;
  r.scenario = Scenario::single_stream;
  Prediction p = *predict(r);
  EXPECT_EQ(p.batch, 1);
  double prefill = std::max(2e11 / 78e12, 2e9 / 0.8e12) + 3e-6;
  double step = std::max(2e9 / 78e12, 2 * (1e9 + 1.05e7) / 0.8e12) + 3e-6;
  EXPECT_NEAR(p.ttft_s, prefill, 1e-12);
  EXPECT_NEAR(p.tpot_s, step, 1e-12);
  EXPECT_NEAR(p.latency_s, prefill + 9 * step, 1e-12);
  EXPECT_NEAR(p.throughput, 10 / (prefill + 9 * step), 1e-6);
  EXPECT_EQ(p.throughput_unit, "tokens/s");
  // Paged KV cache: 1e5 elements per token x (100 + 10 / 2) live tokens x 2 bytes.
  EXPECT_DOUBLE_EQ(p.memory.kv_cache_bytes, 2.1e7);
}

TEST(Predict, OfflinePicksNearBestBatchThatFits) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = llm_model();
  Request r = request(a, w);
  r.precision = Precision::fp16;
  Prediction p = *predict(r);
  EXPECT_TRUE(p.memory.fits);
  EXPECT_GT(p.batch, 1);
  for (int b : {1, 16, 256, 2048}) {
    r.batch = b;
    EXPECT_GE(p.throughput, 0.99 * predict(r)->throughput) << "batch " << b;
  }
  r.batch = 100000;
  EXPECT_FALSE(predict(r));  // KV cache of 100k sequences does not fit
}

TEST(Predict, ServerStaysWithinTheLatencyTarget) {
  catalog::Accelerator a = test_gpu();
  workload::Workload w = matmul_model(1e9);
  Request r = request(a, w);
  r.precision = Precision::fp16;
  r.scenario = Scenario::server;
  r.latency_target_s = 0.02;
  Prediction p = *predict(r);
  EXPECT_LE(p.latency_s, 0.02);
  r.batch = 2 * p.batch;
  EXPECT_GT(predict(r)->latency_s, 0.02);
}

}  // namespace
}  // namespace rooftop::model

namespace rooftop::model {
namespace {

TEST(Predict, ElementwiseOpsFuseButTrainingKeepsNorms) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::matmul_model(1e6);
  workload::Operator relu;
  relu.name = "relu";
  relu.kind = workload::OpKind::elementwise;
  relu.flops = 1e6;
  relu.in_elems = relu.out_elems = 1e6;
  w.ops.push_back(relu);
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  r.precision = Precision::fp16;
  r.batch = 8;
  Prediction infer = *predict(r);
  ASSERT_EQ(infer.per_op.size(), 2u);
  EXPECT_EQ(infer.per_op[1].bytes, 0);
  EXPECT_NEAR(infer.per_op[1].time_s, 8e6 / 78e12, 1e-15);  // FLOPs at the compute rate, no launch
  // Training stacks fuse elementwise epilogues too, forward and backward;
  // a CNN's batch norm (batch statistics) stays a kernel of its own.
  workload::Operator bn;
  bn.name = "bn";
  bn.kind = workload::OpKind::norm;
  bn.flops = 4e6;
  bn.in_elems = bn.out_elems = 1e6;
  w.ops.push_back(bn);
  w.family = workload::Family::cnn;
  r.task = workload::Task::train;
  Prediction train = *predict(r);
  bool relu_moves_bytes = false, bn_moves_bytes = false;
  for (const OpPrediction& o : train.per_op) {
    if (o.kind == workload::OpKind::elementwise && o.phase != workload::Phase::optimizer) relu_moves_bytes |= o.bytes > 0;
    if (o.kind == workload::OpKind::norm) bn_moves_bytes |= o.bytes > 0;
  }
  EXPECT_FALSE(relu_moves_bytes);
  EXPECT_TRUE(bn_moves_bytes);
}

TEST(Predict, TensorParallelAllReducesEachNormOutput) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::matmul_model(1e11);
  workload::Operator norm;
  norm.name = "norm";
  norm.kind = workload::OpKind::norm;
  norm.repeat = 10;
  norm.flops = 4e3;
  norm.in_elems = norm.out_elems = 1e3;
  w.ops.push_back(norm);
  Request r;
  r.accelerator = &a;
  r.workload = &w;
  r.precision = Precision::fp16;
  r.batch = 2;
  r.count = 4;
  Prediction p = *predict(r);
  ASSERT_EQ(p.parallelism.tensor, 4);
  // 10 all-reduces of 1e3 elements x batch 2 x 2 bytes over 4 devices on 100 GB/s x 0.8.
  EXPECT_NEAR(p.communication.time_s, 10 * ring_allreduce_s(4e3, 4, 80e9, 0.6e-6), 1e-15);
  EXPECT_DOUBLE_EQ(p.communication.bytes, 4e3);
}

}  // namespace
}  // namespace rooftop::model
