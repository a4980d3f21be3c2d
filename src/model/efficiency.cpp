// Efficiency factors: which fraction of the catalog's peaks real kernels
// reach on each kind of accelerator, and the fixed costs per operator and
// per ring step. The derivation of every number is in docs/model.md
// ("Efficiency factors"); a calibrated catalog entry (rooftop bench profile)
// overrides compute and memory.
#include "model/efficiency.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "model/calibration.h"
#include "model/internal.h"

namespace rooftop::model {

namespace {

struct KindDefaults {
  catalog::Kind kind;
  double compute, memory, op_overhead_s, link;
  const char* source;
};

// One row per catalog::Kind, in enum order.
constexpr KindDefaults kByKind[] = {
    // gpu: GEMM achieved/peak 0.71-0.84 on NVIDIA (measurements.csv PV-003, PV-005,
    // PV-015, PV-017); STREAM triad/spec 0.74 (H200, PV-019) and 0.82 (MI100, PV-021);
    // all-reduce busbw/NVLink 0.82 (H200 x8, PV-027); 3 us per kernel (AIConfigurator
    // mem_empirical_constant_latency).
    {catalog::Kind::gpu, 0.78, 0.80, 3e-6, 0.80, "docs/model.md#gpu: published GEMM achieved/peak on NVIDIA GPUs, STREAM triad on H200 and MI100, NCCL all-reduce bus bandwidth on 8 x H200"},
    // tpu: XLA fuses whole graphs (small per-op cost); MXU GEMMs at 0.8 of peak.
    {catalog::Kind::tpu, 0.80, 0.80, 1e-6, 0.70, "docs/model.md#tpu: no TPU microbenchmark in shared/validation; GPU-class values"},
    // npu (Ascend): msModeling's DeviceProfile for Atlas 800 A2 (compute 0.7,
    // memory 0.6, 5 us static cost per matrix op, comm 0.7) and limulidae's
    // measured 910B BF16 matmul 328 of 354 TFLOP/s.
    {catalog::Kind::npu, 0.80, 0.60, 5e-6, 0.70, "docs/model.md#npu: msModeling Atlas 800 A2 profile, limulidae 910B matmul"},
    // fpga: no measurement found; DPU-style overlays reach about half of peak.
    {catalog::Kind::fpga, 0.50, 0.70, 5e-6, 0.70, "docs/model.md#fpga: assumed (no published measurement found), low confidence"},
    // asic (Gaudi, Trainium, Inferentia, Cloud AI 100, ...): Gaudi2/Gaudi3 GEMM
    // achieved/peak 0.74-0.97 (PV-001, PV-007, PV-011, PV-013).
    {catalog::Kind::asic, 0.85, 0.80, 5e-6, 0.70, "docs/model.md#asic: published GEMM achieved/peak on Gaudi2 and Gaudi3"},
    // cpu: oneDNN GEMM about 0.6 of the AMX/AVX-512 peak; STREAM 0.75 of DDR peak.
    {catalog::Kind::cpu, 0.60, 0.75, 1e-6, 0.70, "docs/model.md#cpu: oneDNN GEMM and STREAM on DDR5 servers"},
    // edge (Jetson-class SoCs): shared LPDDR, small GPUs, slower launch path.
    {catalog::Kind::edge, 0.60, 0.75, 5e-6, 0.70, "docs/model.md#edge: Jetson-class SoCs"},
};

// One row per kind, in the enum's order (efficiency_for indexes by kind).
constexpr bool rows_follow_the_kinds() {
  if (std::size(kByKind) != std::size(catalog::kKinds)) return false;
  for (std::size_t i = 0; i < std::size(kByKind); ++i) {
    if (static_cast<std::size_t>(kByKind[i].kind) != i) return false;
  }
  return true;
}
static_assert(rows_follow_the_kinds(), "kByKind needs one row per catalog::Kind, in enum order");

}  // namespace

Efficiency efficiency_for(const catalog::Accelerator& a) {
  const KindDefaults& d = kByKind[static_cast<int>(a.kind)];
  Efficiency e;
  e.compute = d.compute;
  e.memory = d.memory;
  e.op_overhead_s = d.op_overhead_s;
  e.link = d.link;
  e.source = d.source;
  // NVIDIA tensor cores at 8 bits: fp8 GEMMs reach 0.709 (H100, PV-017) and
  // 0.734 (H200, PV-015) of the fp8 peak where bf16 GEMMs of the same
  // generation reach 0.803 (H100, PV-005) and 0.837 (GH200, PV-003): 0.88 of
  // the 16-bit fraction. Gaudi's MME shows no such drop (PV-001/PV-011,
  // PV-007/PV-013), so this stays with NVIDIA GPUs.
  // Jetson's GPU is an Ampere (Orin) or Blackwell (Thor) GPU running the same
  // cuBLAS/TensorRT kernels on the same tensor cores as its data-centre
  // siblings: its GEMMs get the NVIDIA GPU factors; the SoC's shared LPDDR
  // keeps the edge memory factor and launch cost.
  const bool nvidia_tensor_cores = a.vendor == "nvidia" && (a.kind == catalog::Kind::gpu || a.kind == catalog::Kind::edge);
  if (nvidia_tensor_cores) e.compute_8bit = 0.88;
  // GPU normalization backward: layer norm on H100 80GB HBM3 moves its three
  // tensors (x, dy read; dx written) at 0.36-0.42 of the HBM peak with the
  // best kernel measured (Liger-Kernel benchmark data, fp32, 4,096 rows of
  // 4,096-16,384) and 0.34-0.37 with PyTorch's, where its forward pass reaches
  // 0.78-0.87 (about the STREAM factor): 0.40 / 0.80 = 0.5 of `memory`.
  // Measured on NVIDIA GPUs; the reductions are the algorithm's, not the
  // vendor's, so every GPU gets it (batch and group norm need them too).
  if (a.kind == catalog::Kind::gpu || a.kind == catalog::Kind::edge) e.norm_backward = 0.5;
  // GPU batch norm forward in training: the statistics reduce over every
  // sample and position of a channel, so the kernels run in two passes over
  // the input, statistics then normalization (PyTorch's
  // batch_norm_collect_statistics and batch_norm_transform_input kernels);
  // a tensor that fits the last-level cache is re-read from it (roofline.cpp).
  // TPUs and ASICs: XLA and graph compilers fuse norms, no kernel to read.
  if (a.kind == catalog::Kind::gpu || a.kind == catalog::Kind::edge) e.batch_norm_reread = true;
  // NVIDIA GEMM depth: XLA's measured H100 bf16 matmul table
  // (xla/service/gpu/model/matmul_interpolator_data.h, sm_90; the 46 shapes
  // whose kernels run 50 us or longer) is fitted best, with this model's tile
  // factor, 0.78 and 3 us per kernel, by a per-tile fixed cost of 100 of k
  // (RMS log error 0.087 -> 0.037): about 1.5 main-loop steps of 64. The same
  // kernels (cuBLAS/cuDNN/CUTLASS tiles) run on Ampere and Jetson; Hopper
  // overlaps more of the write-out, so elsewhere this is a lower bound.
  if (nvidia_tensor_cores) e.gemm_tile_fixed_k = 100;
  if (nvidia_tensor_cores && a.kind == catalog::Kind::edge) {
    e.compute = kByKind[static_cast<int>(catalog::Kind::gpu)].compute;
    e.source = std::string(d.source) + "; GEMMs at the NVIDIA GPU factor (docs/model.md#edge)";
  }
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

GemmUnits gemm_units(const catalog::Accelerator& a) {
  GemmUnits u;
  if (!a.compute_units.known() || !a.tile_m.known() || !a.tile_n.known()) return u;
  u.units = *a.compute_units.value;
  u.tile_m = *a.tile_m.value;
  u.tile_n = *a.tile_n.value;
  u.tile_k = a.tile_k.or_else(1);  // systolic arrays stream k: no k step to fill
  u.tile_min = a.tile_min.or_else(0);
  return u;
}

namespace {
GemmShapeFactor one_tile(const GemmShape& s, double tm, double tn, double tk, double units) {
  auto part = [](double x, double tile) { return std::min(1.0, x / tile); };
  GemmShapeFactor f;
  f.fill = part(s.m, tm) * part(s.n, tn) * part(s.k, tk);
  f.tiles = std::ceil(s.m / tm) * std::ceil(s.n / tn) * std::max(1.0, s.groups);
  f.splits = std::max(1.0, s.k / (4 * tk));
  f.occupancy = std::min(1.0, f.tiles * f.splits / units);
  return f;
}
}  // namespace

double gemm_depth_factor(double k, double fixed_k) {
  if (fixed_k <= 0 || k <= 0) return 1;
  return std::min(1.0, k / (k + fixed_k) * (kGemmReferenceK + fixed_k) / kGemmReferenceK);
}

GemmShapeFactor gemm_shape_factor(const GemmShape& s, const GemmUnits& u) {
  GemmShapeFactor best;
  if (!u.known() || s.m <= 0 || s.n <= 0 || s.k <= 0) return best;
  best = one_tile(s, u.tile_m, u.tile_n, u.tile_k, u.units);
  if (u.tile_min <= 0 || best.factor() >= 1) return best;
  for (double tm = u.tile_m; tm >= u.tile_min; tm /= 2) {
    for (double tn = u.tile_n; tn >= u.tile_min; tn /= 2) {
      GemmShapeFactor f = one_tile(s, tm, tn, u.tile_k, u.units);
      if (f.factor() > best.factor()) best = f;
    }
  }
  return best;
}

std::optional<GemmShape> op_gemm_shape(const workload::Operator& op, double batch, double shard) {
  if (op.kind != workload::OpKind::matmul && op.kind != workload::OpKind::conv) return std::nullopt;
  if (op.flops <= 0 || op.weight_elems <= 0 || op.out_elems <= 0 || batch <= 0) return std::nullopt;
  // Bias FLOPs and elements make m a hair below the token count: round it.
  const double m_per_sample = std::max(1.0, std::round(op.flops / (2 * op.weight_elems)));
  GemmShape s;
  s.m = batch * m_per_sample;
  const double out_columns = op.out_elems / m_per_sample;
  s.groups = std::max(1.0, op.groups);
  s.n = std::max(1.0, out_columns / s.groups / std::max(1.0, shard));
  s.k = std::max(1.0, op.weight_elems / out_columns);
  return s;
}

double gather_sector_efficiency(double row_bytes) {
  if (row_bytes <= 0) return 1;
  return row_bytes / (std::ceil(row_bytes / kSectorBytes) * kSectorBytes);
}

OpEfficiency op_efficiency(const workload::Operator& op, double batch, double shard, Precision p,
                           const catalog::Accelerator& a, const Efficiency& e) {
  OpEfficiency out = physics_efficiency(op, batch, shard, p, a, e);
  // A fitted stack factor scales both fractions of its class, never past
  // the peak (model/calibration.h).
  const double f = e.class_factor[static_cast<std::size_t>(op_class(op))];
  if (f != 1) out.compute = std::min(1.0, out.compute * f), out.memory = std::min(1.0, out.memory * f);
  return out;
}

OpEfficiency physics_efficiency(const workload::Operator& op, double batch, double shard, Precision p,
                                const catalog::Accelerator& a, const Efficiency& e) {
  OpEfficiency out{e.compute, e.memory};
  using workload::OpKind;
  if (op.phase == workload::Phase::optimizer) return out;
  if (op.kind == OpKind::norm && op.phase == workload::Phase::backward) out.memory *= e.norm_backward;
  if (std::optional<GemmShape> g = op_gemm_shape(op, batch, shard)) {
    const bool eight_bit = p == Precision::fp8 || p == Precision::int8;
    out.compute = e.compute * (eight_bit ? e.compute_8bit : 1) * gemm_shape_factor(*g, gemm_units(a)).factor() *
                  gemm_depth_factor(g->k, e.gemm_tile_fixed_k);
    // A grouped convolution too thin for the matrix units runs on the vector
    // units instead (cuDNN's non-Tensor-Core kernels): never below the fp32
    // vector rate, when the catalog gives one.
    if (g->groups > 1 && p != Precision::fp32 && a.peak(Precision::fp32).known() && a.peak(p).known() &&
        *a.peak(p).value > 0)
      out.compute = std::max(out.compute, e.compute * *a.peak(Precision::fp32).value / *a.peak(p).value);
  } else if (op.kind == OpKind::attention && a.attention_fraction.known()) {
    // The fused kernel's published fraction replaces the GEMM factor; a
    // calibrated profile's compute factor (peaks measured) still scales it.
    const double calibrated = a.calibration.compute_efficiency ? *a.calibration.compute_efficiency : 1;
    out.compute = std::min(1.0, *a.attention_fraction.value * calibrated);
  } else if (op.kind == OpKind::embedding && op.in_elems > 0 && op.out_elems > op.in_elems) {
    // A gather: one row of out / in elements per looked-up index (lookups of
    // consecutive rows, like position embeddings, read in = out and stream).
    out.memory = e.memory * gather_sector_efficiency(op.out_elems / op.in_elems * bytes_per_element(p));
  }
  return out;
}

std::optional<catalog::Accelerator> without_unusable_units(const catalog::Accelerator& a, Precision p,
                                                           workload::Family family) {
  if (p != Precision::int8 || !a.dla_int8_ops.known() || family == workload::Family::cnn) return std::nullopt;
  catalog::Accelerator gpu = a;
  gpu.peak_flop_per_s[static_cast<std::size_t>(Precision::int8)].value = workload_peak(a, p, family);
  return gpu;
}

double workload_peak(const catalog::Accelerator& a, Precision p, workload::Family family) {
  const double peak = a.peak(p).or_else(0);
  if (p != Precision::int8 || family == workload::Family::cnn || !a.dla_int8_ops.known()) return peak;
  return std::max(0.0, peak - *a.dla_int8_ops.value);
}

std::vector<Assumption> op_efficiency_assumptions(const catalog::Accelerator& a, const Efficiency& e, bool training) {
  std::vector<Assumption> out;
  const GemmUnits u = gemm_units(a);
  if (u.known()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%g units, tile %gx%g (down to %g), k step %g", u.units, u.tile_m, u.tile_n,
                  u.tile_min > 0 ? u.tile_min : std::min(u.tile_m, u.tile_n), u.tile_k);
    out.push_back({"gemm_shape", buf, "docs/model.md#gemm-shape; " + a.id + " catalog entry (compute.units, compute.tile_*)"});
  } else {
    out.push_back({"gemm_shape", "not modelled (the catalog gives no compute units and tile for this part)",
                   "docs/model.md#gemm-shape"});
  }
  if (e.gemm_tile_fixed_k > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "each output tile costs %g of k (depth k runs at k / (k + %g))", e.gemm_tile_fixed_k,
                  e.gemm_tile_fixed_k);
    out.push_back({"gemm_depth", buf, "docs/model.md#gemm-depth (XLA's measured H100 matmul table)"});
  }
  if (a.attention_fraction.known()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", *a.attention_fraction.value);
    out.push_back({"attention_efficiency", buf, "docs/model.md#attention; " + a.id + " catalog entry (compute.attention_fraction)"});
  } else {
    out.push_back({"attention_efficiency", "the GEMM factor (no published fused-attention table for this part)",
                   "docs/model.md#attention"});
  }
  out.push_back({"gather", "rows rounded up to 32-byte memory sectors", "docs/model.md#gathers"});
  if (training && e.norm_backward != 1) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%g of memory_efficiency", e.norm_backward);
    out.push_back({"norm_backward_efficiency", buf,
                   "docs/model.md#norm-backward (layer norm backward on H100, Liger-Kernel benchmark data)"});
  }
  return out;
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
