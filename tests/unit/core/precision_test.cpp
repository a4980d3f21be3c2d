// --precision spellings (core/precision.h): one format, weight/activation
// pairs, KV-cache and weight parts, and what is refused.
#include <gtest/gtest.h>

#include "core/precision.h"

namespace rooftop {
namespace {

TEST(PrecisionSpec, OneFormatSetsTheMathAndTheWeightsNotTheKvCache) {
  std::optional<PrecisionSpec> s = parse_precision_spec("FP8");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->compute, Precision::fp8);
  EXPECT_EQ(s->weights, Precision::fp8);
  EXPECT_FALSE(s->kv);  // serving stacks keep the cache at 16 bits unless it is named
  s = parse_precision_spec("fp8+fp8-kv");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kv, Precision::fp8);
}

TEST(PrecisionSpec, WeightActivationPairs) {
  std::optional<PrecisionSpec> s = parse_precision_spec("w4a16");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights, Precision::int4);
  EXPECT_EQ(s->compute, Precision::fp16);
  EXPECT_FALSE(s->kv);
  s = parse_precision_spec("W8A8");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights, Precision::int8);
  EXPECT_EQ(s->compute, Precision::int8);
  s = parse_precision_spec("w4");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights, Precision::int4);
  EXPECT_FALSE(s->compute);
}

TEST(PrecisionSpec, KvAndWeightParts) {
  std::optional<PrecisionSpec> s = parse_precision_spec("fp8-kv");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kv, Precision::fp8);
  EXPECT_FALSE(s->compute);
  EXPECT_FALSE(s->weights);
  s = parse_precision_spec("bf16+fp8-kv");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->compute, Precision::bf16);
  EXPECT_EQ(s->weights, Precision::bf16);
  EXPECT_EQ(s->kv, Precision::fp8);
  s = parse_precision_spec("w4a16, kv=fp8");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights, Precision::int4);
  EXPECT_EQ(s->compute, Precision::fp16);
  EXPECT_EQ(s->kv, Precision::fp8);
  s = parse_precision_spec("fp4-weights+fp8");  // fp4 weights on B200, fp8 math
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights, Precision::fp4);
  EXPECT_EQ(s->compute, Precision::fp8);
  EXPECT_FALSE(s->kv);
  s = parse_precision_spec("fp8/fp16-kv");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->compute, Precision::fp8);
  EXPECT_EQ(s->kv, Precision::fp16);
}

TEST(PrecisionSpec, RefusesUnknownOrContradictoryParts) {
  for (const char* bad : {"", "fp9", "w3a16", "w4a", "fp8,int8", "w4a16+w8a8", "fp8-kv+int8-kv", "kv=", "+fp8", "fast"})
    EXPECT_FALSE(parse_precision_spec(bad)) << bad;
}

TEST(PrecisionMix, NamesMixedFormats) {
  EXPECT_EQ(to_string(PrecisionMix(Precision::bf16)), "bf16");
  PrecisionMix m(Precision::fp16);
  m.weights = Precision::int4;
  m.kv = Precision::fp8;
  EXPECT_FALSE(m.uniform());
  EXPECT_EQ(to_string(m), "int4 weights, fp16 activations, fp8 kv");
}

}  // namespace
}  // namespace rooftop
