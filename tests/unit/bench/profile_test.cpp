// The saved profile goes through the catalog's own strict parser.
#include <gtest/gtest.h>

#include "bench/profile.h"
#include "catalog/catalog.h"

namespace rooftop::bench {
namespace {

Report sample_report() {
  Report r;
  r.env.hostname = "Build_Box.example";
  r.env.cpu_model = "Intel(R) Xeon(R) Processor";
  r.env.date = "2026-11-30";
  r.env.threads = 2;
  r.env.clock_measured_hz = 2.93e9;
  r.env.memory_bytes = 24.0 * 1024 * 1024 * 1024;
  r.env.caches = {Cache{1, "Data", 48 * 1024.0, 1}, Cache{3, "Unified", 300 * 1024.0 * 1024, 2}};
  auto peak = [](Precision p, const char* unit, double median, bool gemm = false) {
    ComputeResult c;
    c.precision = p;
    c.unit = unit;
    c.gemm = gemm;
    c.verified = true;
    c.flop_per_s.median = median;
    return c;
  };
  r.compute = {peak(Precision::fp64, "avx512_fma", 162e9), peak(Precision::fp32, "avx512_fma", 309e9),
               peak(Precision::bf16, "avx512_bf16", 153e9), peak(Precision::bf16, "amx", 2503e9),
               peak(Precision::int8, "amx", 6449e9), peak(Precision::fp64, "openblas_dgemm", 110e9, true)};
  r.memory = {MemoryLevel{"DRAM", "triad", 2, 2e9, 27.9e9, 0, 0, 0}, MemoryLevel{"DRAM", "triad_nt", 2, 2e9, 40.1e9, 0, 0, 0},
              MemoryLevel{"DRAM", "triad_nt", 1, 2e9, 22.5e9, 0, 0, 0}, MemoryLevel{"L1", "triad", 2, 32e3, 575e9, 0, 0, 0}};
  return r;
}

TEST(Profile, DefaultIdIsLocalHostname) {
  EXPECT_EQ(default_profile_id("Build_Box.example"), "local-build-box.example");
  EXPECT_EQ(default_profile_id(""), "local-host");
}

TEST(Profile, BestValuesIgnoreGemmAndFewerThreads) {
  Report r = sample_report();
  EXPECT_DOUBLE_EQ(*best_peak(r, Precision::bf16), 2503e9);
  EXPECT_DOUBLE_EQ(*best_peak(r, Precision::fp64), 162e9);
  EXPECT_FALSE(best_peak(r, Precision::fp8));
  EXPECT_DOUBLE_EQ(*best_dram(r), 40.1e9);
  EXPECT_FALSE(best_dram(Report{}));
}

TEST(Profile, RoundTripsThroughTheCatalogParser) {
  Report r = sample_report();
  std::string id = default_profile_id(r.env.hostname);
  auto a = catalog::parse_accelerator({id + ".yaml", profile_yaml(r, id)});
  ASSERT_TRUE(a) << a.error().what() << "\n" << profile_yaml(r, id);
  EXPECT_EQ(a->id, id);
  EXPECT_EQ(a->kind, catalog::Kind::cpu);
  EXPECT_EQ(a->vendor, "local");
  EXPECT_NEAR(*a->peak(Precision::fp64).value, 162e9, 1e7);
  EXPECT_NEAR(*a->peak(Precision::bf16).value, 2503e9, 1e9);
  EXPECT_NEAR(*a->peak(Precision::int8).value, 6449e9, 1e9);
  EXPECT_FALSE(a->peak(Precision::fp8).known());
  EXPECT_NEAR(*a->memory_bytes_per_s.value, 40.1e9, 1e7);
  EXPECT_NEAR(*a->memory_bytes.value, 24.0 * 1024 * 1024 * 1024, 1e7);
  EXPECT_EQ(a->calibration.compute_efficiency, 1.0);
  EXPECT_EQ(a->calibration.memory_efficiency, 1.0);
  EXPECT_NE(a->peak(Precision::fp64).source.find("measured by rooftop bench on 2026-11-30, Intel(R) Xeon(R) Processor"),
            std::string::npos);
}

TEST(Profile, MinimalReportStillParses) {
  Report r;
  r.env.hostname = "h";
  r.env.date = "2026-11-30";
  r.compute = {};
  auto a = catalog::parse_accelerator({"local-h.yaml", profile_yaml(r, "local-h")});
  ASSERT_TRUE(a) << a.error().what() << "\n" << profile_yaml(r, "local-h");
  EXPECT_TRUE(a->precisions().empty());
}

}  // namespace
}  // namespace rooftop::bench
