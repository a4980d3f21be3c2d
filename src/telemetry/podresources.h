// Kubernetes attribution: which pod, namespace and container holds each
// device, from the kubelet's pod-resources API (gRPC `v1.PodResourcesLister/
// List` on /var/lib/kubelet/pod-resources/kubelet.sock), as dcgm-exporter
// does it.
//
// The gRPC client is Debian's gRPC C core (libgrpc.so.29, package libgrpc29)
// loaded with dlopen only when attribution is asked for, like the vendor
// libraries: a monitor outside Kubernetes never maps gRPC, its ~10 MiB of
// code and its threads, so the start-up footprint stays where it was, and
// the binary has no link-time dependency on it. The response is decoded here
// (parse_pod_resources: the four messages and six fields used, protobuf wire
// format), so no generated code or libprotobuf is needed.
//
// Device ids are matched to devices by the id the vendor's device plugin
// advertises: the NVIDIA plugin's GPU (or MIG) UUID, the AMD plugin's PCI
// bus id, or the device node name (Gaudi `hl0`, Ascend `davinci0`).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "telemetry/telemetry.h"

namespace rooftop::telemetry {

// The default socket, as the kubelet serves it (and the DaemonSet mounts it).
inline constexpr const char* kPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";

// device id -> the pod holding it.
using PodMap = std::map<std::string, PodRef>;

// Decodes a ListPodResourcesResponse (protobuf wire format). Errc::invalid_input
// when the bytes are not one.
Result<PodMap> parse_pod_resources(std::string_view bytes);

// The pod of a device: by UUID, PCI bus id (any domain width, any case) or
// device node name; nullptr when no pod holds it.
const PodRef* pod_of(const PodMap& pods, const DeviceInfo& device);

class PodResourcesClient {
 public:
  // Loads gRPC, connects to `socket` and makes one List call, so that a path
  // that is not a unix socket, or a socket that does not answer
  // PodResourcesLister/List, is an error now (Errc::invalid_input naming the
  // socket and the gRPC status); Errc::not_found when libgrpc cannot load.
  static Result<std::unique_ptr<PodResourcesClient>> open(const std::string& socket);
  ~PodResourcesClient();
  PodResourcesClient(const PodResourcesClient&) = delete;
  PodResourcesClient& operator=(const PodResourcesClient&) = delete;
  // One List call (2 s deadline).
  Result<PodMap> list();
  const std::string& socket() const { return socket_; }

  struct Impl;

 private:
  explicit PodResourcesClient(std::unique_ptr<Impl> impl, std::string socket);
  std::unique_ptr<Impl> impl_;
  std::string socket_;
};

// A Sampler annotation (Sampler::set_annotate) that labels each device's
// sample with the pod holding it, and, when the sample has no job label,
// sets the job to "namespace/pod" (so the history and `rooftop analyze`
// account the device's hours to the pod). The map is refreshed with one
// List call at most every refresh_s; when a call fails, the last map is kept
// and `warn` is called once until a call succeeds again.
std::function<void(Snapshot&)> pod_annotator(std::shared_ptr<PodResourcesClient> client, double refresh_s,
                                             std::function<void(const std::string&)> warn);

}  // namespace rooftop::telemetry
