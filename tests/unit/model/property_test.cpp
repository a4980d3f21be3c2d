// Property tests of the roofline (STYLE.md): predicted time is at least
// both roofline bounds; it is monotone in FLOPs, bytes and peak; faster
// memory never slows a memory-bound op; more devices never lower
// data-parallel throughput. Random cases from a fixed seed.
#include <gtest/gtest.h>

#include <random>

#include "model/model.h"
#include "unit/model/fixtures.h"

namespace rooftop::model {
namespace {

using testing::matmul_model;
using testing::test_gpu;

struct Case {
  workload::Operator op;
  double batch = 1;
};

std::vector<Case> random_cases(int n) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> exp10(0, 12);
  std::vector<Case> out;
  for (int i = 0; i < n; ++i) {
    Case c;
    c.op.kind = workload::OpKind::matmul;
    c.op.flops = std::pow(10, exp10(rng));
    c.op.weight_elems = std::pow(10, exp10(rng) * 0.8);
    c.op.in_elems = std::pow(10, exp10(rng) * 0.7);
    c.op.out_elems = std::pow(10, exp10(rng) * 0.7);
    c.op.repeat = 1 + (rng() % 8);
    c.batch = static_cast<double>(1 + rng() % 512);
    out.push_back(c);
  }
  return out;
}

TEST(Property, TimeIsAtLeastBothRooflineBounds) {
  catalog::Accelerator a = test_gpu();
  Efficiency e = efficiency_for(a);
  for (const Case& c : random_cases(2000)) {
    OpPrediction p = roofline(c.op, c.batch, Precision::fp16, a, e);
    double compute = p.flops / *a.peak(Precision::fp16).value;
    double memory = p.bytes / *a.memory_bytes_per_s.value;
    ASSERT_GE(p.time_s, compute);
    ASSERT_GE(p.time_s, memory);
    ASSERT_GE(p.time_s, std::max(compute / e.compute, memory / e.memory));
  }
}

TEST(Property, MonotoneInFlopsBytesAndPeak) {
  catalog::Accelerator a = test_gpu();
  catalog::Accelerator fast = a;
  fast.peak_flop_per_s[static_cast<std::size_t>(Precision::fp16)].value = 2 * *a.peak(Precision::fp16).value;
  Efficiency e = efficiency_for(a);
  for (const Case& c : random_cases(2000)) {
    double t = roofline(c.op, c.batch, Precision::fp16, a, e).time_s;
    workload::Operator more_flops = c.op, more_bytes = c.op;
    more_flops.flops *= 1.5;
    more_bytes.in_elems *= 1.5;
    ASSERT_GE(roofline(more_flops, c.batch, Precision::fp16, a, e).time_s, t);
    ASSERT_GE(roofline(more_bytes, c.batch, Precision::fp16, a, e).time_s, t);
    ASSERT_LE(roofline(c.op, c.batch, Precision::fp16, fast, e).time_s, t);
  }
}

TEST(Property, FasterMemoryNeverSlowsAMemoryBoundOp) {
  catalog::Accelerator a = test_gpu();
  catalog::Accelerator fast = a;
  fast.memory_bytes_per_s.value = 3 * *a.memory_bytes_per_s.value;
  Efficiency e = efficiency_for(a);
  int memory_bound = 0;
  for (const Case& c : random_cases(2000)) {
    OpPrediction slow = roofline(c.op, c.batch, Precision::fp16, a, e);
    if (slow.bound != Bound::memory) continue;
    ++memory_bound;
    ASSERT_LE(roofline(c.op, c.batch, Precision::fp16, fast, e).time_s, slow.time_s);
  }
  EXPECT_GT(memory_bound, 100);
}

TEST(Property, MoreDevicesNeverLowerDataParallelThroughput) {
  catalog::Accelerator a = test_gpu();
  for (double params : {1e7, 1e9, 2e10}) {
    workload::Workload w = matmul_model(params, 4096);
    for (workload::Task task : {workload::Task::infer, workload::Task::train}) {
      Request r;
      r.accelerator = &a;
      r.workload = &w;
      r.task = task;
      if (task == workload::Task::train && params > 1e9) continue;  // 16 bytes/param: does not fit one device
      // Training: micro-batches whose backward pass covers the gradient all-reduce.
      r.batch = task == workload::Task::train ? 1024 : 8;
      double last = 0;
      for (int n = 1; n <= 64; n *= 2) {
        r.count = n;
        Result<Prediction> p = predict(r);
        ASSERT_TRUE(p) << p.error().message;
        EXPECT_GE(p->throughput, last) << params << " params, " << n << " devices";
        last = p->throughput;
      }
    }
  }
}

}  // namespace
}  // namespace rooftop::model
