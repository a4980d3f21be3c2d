// Memory footprint per device: weights, KV cache and activations for
// inference; weights, gradients, optimizer states and saved activations for
// training (mixed precision: 16 bytes per parameter with Adam). Formulas
// and sources: docs/model.md ("Memory").
#include <algorithm>

#include "model/internal.h"

namespace rooftop::model::detail {

namespace {
// Optimizer bytes per parameter: Adam's m and v in fp32, plus an fp32
// master copy when the weights are kept in a narrower format.
double optimizer_bytes_per_param(Precision p) {
  double bpe = bytes_per_element(p);
  return bpe >= 4 ? 2 * bpe : 12;
}
// The KV cache is stored in at least one byte per element (no 4-bit KV).
double kv_bytes_per_elem(Precision p) { return std::max(1.0, bytes_per_element(p)); }
}  // namespace

void footprint_parts(const workload::Workload& w, workload::Task task, Precision p, int tensor, double& fixed_bytes,
                     double& per_sample_bytes) {
  const double bpe = bytes_per_element(p);
  const double t = tensor;
  if (task == workload::Task::train) {
    fixed_bytes = w.params * (2 * bpe + optimizer_bytes_per_param(p)) / t;
    per_sample_bytes = w.train_activation_elems_per_sample * bpe / t;
  } else {
    fixed_bytes = w.params * bpe / t;
    const double context = static_cast<double>(w.input_tokens) + w.output_tokens;
    per_sample_bytes =
        w.kv_elems_per_token * context * kv_bytes_per_elem(p) / t + w.activation_elems_per_sample * bpe / t;
  }
}

Memory footprint(const workload::Workload& w, workload::Task task, Precision p, double batch, int tensor,
                 const catalog::Accelerator& a) {
  const double bpe = bytes_per_element(p);
  const double t = tensor;
  Memory m;
  m.weights_bytes = w.params * bpe / t;
  if (task == workload::Task::train) {
    m.gradients_bytes = w.params * bpe / t;
    m.optimizer_bytes = w.params * optimizer_bytes_per_param(p) / t;
    m.activations_bytes = w.train_activation_elems_per_sample * batch * bpe / t;
  } else {
    const double context = static_cast<double>(w.input_tokens) + w.output_tokens;
    m.kv_cache_bytes = w.kv_elems_per_token * context * batch * kv_bytes_per_elem(p) / t;
    m.activations_bytes = w.activation_elems_per_sample * batch * bpe / t;
  }
  m.required_bytes = m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes + m.optimizer_bytes;
  m.capacity_bytes = a.memory_bytes.or_else(0);
  m.usable_bytes = m.capacity_bytes * kUsableMemoryFraction;
  m.fits = m.required_bytes <= m.usable_bytes;
  return m;
}

}  // namespace rooftop::model::detail
