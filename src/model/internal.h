// Helpers shared by the model's .cpp files (not part of the public API).
#pragma once

#include <string>

#include "model/model.h"

namespace rooftop::model::detail {

// Latency per step of a collective across the scale-out network when the
// catalog gives none: NCCL's tuning model (src/graph/tuning.cc, hwLat NET,
// Tree/LL) uses 5 us.
inline constexpr double kNetworkLatencyS = 5e-6;

// The link a collective runs over: the scale-up link when the catalog
// knows its bandwidth, else the host link.
struct LinkChoice {
  std::string name;
  double peak_bytes_per_s = 0;   // per direction, per device
  double peers = 1;              // direct peer links the bandwidth is split over (full mesh)
};
Result<LinkChoice> collective_link(const catalog::Accelerator& a);

// Bandwidth one ring over n devices can use on `link`: the whole link for a
// switched fabric; (n - 1) of the device's peer links on a full mesh.
double ring_bytes_per_s(const LinkChoice& link, int n);

// How devices talk (docs/model.md#collectives): a scale-up domain of
// `domain` devices on `up`, and between domains a scale-out network of
// `out_bytes_per_s` per device. domain == 0: every device is in one domain.
struct Fabric {
  LinkChoice up;
  double link_efficiency = 0;      // achieved / peak on both networks
  double up_latency_s = 0;         // per ring step inside the domain
  int domain = 0;
  int torus_dims = 0;              // a 2D/3D torus domain (TPU ICI): 2 or 3; else 0
  std::string out_name;            // "" when the catalog knows no scale-out network
  double out_bytes_per_s = 0;      // peak per direction, per device
  double out_latency_s = 0;        // per step across domains
};
Result<Fabric> fabric_for(const catalog::Accelerator& a, const Efficiency& e);

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, p2p };
// Time of one collective over a group of n ranks whose members are `stride`
// ranks apart (rank order: tensor innermost, then data, then pipeline).
// `bytes` is the whole buffer per rank (all-reduce / all-gather output,
// all-to-all send buffer, p2p message). Inside one domain: ring (full-mesh
// links: min(n-1, peers)/peers of the total); across domains: hierarchical
// (reduce-scatter inside, the collective across on the scale-out network
// with bytes / local, all-gather inside). Formulas: docs/model.md#collectives.
double collective_s(Collective c, double bytes, int n, int stride, const Fabric& f);
// Ranks of such a group that share one scale-up domain.
int ranks_per_domain(int n, int stride, const Fabric& f);

// The roofline of all `repeat` instances of one operator.
struct OpCost {
  double flops = 0, bytes = 0;
  double compute_s = 0, memory_s = 0, overhead_s = 0;
  double time_s = 0;               // max(compute, memory) + overhead
  Bound bound = Bound::compute;
};
// Roofline of `op` at `batch` with FLOPs and bytes divided by `shard`
// (the tensor-parallel degree). A `fused` op runs inside its producer's
// kernel: it moves no bytes of its own and pays no launch overhead. Needs a
// known peak at p and bandwidth.
OpCost op_cost(const workload::Operator& op, double batch, const PrecisionMix& p, const catalog::Accelerator& a,
               const Efficiency& e, double shard, bool fused = false);

// Inference graph compilers (TensorRT, XLA, OpenVINO, MIGraphX, ...) fuse
// elementwise ops (bias, activation, residual add) into the epilogue of the
// producing matmul/conv, and fold a CNN's batch norm into the conv weights.
bool fused_in_inference(const workload::Operator& op, workload::Family family);

// Checks that the device has what predict needs (peak at p, bandwidth,
// capacity); the error names what is missing.
Result<void> check_device(const catalog::Accelerator& a, Precision p);

// "fp16, bf16, int8" (the precisions with a known peak).
std::string precision_list(const catalog::Accelerator& a);

}  // namespace rooftop::model::detail
