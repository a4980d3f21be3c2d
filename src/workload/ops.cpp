// Operator construction helpers and the CNN shape tracker (see ops.h).
#include "workload/ops.h"

#include <algorithm>
#include <cmath>

namespace rooftop::workload::detail {

Operator& add_op(std::vector<Operator>& ops, std::string name, OpKind kind, Phase phase, double flops,
                 double weight_elems, double in_elems, double out_elems, double repeat, double params) {
  Operator op;
  op.name = std::move(name);
  op.kind = kind;
  op.role = default_role(kind);
  op.phase = phase;
  op.flops = flops;
  op.weight_elems = weight_elems;
  op.in_elems = in_elems;
  op.out_elems = out_elems;
  op.repeat = repeat;
  op.params = params < 0 ? weight_elems : params;
  ops.push_back(std::move(op));
  return ops.back();
}

Net::Net(std::vector<Operator>& ops, Phase phase, std::string prefix)
    : ops_(ops), phase_(phase), prefix_(std::move(prefix)) {}

namespace {
double out_size(double in, int k, int stride, int pad) { return std::floor((in + 2.0 * pad - k) / stride) + 1; }
}  // namespace

Shape Net::conv(const std::string& name, Shape in, double out_c, int k, int stride, int groups, bool bias, int pad) {
  if (pad < 0) pad = k / 2;
  Shape out{out_c, out_size(in.h, k, stride, pad), out_size(in.w, k, stride, pad)};
  double weights = double(k) * k * (in.c / groups) * out_c + (bias ? out_c : 0);
  double macs = double(k) * k * (in.c / groups) * out_c * out.h * out.w;
  add_op(ops_, full(name), OpKind::conv, phase_, 2 * macs + (bias ? out.elems() : 0), weights, in.elems(),
         out.elems())
      .groups = groups;
  return out;
}

Shape Net::bn(const std::string& name, Shape in) {
  add_op(ops_, full(name), OpKind::norm, phase_, 2 * in.elems(), 2 * in.c, in.elems(), in.elems());
  return in;
}

Shape Net::group_norm(const std::string& name, Shape in) {
  add_op(ops_, full(name), OpKind::norm, phase_, 8 * in.elems(), 2 * in.c, in.elems(), in.elems());
  return in;
}

Shape Net::act(const std::string& name, Shape in, double flops_per_elem) {
  add_op(ops_, full(name), OpKind::elementwise, phase_, flops_per_elem * in.elems(), 0, in.elems(), in.elems());
  return in;
}

Shape Net::add(const std::string& name, Shape in) {
  add_op(ops_, full(name), OpKind::elementwise, phase_, in.elems(), 0, 2 * in.elems(), in.elems());
  return in;
}

Shape Net::max_pool(const std::string& name, Shape in, int k, int stride, int pad) {
  if (pad < 0) pad = k / 2;
  Shape out{in.c, out_size(in.h, k, stride, pad), out_size(in.w, k, stride, pad)};
  add_op(ops_, full(name), OpKind::pool, phase_, double(k) * k * out.elems(), 0, in.elems(), out.elems());
  return out;
}

Shape Net::global_pool(const std::string& name, Shape in) {
  Shape out{in.c, 1, 1};
  add_op(ops_, full(name), OpKind::pool, phase_, in.elems(), 0, in.elems(), out.elems());
  return out;
}

Shape Net::upsample(const std::string& name, Shape in, int factor) {
  Shape out{in.c, in.h * factor, in.w * factor};
  add_op(ops_, full(name), OpKind::memory, phase_, 0, 0, in.elems(), out.elems());
  return out;
}

Shape Net::concat(const std::string& name, Shape a, Shape b) {
  Shape out{a.c + b.c, a.h, a.w};
  add_op(ops_, full(name), OpKind::memory, phase_, 0, 0, out.elems(), out.elems());
  return out;
}

void Net::linear(const std::string& name, double in_f, double out_f, double tokens, bool bias) {
  double weights = in_f * out_f + (bias ? out_f : 0);
  add_op(ops_, full(name), OpKind::matmul, phase_, 2 * in_f * out_f * tokens + (bias ? out_f * tokens : 0),
         weights, in_f * tokens, out_f * tokens);
}

Shape Net::conv_bn_act(const std::string& name, Shape in, double out_c, int k, int stride, int groups,
                       double act_flops) {
  Shape out = conv(name + ".conv", in, out_c, k, stride, groups);
  bn(name + ".bn", out);
  return act(name + ".act", out, act_flops);
}

double sum_params(const std::vector<Operator>& ops) {
  double p = 0;
  for (const Operator& op : ops) p += op.params * op.repeat;
  return p;
}

double peak_activation_elems(const std::vector<Operator>& ops) {
  double peak = 0;
  for (const Operator& op : ops) {
    if (op.phase == Phase::decode) continue;
    peak = std::max(peak, op.in_elems + op.out_elems);
  }
  return peak;
}

double saved_activation_elems(const std::vector<Operator>& ops) {
  double saved = 0;
  for (const Operator& op : ops) {
    if (op.frozen || (op.phase != Phase::forward && op.phase != Phase::prefill)) continue;
    saved += op.in_elems * op.repeat;
  }
  return saved;
}

}  // namespace rooftop::workload::detail
