// Parts added for coverage (H100 NVL, H200 NVL, A30, MI300A, Data Center GPU
// Max 1550, GB10 / DGX Spark) and figures filled where the model tripped
// (Jetson AGX Thor's non-FP4 peaks, Groq's chip-to-chip link): every number is
// checked against the words of the source the entry cites, the way
// embedded_catalog_test.cpp checks its sourced_figures.inc. Each value is what
// the source states, or what its formula gives (a sparse figure halved, a
// per-core rate times cores and clock), so a number and its citation cannot
// drift apart.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cited_figure.h"
#include "core/precision.h"

namespace rooftop::catalog::coverage_parts_test {
namespace {

constexpr double kGiB = 1073741824.0;

using Cited = test::CitedFigure;
using test::shipped_catalog;

// One figure in the file's units: a precision in TFLOP/s (TOPS), "capacity"
// GB, "bandwidth" GB/s, "power" W, "link"/"host" GB/s per direction,
// "cloud_price" USD/hour, "list_price" USD, "units" a count. Null for an unknown name.
const Sourced* figure_of(const Accelerator& a, const std::string& field, double* scale) {
  *scale = 1;
  if (std::optional<Precision> p = parse_precision(field)) {
    *scale = 1e12;
    return &a.peak(*p);
  }
  if (field == "capacity") {
    *scale = kGiB;
    return &a.memory_bytes;
  }
  if (field == "bandwidth" || field == "link" || field == "host") {
    *scale = 1e9;
    if (field == "bandwidth") return &a.memory_bytes_per_s;
    return field == "link" ? &a.scale_up.bytes_per_s_per_direction : &a.host.bytes_per_s_per_direction;
  }
  if (field == "power") return &a.power_w;
  if (field == "cloud_price") return &a.price.cloud_usd_per_hour;
  if (field == "list_price") return &a.price.list_usd;
  if (field == "units") return &a.compute_units;
  if (field == "peers") return &a.domain.peers;
  if (field == "domain") return &a.domain.devices;
  return nullptr;
}

const std::vector<Cited> kCited = {
    // H100 NVL: NVIDIA's table marks Tensor Core rows '*' (with sparsity): dense = / 2.
    {"nvidia-h100-nvl-94gb", "fp64", 60, "ds", "'FP64 Tensor Core 60 teraFLOPs'", false},
    {"nvidia-h100-nvl-94gb", "fp32", 60, "ds", "'FP32 60 teraFLOPs'", false},
    {"nvidia-h100-nvl-94gb", "tf32", 835 / 2.0, "ds", "'TF32 Tensor Core* 835 teraFLOPs'", true},
    {"nvidia-h100-nvl-94gb", "bf16", 1671 / 2.0, "ds", "'BFLOAT16 Tensor Core* 1,671 teraFLOPS'", true},
    {"nvidia-h100-nvl-94gb", "fp16", 1671 / 2.0, "ds", "'FP16 Tensor Core* 1,671 teraFLOPS'", true},
    {"nvidia-h100-nvl-94gb", "fp8", 3341 / 2.0, "ds", "'FP8 Tensor Core* 3,341 teraFLOPS'", true},
    {"nvidia-h100-nvl-94gb", "int8", 3341 / 2.0, "ds", "'INT8 Tensor Core* 3,341 teraFLOPS'", true},
    {"nvidia-h100-nvl-94gb", "capacity", 94, "ds", "'GPU Memory 94GB'", false},
    {"nvidia-h100-nvl-94gb", "bandwidth", 3900, "ds", "'GPU Memory Bandwidth 3.9TB/s'", false},
    {"nvidia-h100-nvl-94gb", "power", 400, "ds", "350-400W (configurable)", false},
    {"nvidia-h100-nvl-94gb", "link", 600 / 2.0, "ds", "NVIDIA NVLink: 600GB/s", true},
    {"nvidia-h100-nvl-94gb", "host", 128 / 2.0, "ds", "PCIe Gen5: 128GB/s", true},
    {"nvidia-h100-nvl-94gb", "cloud_price", 6.98, "sky", "'Standard_NC40ads_H100_v5,H100,1,40.0,320,H100,6.98,6.98,eastus,V2'",
     false},
    // H200 NVL: the same sparse convention; NVLink 900 GB/s per GPU counts both directions.
    {"nvidia-h200-nvl-141gb", "fp64", 60, "ds", "'FP64 Tensor Core 60 teraFLOPs'", false},
    {"nvidia-h200-nvl-141gb", "fp32", 60, "ds", "'FP32 60 teraFLOPs'", false},
    {"nvidia-h200-nvl-141gb", "tf32", 835 / 2.0, "ds", "'TF32 Tensor Core* 835 teraFLOPs'", true},
    {"nvidia-h200-nvl-141gb", "bf16", 1671 / 2.0, "ds", "'BFLOAT16 Tensor Core* 1,671 teraFLOPS'", true},
    {"nvidia-h200-nvl-141gb", "fp16", 1671 / 2.0, "ds", "'FP16 Tensor Core* 1,671 teraFLOPS'", true},
    {"nvidia-h200-nvl-141gb", "fp8", 3341 / 2.0, "ds", "'FP8 Tensor Core* 3,341 teraFLOPS'", true},
    {"nvidia-h200-nvl-141gb", "int8", 3341 / 2.0, "ds", "'INT8 Tensor Core* 3,341 teraFLOPS'", true},
    {"nvidia-h200-nvl-141gb", "capacity", 141, "ds", "'GPU Memory 141GB'", false},
    {"nvidia-h200-nvl-141gb", "bandwidth", 4800, "ds", "'GPU Memory Bandwidth 4.8TB/s'", false},
    {"nvidia-h200-nvl-141gb", "power", 600, "ds", "'Max Thermal Design Power (TDP) Up to 600W (configurable)'", false},
    {"nvidia-h200-nvl-141gb", "link", 900 / 2.0, "nw", "bidirectional throughput of 900 GB/s per GPU", true},
    {"nvidia-h200-nvl-141gb", "peers", 3, "nw", "'The H200 NVL connects four cards'", true},
    {"nvidia-h200-nvl-141gb", "domain", 4, "nw", "'The H200 NVL connects four cards'", false},
    {"nvidia-h200-nvl-141gb", "host", 128 / 2.0, "ds", "PCIe Gen5: 128GB/s", true},
    // A30: the dense column of NVIDIA's table.
    {"nvidia-a30", "fp32", 10.3, "ds", "'FP32 10.3TFLOPS'", false},
    {"nvidia-a30", "bf16", 165, "ds", "'BFLOAT16 TensorCore 165 TFLOPS'", false},
    {"nvidia-a30", "fp16", 165, "ds", "'FP16 TensorCore 165 TFLOPS'", false},
    {"nvidia-a30", "int8", 330, "ds", "'INT8 TensorCore 330 TOPS'", false},
    {"nvidia-a30", "int4", 661, "ds", "'INT4 TensorCore 661 TOPS'", false},
    {"nvidia-a30", "capacity", 24, "ds", "'GPU Mem 24GB HBM2'", false},
    {"nvidia-a30", "bandwidth", 933, "ds", "'GPU Mem BW 933GB/s'", false},
    {"nvidia-a30", "power", 165, "ds", "'Max Power 165 watts'", false},
    {"nvidia-a30", "link", 200 / 2.0, "ds", "NVLINK 200GB/s", true},
    {"nvidia-a30", "host", 64 / 2.0, "ds", "'Interconnect PCIe Gen4 64GB/s", true},
    // MI300A: Epoch's transcription of AMD's data sheet; FP8, matrix FP64 and
    // the CU count from the ROCm per-CU rates (228 CUs at 2.1 GHz).
    {"amd-mi300a", "bf16", 980.6, "epoch", ",980600000000000.0,,1961200000000000.0,", false},
    {"amd-mi300a", "fp16", 980.6, "epoch", ",980600000000000.0,,1961200000000000.0,", false},
    {"amd-mi300a", "tf32", 490.3, "epoch", ",490300000000000.0,980600000000000.0,", false},
    {"amd-mi300a", "fp32", 122.6, "epoch", ",61300000000000.0,122600000000000.0,", false},
    {"amd-mi300a", "int8", 1961.2, "epoch", ",1961200000000000.0,,128000000000.0,", false},
    {"amd-mi300a", "capacity", 128, "epoch", ",128000000000.0,5300000000000.0,", false},
    {"amd-mi300a", "bandwidth", 5300, "epoch", ",128000000000.0,5300000000000.0,", false},
    {"amd-mi300a", "power", 760, "epoch", ",,,,760.0'", false},
    {"amd-mi300a", "fp8", 4096 * 228 * 2.1e9 / 1e12, "derived", "1307.4 TFLOPS / (2048 FLOP per clock per CU x 304 CUs)", true},
    {"amd-mi300a", "fp64", 256 * 228 * 2.1e9 / 1e12, "derived", "6 XCDs x 38 active CUs = 228", true},
    {"amd-mi300a", "units", 6 * 38, "rocm", "'MI300A (left) with 6 XCDs and 3 CCDs'", true},
    // Max 1550: Intel's per-Xe-core rates x 128 Xe-cores x 1.6 GHz.
    {"intel-gpu-max-1550", "bf16", 4096 * 128 * 1.6e9 / 1e12, "derived", "up to 4,096 FP16 and BFloat16 ops/cycle", true},
    {"intel-gpu-max-1550", "fp16", 4096 * 128 * 1.6e9 / 1e12, "derived", "up to 4,096 FP16 and BFloat16 ops/cycle", true},
    {"intel-gpu-max-1550", "tf32", 2048 * 128 * 1.6e9 / 1e12, "derived", "2,048 TF32 ops/cycle", true},
    {"intel-gpu-max-1550", "int8", 8192 * 128 * 1.6e9 / 1e12, "derived", "8,192 INT8 ops/cycle", true},
    {"intel-gpu-max-1550", "fp32", 256 * 128 * 1.6e9 / 1e12, "derived", "of 256 ops per clock, which is identical to its FP32",
     true},
    {"intel-gpu-max-1550", "fp64", 256 * 128 * 1.6e9 / 1e12, "derived", "1.6 GHz (peak)'", true},
    {"intel-gpu-max-1550", "units", 128, "gk", "'128 Xe Cores (64 per Stack)'", false},
    {"intel-gpu-max-1550", "capacity", 128, "gk", "'128 GB HBM2e'", false},
    {"intel-gpu-max-1550", "bandwidth", 3276.8, "gk", "'3.2768 TB/s'", false},
    {"intel-gpu-max-1550", "power", 600, "gk", "'600 W maximum'", false},
    {"intel-gpu-max-1550", "host", 64, "gk", "'1x16 PCIe Gen5", false},
    // GB10: NVIDIA publishes the sparse FP4 headline and FP32 only (Hot Chips 2025).
    {"nvidia-gb10-dgx-spark", "fp4", 1000 / 2.0, "reg", "roughly 1 petaFLOP of peak FP4 performance with sparsity", true},
    {"nvidia-gb10-dgx-spark", "fp32", 31, "reg", "about 31 teraFLOPS of single precision compute (FP32)", false},
    {"nvidia-gb10-dgx-spark", "capacity", 128, "aii", "'128 GB LPDDR5x unified, 273 GB/s'", false},
    {"nvidia-gb10-dgx-spark", "bandwidth", 273, "aii", "'128 GB LPDDR5x unified, 273 GB/s'", false},
    {"nvidia-gb10-dgx-spark", "power", 140, "aii", "(~140 W TDP)", false},
    {"nvidia-gb10-dgx-spark", "list_price", 3999, "aii", "'lists at ~$3,999 for the Founders Edition'", false},
    // Jetson AGX Thor: NVIDIA's T5000 table (稀疏 = sparse, 稠密 = dense).
    {"nvidia-jetson-agx-thor", "fp4", 1035, "ds", "1035 TFLOPS (稠密 FP4 | 稀疏 FP8 | 稀疏 INT8)", false},
    {"nvidia-jetson-agx-thor", "fp8", 517, "ds", "517 TFLOPs (稠密 FP8 | 稀疏 FP16)", false},
    {"nvidia-jetson-agx-thor", "fp16", 517 / 2.0, "ds", "517 TFLOPs (稠密 FP8 | 稀疏 FP16)", true},
    {"nvidia-jetson-agx-thor", "int8", 1035 / 2.0, "ds", "1035 TFLOPS (稠密 FP4 | 稀疏 FP8 | 稀疏 INT8)", true},
    // Groq LPU: 16 C2C links of four 30 Gb/s lanes.
    {"groq-lpu", "link", 16 * 4 * 30 / 8.0, "linley", "16 chip-to-chip links. Each link comprises four 30Gbps lanes", true},
    {"groq-lpu", "host", 32, "linley", "a single x16 PCIe Gen4 port", false},
};

TEST(CoverageParts, FiguresAgreeWithTheSourceTheyCite) {
  for (const Cited& f : kCited) {
    const Accelerator* a = shipped_catalog().find(f.id);
    ASSERT_NE(a, nullptr) << f.id;
    double scale = 1;
    const Sourced* s = figure_of(*a, f.field, &scale);
    ASSERT_NE(s, nullptr) << "unknown field " << f.field;
    test::expect_agrees_with_citation(*a, *s, scale, f);
  }
}

TEST(CoverageParts, LaunchYearsAgreeWithTheSourceTheyCite) {
  const struct {
    const char *id, *quote;
    int year;
  } years[] = {
      {"nvidia-h100-nvl-94gb", "'NVIDIA H100 NVL,NVIDIA,GPU,,2024-03-14'", 2024},
      {"nvidia-h200-nvl-141gb", "H200 NVL PCIe card will become available through partners next month", 2024},
      {"nvidia-a30", "'\"status\": \"available\"'", 2021},
      {"amd-mi300a", "'AMD Instinct MI300A,AMD,GPU,,2023-01-04", 2023},
      {"intel-gpu-max-1550", "'Intel Data Center GPU Max 1550,Intel,GPU,,2023-01-10'", 2023},
      {"nvidia-gb10-dgx-spark", "nvidia_gtc_2025_session", 2025},
  };
  for (const auto& y : years) {
    const Accelerator* a = shipped_catalog().find(y.id);
    ASSERT_NE(a, nullptr) << y.id;
    ASSERT_TRUE(a->launch_year.has_value()) << y.id;
    EXPECT_EQ(*a->launch_year, y.year) << y.id;
    EXPECT_NE(a->launch_year_source.find(y.quote), std::string::npos) << y.id << ": citation lacks " << y.quote;
  }
}

// A price names when it was read; a rented one also where: H100 NVL is
// Azure's one-GPU NC40ads H100 v5 VM, whose GPU Microsoft names in the same
// citation; GB10 is the DGX Spark Founders Edition's list price.
TEST(CoverageParts, PricesNameTheirDate) {
  const Accelerator* spark = shipped_catalog().find("nvidia-gb10-dgx-spark");
  ASSERT_NE(spark, nullptr);
  EXPECT_EQ(spark->price.list_date, "2026-06");
  EXPECT_FALSE(spark->price.cloud_usd_per_hour.missing_reason.empty());
  const Accelerator* a = shipped_catalog().find("nvidia-h100-nvl-94gb");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->price.cloud_provider, "azure");
  EXPECT_EQ(a->price.cloud_region, "eastus");
  EXPECT_EQ(a->price.cloud_date, "2026-12-01");
  EXPECT_NE(a->price.cloud_usd_per_hour.source.find("'powered by NVIDIA H100 NVL GPU'"), std::string::npos);
}

// What the gaps broke: every part here can run an inference workload at a
// 16-bit or 8-bit precision (Thor had FP4 only), from a known memory
// bandwidth, and its unknowns say why.
TEST(CoverageParts, EveryPartCanBePredicted) {
  for (const char* id : {"nvidia-h100-nvl-94gb", "nvidia-h200-nvl-141gb", "nvidia-a30", "amd-mi300a",
                         "intel-gpu-max-1550", "nvidia-jetson-agx-thor", "groq-lpu"}) {
    const Accelerator* a = shipped_catalog().find(id);
    ASSERT_NE(a, nullptr) << id;
    EXPECT_TRUE(a->peak(Precision::fp16).known() || a->peak(Precision::bf16).known()) << id << " has no 16-bit peak";
    EXPECT_TRUE(a->peak(Precision::int8).known() || a->peak(Precision::fp8).known()) << id << " has no 8-bit peak";
    EXPECT_TRUE(a->memory_bytes_per_s.known()) << id << " has no memory bandwidth";
    if (!a->power_w.known()) {
      EXPECT_FALSE(a->power_w.missing_reason.empty()) << id << ": unknown power without a reason";
    }
    if (!a->scale_up.name.empty() && !a->scale_up.bytes_per_s_per_direction.known()) {
      EXPECT_FALSE(a->scale_up.bytes_per_s_per_direction.missing_reason.empty()) << id << ": unknown link, no reason";
    }
  }
  // Multi-chip Groq runs need the chip-to-chip link.
  const Accelerator* groq = shipped_catalog().find("groq-lpu");
  ASSERT_NE(groq, nullptr);
  EXPECT_TRUE(groq->scale_up.bytes_per_s_per_direction.known());
}

// GB10's tensor rates other than sparse FP4 are unpublished: each says so,
// which advise quotes when it rejects the part for a 16- or 8-bit workload.
TEST(CoverageParts, UnpublishedGb10RatesSayWhy) {
  const Accelerator* a = shipped_catalog().find("nvidia-gb10-dgx-spark");
  ASSERT_NE(a, nullptr);
  for (Precision p : {Precision::fp16, Precision::bf16, Precision::fp8, Precision::int8}) {
    EXPECT_FALSE(a->peak(p).known()) << to_string(p);
    EXPECT_NE(a->peak(p).missing_reason.find("only the sparse FP4 headline"), std::string::npos) << to_string(p);
  }
}

}  // namespace
}  // namespace rooftop::catalog::coverage_parts_test
