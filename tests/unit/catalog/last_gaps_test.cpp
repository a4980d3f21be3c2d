// The last gaps of the catalog (issue 19): the one figure filled from a
// citable source (the MI100's scale-out network, from Oak Ridge's Spock),
// checked against the words of the source it cites; and the figures that
// stay unknown because their vendor's number was not found, each still
// null (no figure copied from another form factor) with a reason that
// names what a buyer can check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cited_figure.h"
#include "core/precision.h"

namespace rooftop::catalog::last_gaps_test {
namespace {

using test::CitedFigure;
using test::shipped_catalog;

const std::vector<CitedFigure> kLastGapFigures = {
    // MI100: Spock's node injection shared by its four MI100 (one hive).
    {"amd-mi100", "scale_out", 12.5 / 4, "spock", "providing a node injection bandwidth of 12.5 GB/s", true},
    {"amd-mi100", "scale_out", 12.5 / 4, "spock", "connected to [4x] AMD MI100 GPUs", true},
};

TEST(LastGaps, FilledFiguresAgreeWithTheSourceTheyCite) { test::expect_system_figures_agree(kLastGapFigures); }

// Spock's four MI100 are the entry's scale-up domain (a hive of four, all to
// all): the per-GPU share times the domain is the node's injection bandwidth.
TEST(LastGaps, Mi100NetworkShareTimesItsHiveIsSpocksNodeInjection) {
  const Accelerator* a = shipped_catalog().find("amd-mi100");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->scale_out.bytes_per_s_per_direction.known());
  ASSERT_TRUE(a->domain.devices.known());
  EXPECT_NEAR(*a->scale_out.bytes_per_s_per_direction.value * *a->domain.devices.value, 12.5e9, 1e3);
  EXPECT_NE(a->sources.at("spock").find("'The GPUs are connected in an all-to-all arrangement"), std::string::npos);
  EXPECT_NE(a->scale_out.name.find("Slingshot-10"), std::string::npos) << a->scale_out.name;
}

// A figure that stays unknown: still null, and its reason holds these words.
struct StillUnknown {
  const char* id;
  const char* field;  // a precision, "bandwidth" or "tdp"
  const char* why;
};

const Sourced& figure_of(const Accelerator& a, const std::string& field) {
  if (field == "bandwidth") return a.memory_bytes_per_s;
  if (field == "tdp") return a.power_w;
  return a.peak(*parse_precision(field));
}

TEST(LastGaps, UnpublishedFiguresStayNullAndSayWhatWasChecked) {
  const StillUnknown unknown[] = {
      // V70: two of the three inputs of a derived peak are in AMD documents, the clock is not.
      {"amd-alveo-v70", "int8", "304 AI Engine-ML compute tiles"},
      {"amd-alveo-v70", "int8", "512 INT8 operations per tile per clock"},
      {"amd-alveo-v70", "int8", "but not the clock the card runs its AI Engines at"},
      {"amd-alveo-v70", "bandwidth", "xilinx.com/applications/data-center/v70.html"},
      {"amd-alveo-v70", "tdp", "a 75 W figure seen only in unattributed notes is not used"},
      // Gaudi 3 PCIe: the OAM module's peak is not copied to the 600 W card.
      {"intel-gaudi3-pcie", "bf16", "for the 900 W OAM module only"},
      {"intel-gaudi3-pcie", "bf16", "so the OAM peak is not copied"},
      // Ascend 310: Huawei gives the bus width, not the data rate.
      {"huawei-ascend-310", "bandwidth", "supports 128-bit LPDDR4X"},
  };
  for (const StillUnknown& u : unknown) {
    const Accelerator* a = shipped_catalog().find(u.id);
    ASSERT_NE(a, nullptr) << u.id;
    const Sourced& s = figure_of(*a, u.field);
    EXPECT_FALSE(s.known()) << u.id << " " << u.field;
    EXPECT_NE(s.missing_reason.find(u.why), std::string::npos) << u.id << " " << u.field << ": '" << s.missing_reason << "'";
  }
  // The 600 W card is not given the OAM module's FP8 peak either.
  const Accelerator* pcie = shipped_catalog().find("intel-gaudi3-pcie");
  ASSERT_NE(pcie, nullptr);
  EXPECT_FALSE(pcie->peak(Precision::fp8).known());
}

}  // namespace
}  // namespace rooftop::catalog::last_gaps_test
