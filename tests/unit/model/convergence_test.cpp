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

}  // namespace
}  // namespace rooftop::model
