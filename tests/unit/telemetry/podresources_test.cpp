// Pod-resources answers: protobuf decoding and matching device ids to devices.
#include <gtest/gtest.h>

#include "telemetry/podresources.h"

namespace rooftop::telemetry {
namespace {

std::string varint(std::uint64_t n) {
  std::string out;
  do {
    out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n);
  return out;
}
std::string field(int number, const std::string& payload) {
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}

TEST(PodResources, DecodesPodsContainersAndDevices) {
  const std::string devices = field(1, "amd.com/gpu") + field(2, "0000:c1:00.0") + field(2, "GPU-X");
  // A varint field (8) and a fixed64 field (9) that newer kubelets might add are skipped.
  const std::string container = field(1, "main") + field(2, devices) + varint(8 << 3) + varint(300) +
                                varint(9 << 3 | 1) + std::string(8, '\0');
  const std::string pod = field(1, "trainer-0") + field(2, "ml") + field(3, container);
  auto pods = parse_pod_resources(field(1, pod) + field(1, field(1, "empty") + field(2, "ml")));
  ASSERT_TRUE(pods) << pods.error().what();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ(pods->at("GPU-X"), (PodRef{"trainer-0", "ml", "main"}));

  DeviceInfo amd;
  amd.pci_bus_id = "00000000:C1:00.0";  // NVML-style domain width and case
  ASSERT_NE(pod_of(*pods, amd), nullptr);
  EXPECT_EQ(pod_of(*pods, amd)->container, "main");
  DeviceInfo other;
  other.uuid = "GPU-Y";
  other.pci_bus_id = "0000:17:00.0";
  EXPECT_EQ(pod_of(*pods, other), nullptr);
  EXPECT_TRUE(parse_pod_resources("")->empty());
}

// Found by fuzz_pod_resources: an empty device id went into the map as a
// device named "".
TEST(PodResources, AnEmptyDeviceIdNamesNoDevice) {
  const std::string devices = field(1, "nvidia.com/gpu") + field(2, "") + field(2, "GPU-X");
  const std::string pod = field(1, "p") + field(2, "ns") + field(3, field(1, "c") + field(2, devices));
  auto pods = parse_pod_resources(field(1, pod));
  ASSERT_TRUE(pods) << pods.error().what();
  ASSERT_EQ(pods->size(), 1u);
  EXPECT_EQ(pods->count(""), 0u);
}

TEST(PodResources, RejectsBytesThatAreNotAResponse) {
  EXPECT_FALSE(parse_pod_resources(std::string("\x0a\x7f", 2)));  // length past the end
  EXPECT_FALSE(parse_pod_resources(std::string("\x0b", 1)));      // wire type 3 (group)
  EXPECT_FALSE(parse_pod_resources(std::string("\x08\xff", 2)));  // varint cut short
}

}  // namespace
}  // namespace rooftop::telemetry
