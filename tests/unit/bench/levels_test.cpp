// Naming sweep points after cache levels (sysfs fixtures of the 2-vCPU
// Emerald Rapids guest from the research anchors) and reducing them.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/cpu_info.h"
#include "bench/memory_levels.h"

namespace rooftop::bench {
namespace {

const std::string kSys = std::string(ROOFTOP_SOURCE_DIR) + "/tests/data/bench/sys-emr";
constexpr double kKiB = 1024, kMiB = 1024 * 1024;

TEST(Levels, ReadsCachesFromSysfsSkippingInstructionCaches) {
  auto c = read_caches(kSys);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].level, 1);
  EXPECT_DOUBLE_EQ(c[0].size_bytes, 48 * kKiB);
  EXPECT_DOUBLE_EQ(c[1].size_bytes, 2 * kMiB);
  EXPECT_DOUBLE_EQ(c[2].size_bytes, 300 * kMiB);
  EXPECT_EQ(c[2].shared_by_cpus, 2);
  EXPECT_TRUE(read_caches("/nonexistent").empty());
}

TEST(Levels, ParsesSysfsSizesAndCpuLists) {
  EXPECT_EQ(parse_cache_size("48K"), 48 * kKiB);
  EXPECT_EQ(parse_cache_size("300M"), 300 * kMiB);
  EXPECT_EQ(parse_cache_size("512"), 512);
  EXPECT_FALSE(parse_cache_size("big"));
  EXPECT_FALSE(parse_cache_size(""));
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("0"), (std::vector<int>{0}));
}

TEST(Levels, NamesByReachableCapacity) {
  auto c = read_caches(kSys);
  // 2 threads: L1 2 x 48 KiB, L2 2 x 2 MiB, L3 one shared 300 MiB.
  EXPECT_EQ(level_for(32 * kKiB, 2, c), "L1");
  EXPECT_EQ(level_for(48 * kKiB, 2, c), "L1");
  EXPECT_EQ(level_for(80 * kKiB, 2, c), "");      // between L1 and L2
  EXPECT_EQ(level_for(1 * kMiB, 2, c), "L2");
  EXPECT_EQ(level_for(64 * kMiB, 2, c), "L3");
  EXPECT_EQ(level_for(200 * kMiB, 2, c), "");     // L3 transition
  EXPECT_EQ(level_for(600 * kMiB, 2, c), "");     // < 4 x LLC
  EXPECT_EQ(level_for(2048 * kMiB, 2, c), "DRAM");
  // 1 thread: private caches count once.
  EXPECT_EQ(level_for(32 * kKiB, 1, c), "");
  EXPECT_EQ(level_for(16 * kKiB, 1, c), "L1");
  // SMT: 2 logical CPUs per core sharing a "shared_cpu_list 0-1" L2 = private per core.
  Cache l2{2, "Unified", 2 * kMiB, 2};
  EXPECT_DOUBLE_EQ(reachable_bytes(l2, 4, 2), 8 * kMiB);
  EXPECT_DOUBLE_EQ(reachable_bytes(l2, 4, 1), 4 * kMiB);
  EXPECT_EQ(level_for(1e9, 1, {}), "DRAM");
}

TEST(Levels, SummaryIsTheMedianOfPointsInsideALevel) {
  auto point = [](const char* level, double ws, double bw, const char* kernel = "triad", int threads = 2) {
    MemoryPoint p;
    p.kernel = kernel;
    p.threads = threads;
    p.working_set_bytes = ws;
    p.level = level;
    p.bytes_per_s.median = bw;
    return p;
  };
  std::vector<MemoryPoint> sweep = {point("L1", 16e3, 500e9), point("L1", 32e3, 600e9), point("L1", 40e3, 550e9),
                                    point("", 80e3, 300e9),   point("DRAM", 2e9, 30e9), point("DRAM", 2e9, 40e9, "triad_nt"),
                                    point("L1", 16e3, 300e9, "triad", 1)};
  auto levels = summarize_levels(sweep);
  ASSERT_EQ(levels.size(), 4u);
  const MemoryLevel* l1 = nullptr;
  for (const auto& l : levels)
    if (l.level == "L1" && l.threads == 2) l1 = &l;
  ASSERT_NE(l1, nullptr);
  EXPECT_DOUBLE_EQ(l1->bytes_per_s, 550e9);
  EXPECT_DOUBLE_EQ(l1->working_set_bytes, 40e3);
  EXPECT_DOUBLE_EQ(l1->p10, 510e9);
  EXPECT_EQ(levels.front().threads, 1);  // sorted by kernel, then threads
}

TEST(Levels, SweepSizesGrowGeometricallyOnTheGranule) {
  auto s = sweep_sizes(16 * kKiB, 1 * kMiB, 2, 2.0, 768);
  ASSERT_FALSE(s.empty());
  EXPECT_DOUBLE_EQ(s.front(), 2 * 16128.0);  // 16 KiB rounded down to 21 x 768 B, x2 threads
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GT(s[i], s[i - 1]);
  EXPECT_LE(s.back(), 1 * kMiB);
  for (double v : s) EXPECT_EQ(std::fmod(v / 2, 768), 0);
}

TEST(Levels, CoresToPinTakeOneCpuPerCore) {
  // The fixture has two cores; the pinning list never exceeds what the
  // process may use and never repeats a CPU.
  auto cores = cores_to_pin(kSys);
  auto allowed = allowed_cpus();
  EXPECT_LE(cores.size(), allowed.size());
  EXPECT_FALSE(cores.empty());
}

}  // namespace
}  // namespace rooftop::bench
