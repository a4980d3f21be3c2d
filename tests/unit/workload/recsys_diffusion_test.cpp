// DLRM-v2 and the diffusion models against published parameter counts, and
// the structure of one sample (guidance, steps, pairs per sample).
#include <gtest/gtest.h>

#include <numeric>

#include "unit/workload/zoo_helpers.h"
#include "workload/workload.h"

namespace rooftop::workload {
namespace {

using testing::expect_near_rel;
using testing::zoo;

// Parameters of one component. UNet and text encoders are counted on the
// training forward pass, where each runs once (inference repeats the UNet
// per denoising step); the VAE decoder only runs in inference.
double prefix_params(const Workload& w, const std::string& prefix) {
  double p = 0;
  for (const Operator& op : prefix == "vae_decoder" ? w.ops : train_forward(w))
    if (op.name.rfind(prefix, 0) == 0) p += op.params * op.repeat;
  return p;
}

TEST(DlrmV2, EmbeddingTablesAndTotalParameters) {
  Workload w = zoo("dlrm-v2");
  EXPECT_EQ(w.family, Family::recsys);
  // mlcommons/training torchrec_dlrm README: 204,184,588 rows of dim 128.
  const Operator& emb = w.ops.front();
  ASSERT_EQ(emb.name, "embeddings");
  EXPECT_DOUBLE_EQ(emb.weight_elems, 204184588.0 * 128);
  // mlcommons/inference dlrm_v2 README: fp32 weights 97.31 GB (GiB) = 26.12e9 parameters.
  expect_near_rel(w.params, 97.31 * 1024 * 1024 * 1024 / 4, 0.01, "dlrm-v2 params");
  // 214 lookups per pair x 270 pairs, 128 elements each.
  EXPECT_DOUBLE_EQ(emb.weight_elems_per_sample, 214.0 * 270 * 128);
}

TEST(DlrmV2, TrainsWithAdagrad) {
  Workload w = zoo("dlrm-v2");
  EXPECT_EQ(w.optimizer, Optimizer::adagrad);
  // The sparse rows and the dense update each move 5 fp32 elements per
  // parameter (read parameter, gradient, accumulator; write parameter,
  // accumulator), not Adam's 7.
  double dense = 0, rows = 0;
  for (const Operator& op : training_ops(w)) {
    if (op.name == "optimizer.adagrad") dense = op.weight_elems;
    if (op.name == "optimizer.sparse_rows") rows = op.weight_elems;
  }
  const Operator& emb = w.ops.front();
  EXPECT_DOUBLE_EQ(rows, 5 * emb.weight_elems);
  EXPECT_DOUBLE_EQ(dense, 5 * (w.params - emb.weight_elems));
  EXPECT_EQ(zoo("bert-large").optimizer, Optimizer::adam);
}

TEST(DlrmV2, FlopsPerSampleFromTheArchitecture) {
  Workload w = zoo("dlrm-v2");
  // Per pair: bottom 13-512-256-128, DCN 3 x (3456x512 + 512x3456), top
  // 3456-1024-1024-512-256-1 (multiply-adds x 2), times 270 pairs.
  double macs = 13 * 512 + 512 * 256 + 256 * 128 + 3 * 2 * 3456.0 * 512 + 3456.0 * 1024 + 1024 * 1024 +
                1024 * 512 + 512 * 256 + 256;
  double matmul = 0;
  for (const Operator& op : w.ops)
    if (op.kind == OpKind::matmul) matmul += op.flops * op.repeat;
  expect_near_rel(matmul, 2 * macs * 270, 0.01, "dlrm-v2 matmul FLOPs");
}

TEST(Sdxl, ComponentParametersMatchPublished) {
  Workload w = zoo("sdxl");
  EXPECT_EQ(w.family, Family::diffusion);
  // diffusers stabilityai/stable-diffusion-xl-base-1.0: UNet 2,567,463,684;
  // CLIP ViT-L text 123,060,480; OpenCLIP bigG text + projection 694,659,840.
  expect_near_rel(prefix_params(w, "unet"), 2567463684.0, 0.01, "sdxl unet");
  expect_near_rel(prefix_params(w, "text_encoder1"), 123060480.0, 0.01, "clip-l text");
  expect_near_rel(prefix_params(w, "text_encoder2"), 694659840.0, 0.01, "openclip-bigg text");
  // AutoencoderKL decoder (+ post_quant_conv): 49,490,199.
  expect_near_rel(prefix_params(w, "vae_decoder"), 49490199.0, 0.01, "vae decoder");
  // MLPerf Inference docs/index.md: 3.5B parameters (UNet + text encoders + VAE).
  expect_near_rel(w.params, 3.5e9, 0.03, "sdxl total");
}

TEST(Sdxl, TwentyStepsOfTwoUnetEvaluations) {
  Workload w = zoo("sdxl");
  EXPECT_NE(w.sample.find("1024x1024"), std::string::npos);
  double unet = 0, train_unet = 0;
  for (const Operator& op : w.ops)
    if (op.name.rfind("unet", 0) == 0) unet += op.flops * op.repeat;
  for (const Operator& op : train_forward(w))
    if (op.name.rfind("unet", 0) == 0) train_unet += op.flops * op.repeat;
  EXPECT_NEAR(unet / train_unet, 40, 1e-9);
  // Guidance batches the pair: the UNet weights are read once per step (20x), not 40x.
  for (const Operator& op : w.ops) {
    if (op.name == "unet.conv_in") {
      EXPECT_DOUBLE_EQ(op.repeat, 20);
    }
  }
  // Text encoders are frozen in training.
  for (const Operator& op : train_forward(w))
    if (op.name.rfind("text_encoder", 0) == 0) {
      EXPECT_TRUE(op.frozen) << op.name;
    }
}

TEST(StableDiffusionV2, UnetAndTextEncoderParameters) {
  Workload w = zoo("stable-diffusion-v2");
  // diffusers stabilityai/stable-diffusion-2-base: UNet 865,910,724; text encoder 340,387,840.
  expect_near_rel(prefix_params(w, "unet"), 865910724.0, 0.01, "sd2 unet");
  expect_near_rel(prefix_params(w, "text_encoder1"), 340387840.0, 0.01, "sd2 text");
  EXPECT_NE(w.sample.find("512x512"), std::string::npos);
  Workload big = zoo("stable-diffusion-v2", {.seq_len = {}, .input_tokens = {}, .output_tokens = {}, .image_size = 768});
  EXPECT_GT(totals(big.ops, 1, Precision::fp16).flops, 2.25 * totals(w.ops, 1, Precision::fp16).flops);
}

TEST(Diffusion, BadImageSize) {
  Result<Workload> w = build_zoo("sdxl", {.seq_len = {}, .input_tokens = {}, .output_tokens = {}, .image_size = 1000});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("multiple of"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::workload
