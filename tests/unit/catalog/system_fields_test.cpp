// How the remaining multi-device parts are deployed (TPU v4, v6e and TPU7x,
// MI300X, MI325X, MI250X, MI100, B300, GH200, H20, V100 SXM2, first-gen
// Gaudi): the scale-up domain, its topology and peers, devices per node and
// the scale-out network per device, each checked against the words of the
// source the entry cites, and checked against each other where two
// published figures must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cited_figure.h"

namespace rooftop::catalog::system_fields_test {
namespace {

using test::CitedFigure;
using test::shipped_catalog;

const std::vector<CitedFigure> kSystemFigures = {
    // TPU v6e: a 256-chip Pod (16x16 2D torus), 8 chips and 4 x 200 Gb/s NICs per host.
    {"google-tpu-v6e", "domain", 256, "v6esys", "'TPU Pod size 256 chips'", false},
    {"google-tpu-v6e", "devices_per_node", 8, "v6esys", "'Chips per host 8'", false},
    {"google-tpu-v6e", "scale_out", 4 * 200 / 8.0 / 8, "v6esys", "'Per-host NIC configuration 4 x 200 Gbps NIC'", true},
    // TPU7x: a 9,216-chip Pod, 4-chip VMs, 100 Gb/s of DCN per chip.
    {"google-tpu-7x", "domain", 9216, "tpu7sys", "With a 9,216-chip footprint per Pod", false},
    {"google-tpu-7x", "devices_per_node", 4, "tpu7sys", "'Number of vCPUs (4-chip VM)'", false},
    {"google-tpu-7x", "scale_out", 100 / 8.0, "tpu7sys", "'Data center network (DCN) bandwidth per chip (Gb/s) 50 | 100 | 100'",
     true},
    // TPU v4: four chips per host in Google's MLPerf systems.
    {"google-tpu-v4", "devices_per_node", 4, "mlperf", "'\"accelerators_per_node\": \"4\"'", false},
    // MI300X: Azure ND MI300X v5, eight 400 Gb/s NDR links for eight GPUs.
    {"amd-mi300x", "scale_out", 8 * 400 / 8.0 / 8, "azure", "'Infiniband: Supported, GPUDirect RDMA, 8x400 Gigabit NDR'", true},
    // MI325X: AMD's 8-GPU platform and its 1:1 ConnectX-7 recipe.
    {"amd-mi325x", "domain", 8, "plat", "'Platforms powered by 8 AMD Instinct MI325X accelerators'", false},
    {"amd-mi325x", "peers", 7, "plat", "'Seven Infinity Fabric links ensuring full connectivity between eight GPUs in a ring topology'", false},
    {"amd-mi325x", "devices_per_node", 8, "mori", "'GPUs: 8x AMD Instinct MI300X/MI325X GPU cards per node'", false},
    {"amd-mi325x", "scale_out", 400 / 8.0, "mori", "8x NVIDIA Mellanox ConnectX-7 (CX7) NICs per node", true},
    // MI250X: Frontier's node, four Slingshot 200 Gb/s NICs for four OAMs.
    {"amd-mi250x", "scale_out", 200 / 8.0, "frontier", "[4x] HPE Slingshot 200 Gbps (25 GB/s) NICs", true},
    // MI100: hives of four fully connected GPUs, up to eight per node.
    {"amd-mi100", "domain", 4, "rocm", "'Each hive of four GPUs can participate in a fully connected", false},
    {"amd-mi100", "peers", 3, "rocm", "'the three AMD Infinity Fabric ports that provide high-speed links", false},
    {"amd-mi100", "devices_per_node", 8, "rocm", "'a system that comprises two AMD EPYC processors and (up to) eight", false},
    // B300: the 8-GPU HGX board and one ConnectX-8 at 800 Gb/s per GPU.
    {"nvidia-b300-sxm-288gb", "domain", 8, "ace", "'In the B300 generation, the HGX baseboard is built around 8xB300 GPUs'",
     false},
    {"nvidia-b300-sxm-288gb", "devices_per_node", 8, "nebius", "'accelerators_per_node': '8'", false},
    {"nvidia-b300-sxm-288gb", "scale_out", 800 / 8.0, "nebius", "'8x ConnectX-8 IB XDR 800Gb/s", true},
    // GH200: DGX GH200's NVLink Switch System of 256, NVLink 4 per GPU.
    {"nvidia-gh200-144gb", "link", 900 / 2.0, "hopper", "at 900 gigabytes per second (GB/s) bidirectional per GPU", true},
    {"nvidia-gh200-144gb", "domain", 256, "hopper", "'DGX GH200 systems with NVLink Switch System support clusters of up to 256",
     false},
    // H20: SXM boards for NVIDIA's 8-way HGX servers.
    {"nvidia-h20", "domain", 8, "hgx", "以匹配英偉達8路HGX服務器規格", false},
    {"nvidia-h20", "devices_per_node", 8, "hgx", "以匹配英偉達8路HGX服務器規格", false},
    // V100 SXM2: the DGX-1, eight GPUs and four 100 Gb/s InfiniBand NICs.
    {"nvidia-v100-sxm2-32gb", "domain", 8, "dgx1", "'DGX-1 features 8 NVIDIA Tesla V100 GPU accelerators", false},
    {"nvidia-v100-sxm2-32gb", "devices_per_node", 8, "dgx1", "'DGX-1 features 8 NVIDIA Tesla V100 GPU accelerators", false},
    {"nvidia-v100-sxm2-32gb", "scale_out", 4 * 100 / 8.0 / 8, "dgx1", "four 100 Gb InfiniBand network interface cards", true},
    // Gaudi: 7 of its 10 ports all-to-all in the 8-card box, the other 3 out.
    {"intel-gaudi", "link", 7 * 100 / 8.0, "mlperf", "'accelerator_interconnect': '7x 100GbE'", true},
    {"intel-gaudi", "peers", 7, "mlperf", "'accelerator_interconnect_topology': 'All-to-All'", false},
    {"intel-gaudi", "domain", 8, "mlperf", "'accelerators_per_node': '8'", false},
    {"intel-gaudi", "devices_per_node", 8, "mlperf", "'accelerators_per_node': '8'", false},
    {"intel-gaudi", "scale_out", (10 - 7) * 100 / 8.0, "mlperf", "ten 100GbE RoCE ports integrated per Gaudi", true},
};

TEST(SystemFields, FiguresAgreeWithTheSourceTheyCite) { test::expect_system_figures_agree(kSystemFigures); }

// How each domain is wired decides how its collectives are priced
// (docs/model.md#collectives).
TEST(SystemFields, TopologyFollowsTheReferenceSystem) {
  test::expect_topologies({
      {"google-tpu-v6e", Topology::torus_2d},        {"google-tpu-7x", Topology::torus_3d},
      {"google-tpu-v4", Topology::torus_3d},         {"amd-mi300x", Topology::full_mesh},
      {"amd-mi325x", Topology::full_mesh},           {"amd-mi100", Topology::full_mesh},
      {"nvidia-b300-sxm-288gb", Topology::switched}, {"nvidia-gh200-144gb", Topology::switched},
      {"nvidia-h20", Topology::switched},            {"nvidia-v100-sxm2-32gb", Topology::ring},
      {"intel-gaudi", Topology::full_mesh},
  });
}

// A node's published network total is the per-device figure times the
// devices in it: the two fields come from the same system description.
TEST(SystemFields, PerDeviceNetworkTimesDevicesIsTheNodeTotal) {
  const struct {
    const char* id;
    double node_gbit_s;  // the node's (host's) NICs as the source states them
  } nodes[] = {
      {"google-tpu-v6e", 4 * 200},  {"google-tpu-7x", 4 * 100},        {"amd-mi300x", 8 * 400},
      {"amd-mi325x", 8 * 400},      {"amd-mi250x", 4 * 200},           {"nvidia-b300-sxm-288gb", 8 * 800},
      {"intel-gaudi", 8 * 3 * 100}, {"nvidia-v100-sxm2-32gb", 4 * 100},
  };
  for (const auto& n : nodes) {
    const Accelerator* a = shipped_catalog().find(n.id);
    ASSERT_NE(a, nullptr) << n.id;
    ASSERT_TRUE(a->scale_out.bytes_per_s_per_direction.known()) << n.id;
    ASSERT_TRUE(a->devices_per_node.known()) << n.id;
    const double node_bits = *a->scale_out.bytes_per_s_per_direction.value * 8 * *a->devices_per_node.value;
    EXPECT_NEAR(node_bits / 1e9, n.node_gbit_s, 1e-6 * n.node_gbit_s) << n.id;
  }
  // TPU v6e: the per-chip figure is also the Pod's 25.6 Tbps over its 256 chips.
  const Accelerator* v6e = shipped_catalog().find("google-tpu-v6e");
  ASSERT_NE(v6e, nullptr);
  EXPECT_NEAR(*v6e->scale_out.bytes_per_s_per_direction.value * 8 * *v6e->domain.devices.value, 25.6e12, 1e6);
}

// Gaudi's ten integrated 100GbE ports are split between the node's full
// mesh and the scale-out network: together they are the embedded NIC's
// 2 Tb/s bidirectional (hc24), 125 GB/s per direction.
TEST(SystemFields, GaudiPortsAddUpToItsEmbeddedNic) {
  const Accelerator* a = shipped_catalog().find("intel-gaudi");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->scale_up.bytes_per_s_per_direction.known());
  ASSERT_TRUE(a->scale_out.bytes_per_s_per_direction.known());
  EXPECT_NEAR(*a->scale_up.bytes_per_s_per_direction.value + *a->scale_out.bytes_per_s_per_direction.value, 2e12 / 8 / 2,
              1e6);
  EXPECT_NE(a->sources.at("hc24").find("Embedded NIC BW (bi-directional) 2 / 4.8 / 9.6 Tb/s"), std::string::npos);
}

// Every part here prices collectives inside a domain of known size; where
// its scale-out network is not published the entry says why, in words a
// buyer can check.
TEST(SystemFields, EveryPartHasADomainAndUnknownNetworksSayWhy) {
  for (const char* id : {"google-tpu-v4", "google-tpu-v6e", "google-tpu-7x", "amd-mi300x", "amd-mi325x", "amd-mi250x",
                         "amd-mi100", "nvidia-b300-sxm-288gb", "nvidia-gh200-144gb", "nvidia-h20",
                         "nvidia-v100-sxm2-32gb", "intel-gaudi"}) {
    const Accelerator* a = shipped_catalog().find(id);
    ASSERT_NE(a, nullptr) << id;
    EXPECT_TRUE(a->domain.devices.known()) << id << " has no scale-up domain";
    EXPECT_TRUE(a->scale_up.bytes_per_s_per_direction.known()) << id << " has no scale-up bandwidth";
  }
  const struct {
    const char *id, *why;
  } unknown[] = {
      {"google-tpu-v4", "gives no data-center-network bandwidth"},
      {"nvidia-gh200-144gb", "give no network rate per superchip"},
      {"nvidia-h20", "NVIDIA publishes no H20 reference system"},
  };
  for (const auto& u : unknown) {
    const Accelerator* a = shipped_catalog().find(u.id);
    ASSERT_NE(a, nullptr) << u.id;
    EXPECT_FALSE(a->scale_out.bytes_per_s_per_direction.known()) << u.id;
    EXPECT_NE(a->scale_out.bytes_per_s_per_direction.missing_reason.find(u.why), std::string::npos)
        << u.id << ": '" << a->scale_out.bytes_per_s_per_direction.missing_reason << "'";
  }
}

}  // namespace
}  // namespace rooftop::catalog::system_fields_test
