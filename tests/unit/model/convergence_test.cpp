// Reference convergence points: parsing, the newest RCP version, linear
// interpolation between global batches, extrapolation outside them, and the
// unit conversion to training samples.
#include <gtest/gtest.h>

#include "model/convergence.h"

namespace rooftop::model {
namespace {

const char* kCsv =
    "benchmark,rcp_version,global_batch_size,epochs_or_samples_mean,unit,stdev,n_runs,source\n"
    "resnet,4.0.0,1632,35,Epochs to converge,1,17,src a, with a comma\n"
    "resnet,4.0.0,3264,35.2,Epochs to converge,1,15,src b\n"
    "resnet,4.0.0,4096,40,Epochs to converge,1,10,src c\n"
    "resnet,3.0.0,3264,99,Epochs to converge,1,10,old\n"
    "gpt3,4.1.0,1536,1200000000,Epochs to converge,1,6,src d\n";

TEST(Convergence, InterpolatesTheNewestVersionAndConvertsToSamples) {
  Result<std::vector<ConvergencePoint>> r = parse_rcp(kCsv, "rcp.csv");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ((*r)[0].source, "src a, with a comma");
  // At a listed batch: 35.2 epochs x 1,281,167 images (the 3.0.0 row is older and ignored).
  EXPECT_DOUBLE_EQ(samples_to_target(*r, "resnet50", 3264)->samples, 35.2 * 1281167);
  // Halfway between 3264 and 4096: 37.6 epochs.
  EXPECT_NEAR(samples_to_target(*r, "resnet50", 3680)->samples, 37.6 * 1281167, 1);
  // Beyond the largest: the line through the last two (4096 -> 40, slope 4.8 / 832 per sample).
  EXPECT_NEAR(samples_to_target(*r, "resnet50", 4928)->samples, (40 + 4.8) * 1281167, 1);
  // GPT-3 counts tokens: 1.2e9 / 2048 sequences; one RCP only.
  EXPECT_NEAR(samples_to_target(*r, "gpt-3-175b", 4096)->samples, 1.2e9 / 2048, 1e-6);
  EXPECT_NE(samples_to_target(*r, "gpt-3-175b", 4096)->how.find("only RCP"), std::string::npos);
}

TEST(Convergence, ErrorsNameTheModelOrTheFile) {
  std::vector<ConvergencePoint> none;
  Result<SamplesToTarget> s = samples_to_target(none, "llama-2-7b", 64);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("llama-2-7b"), std::string::npos);
  EXPECT_FALSE(samples_to_target(none, "resnet50", 64));
  EXPECT_FALSE(parse_rcp("benchmark,unit\nresnet,x\n", "bad.csv"));
  EXPECT_FALSE(parse_rcp("benchmark,rcp_version,global_batch_size,epochs_or_samples_mean,unit,source\n"
                         "resnet,1,-5,3,e,s\n",
                         "neg.csv"));
}

TEST(Convergence, EvaluationIntervalsFollowTheRules) {
  // BERT: floor(0.05 x (230.23 x 448 + 3,000,000) / 25,000) x 25,000 = floor(155,157 / 25,000) x 25,000.
  EXPECT_DOUBLE_EQ(eval_interval(*mlperf_benchmark("bert-large"), 448), 150000);
  EXPECT_DOUBLE_EQ(eval_interval(*mlperf_benchmark("bert-large"), 14336), 300000);  // 315,032 -> 300,000
  EXPECT_DOUBLE_EQ(eval_interval(*mlperf_benchmark("resnet50"), 3264), 4 * 1281167.0);
  EXPECT_DOUBLE_EQ(eval_interval(*mlperf_benchmark("llama-2-70b"), 8), 384);
  // Stable Diffusion evaluates offline: nothing in the timed region.
  EXPECT_DOUBLE_EQ(eval_interval(*mlperf_benchmark("stable-diffusion-v2"), 256), 0);
}

TEST(Convergence, EvaluationsArePipelinedForwardPassesOfTheEvalSet) {
  const Benchmark& lora = *mlperf_benchmark("llama-2-70b");
  Plan p;
  p.dp = 8, p.mb = 1;
  // 3,840 samples / 384 = 10 evaluation points, the first floor(0.125 x 8 + 2)
  // = 3 skipped: 7 evaluations of 173 samples, ceil(173 / 8) = 22 steps of 2 s.
  double evals = 0;
  EXPECT_DOUBLE_EQ(eval_seconds(lora, 3840, p, 2.0, &evals), 7 * 22 * 2.0);
  EXPECT_DOUBLE_EQ(evals, 7);
  // Four pipeline stages: 3 more stage slots of fill per evaluation (global
  // batch 2: floor(0.25 + 2) = 2 skipped, 8 evaluations).
  p.dp = 2, p.pp = 4;
  EXPECT_DOUBLE_EQ(eval_seconds(lora, 3840, p, 0.5), 8 * (87 + 3) * 0.5);
  EXPECT_DOUBLE_EQ(eval_seconds(*mlperf_benchmark("stable-diffusion-v2"), 1e6, p, 1.0, &evals), 0);
  EXPECT_DOUBLE_EQ(evals, 0);
}

// llama2_70b_lora skips its first floor(0.125 x batch + 2) evaluations (the
// submissions' SKIP_EVALS: 3 at batch 8, 18 at batch 128); the others skip none.
TEST(Convergence, LoraSkipsItsFirstEvaluations) {
  const Benchmark& lora = *mlperf_benchmark("llama-2-70b");
  EXPECT_DOUBLE_EQ(evaluations(lora, 9 * 384, 8), 6);         // converged at 3,456 samples: 6 timed evaluations
  EXPECT_DOUBLE_EQ(evaluations(lora, 30 * 384, 128), 12);     // 11,520 samples at batch 128
  EXPECT_DOUBLE_EQ(evaluations(lora, 10 * 384, 128), 0);      // all skipped, never negative
  EXPECT_DOUBLE_EQ(evaluations(*mlperf_benchmark("resnet50"), 8 * 1281167.0, 3264), 2);  // every 4 epochs
}

// Llama 3.1 pretraining: 405B evaluates every 18,432 sequences and skips the
// first floor(0.0026 x batch + 12); 8B every 12,288 sequences, none skipped.
TEST(Convergence, LlamaPretrainingEvaluations) {
  const Benchmark& big = *mlperf_benchmark("llama-3.1-405b");
  EXPECT_STREQ(big.benchmark, "llama31_405b");
  EXPECT_DOUBLE_EQ(eval_interval(big, 1152), 18432);
  // 313,344 sequences at 1,152: 17 evaluation points, floor(2.9952 + 12) = 14 skipped.
  EXPECT_DOUBLE_EQ(evaluations(big, 313344, 1152), 3);
  EXPECT_DOUBLE_EQ(evaluations(big, 493056, 4608), 493056 / 18432.0 - 23);  // floor(11.98 + 12) = 23
  const Benchmark& small = *mlperf_benchmark("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(evaluations(small, 12288 * 14.5, 32), 14.5);
  EXPECT_DOUBLE_EQ(small.eval_samples, 1024);
  EXPECT_EQ(small.train_seq_len, 8192);
}

// A benchmark's training shape fills what the caller left unset, and says so.
TEST(Convergence, TrainingShapeFillsOnlyWhatIsUnset) {
  const Benchmark& big = *mlperf_benchmark("llama-3.1-405b");
  workload::BuildOptions o;
  EXPECT_EQ(apply_training_shape(big, 2048, o), "8192-token sequences, a 32000-token vocabulary");
  EXPECT_EQ(o.seq_len, 8192);
  EXPECT_EQ(o.vocab, 32000);
  workload::BuildOptions mine;
  mine.seq_len = 4096, mine.vocab = 128256;
  EXPECT_EQ(apply_training_shape(big, 8192, mine), "");
  EXPECT_EQ(mine.seq_len, 4096);
  EXPECT_EQ(mine.vocab, 128256);
  // The zoo's own length is not news; DLRM's pairs per sample are set silently.
  workload::BuildOptions same;
  EXPECT_EQ(apply_training_shape(*mlperf_benchmark("llama-3.1-8b"), 8192, same), "");
  EXPECT_FALSE(same.seq_len);
  workload::BuildOptions rec;
  apply_training_shape(*mlperf_benchmark("dlrm-v2"), 0, rec);
  EXPECT_EQ(rec.pairs_per_sample, 1);
}

// The error for a model without a benchmark lists every one the table has.
TEST(Convergence, UnknownModelListsTheBenchmarkModels) {
  std::vector<ConvergencePoint> none;
  Result<SamplesToTarget> s = samples_to_target(none, "mistral-7b", 64);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("mistral-7b"), std::string::npos);
  for (const char* id : {"resnet50", "dlrm-v2", "llama-3.1-405b", "llama-3.1-8b"})
    EXPECT_NE(s.error().message.find(id), std::string::npos) << id;
  EXPECT_EQ(mlperf_benchmark_models().find("llama-3.1-405b"), mlperf_benchmark_models().rfind("llama-3.1-405b"));
}

TEST(Convergence, TimeToTargetAddsTheEvaluations) {
  Result<std::vector<ConvergencePoint>> r = parse_rcp(kCsv, "rcp.csv");
  ASSERT_TRUE(r);
  Prediction pr;
  pr.task = workload::Task::train;
  pr.plan.dp = 8, pr.plan.mb = 408;  // global batch 3,264
  pr.samples_per_s = 20000;
  pr.eval_stage_s = 0.1;
  Result<TimeToTarget> t = time_to_target(*r, "resnet50", pr);
  ASSERT_TRUE(t) << t.error().message;
  const double samples = 35.2 * 1281167;
  EXPECT_EQ(t->global_batch, 3264);
  EXPECT_DOUBLE_EQ(t->samples, samples);
  EXPECT_DOUBLE_EQ(t->train_s, samples / 20000);
  // Every 4 epochs (8.8 evaluations), each ceil(50,000 / 3,264) = 16 steps of 0.1 s.
  EXPECT_DOUBLE_EQ(t->evals, 8.8);
  EXPECT_NEAR(t->eval_s, 8.8 * 16 * 0.1, 1e-9);
  EXPECT_NEAR(t->minutes, (samples / 20000 + 8.8 * 1.6) / 60, 1e-9);
  EXPECT_NE(t->how.find("50,000"), std::string::npos);
  Prediction infer;
  EXPECT_FALSE(time_to_target(*r, "resnet50", infer));
}

}  // namespace
}  // namespace rooftop::model
