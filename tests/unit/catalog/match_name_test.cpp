// Catalog::match_reported_name: the names drivers and exporters report
// (NVML, dcgm-exporter's modelName, amd-smi) to catalog entries.
#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace rooftop::catalog {
namespace {

const Catalog& shipped() {
  static const Catalog catalog = [] {
    Result<Catalog> c = load_catalog(embedded_sources(), {});
    EXPECT_TRUE(c) << c.error().what();
    return c ? std::move(*c) : Catalog{};
  }();
  return catalog;
}

std::string match(const std::string& reported) {
  const Accelerator* a = shipped().match_reported_name(reported);
  return a ? a->id : "";
}

TEST(MatchReportedName, DriverNamesFindTheirEntry) {
  EXPECT_EQ(match("NVIDIA A100-SXM4-80GB"), "nvidia-a100-sxm4-80gb");
  EXPECT_EQ(match("NVIDIA A100-SXM4-40GB"), "nvidia-a100-sxm4-40gb");
  EXPECT_EQ(match("NVIDIA H100 80GB HBM3"), "nvidia-h100-sxm5-80gb");
  EXPECT_EQ(match("NVIDIA H100 PCIe"), "nvidia-h100-pcie-80gb");
  EXPECT_EQ(match("Tesla T4"), "nvidia-t4");
  EXPECT_EQ(match("AMD Instinct MI300X"), "amd-mi300x");
}

TEST(MatchReportedName, TheModelNumberMustMatch) {
  EXPECT_EQ(match(""), "");
  EXPECT_EQ(match("NVIDIA"), "");                // no model number
  EXPECT_EQ(match("Acme Z9000 Accelerator"), "");  // a number no entry has
}

}  // namespace
}  // namespace rooftop::catalog
