// The OpenMetrics reader of `analyze --openmetrics` from a stream, and the
// bucket width that keeps a profile's size bounded whatever the time span.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "analyze/sources.h"

namespace rooftop::analyze {
namespace {

Result<Profiles> read(const std::string& text) {
  std::istringstream in(text);
  return profile_openmetrics(in, "f.om", {}, {});
}

const std::string kSample = R"(DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="n1",UUID="GPU-1"} )";

TEST(OpenMetrics, ReadsSamplesWithTimestamps) {
  auto p = read(kSample + "40 1796280000\n" + kSample + "60 1796280060\n# EOF\n");
  ASSERT_TRUE(p) << p.error().what();
  ASSERT_EQ(p->devices.size(), 1u);
  EXPECT_EQ(p->devices[0].samples, 2u);
}

// A timestamp that is not Unix seconds (a millisecond exposition, or one
// whose span would ask for ~10^290 buckets) is an error naming the line.
TEST(OpenMetrics, TimestampsOutsideUnixSecondsAreErrors) {
  auto ms = read(kSample + "40 1796280000000\n# EOF\n");
  ASSERT_FALSE(ms);
  EXPECT_NE(ms.error().what().find("f.om:1"), std::string::npos) << ms.error().what();
  EXPECT_NE(ms.error().what().find("milliseconds?"), std::string::npos) << ms.error().what();
  auto huge = read(kSample + "40 0\n" + kSample + "40 1e300\n# EOF\n");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().what().find("f.om:2"), std::string::npos) << huge.error().what();
  EXPECT_FALSE(read(kSample + "40 -5\n# EOF\n"));
}

// Past the readable widths (1 day) the bucket grows in whole days, so a
// window of any length has about 720 buckets.
TEST(OpenMetrics, BucketsStayAbout720ForAnyWindow) {
  for (double window : {3600.0, 86400.0 * 30, 86400.0 * 3650, 1e10}) {
    const double b = choose_bucket_s(window, 1);
    EXPECT_LE(std::ceil(window / b), 721) << window;
  }
  EXPECT_EQ(choose_bucket_s(3600, 1), 5);
}

}  // namespace
}  // namespace rooftop::analyze
