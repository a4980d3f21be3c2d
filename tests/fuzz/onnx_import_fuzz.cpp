// libFuzzer entry point for the ONNX importer: any byte string must either
// import or come back as an Error, never crash, hang, leak or produce
// negative or non-finite counts. Run by tests/e2e/onnx_fuzz.sh for a bounded
// time; seeds are the models tests/data/onnx/make_models.py writes.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "onnx/onnx.h"

namespace {

bool sane(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rooftop::onnx::ImportOptions opts;  // no external_data_dir: external files are never opened
  opts.batch = 2;
  auto r = rooftop::onnx::import_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.onnx", opts);
  if (!r) return 0;
  std::vector<bool> memory_bound;
  for (const rooftop::workload::Operator& op : r->workload.ops) {
    if (!sane(op.flops) || !sane(op.in_elems) || !sane(op.out_elems) || !sane(op.weight_elems) ||
        !sane(op.weight_elems_per_sample)) {
      std::abort();
    }
    memory_bound.push_back(op.flops < op.in_elems + op.out_elems);
  }
  auto fusions = rooftop::onnx::find_fusions(r->workload.ops, r->producers, r->consumer_count, memory_bound);
  for (const auto& f : fusions) {
    if (f.anchor >= r->workload.ops.size() || !sane(f.fused.flops)) std::abort();
  }
  return 0;
}
