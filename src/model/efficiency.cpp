// Efficiency factors: which fraction of the catalog's peaks real kernels
// reach on each kind of accelerator, and the fixed costs per operator and
// per ring step. The derivation of every number is in docs/model.md
// ("Efficiency factors"); a calibrated catalog entry (rooftop bench profile)
// overrides compute and memory.
#include <string>

#include "model/internal.h"

namespace rooftop::model {

namespace {

struct KindDefaults {
  double compute, memory, op_overhead_s, link;
  const char* source;
};

// One row per catalog::Kind, in enum order.
constexpr KindDefaults kByKind[] = {
    // gpu: GEMM achieved/peak 0.71-0.84 on NVIDIA (measurements.csv PV-003, PV-005,
    // PV-015, PV-017); STREAM triad/spec 0.74 (H200, PV-019) and 0.82 (MI100, PV-021);
    // all-reduce busbw/NVLink 0.82 (H200 x8, PV-027); 3 us per kernel (AIConfigurator
    // mem_empirical_constant_latency).
    {0.78, 0.80, 3e-6, 0.80, "docs/model.md#gpu: published GEMM achieved/peak on NVIDIA GPUs, STREAM triad on H200 and MI100, NCCL all-reduce bus bandwidth on 8 x H200"},
    // tpu: XLA fuses whole graphs (small per-op cost); MXU GEMMs at 0.8 of peak.
    {0.80, 0.80, 1e-6, 0.70, "docs/model.md#tpu: no TPU microbenchmark in shared/validation; GPU-class values"},
    // npu (Ascend): msModeling's DeviceProfile for Atlas 800 A2 (compute 0.7,
    // memory 0.6, 5 us static cost per matrix op, comm 0.7) and limulidae's
    // measured 910B BF16 matmul 328 of 354 TFLOP/s.
    {0.80, 0.60, 5e-6, 0.70, "docs/model.md#npu: msModeling Atlas 800 A2 profile, limulidae 910B matmul"},
    // fpga: no measurement found; DPU-style overlays reach about half of peak.
    {0.50, 0.70, 5e-6, 0.70, "docs/model.md#fpga: assumed (no published measurement found), low confidence"},
    // asic (Gaudi, Trainium, Inferentia, Cloud AI 100, ...): Gaudi2/Gaudi3 GEMM
    // achieved/peak 0.74-0.97 (PV-001, PV-007, PV-011, PV-013).
    {0.85, 0.80, 5e-6, 0.70, "docs/model.md#asic: published GEMM achieved/peak on Gaudi2 and Gaudi3"},
    // cpu: oneDNN GEMM about 0.6 of the AMX/AVX-512 peak; STREAM 0.75 of DDR peak.
    {0.60, 0.75, 1e-6, 0.70, "docs/model.md#cpu: oneDNN GEMM and STREAM on DDR5 servers"},
    // edge (Jetson-class SoCs): shared LPDDR, small GPUs, slower launch path.
    {0.60, 0.75, 5e-6, 0.70, "docs/model.md#edge: Jetson-class SoCs"},
};

}  // namespace

Efficiency efficiency_for(const catalog::Accelerator& a) {
  const KindDefaults& d = kByKind[static_cast<int>(a.kind)];
  Efficiency e;
  e.compute = d.compute;
  e.memory = d.memory;
  e.op_overhead_s = d.op_overhead_s;
  e.link = d.link;
  e.source = d.source;
  // AMD Instinct: the same GEMM table gives 0.60 (MI325X PV-009; MI300X 781 of 1307).
  if (a.kind == catalog::Kind::gpu && a.vendor == "amd") {
    e.compute = 0.60;
    e.source = "docs/model.md#gpu: published AMD Instinct GEMM (MI325X 785 of 1300 TFLOP/s) and STREAM triad (MI100)";
  }
  // NCCL's Ring/LL latency per step (src/graph/tuning.cc hwLat): NVLink-class
  // scale-up links about 0.6 us, PCIe and networks about 1 us.
  e.link_latency_s = a.scale_up.bytes_per_s_per_direction.known() ? 0.6e-6 : 1.0e-6;
  if (a.calibration.compute_efficiency || a.calibration.memory_efficiency) {
    if (a.calibration.compute_efficiency) e.compute = *a.calibration.compute_efficiency;
    if (a.calibration.memory_efficiency) e.memory = *a.calibration.memory_efficiency;
    e.source = "calibrated profile: " + a.calibration.source;
  }
  return e;
}

std::string_view to_string(Scenario s) {
  switch (s) {
    case Scenario::offline: return "offline";
    case Scenario::server: return "server";
    case Scenario::single_stream: return "single-stream";
  }
  return "?";
}

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::overhead: return "overhead";
    case Bound::communication: return "communication";
  }
  return "?";
}

std::optional<Scenario> parse_scenario(std::string_view s) {
  std::string t;
  for (char c : s) t += (c == '_' || c == ' ') ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (t == "offline") return Scenario::offline;
  if (t == "server") return Scenario::server;
  if (t == "single-stream" || t == "singlestream") return Scenario::single_stream;
  return std::nullopt;
}

}  // namespace rooftop::model
