// The custom model reader (workload/workload.h parse_workload_yaml) on
// arbitrary YAML: a Workload or an Error with file:line, never a crash or a
// hang. A parsed model's operators have finite, non-negative counts.
#include <cmath>

#include "fuzz_input.h"
#include "workload/workload.h"

using rooftop::fuzz::check;

namespace {
bool sane(double v) { return std::isfinite(v) && v >= 0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rooftop::workload::BuildOptions opts;
  auto w = rooftop::workload::parse_workload_yaml(rooftop::fuzz::text(data, size), "fuzz/model.yaml", opts);
  if (!rooftop::fuzz::explained(w)) return 0;
  for (const rooftop::workload::Operator& op : w->ops) {
    check(sane(op.flops) && sane(op.in_elems) && sane(op.out_elems) && sane(op.weight_elems), "operator counts");
  }
  return 0;
}
