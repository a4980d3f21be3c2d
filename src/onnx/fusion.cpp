// Fusion advice: a GEMM or convolution whose output flows, one consumer at
// a time, through memory-bound element-wise or normalisation operators
// (bias, BatchNorm, ReLU, GELU, residual add, LayerNorm, ...) can run those
// as its epilogue, as TVM, TensorRT and XLA do. The fused kernel reads what
// the anchor reads plus each chain op's extra inputs (a residual, a scale)
// and writes only the chain's last output: the intermediate tensors never
// travel to memory and back, and the chain's launches disappear.
#include <algorithm>

#include "onnx/onnx.h"

namespace rooftop::onnx {

namespace {

using workload::OpKind;

bool fusable(OpKind k) { return k == OpKind::elementwise || k == OpKind::norm; }

}  // namespace

std::vector<FusionCandidate> find_fusions(const std::vector<workload::Operator>& ops,
                                          const std::vector<std::vector<std::size_t>>& producers,
                                          const std::vector<std::size_t>& consumer_count,
                                          const std::vector<bool>& memory_bound) {
  const std::size_t n = ops.size();
  std::vector<FusionCandidate> out;
  if (producers.size() != n || consumer_count.size() != n || memory_bound.size() != n) return out;
  std::vector<std::vector<std::size_t>> consumers(n);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p : producers[j]) {
      if (p < n) consumers[p].push_back(j);
    }
  }
  std::vector<bool> claimed(n, false);
  for (std::size_t a = 0; a < n; ++a) {
    const workload::Operator& anchor = ops[a];
    if (anchor.kind != OpKind::matmul && anchor.kind != OpKind::conv) continue;
    FusionCandidate c;
    c.anchor = a;
    std::size_t cur = a;
    while (consumer_count[cur] == 1 && consumers[cur].size() == 1) {
      std::size_t j = consumers[cur][0];
      const workload::Operator& next = ops[j];
      if (claimed[j] || !fusable(next.kind) || !memory_bound[j] || next.repeat != anchor.repeat ||
          next.phase != anchor.phase) {
        break;
      }
      c.chain.push_back(j);
      cur = j;
    }
    if (c.chain.empty()) continue;

    workload::Operator& f = c.fused;
    f = anchor;
    std::string name = anchor.name;
    const workload::Operator* prev = &anchor;
    for (std::size_t j : c.chain) {
      const workload::Operator& op = ops[j];
      claimed[j] = true;
      name += "+" + op.name;
      f.flops += op.flops;
      f.weight_elems += op.weight_elems;
      f.weight_elems_per_sample += op.weight_elems_per_sample;
      f.in_elems += std::max(0.0, op.in_elems - prev->out_elems);  // only the inputs not produced in the chain
      f.params += op.params;
      prev = &op;
    }
    f.out_elems = prev->out_elems;
    f.name = std::move(name);
    out.push_back(std::move(c));
  }
  return out;
}

Adjacency sequential_graph(std::size_t op_count) {
  Adjacency g;
  g.producers.resize(op_count);
  g.consumer_count.assign(op_count, 1);
  for (std::size_t i = 1; i < op_count; ++i) g.producers[i] = {i - 1};
  return g;
}

}  // namespace rooftop::onnx
