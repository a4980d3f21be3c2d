// Pod-resources client over a dlopened gRPC C core, and the protobuf
// decoding of its answer (why: podresources.h).
#include "telemetry/podresources.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/dynlib.h"
#include "core/text.h"

namespace rooftop::telemetry {
namespace {

// Protobuf wire format, the parts the pod-resources messages use: varints
// and length-delimited fields (strings, nested messages); other wire types
// are skipped so newer kubelets' added fields do not break the decoding.
class Wire {
 public:
  explicit Wire(std::string_view b) : b_(b) {}
  bool done() const { return pos_ >= b_.size(); }
  // The next field: number and, for length-delimited ones, the bytes.
  bool next(std::uint32_t* field, std::string_view* bytes) {
    std::uint64_t key = 0;
    if (!varint(&key)) return false;
    *field = static_cast<std::uint32_t>(key >> 3);
    *bytes = {};
    switch (key & 7) {
      case 0: {
        std::uint64_t ignored = 0;
        return varint(&ignored);
      }
      case 1: return skip(8);
      case 5: return skip(4);
      case 2: {
        std::uint64_t len = 0;
        if (!varint(&len) || len > b_.size() - pos_) return false;
        *bytes = b_.substr(pos_, len);
        pos_ += len;
        return true;
      }
      default: return false;  // groups (3, 4) are not used by proto3
    }
  }

 private:
  bool varint(std::uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && pos_ < b_.size(); shift += 7) {
      const auto c = static_cast<unsigned char>(b_[pos_++]);
      *v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) return true;
    }
    return false;
  }
  bool skip(std::size_t n) {
    if (n > b_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view b_;
  std::size_t pos_ = 0;
};

// ListPodResourcesResponse{1: PodResources}; PodResources{1: name, 2: namespace,
// 3: ContainerResources}; ContainerResources{1: name, 2: ContainerDevices};
// ContainerDevices{1: resource_name, 2: device_ids}.
bool decode(std::string_view bytes, PodMap* out) {
  Wire resp(bytes);
  std::uint32_t f;
  std::string_view v;
  while (!resp.done()) {
    if (!resp.next(&f, &v)) return false;
    if (f != 1) continue;
    PodRef pod;
    std::vector<std::pair<std::string, std::vector<std::string>>> containers;  // name, device ids
    for (Wire pr(v); !pr.done();) {
      std::string_view pv;
      if (!pr.next(&f, &pv)) return false;
      if (f == 1) pod.pod = pv;
      if (f == 2) pod.ns = pv;
      if (f != 3) continue;
      auto& c = containers.emplace_back();
      for (Wire cr(pv); !cr.done();) {
        std::string_view cv;
        if (!cr.next(&f, &cv)) return false;
        if (f == 1) c.first = cv;
        if (f != 2) continue;
        for (Wire dev(cv); !dev.done();) {
          std::string_view dv;
          if (!dev.next(&f, &dv)) return false;
          if (f == 2 && !dv.empty()) c.second.emplace_back(dv);  // an empty id names no device
        }
      }
    }
    for (const auto& [name, ids] : containers) {
      for (const std::string& id : ids) (*out)[id] = PodRef{pod.pod, pod.ns, name};
    }
  }
  return true;
}

// "00000000:17:00.0", "0000:17:00.0" -> "17:00.0" (lower case).
std::string bus_key(std::string_view id) {
  std::string s = to_lower(id);
  const auto colon = s.find(':');
  if (colon != std::string::npos && s.find(':', colon + 1) != std::string::npos) s = s.substr(colon + 1);
  return s;
}

}  // namespace

Result<PodMap> parse_pod_resources(std::string_view bytes) {
  PodMap out;
  if (!decode(bytes, &out))
    return make_error(Errc::invalid_input, "the answer is not a ListPodResourcesResponse (bad protobuf)");
  return out;
}

const PodRef* pod_of(const PodMap& pods, const DeviceInfo& d) {
  for (const std::string* id : {&d.uuid, &d.device}) {
    if (id->empty()) continue;
    if (auto it = pods.find(*id); it != pods.end()) return &it->second;
  }
  if (!d.pci_bus_id.empty()) {
    const std::string key = bus_key(d.pci_bus_id);
    for (const auto& [id, pod] : pods) {
      if (bus_key(id) == key) return &pod;
    }
  }
  return nullptr;
}

// The gRPC C core functions used, bound from libgrpc.so.29 (the gpr_* ones
// resolve through its dependency on libgpr.so.29).
struct PodResourcesClient::Impl {
  DynLib lib;
  decltype(&::grpc_init) init = nullptr;
  decltype(&::grpc_shutdown) shutdown = nullptr;
  decltype(&::grpc_insecure_credentials_create) insecure = nullptr;
  decltype(&::grpc_channel_credentials_release) creds_release = nullptr;
  decltype(&::grpc_channel_create) channel_create = nullptr;
  decltype(&::grpc_channel_destroy) channel_destroy = nullptr;
  decltype(&::grpc_completion_queue_create_for_pluck) cq_create = nullptr;
  decltype(&::grpc_completion_queue_pluck) cq_pluck = nullptr;
  decltype(&::grpc_completion_queue_shutdown) cq_shutdown = nullptr;
  decltype(&::grpc_completion_queue_destroy) cq_destroy = nullptr;
  decltype(&::grpc_channel_create_call) create_call = nullptr;
  decltype(&::grpc_call_start_batch) start_batch = nullptr;
  decltype(&::grpc_call_unref) call_unref = nullptr;
  decltype(&::grpc_raw_byte_buffer_create) bb_create = nullptr;
  decltype(&::grpc_byte_buffer_destroy) bb_destroy = nullptr;
  decltype(&::grpc_byte_buffer_reader_init) reader_init = nullptr;
  decltype(&::grpc_byte_buffer_reader_readall) reader_readall = nullptr;
  decltype(&::grpc_byte_buffer_reader_destroy) reader_destroy = nullptr;
  decltype(&::grpc_slice_from_static_string) slice_static = nullptr;
  decltype(&::grpc_slice_unref) slice_unref = nullptr;
  decltype(&::grpc_metadata_array_init) md_init = nullptr;
  decltype(&::grpc_metadata_array_destroy) md_destroy = nullptr;
  decltype(&::gpr_now) now = nullptr;
  decltype(&::gpr_time_add) time_add = nullptr;
  decltype(&::gpr_time_from_millis) from_millis = nullptr;
  decltype(&::gpr_inf_future) inf_future = nullptr;
  bool initialized = false;
  grpc_channel* channel = nullptr;
  grpc_completion_queue* cq = nullptr;

  explicit Impl(DynLib l) : lib(std::move(l)) {}
  ~Impl() {
    if (cq) {
      cq_shutdown(cq);
      cq_pluck(cq, nullptr, inf_future(GPR_CLOCK_REALTIME), nullptr);
      cq_destroy(cq);
    }
    if (channel) channel_destroy(channel);
    if (initialized) shutdown();
  }

  Result<void> bind() {
    const DynLib& l = lib;
    ROOFTOP_TRY(l.require(init, {"grpc_init"}));
    ROOFTOP_TRY(l.require(shutdown, {"grpc_shutdown"}));
    ROOFTOP_TRY(l.require(insecure, {"grpc_insecure_credentials_create"}));
    ROOFTOP_TRY(l.require(creds_release, {"grpc_channel_credentials_release"}));
    ROOFTOP_TRY(l.require(channel_create, {"grpc_channel_create"}));
    ROOFTOP_TRY(l.require(channel_destroy, {"grpc_channel_destroy"}));
    ROOFTOP_TRY(l.require(cq_create, {"grpc_completion_queue_create_for_pluck"}));
    ROOFTOP_TRY(l.require(cq_pluck, {"grpc_completion_queue_pluck"}));
    ROOFTOP_TRY(l.require(cq_shutdown, {"grpc_completion_queue_shutdown"}));
    ROOFTOP_TRY(l.require(cq_destroy, {"grpc_completion_queue_destroy"}));
    ROOFTOP_TRY(l.require(create_call, {"grpc_channel_create_call"}));
    ROOFTOP_TRY(l.require(start_batch, {"grpc_call_start_batch"}));
    ROOFTOP_TRY(l.require(call_unref, {"grpc_call_unref"}));
    ROOFTOP_TRY(l.require(bb_create, {"grpc_raw_byte_buffer_create"}));
    ROOFTOP_TRY(l.require(bb_destroy, {"grpc_byte_buffer_destroy"}));
    ROOFTOP_TRY(l.require(reader_init, {"grpc_byte_buffer_reader_init"}));
    ROOFTOP_TRY(l.require(reader_readall, {"grpc_byte_buffer_reader_readall"}));
    ROOFTOP_TRY(l.require(reader_destroy, {"grpc_byte_buffer_reader_destroy"}));
    ROOFTOP_TRY(l.require(slice_static, {"grpc_slice_from_static_string"}));
    ROOFTOP_TRY(l.require(slice_unref, {"grpc_slice_unref"}));
    ROOFTOP_TRY(l.require(md_init, {"grpc_metadata_array_init"}));
    ROOFTOP_TRY(l.require(md_destroy, {"grpc_metadata_array_destroy"}));
    ROOFTOP_TRY(l.require(now, {"gpr_now"}));
    ROOFTOP_TRY(l.require(time_add, {"gpr_time_add"}));
    ROOFTOP_TRY(l.require(from_millis, {"gpr_time_from_millis"}));
    ROOFTOP_TRY(l.require(inf_future, {"gpr_inf_future"}));
    return {};
  }

  std::string text(const grpc_slice& s) const {
    return std::string(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(s)), GRPC_SLICE_LENGTH(s));
  }

  // One unary call with an empty request; the answer's bytes.
  Result<std::string> call(const char* method, const std::string& socket) {
    const gpr_timespec deadline = time_add(now(GPR_CLOCK_REALTIME), from_millis(2000, GPR_TIMESPAN));
    grpc_call* c = create_call(channel, nullptr, GRPC_PROPAGATE_DEFAULTS, cq, slice_static(method), nullptr,
                               deadline, nullptr);
    if (!c) return make_error(Errc::io, "gRPC cannot create a call", socket);
    grpc_slice empty = slice_static("");
    grpc_byte_buffer* request = bb_create(&empty, 1);
    grpc_byte_buffer* response = nullptr;
    grpc_metadata_array initial, trailing;
    md_init(&initial);
    md_init(&trailing);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = slice_static("");
    grpc_op ops[6];
    std::memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = request;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &response;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    int tag = 0;
    Result<std::string> out = make_error(Errc::io, "gRPC call failed", socket);
    if (start_batch(c, ops, 6, &tag, nullptr) == GRPC_CALL_OK) {
      const grpc_event ev = cq_pluck(cq, &tag, inf_future(GPR_CLOCK_REALTIME), nullptr);
      if (ev.type == GRPC_OP_COMPLETE && status == GRPC_STATUS_OK && response) {
        grpc_byte_buffer_reader reader;
        if (reader_init(&reader, response)) {
          grpc_slice all = reader_readall(&reader);
          out = text(all);
          slice_unref(all);
          reader_destroy(&reader);
        }
      } else if (ev.type == GRPC_OP_COMPLETE) {
        out = make_error(Errc::invalid_input,
                         fmt::format("not a kubelet pod-resources socket: {} answered gRPC status {}{}{}", method,
                                     static_cast<int>(status), GRPC_SLICE_LENGTH(details) ? ": " : "",
                                     text(details)),
                         socket);
      }
    }
    if (response) bb_destroy(response);
    bb_destroy(request);
    slice_unref(details);
    md_destroy(&initial);
    md_destroy(&trailing);
    call_unref(c);
    return out;
  }
};

PodResourcesClient::PodResourcesClient(std::unique_ptr<Impl> impl, std::string socket)
    : impl_(std::move(impl)), socket_(std::move(socket)) {}

PodResourcesClient::~PodResourcesClient() = default;

Result<std::unique_ptr<PodResourcesClient>> PodResourcesClient::open(const std::string& socket) {
  struct stat st{};
  if (stat(socket.c_str(), &st) != 0)
    return make_error(Errc::invalid_input, std::string("cannot reach the pod-resources socket: ") + std::strerror(errno),
                      socket);
  if (!S_ISSOCK(st.st_mode)) return make_error(Errc::invalid_input, "not a unix socket (pod-resources)", socket);
  auto lib = DynLib::open({"libgrpc.so.29", "libgrpc.so"});
  if (!lib)
    return make_error(Errc::not_found,
                      "Kubernetes attribution needs gRPC's libgrpc.so.29 (Debian package libgrpc29): " +
                          lib.error().message,
                      socket);
  auto impl = std::make_unique<Impl>(std::move(*lib));
  ROOFTOP_TRY(impl->bind());
  impl->init();
  impl->initialized = true;
  grpc_channel_credentials* creds = impl->insecure();
  const std::string target = "unix://" + socket;
  impl->channel = impl->channel_create(target.c_str(), creds, nullptr);
  impl->creds_release(creds);
  impl->cq = impl->cq_create(nullptr);
  if (!impl->channel || !impl->cq) return make_error(Errc::io, "gRPC cannot open a channel", socket);
  std::unique_ptr<PodResourcesClient> client(new PodResourcesClient(std::move(impl), socket));
  auto first = client->list();
  if (!first) {
    Error e = first.error();
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  }
  return client;
}

Result<PodMap> PodResourcesClient::list() {
  auto bytes = impl_->call("/v1.PodResourcesLister/List", socket_);
  if (!bytes) return make_error(bytes.error());
  auto pods = parse_pod_resources(*bytes);
  if (!pods) return make_error(pods.error().code, pods.error().message, socket_);
  return pods;
}

std::function<void(Snapshot&)> pod_annotator(std::shared_ptr<PodResourcesClient> client, double refresh_s,
                                             std::function<void(const std::string&)> warn) {
  struct State {
    PodMap pods;
    double last_s = -1e300;
    bool failing = false;
  };
  auto state = std::make_shared<State>();
  return [client = std::move(client), refresh_s, warn = std::move(warn), state](Snapshot& snap) {
    if (snap.time_s - state->last_s >= refresh_s || snap.time_s < state->last_s) {
      state->last_s = snap.time_s;
      if (auto pods = client->list()) {
        state->pods = std::move(*pods);
        state->failing = false;
      } else if (!state->failing) {
        state->failing = true;
        if (warn) warn("pod attribution: " + pods.error().what() + " (keeping the last answer)");
      }
    }
    for (DeviceReading& r : snap.devices) {
      const PodRef* pod = pod_of(state->pods, r.info);
      if (!pod) continue;
      r.sample.pod = *pod;
      if (r.sample.job.empty()) r.sample.job = pod->ns + "/" + pod->pod;
    }
  };
}

}  // namespace rooftop::telemetry
