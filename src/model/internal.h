// Helpers shared by the model's .cpp files (not part of the public API).
#pragma once

#include <string>

#include "model/model.h"

namespace rooftop::model::detail {

// Fraction of device memory a workload may use: the rest goes to the
// runtime context, communication buffers and allocator fragmentation
// (vLLM's default gpu_memory_utilization = 0.9).
inline constexpr double kUsableMemoryFraction = 0.9;

// The link a collective runs over: the scale-up link when the catalog
// knows its bandwidth, else the host link.
struct LinkChoice {
  std::string name;
  double peak_bytes_per_s = 0;   // per direction, per device
  double peers = 1;              // direct peer links the bandwidth is split over (mesh topologies)
};
Result<LinkChoice> collective_link(const catalog::Accelerator& a);

// Bandwidth one ring over n devices can use on `link`: the whole link for a
// switched fabric; (n - 1) of the device's peer links on a full mesh.
double ring_bytes_per_s(const LinkChoice& link, int n);

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
OpCost op_cost(const workload::Operator& op, double batch, Precision p, const catalog::Accelerator& a,
               const Efficiency& e, double shard, bool fused = false);

// Inference graph compilers (TensorRT, XLA, OpenVINO, MIGraphX, ...) fuse
// elementwise ops (bias, activation, residual add) into the epilogue of the
// producing matmul/conv, and fold a CNN's batch norm into the conv weights.
bool fused_in_inference(const workload::Operator& op, workload::Family family);

// Checks that the device has what predict needs (peak at p, bandwidth,
// capacity); the error names what is missing.
Result<void> check_device(const catalog::Accelerator& a, Precision p);

// Memory per device of `w` at `batch` (per device) sharded over `tensor`
// devices; capacity and fit from the catalog.
Memory footprint(const workload::Workload& w, workload::Task task, Precision p, double batch, int tensor,
                 const catalog::Accelerator& a);
// Bytes per device that do not grow with the batch, and those per sample.
void footprint_parts(const workload::Workload& w, workload::Task task, Precision p, int tensor, double& fixed_bytes,
                     double& per_sample_bytes);

// "fp16, bf16, int8" (the precisions with a known peak).
std::string precision_list(const catalog::Accelerator& a);

}  // namespace rooftop::model::detail
