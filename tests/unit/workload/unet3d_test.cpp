// 3D U-Net (MLPerf Inference 3d-unet, KiTS19): parameters against the
// published count, FLOPs per window against a hand count of the reference
// layers, and the sliding-window count per volume.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/workload/zoo_helpers.h"
#include "workload/builders.h"
#include "workload/workload.h"

namespace rooftop::workload {
namespace {

using testing::expect_near_rel;
using testing::zoo;

double conv_flops(const std::vector<Operator>& ops) {
  double f = 0;
  for (const Operator& op : ops)
    if (op.kind == OpKind::conv) f += op.flops * op.repeat;
  return f;
}

const Operator* find_op(const Workload& w, const std::string& name) {
  for (const Operator& op : w.ops)
    if (op.name == name) return &op;
  return nullptr;
}

TEST(Unet3d, ParametersMatchPublished) {
  Workload w = zoo("3d-unet");
  // mlcommons/inference docs/index.md: 32.5M parameters.
  expect_near_rel(w.params, 32.5e6, 0.05, "3d-unet params");
  // Hand count of the reference layers (training model/layers.py), weights
  // k^3 x C_in x C_out, no conv bias under instance norm, 2 affine
  // parameters per norm channel:
  //   input  1->32, 32->32                                           28,640
  //   down   32->64, 64->128, 128->256, 256->320, two convs each   8,463,360
  //   bottleneck 320->320, two convs                              5,530,880
  //   up (transposed k=2 + bias, conv 2C->C, conv C->C) for C = 320, 256,
  //      128, 64, 32                                             17,167,264
  //   output 1x1x1 32->3 + bias                                          99
  EXPECT_DOUBLE_EQ(w.params, 31190243);
}

TEST(Unet3d, FlopsPerWindowMatchHandCount) {
  Workload w = zoo("3d-unet");
  // One 128^3 window: sum over convs of k^3 x C_in x C_out x output voxels
  // (transposed k=2 s=2: 8 x C_in x C_out x input voxels) = 477,298,688,000
  // multiply-adds; conv biases add one FLOP per output element of the 5
  // transposed convs and the output conv.
  const double macs = 477298688000.0;
  const double bias = 320.0 * 8 * 8 * 8 + 256.0 * 16 * 16 * 16 + 128.0 * 32 * 32 * 32 + 64.0 * 64 * 64 * 64 +
                      32.0 * 128 * 128 * 128 + 3.0 * 128 * 128 * 128;
  expect_near_rel(conv_flops(w.train_forward_ops), 2 * macs + bias, 1e-9, "3d-unet conv FLOPs per window");
  // A sample (one volume) runs every window.
  const double windows = detail::sliding_windows(32944795, 128, 0.5);
  expect_near_rel(conv_flops(w.ops), windows * (2 * macs + bias), 1e-9, "3d-unet conv FLOPs per volume");
  // About 61 TFLOP per mean volume at 64.4 windows.
  EXPECT_GT(conv_flops(w.ops), 60e12);
  EXPECT_LT(conv_flops(w.ops), 63e12);
}

TEST(Unet3d, SlidingWindowCount) {
  // inference_utils.py: windows start every 128 x (1 - 0.5) = 64 voxels,
  // (edge - 128) / 64 + 1 per axis.
  EXPECT_NEAR(detail::sliding_windows(320.0 * 320 * 320, 128, 0.5), 64, 1e-9);
  EXPECT_NEAR(detail::sliding_windows(384.0 * 384 * 384, 128, 0.5), 125, 1e-9);
  EXPECT_DOUBLE_EQ(detail::sliding_windows(128.0 * 128 * 128, 128, 0.5), 1);
  EXPECT_DOUBLE_EQ(detail::sliding_windows(100.0 * 100 * 100, 128, 0.5), 1);  // padded up to one window
  // The MLPerf mean volume (32,944,795 voxels) as a cube: edge 320.61,
  // 4.009 windows per axis.
  EXPECT_NEAR(detail::sliding_windows(32944795, 128, 0.5), 64.432, 0.001);
  // Far from the edges every voxel is covered by 2^3 windows at 0.5 overlap:
  // a 64,000-voxel edge has 999 windows per axis, 8 x 0.999^3 coverage.
  const double big = 64000.0 * 64000 * 64000;
  EXPECT_NEAR(detail::sliding_windows(big, 128, 0.5) * 128 * 128 * 128 / big, 8 * std::pow(0.999, 3), 1e-6);
  Workload w = zoo("3d-unet");
  EXPECT_NE(w.sample.find("64.4 sliding windows of 128x128x128"), std::string::npos) << w.sample;
}

TEST(Unet3d, AccumulationAndArgmaxPerVolume) {
  Workload w = zoo("3d-unet");
  const double windows = detail::sliding_windows(32944795, 128, 0.5);
  const double roi = 128.0 * 128 * 128;
  const Operator* acc = find_op(w, "window.gaussian_accumulate");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->kind, OpKind::elementwise);
  EXPECT_TRUE(acc->own_kernel);
  EXPECT_DOUBLE_EQ(acc->flops, windows * 3 * 3 * roi);        // 3 classes x 3 FLOPs per voxel
  EXPECT_DOUBLE_EQ(acc->in_elems, windows * 3 * 3 * roi);     // output, result, norm map
  EXPECT_DOUBLE_EQ(acc->out_elems, windows * 2 * 3 * roi);    // result, norm map
  EXPECT_DOUBLE_EQ(acc->weight_elems, roi);                    // the Gaussian patch
  const Operator* fin = find_op(w, "volume.normalize_argmax");
  ASSERT_NE(fin, nullptr);
  EXPECT_DOUBLE_EQ(fin->out_elems, 32944795);                  // one label per voxel
  // Training runs the network on one window-sized crop: no accumulation.
  for (const Operator& op : w.train_forward_ops) EXPECT_EQ(op.name.find("window."), std::string::npos) << op.name;
  // Linear in the batch.
  EXPECT_DOUBLE_EQ(totals(w.ops, 8, Precision::int8).flops, 8 * totals(w.ops, 1, Precision::int8).flops);
}

TEST(Unet3d, MlperfIdsAreAliases) {
  Workload w = zoo("3d-unet");
  EXPECT_EQ(w.id, "3d-unet");
  for (const char* id : {"3d-unet-99", "3d-unet-99.9", "3d-unet-kits19", "unet3d", "3D-UNet-99"}) {
    Workload a = zoo(id);
    EXPECT_EQ(a.id, "3d-unet") << id;
    EXPECT_DOUBLE_EQ(a.params, w.params) << id;
  }
}

TEST(Unet3d, BadConfigIsAnError) {
  const char* odd_roi =
      "builder: unet3d\nconfig:\n  classes: 3\n  roi: 100\n  overlap: 0.5\n  mean_voxels: 1000000\n";
  Result<Workload> a = parse_workload_yaml(odd_roi, "odd.yaml", {});
  ASSERT_FALSE(a);
  EXPECT_NE(std::string(a.error().what()).find("roi"), std::string::npos) << a.error().what();
  const char* one_level =
      "builder: unet3d\nconfig:\n  channels: [32]\n  classes: 3\n  roi: 128\n  overlap: 0.5\n  mean_voxels: 1e6\n";
  EXPECT_FALSE(parse_workload_yaml(one_level, "one.yaml", {}));
  const char* no_volume = "builder: unet3d\nconfig:\n  classes: 3\n  roi: 128\n  overlap: 0.5\n";
  EXPECT_FALSE(parse_workload_yaml(no_volume, "none.yaml", {}));
  BuildOptions o;
  o.image_size = 100;
  EXPECT_FALSE(build_zoo("3d-unet", o));
  o.image_size = 64;
  Result<Workload> small = build_zoo("3d-unet", o);
  ASSERT_TRUE(small) << small.error().what();
  EXPECT_NE(small->sample.find("64x64x64"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::workload
