// Internal helpers the workload builders share: making operators, tracking
// CNN feature-map shapes, and the derived per-workload figures (parameters,
// activation memory). Not part of the public API (see workload.h).
#pragma once

#include <string>
#include <vector>

#include "workload/workload.h"

namespace rooftop::workload::detail {

// Appends one operator to `ops`; `params` defaults to `weight_elems`.
Operator& add_op(std::vector<Operator>& ops, std::string name, OpKind kind, Phase phase, double flops,
                 double weight_elems, double in_elems, double out_elems, double repeat = 1,
                 double params = -1);

// A feature map: channels x height x width (per sample).
struct Shape {
  double c = 0, h = 0, w = 0;
  double elems() const { return c * h * w; }
};

// Builds a convolutional network op by op, computing output shapes the way
// PyTorch does (floor((h + 2 pad - k) / stride) + 1, pad = k/2 by default).
class Net {
 public:
  Net(std::vector<Operator>& ops, Phase phase, std::string prefix = {});

  Shape conv(const std::string& name, Shape in, double out_c, int k, int stride = 1, int groups = 1,
             bool bias = false, int pad = -1);
  // Batch norm (2 trainable parameters per channel; 2 FLOPs per element).
  Shape bn(const std::string& name, Shape in);
  // Group norm (2 parameters per channel; ~8 FLOPs per element).
  Shape group_norm(const std::string& name, Shape in);
  // Elementwise activation costing `flops_per_elem`.
  Shape act(const std::string& name, Shape in, double flops_per_elem = 1);
  // Residual add of two maps of shape `in`.
  Shape add(const std::string& name, Shape in);
  Shape max_pool(const std::string& name, Shape in, int k, int stride, int pad = -1);
  Shape global_pool(const std::string& name, Shape in);
  Shape upsample(const std::string& name, Shape in, int factor);
  // Concatenation along channels: a copy of both inputs.
  Shape concat(const std::string& name, Shape a, Shape b);
  // Linear layer applied to `tokens` vectors of `in_f` features.
  void linear(const std::string& name, double in_f, double out_f, double tokens = 1, bool bias = true);
  // A conv + batch norm + activation triple (Ultralytics "Conv").
  Shape conv_bn_act(const std::string& name, Shape in, double out_c, int k, int stride = 1, int groups = 1,
                    double act_flops = 1);

  // Any other operator, named under this net's prefix.
  Operator& op(const std::string& name, OpKind kind, double flops, double weight_elems, double in_elems,
               double out_elems) {
    return add_op(ops_, full(name), kind, phase_, flops, weight_elems, in_elems, out_elems);
  }

  std::vector<Operator>& ops() { return ops_; }
  Phase phase() const { return phase_; }

 private:
  std::string full(const std::string& name) const { return prefix_.empty() ? name : prefix_ + "." + name; }
  std::vector<Operator>& ops_;
  Phase phase_;
  std::string prefix_;
};

// Sum of params x repeat.
double sum_params(const std::vector<Operator>& ops);
// Peak live activations of one sample: the largest in + out of any forward
// or prefill op (decode ops excluded: their reads are the KV cache).
double peak_activation_elems(const std::vector<Operator>& ops);
// Activations autograd keeps for backward: the inputs of every non-frozen
// forward op (x repeat).
double saved_activation_elems(const std::vector<Operator>& ops);

}  // namespace rooftop::workload::detail
