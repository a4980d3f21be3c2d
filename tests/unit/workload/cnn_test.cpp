// CNN builders against published parameter counts and FLOPs.
#include <gtest/gtest.h>

#include "unit/workload/zoo_helpers.h"
#include "workload/workload.h"

namespace rooftop::workload {
namespace {

using testing::expect_near_rel;
using testing::zoo;

double kind_flops(const Workload& w, OpKind k) {
  double f = 0;
  for (const Operator& op : w.ops)
    if (op.kind == k || (k == OpKind::other)) f += op.flops * op.repeat;
  return f;
}

TEST(Resnet50, ParamsAndFlopsMatchPublished) {
  // MLPerf Inference docs/index.md and torchvision resnet50 (IMAGENET1K_V1
  // weights): 25,557,032 parameters; torchvision lists 4.09 GFLOPS counted
  // as multiply-adds at 224x224, i.e. 8.2e9 FLOPs.
  Workload w = zoo("resnet50");
  EXPECT_EQ(w.family, Family::cnn);
  expect_near_rel(w.params, 25557032, 0.001, "resnet50 params");
  double conv_and_fc = kind_flops(w, OpKind::conv) + kind_flops(w, OpKind::matmul);
  expect_near_rel(conv_and_fc / 2, 4.09e9, 0.02, "resnet50 MACs");
  // Norms, activations, pooling and adds cost little on top.
  expect_near_rel(kind_flops(w, OpKind::other), 8.2e9, 0.03, "resnet50 FLOPs");
}

TEST(Resnet50, FlopsScaleWithImageArea) {
  Workload a = zoo("resnet50");
  Workload b = zoo("resnet50", {.seq_len = {}, .input_tokens = {}, .output_tokens = {}, .image_size = 448});
  EXPECT_NEAR(kind_flops(b, OpKind::conv) / kind_flops(a, OpKind::conv), 4.0, 0.05);
  EXPECT_DOUBLE_EQ(a.params, b.params);
  EXPECT_DOUBLE_EQ(totals(a.ops, 16, Precision::int8).flops, 16 * totals(a.ops, 1, Precision::int8).flops);
}

TEST(Retinanet, TorchvisionResnet50FpnParameters) {
  // torchvision retinanet_resnet50_fpn (COCO, 91 classes): 34,014,999
  // parameters, counted with frozen batch norms (buffers), which our count
  // includes as 2 parameters per channel (~53k more).
  const char* text = "builder: retinanet\nconfig:\n  blocks: [3, 4, 6, 3]\n  classes: 91\n  image_size: 800\n";
  Result<Workload> w = parse_workload_yaml(text, "rn50-retinanet.yaml", {});
  ASSERT_TRUE(w) << w.error().what();
  expect_near_rel(w->params, 34014999, 0.005, "retinanet_resnet50_fpn");
}

TEST(Retinanet, MlperfShape) {
  Workload w = zoo("retinanet");
  // ResNeXt's 3x3 convolutions carry their 32 groups; the rest are dense.
  double grouped = 0;
  for (const Operator& op : w.ops) {
    if (op.groups > 1) {
      EXPECT_EQ(op.kind, OpKind::conv) << op.name;
      EXPECT_DOUBLE_EQ(op.groups, 32) << op.name;
      grouped += op.repeat;
    }
  }
  EXPECT_DOUBLE_EQ(grouped, 16);  // one per bottleneck block: 3 + 4 + 6 + 3
  // ResNeXt50-32x4d backbone (25.0M with its fc) + FPN + heads for 264 classes.
  EXPECT_GT(w.params, 30e6);
  EXPECT_LT(w.params, 40e6);
  EXPECT_NE(w.sample.find("800x800"), std::string::npos);
  // The class subnet's last conv outputs 9 anchors x 264 classes at P3 (100x100).
  bool found = false;
  for (const Operator& op : w.ops) {
    if (op.name == "head.cls.P3.out") {
      found = true;
      EXPECT_DOUBLE_EQ(op.out_elems, 9.0 * 264 * 100 * 100);
    }
  }
  EXPECT_TRUE(found);
}

TEST(Retinanet, TrainingAddsTheFocalLossOverEveryAnchorAndClass) {
  // 800x800: P3..P7 are 100, 50, 25, 13 and 7 positions a side, 13,343
  // positions x 9 anchors x 264 classes = 31,702,968 logits, each read by the
  // loss (20 FLOPs), the scalar loss out.
  Workload w = zoo("retinanet");
  const double logits = (100.0 * 100 + 50 * 50 + 25 * 25 + 13 * 13 + 7 * 7) * 9 * 264;
  ASSERT_EQ(w.train_forward_ops.size(), w.ops.size() + 1);
  const Operator& loss = w.train_forward_ops.back();
  EXPECT_EQ(loss.name, "loss.focal");
  EXPECT_EQ(loss.kind, OpKind::reduce);
  EXPECT_DOUBLE_EQ(loss.in_elems, logits);
  EXPECT_DOUBLE_EQ(loss.out_elems, 1);
  EXPECT_DOUBLE_EQ(loss.flops, 20 * logits);
  EXPECT_DOUBLE_EQ(loss.params, 0);
  // Inference runs no loss; training keeps the logits for the loss's backward.
  for (const Operator& op : w.ops) EXPECT_NE(op.name, "loss.focal");
  double saved = 0;
  for (const Operator& op : w.ops)
    if (!op.frozen) saved += op.in_elems * op.repeat;
  EXPECT_DOUBLE_EQ(w.train_activation_elems_per_sample, saved + logits);
  // Its backward (training_ops) reads the logits and the loss gradient and
  // writes the logits' gradient: at bf16, 2 + 2 bytes per logit.
  bool backward = false;
  for (const Operator& op : training_ops(w)) {
    if (op.name != "loss.focal" || op.phase != Phase::backward) continue;
    backward = true;
    EXPECT_DOUBLE_EQ(op_bytes(op, 1, Precision::bf16), (logits + 1 + logits) * 2);
  }
  EXPECT_TRUE(backward);
}

// A CNN's norms are batch norms: the forward ops of a training step reduce
// their statistics over the batch; inference (running statistics) and the
// backward copies do not, nor does a transformer's layer norm.
TEST(Resnet50, TrainingMarksTheBatchNormsForward) {
  Workload w = zoo("resnet50");
  for (const Operator& op : w.ops) EXPECT_FALSE(op.batch_statistics) << op.name;
  int marked = 0;
  for (const Operator& op : training_ops(w)) {
    const bool expected = op.kind == OpKind::norm && op.phase == Phase::forward;
    EXPECT_EQ(op.batch_statistics, expected) << op.name;
    marked += expected;
  }
  EXPECT_GT(marked, 0);
  for (const Operator& op : training_ops(zoo("bert-large"))) EXPECT_FALSE(op.batch_statistics) << op.name;
}

TEST(Yolov8n, MatchesUltralyticsSummary) {
  // Ultralytics model summary for yolov8n.yaml: 3,157,200 parameters;
  // fused (batch norm folded into conv) 8.7 GFLOPs at 640 (thop MACs x 2).
  Workload w = zoo("yolov8n");
  expect_near_rel(w.params, 3157200, 0.001, "yolov8n params");
  expect_near_rel(kind_flops(w, OpKind::conv), 8.7e9, 0.03, "yolov8n conv FLOPs");
}

}  // namespace
}  // namespace rooftop::workload
