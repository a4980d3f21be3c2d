// Calibration (model/calibration.h): the stack and class tables, the YAML
// form, what a factor does to a prediction, the fit on rows whose answer is
// known, its support rules and bounds, cross-validation and shrunk ranges.
#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"
#include "model/calibration.h"

namespace rooftop::model {
namespace {

TEST(Calibration, StackFamiliesFromTheSoftwareCell) {
  EXPECT_EQ(stack_family("TensorRT 10.2.0, CUDA 12.4"), "tensorrt");
  EXPECT_EQ(stack_family("Jetpack 6.0, TensorRT 10.1, CUDA 12.2"), "tensorrt");
  EXPECT_EQ(stack_family("vLLM 0.4.3+rocm614, PyTorch 2.3.0, ROCm 6.1.2"), "vllm");
  EXPECT_EQ(stack_family("MXNet NVIDIA Release 21.05"), "ngc");
  EXPECT_EQ(stack_family("NVIDIA NeMo Framework Release 24.04"), "ngc");
  EXPECT_EQ(stack_family("maxtext"), "xla");
  EXPECT_EQ(stack_family("PyTorch 2.0.1a0"), "pytorch");
  EXPECT_EQ(stack_family("something new"), "other");
  EXPECT_EQ(stack_family("  "), "");
  EXPECT_TRUE(known_stack("tensorrt") && known_stack("other"));
  EXPECT_FALSE(known_stack("tensorrtt"));
  catalog::Accelerator a = testing::test_gpu();
  a.vendor = "nvidia";
  EXPECT_EQ(default_stack(a, workload::Task::infer), "tensorrt");
  EXPECT_EQ(default_stack(a, workload::Task::train), "ngc");
  a.vendor = "tenstorrent";
  EXPECT_EQ(default_stack(a, workload::Task::infer), "");
}

TEST(Calibration, OperatorClasses) {
  workload::Operator op = testing::one_op(workload::OpKind::matmul, 2, 1, 1, 1);
  EXPECT_EQ(op_class(op), OpClass::gemm);
  op.phase = workload::Phase::decode;
  EXPECT_EQ(op_class(op), OpClass::decode);
  op = testing::one_op(workload::OpKind::norm, 2, 1, 1, 1);
  EXPECT_EQ(op_class(op), OpClass::vector);
  for (const OpClassInfo& c : kOpClasses) EXPECT_EQ(parse_op_class(c.name), c.cls);
  EXPECT_FALSE(parse_op_class("gemmm"));
}

// A factor on a class scales that class's operators (never past a peak)
// and leaves the others: a memory-bound decode at f = 0.5 takes twice as long.
TEST(Calibration, AFactorScalesItsClassOnly) {
  catalog::Accelerator a = testing::test_gpu();
  workload::Workload w = testing::llm_model();
  Request req;
  req.accelerator = &a;
  req.workload = &w;
  req.precision = Precision::fp16;
  req.batch = 1;
  Result<Prediction> base = predict(req);
  ASSERT_TRUE(base) << base.error().what();
  Result<Evaluator> ev = Evaluator::make(req);
  ASSERT_TRUE(ev);
  const std::array<double, kOpClassCount> share = class_shares(*ev, base->plan);
  EXPECT_GT(share[static_cast<std::size_t>(OpClass::decode)], 0.5);   // batch 1: decode dominates
  EXPECT_EQ(share[static_cast<std::size_t>(OpClass::conv)], 0);
  EXPECT_EQ(share[static_cast<std::size_t>(OpClass::serving)], 0);
  req.calibrated.factor[static_cast<std::size_t>(OpClass::decode)] = 0.5;
  Result<Prediction> slow = predict(req);
  ASSERT_TRUE(slow);
  // The linearized ratio the fit uses agrees with the re-run.
  CalRow r;
  r.speed_ratio = 1;
  r.share = share;
  std::array<double, kOpClassCount> f;
  f.fill(1);
  f[static_cast<std::size_t>(OpClass::decode)] = 0.5;
  EXPECT_NEAR(slow->throughput / base->throughput, calibrated_ratio(r, f), 1e-6);
  // The factor is named in the assumptions when it comes from a calibration.
  Calibration cal;
  CalParameter p;
  p.stack = "tensorrt", p.vendor = "test", p.task = "infer", p.cls = OpClass::decode;
  p.value = 0.5, p.low = kFactorLow, p.high = kFactorHigh, p.rows = 9, p.groups = 3, p.models = 2, p.parts = 2;
  cal.parameters.push_back(p);
  req.calibrated = calibrated_for(cal, "tensorrt", "test", workload::Task::infer);
  Result<Prediction> named = predict(req);
  ASSERT_TRUE(named);
  EXPECT_DOUBLE_EQ(named->throughput, slow->throughput);
  bool said = false;
  for (const Assumption& x : named->assumptions) said |= x.name == "calibration.tensorrt/test/infer/decode";
  EXPECT_TRUE(said);
  // Another stack or vendor: physics.
  EXPECT_TRUE(calibrated_for(cal, "vllm", "test", workload::Task::infer).assumptions.empty());
  EXPECT_TRUE(calibrated_for(cal, "tensorrt", "test", workload::Task::train).assumptions.empty());
}

std::vector<CalRow> synthetic_rows(double truth, int systems, int models, double noise = 0) {
  // Rows whose measured speed is what physics predicts with the gemm class
  // at `truth` of its efficiency: gemm takes 60 % of the time.
  std::vector<CalRow> rows;
  for (int s = 0; s < systems; ++s)
    for (int m = 0; m < models; ++m) {
      CalRow r;
      r.id = "R" + std::to_string(rows.size());
      r.stack = "tensorrt", r.vendor = "nvidia", r.task = "infer";
      r.model = "m" + std::to_string(m), r.part = "p" + std::to_string(s % 2), r.group = "S" + std::to_string(s);
      r.family = "cnn", r.scenario = "offline", r.precision = "int8";
      r.share[static_cast<std::size_t>(OpClass::gemm)] = 0.6;
      const double slow_down = 1 - 0.6 + 0.6 / truth;     // measured time / physics time
      const double wiggle = 1 + noise * ((rows.size() % 3) - 1.0);
      r.speed_ratio = slow_down * wiggle;                  // physics speed / measured speed
      rows.push_back(r);
    }
  return rows;
}

TEST(Calibration, TheFitRecoversAKnownFactor) {
  const std::vector<CalRow> rows = synthetic_rows(0.7, 6, 3);
  FitOptions o;
  o.prior_weight = 0;
  const Calibration c = fit(rows, o);
  ASSERT_EQ(c.parameters.size(), 1u);
  const CalParameter& p = c.parameters[0];
  EXPECT_EQ(p.name(), "tensorrt/nvidia/infer/gemm");
  EXPECT_NEAR(p.value, 0.7, 1e-3);
  EXPECT_EQ(p.rows, 18);
  EXPECT_EQ(p.groups, 6);
  EXPECT_EQ(p.models, 3);
  EXPECT_GT(p.mdape_before, 10);
  EXPECT_LT(p.mdape_after, 0.1);
  // The prior pulls toward physics (1), never past it; more rows pull back.
  const Calibration pulled = fit(rows, FitOptions{});
  EXPECT_GT(pulled.parameters[0].value, 0.7);
  EXPECT_LT(pulled.parameters[0].value, 1.0);
  const Calibration more = fit(synthetic_rows(0.7, 30, 3), FitOptions{});
  EXPECT_LT(more.parameters[0].value, pulled.parameters[0].value);
}

TEST(Calibration, BoundsAndSupport) {
  // A truth outside the bounds ends at the bound.
  FitOptions o;
  o.prior_weight = 0;
  const Calibration low = fit(synthetic_rows(0.01, 6, 3), o);
  ASSERT_EQ(low.parameters.size(), 1u);
  EXPECT_NEAR(low.parameters[0].value, kFactorLow, 1e-4);
  // One model, or one system, supports no parameter (it would be a
  // per-model or per-system constant); nor do fewer than 8 rows.
  EXPECT_TRUE(fit(synthetic_rows(0.7, 8, 1)).parameters.empty());
  EXPECT_TRUE(fit(synthetic_rows(0.7, 1, 8)).parameters.empty());
  EXPECT_TRUE(fit(synthetic_rows(0.7, 3, 2)).parameters.empty());
  // A row of an unknown stack is fitted on by nobody.
  std::vector<CalRow> other = synthetic_rows(0.7, 6, 3);
  for (CalRow& r : other) r.stack = "other";
  EXPECT_TRUE(fit(other).parameters.empty());
}

TEST(Calibration, CrossValidationPredictsEachGroupFromTheOthers) {
  const std::vector<CalRow> rows = synthetic_rows(0.7, 6, 3, 0.05);
  FitOptions o;
  o.prior_weight = 1;
  const std::vector<double> cv = cross_validate(rows, o);
  ASSERT_EQ(cv.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_GT(cv[i], 0.9) << i;
    EXPECT_LT(cv[i], 1.1) << i;
  }
  // Every row's range comes from the other systems' rows and holds it here.
  const auto ranges = cv_ranges(rows, cv, 10);
  ASSERT_EQ(ranges.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_LE(ranges[i].first, ranges[i].second);
}

TEST(Calibration, YamlRoundTripAndErrorsNameTheLine) {
  Calibration c = fit(synthetic_rows(0.7, 6, 3));
  c.source = "rooftop calibrate x.csv (18 end-to-end rows)";
  c.cv = "leave one system out";
  Result<Calibration> back = parse_calibration(calibration_yaml(c), "c.yaml");
  ASSERT_TRUE(back) << back.error().what();
  ASSERT_EQ(back->parameters.size(), 1u);
  EXPECT_EQ(back->parameters[0].name(), c.parameters[0].name());
  EXPECT_NEAR(back->parameters[0].value, c.parameters[0].value, 1e-3 * c.parameters[0].value);
  EXPECT_EQ(back->source, c.source);
  EXPECT_TRUE(parse_calibration("parameters: []\n", "e.yaml"));
  const char* bad =
      "parameters:\n"
      "  - {stack: tensorrt, vendor: nvidia, task: infer, class: gemm, value: 3, low: 0.05, high: 1.25, rows: 9,\n"
      "     groups: 2, models: 2, parts: 1, mdape_before: 1, mdape_after: 1}\n";
  Result<Calibration> r = parse_calibration(bad, "bad.yaml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("bad.yaml:2"), std::string::npos) << r.error().what();
  EXPECT_FALSE(parse_calibration("parameters:\n  - {stack: nosuch, vendor: x, task: infer, class: gemm}\n", "b.yaml"));
  EXPECT_FALSE(parse_calibration("parameters: [\n", "b.yaml"));
  EXPECT_FALSE(parse_calibration("paramters: []\n", "b.yaml"));
}

}  // namespace
}  // namespace rooftop::model
