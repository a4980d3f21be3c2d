// The kubelet pod-resources answer (telemetry/podresources.h
// parse_pod_resources: ListPodResourcesResponse in protobuf wire format) on
// arbitrary bytes: a device -> pod map or an Error, never a crash, a read
// past the buffer or a hang.
#include "fuzz_input.h"
#include "telemetry/podresources.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto pods = rooftop::telemetry::parse_pod_resources(rooftop::fuzz::text(data, size));
  if (!rooftop::fuzz::explained(pods)) return 0;
  for (const auto& [device, pod] : *pods) check(!device.empty(), "a device id is not empty");
  return 0;
}
