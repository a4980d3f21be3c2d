// Operator arithmetic shared by every workload: names of the enums, bytes an
// operator moves, totals, the training step derived from the forward pass and
// the memory footprint. Formulas are written up in docs/workloads.md.
#include "workload/workload.h"

#include <algorithm>
#include <cmath>

#include "core/enum_table.h"
#include "workload/ops.h"

namespace rooftop::workload {

std::string_view to_string(Task t) { return t == Task::infer ? "infer" : "train"; }

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::optimizer: return "optimizer";
    case Phase::prefill: return "prefill";
    case Phase::decode: return "decode";
  }
  return "forward";
}

namespace {
constexpr std::pair<OpKind, std::string_view> kKindNames[] = {
    {OpKind::matmul, "matmul"},   {OpKind::conv, "conv"},       {OpKind::attention, "attention"},
    {OpKind::elementwise, "elementwise"}, {OpKind::norm, "norm"}, {OpKind::softmax, "softmax"},
    {OpKind::embedding, "embedding"}, {OpKind::pool, "pool"},   {OpKind::reduce, "reduce"},
    {OpKind::memory, "memory"},   {OpKind::other, "other"},
};
}  // namespace

std::string_view to_string(OpKind k) {
  for (const auto& [kind, name] : kKindNames) {
    if (kind == k) return name;
  }
  return "other";
}

namespace {
inline constexpr EnumName<Role> kRoleNames[] = {
    {Role::other, "other"},
    {Role::embedding, "embedding"},
    {Role::attention_proj, "attention_proj"},
    {Role::attention, "attention"},
    {Role::ffn, "ffn"},
    {Role::moe_router, "moe_router"},
    {Role::routed_expert, "routed_expert"},
    {Role::shared_expert, "shared_expert"},
    {Role::lm_head, "lm_head"},
};
static_assert(enum_table_complete(kRoleNames, std::size_t(Role::last) + 1));
}  // namespace

std::string_view to_string(Role r) { return enum_name(kRoleNames, r); }
std::optional<Role> parse_role(std::string_view s) { return enum_parse(kRoleNames, s); }
std::string role_choices() { return enum_choices(kRoleNames); }

std::string_view to_string(Optimizer o) { return o == Optimizer::adagrad ? "Adagrad" : "Adam"; }
double optimizer_states(Optimizer o) { return o == Optimizer::adagrad ? 1 : 2; }
double optimizer_update_elems(Optimizer o) { return o == Optimizer::adagrad ? 5 : 7; }

std::string_view to_string(Family f) {
  switch (f) {
    case Family::cnn: return "cnn";
    case Family::encoder: return "encoder";
    case Family::decoder_llm: return "decoder_llm";
    case Family::recsys: return "recsys";
    case Family::diffusion: return "diffusion";
    case Family::custom: return "custom";
    case Family::onnx: return "onnx";
  }
  return "custom";
}

std::string_view label(Family f) {
  switch (f) {
    case Family::cnn: return "CNN";
    case Family::encoder: return "encoder";
    case Family::decoder_llm: return "decoder LLM";
    case Family::recsys: return "recommender";
    case Family::diffusion: return "diffusion";
    case Family::custom: return "custom";
    case Family::onnx: return "ONNX";
  }
  return "custom";
}

std::optional<Family> parse_family(std::string_view s) {
  for (Family f : kYamlFamilies) {
    if (to_string(f) == s) return f;
  }
  return std::nullopt;
}

std::optional<Task> parse_task(std::string_view s) {
  if (s == "infer" || s == "inference") return Task::infer;
  if (s == "train" || s == "training") return Task::train;
  return std::nullopt;
}

std::optional<OpKind> parse_op_kind(std::string_view s) {
  for (const auto& [kind, name] : kKindNames) {
    if (name == s) return kind;
  }
  return std::nullopt;
}

// Optimizer operators move fp32 state (master weights, Adam moments,
// gradients accumulated in fp32) whatever the compute precision.
double op_bytes(const Operator& op, double batch, Precision p) { return op_bytes(op, batch, p, p, p); }

double op_bytes(const Operator& op, double batch, Precision weights_p, Precision activations, Precision kv) {
  double weights = op.weight_elems;
  if (op.weight_elems_per_sample > 0) weights = std::min(op.weight_elems, batch * op.weight_elems_per_sample);
  if (op.phase == Phase::optimizer) return (weights + batch * (op.in_elems + op.out_elems)) * 4.0;
  // The KV cache is stored in at least one byte per element (docs/model.md#memory).
  const double in_bpe = reads_kv_cache(op) ? std::max(1.0, bytes_per_element(kv)) : bytes_per_element(activations);
  return weights * weight_bytes_per_element(op, weights_p) +
         batch * (op.in_elems * in_bpe + op.out_elems * bytes_per_element(activations));
}

double weight_bytes_per_element(const Operator& op, Precision requested) {
  const double want = bytes_per_element(requested);
  return op.stored_as ? std::min(want, bytes_per_element(*op.stored_as)) : want;
}

double attention_span(double x, double limit, bool chunked) {
  if (limit <= 0) return x;
  return chunked ? std::fmod(x, limit) : std::min(x, limit);
}

double span_pairs(double n, double limit, bool chunked) {
  if (limit <= 0 || n <= limit) return n * (n + 1) / 2;
  if (!chunked) return limit * (limit + 1) / 2 + (n - limit) * limit;
  const double whole = std::floor(n / limit), rest = n - whole * limit;
  return whole * limit * (limit + 1) / 2 + rest * (rest + 1) / 2;
}

double span_area(double n, double limit, bool chunked) {
  if (limit <= 0 || n <= limit) return n * n / 2;
  if (!chunked) return limit * limit / 2 + (n - limit) * limit;
  const double whole = std::floor(n / limit), rest = n - whole * limit;
  return whole * limit * limit / 2 + rest * rest / 2;
}

double kv_elems_at(const Workload& w, double tokens) {
  const double windowed = w.kv_window_elems_per_token;
  return (w.kv_elems_per_token - windowed) * tokens + windowed * attention_span(tokens, w.kv_window, w.kv_window_chunked);
}

Totals totals(const std::vector<Operator>& ops, double batch, Precision p) {
  Totals t;
  for (const Operator& op : ops) {
    t.flops += op.repeat * op_flops(op, batch);
    t.bytes += op.repeat * op_bytes(op, batch, p);
  }
  t.intensity = t.bytes > 0 ? t.flops / t.bytes : 0;
  return t;
}

Workload with_lora(Workload w) {
  for (std::vector<Operator>* ops : {&w.ops, &w.train_forward_ops})
    for (Operator& op : *ops)
      if (op.params > 0) op.adapter_only = true;
  w.id += " (LoRA)";
  return w;
}

std::vector<Operator> train_forward(const Workload& w) {
  if (!w.train_forward_ops.empty()) return w.train_forward_ops;
  std::vector<Operator> fwd;
  for (const Operator& op : w.ops) {
    if (op.phase == Phase::forward) fwd.push_back(op);
  }
  return fwd;
}

namespace {
double trainable_params(const std::vector<Operator>& fwd) {
  double p = 0;
  for (const Operator& op : fwd) {
    if (!op.frozen && !op.adapter_only) p += op.params * op.repeat;
  }
  return p;
}
}  // namespace

// Backward of an operator: gradients of its inputs and of its weights, each
// a pass of the forward's size (2x FLOPs). It reads the weights and the
// saved input plus the output gradient, writes the input gradient and the
// weight gradients.
std::vector<Operator> training_ops(const Workload& w) {
  std::vector<Operator> fwd = train_forward(w);
  std::vector<Operator> out;
  out.reserve(2 * fwd.size() + 1);
  for (Operator op : fwd) {
    op.phase = Phase::forward;
    op.batch_statistics = is_batch_norm(op, w.family);
    out.push_back(std::move(op));
  }
  for (auto it = fwd.rbegin(); it != fwd.rend(); ++it) {
    if (it->frozen) continue;
    Operator b = *it;
    b.phase = Phase::backward;
    b.flops = 2 * it->flops;
    if (it->adapter_only && it->params > 0) {
      // Input gradients only: one pass of the forward's size over the same weights.
      b.flops = it->flops;
      b.in_elems = it->in_elems + it->out_elems;
      b.out_elems = it->in_elems;
      b.params = 0;
      out.push_back(std::move(b));
      continue;
    }
    double grow = it->weight_elems > 0 ? (it->weight_elems + it->params) / it->weight_elems : 1;
    b.weight_elems = it->weight_elems * grow;
    b.weight_elems_per_sample = it->weight_elems_per_sample * grow;
    b.in_elems = it->in_elems + it->out_elems;
    b.out_elems = it->in_elems;
    b.params = 0;
    out.push_back(std::move(b));
  }
  double trainable = trainable_params(fwd);
  const double update = optimizer_update_elems(w.optimizer);
  // Recommenders shard their embedding tables and update only the rows a
  // step touched (sparse row-wise optimizers: HugeCTR, TorchRec), not the
  // whole table: a separate optimizer op reading the touched rows.
  if (w.family == Family::recsys) {
    for (const Operator& op : fwd) {
      if (op.kind != OpKind::embedding || op.weight_elems_per_sample <= 0 || op.frozen || op.params <= 0) continue;
      Operator& o = detail::add_op(out, "optimizer.sparse_rows", OpKind::embedding, Phase::optimizer, 0,
                                   update * op.params * op.repeat, 0, 0, 1, 0);
      o.weight_elems_per_sample = update * op.weight_elems_per_sample * op.repeat;
      trainable -= op.params * op.repeat;
    }
  }
  if (trainable > 0) {
    // Adam: read parameter, gradient, m, v; write parameter, m, v (Adagrad:
    // parameter, gradient, accumulator; write parameter, accumulator). Its
    // ~10 FLOPs per parameter are per step, not per sample, so they are not
    // counted (the update is memory-bound on every accelerator).
    detail::add_op(out, w.optimizer == Optimizer::adagrad ? "optimizer.adagrad" : "optimizer.adam", OpKind::elementwise,
                   Phase::optimizer, 0, update * trainable, 0, 0, 1, 0);
  }
  return out;
}

}  // namespace rooftop::workload
