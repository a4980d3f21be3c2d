// Parts that published multi-device training results run on (GB300, MI355X,
// MI350X, MI250X, Trainium1/2, TPU v3, Ascend 910C): the figures filled so
// that a training run on them can be predicted (a 16-bit peak, the scale-up
// link, its domain and topology, the scale-out network, devices per node),
// each checked against the words of the source the entry cites, the way
// embedded_catalog_test.cpp checks the figures of its sourced_figures.inc.
#include <gtest/gtest.h>

#include <vector>

#include "catalog/catalog.h"
#include "cited_figure.h"
#include "core/precision.h"

namespace rooftop::catalog::training_parts_test {
namespace {

using test::CitedFigure;
using test::shipped_catalog;

const std::vector<CitedFigure> kCitedFigures = {
    // GB300: dense per-GPU 16-bit and TF32 rates, the NVL72 domain, one 800 Gb/s NIC per GPU.
    {"nvidia-gb300", "fp16", 2500, "verda", "'FP16/BF16 2.5 PFLOPS'", false},
    {"nvidia-gb300", "bf16", 2500, "verda", "'FP16/BF16 2.5 PFLOPS'", false},
    {"nvidia-gb300", "tf32", 1250, "verda", "'TF32 1.25 PFLOPS'", false},
    {"nvidia-gb300", "fp32", 80, "verda", "'FP32 0.080 PFLOPS'", false},
    {"nvidia-gb300", "domain", 72, "gk", "'GB300 NVL72 is advertised", false},
    {"nvidia-gb300", "devices_per_node", 4, "gk", "two Grace CPUs and four Blackwell GPUs", false},
    {"nvidia-gb300", "scale_out", 100, "cx8", "ConnectX-8 SuperNIC at 800 Gb/s", true},
    // MI355X and MI350X (BF16/FP16/INT8 and the xGMI rate are checked in
    // sourced_figures.inc): FP32 and FP4, the 8-GPU board, MI355X's 1:1 NICs.
    {"amd-mi355x", "fp32", 157.3, "mlee", "'AMD MI355X | 157.3 | ? | 2500 | 2500 | 5000 | 5000 | 10100 | 10100'", false},
    {"amd-mi355x", "fp4", 10100, "mlee", "The `fp6` and `fp4` entries carry no sparsity qualifier", false},
    {"amd-mi355x", "peers", 7, "cdna4", "seven links to the seven peers", false},
    {"amd-mi355x", "domain", 8, "cdna4", "'a fully connected 8-GPU system'", false},
    {"amd-mi355x", "scale_out", 400 / 8.0, "mori", "8x AMD Pensando Pollara 400 AI NICs per node", true},
    {"amd-mi355x", "devices_per_node", 8, "mori", "8x AMD Instinct MI355X GPU cards per node", false},
    {"amd-mi350x", "fp32", 144.2, "mlee", "(144.2 vs 157.3 fp32)", false},
    {"amd-mi350x", "fp4", 10100 * 2.2 / 2.4, "mlee", "everything scaled by the clock ratio", true},
    {"amd-mi350x", "peers", 7, "cdna4", "seven links to the seven peers", false},
    {"amd-mi350x", "domain", 8, "cdna4", "'a fully connected 8-GPU system'", false},
    {"amd-mi350x", "devices_per_node", 8, "cdna4", "'a fully connected 8-GPU system'", false},
    // MI250X: 7 x 50 GB/s per direction, four OAMs per node.
    {"amd-mi250x", "link", 350, "xgmi", "'AMD XGMI | MI250X | 350.0'", false},
    {"amd-mi250x", "domain", 4, "rocm250", "four AMD Instinct MI250 GPUs", false},
    {"amd-mi250x", "peers", 3, "rocm250", "four AMD Instinct MI250 GPUs", true},
    {"amd-mi250x", "devices_per_node", 4, "rocm250", "four AMD Instinct MI250 GPUs", false},
    // Trainium1: 384 per device, direction not stated, kept as written.
    {"aws-trainium1", "link", 384, "cmp", "Trainium 384, Trainium2 1280", false},
    {"aws-trainium1", "domain", 16, "trn1", "'Trn1.32xlarge' = 16 devices", false},
    {"aws-trainium1", "devices_per_node", 16, "trn1", "'Trn1.32xlarge' = 16 devices", false},
    {"aws-trainium1", "scale_out", 800 / 8.0 / 16, "trn1", "EFA 800", true},
    // Trainium2: 1,024 GB/s inside a 16-chip instance, 4 neighbours x 128 GB/s per direction.
    {"aws-trainium2", "link", 512, "mlnet", "so only 512GBps/chip unidirectional", true},
    {"aws-trainium2", "domain", 16, "trn2", "16 Trainium2 devices are connected using a 4x4, 2D Torus topology", false},
    {"aws-trainium2", "devices_per_node", 16, "trn2", "'# of Trainium2 devices' 16", false},
    {"aws-trainium2", "scale_out", 3200 / 8.0 / 16, "trn2", "'EFA bandwidth (Gbps)' 3,200", true},
    // TPU v3: the pod's all-reduce bandwidth over its 1024 chips.
    {"google-tpu-v3", "link", 340e3 / 1024, "gcp", "'All-reduce bandwidth per Pod 340 TB/s'", true},
    {"google-tpu-v3", "domain", 1024, "gcp", "'TPU Pod size 1024 chips'", false},
    // Ascend 910C: CloudMatrix384's Unified Bus and RDMA planes.
    {"huawei-ascend-910c", "link", 392, "cm384", "over 392 GB/s of unidirectional bandwidth", false},
    {"huawei-ascend-910c", "domain", 48 * 8, "cm384", "48 compute nodes, each comprising 8 Ascend 910C NPUs", true},
    {"huawei-ascend-910c", "devices_per_node", 8, "cm384", "each comprising 8 Ascend 910C NPUs", false},
    {"huawei-ascend-910c", "scale_out", 400 / 8.0, "cm384", "400 Gbps of unidirectional RDMA bandwidth", true},
};

TEST(TrainingParts, FiguresAgreeWithTheSourceTheyCite) { test::expect_system_figures_agree(kCitedFigures); }

// How each domain is wired decides how its collectives are priced
// (docs/model.md#collectives): a switch, a full mesh over its peers, a torus.
TEST(TrainingParts, ScaleUpTopologyFollowsTheVendorsSystem) {
  test::expect_topologies({
      {"nvidia-gb300", Topology::switched},    {"amd-mi355x", Topology::full_mesh},
      {"amd-mi350x", Topology::full_mesh},     {"amd-mi250x", Topology::full_mesh},
      {"aws-trainium1", Topology::torus_2d},   {"aws-trainium2", Topology::torus_2d},
      {"google-tpu-v3", Topology::torus_2d},   {"huawei-ascend-910c", Topology::switched},
  });
}

// What a multi-device training prediction needs from the catalog: a 16-bit
// training peak, a priced scale-up link and the size of its domain. A
// scale-out network that is unknown says why.
TEST(TrainingParts, EveryPartCanPriceMultiDeviceTraining) {
  for (const char* id : {"nvidia-gb300", "amd-mi355x", "amd-mi350x", "amd-mi250x", "aws-trainium1", "aws-trainium2",
                         "google-tpu-v3", "huawei-ascend-910c"}) {
    const Accelerator* a = shipped_catalog().find(id);
    ASSERT_NE(a, nullptr) << id;
    EXPECT_TRUE(a->peak(Precision::bf16).known()) << id << " has no bf16 peak";
    ASSERT_TRUE(a->scale_up.bytes_per_s_per_direction.known()) << id << " has no scale-up bandwidth";
    EXPECT_GT(*a->scale_up.bytes_per_s_per_direction.value, 0) << id;
    EXPECT_TRUE(a->domain.devices.known()) << id << " has no scale-up domain";
    if (!a->scale_out.bytes_per_s_per_direction.known()) {
      EXPECT_FALSE(a->scale_out.bytes_per_s_per_direction.missing_reason.empty()) << id << ": unknown scale-out, no reason";
    }
  }
}

// A per-direction figure is half of what its source states for both
// directions: MI355X's xGMI of AMD's 1,075.2 GB/s, MI250X's of the 700 GB/s
// duplex all-to-all, GB300's NVLink of 1.8 TB/s bidirectional.
TEST(TrainingParts, PerDirectionLinksAreHalfTheBidirectionalFigures) {
  const struct {
    const char* id;
    double bidirectional_gb_s;
  } links[] = {{"amd-mi355x", 1075.2}, {"amd-mi350x", 1075.2}, {"amd-mi250x", 700}, {"nvidia-gb300", 1800}};
  for (const auto& l : links) {
    const Accelerator* a = shipped_catalog().find(l.id);
    ASSERT_NE(a, nullptr) << l.id;
    ASSERT_TRUE(a->scale_up.bytes_per_s_per_direction.known()) << l.id;
    EXPECT_NEAR(*a->scale_up.bytes_per_s_per_direction.value / 1e9, l.bidirectional_gb_s / 2, 0.5) << l.id;
  }
}

}  // namespace
}  // namespace rooftop::catalog::training_parts_test
