#include "core/text.h"

#include <gtest/gtest.h>

namespace rooftop {
namespace {

TEST(Text, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("H100", "h100"), 0u);
}

TEST(Text, ClosestMatchesPrefersSubstrings) {
  std::vector<std::string> ids = {"nvidia-h100-sxm5-80gb", "nvidia-h100-pcie-80gb", "nvidia-t4", "amd-mi300x"};
  auto near = closest_matches("h100", ids);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0], "nvidia-h100-pcie-80gb");
  EXPECT_TRUE(closest_matches("zzzzzzzzzz", ids).empty());
  EXPECT_EQ(closest_matches("nvidia-t5", ids).front(), "nvidia-t4");
}

TEST(Text, DidYouMean) {
  std::string msg = did_you_mean("accelerator", "nvidia-t5", {"nvidia-t4", "amd-mi100"});
  EXPECT_NE(msg.find("did you mean: nvidia-t4?"), std::string::npos) << msg;
}

TEST(Text, ParseDuration) {
  EXPECT_DOUBLE_EQ(*parse_duration("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_duration("7d"), 7 * 86400.0);
  EXPECT_DOUBLE_EQ(*parse_duration("90"), 90.0);
  EXPECT_FALSE(parse_duration("7 parsecs"));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration(""));
}

TEST(Text, ParseBytes) {
  EXPECT_DOUBLE_EQ(*parse_bytes("2GiB"), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_bytes("1.5GB"), 1.5e9);
  EXPECT_DOUBLE_EQ(*parse_bytes("4096"), 4096.0);
  EXPECT_FALSE(parse_bytes("12 bananas"));
}

TEST(Text, ParseNumbersStrict) {
  EXPECT_EQ(*parse_int("42"), 42);
  EXPECT_FALSE(parse_int("42x"));
  EXPECT_FALSE(parse_int(""));
  EXPECT_FALSE(parse_double("nan"));
  EXPECT_DOUBLE_EQ(*parse_double("1e3"), 1000.0);
}

TEST(Text, Formatting) {
  EXPECT_EQ(si(1234567, "FLOP/s"), "1.23 MFLOP/s");
  EXPECT_EQ(iec_bytes(1536), "1.50 KiB");
  EXPECT_EQ(human_seconds(0.000123), "123 us");
}

}  // namespace
}  // namespace rooftop

namespace rooftop {
namespace {

TEST(Text, MoneyHasOneStyle) {
  EXPECT_EQ(usd(30678), "$30.7 k");
  EXPECT_EQ(usd(950), "$950");
  EXPECT_EQ(usd(1.2e6), "$1.20 M");
  EXPECT_EQ(usd_per_hour(4.096), "$4.10/h");
  EXPECT_EQ(usd_per_hour(0.35), "$0.35/h");
  EXPECT_EQ(usd_per_hour(250), "$250/h");
  EXPECT_EQ(human_seconds(86400.0 * 5000), "5000 days");  // no exponent notation
  EXPECT_EQ(plain(10210.4), "10210");
  EXPECT_EQ(plain(9378), "9378");
  EXPECT_EQ(plain(494.5), "494.5");
  EXPECT_EQ(plain(0.000012346), "0.00001235");
  EXPECT_EQ(plain(0.5), "0.5");
}

}  // namespace
}  // namespace rooftop
