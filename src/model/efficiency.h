// Efficiency per operator, from how the hardware executes each kind of
// operator (docs/model.md#per-operator-efficiency): GEMMs and convolutions
// from tile and wave quantization on the device's matrix units, fused
// attention at the fraction of peak its generation's published kernels
// reach, gathers at the bandwidth of whole memory sectors, everything else
// at the stack's best-GEMM factor. Pure functions; the roofline's per-op
// pricing (detail::op_cost) calls op_efficiency for every operator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "model/model.h"
#include "workload/workload.h"

namespace rooftop::model {

// One GEMM: C[m x n] += A[m x k] B[k x n].
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double groups = 1;  // independent GEMMs of this shape (a grouped convolution's groups)
};

// How a device's matrix units run a GEMM (catalog compute.units/tile_*):
// `units` parallel units, each computing an output tile of tile_m x tile_n,
// stepping k by tile_k (1 when the catalog gives none: a systolic array
// streams k). All 0 when the catalog does not say.
struct GemmUnits {
  double units = 0, tile_m = 0, tile_n = 0, tile_k = 0;
  // Smallest tile side the library also runs (halving tile_m / tile_n down
  // to it); 0: the tile is fixed (systolic arrays).
  double tile_min = 0;
  bool known() const { return units > 0 && tile_m > 0 && tile_n > 0 && tile_k > 0; }
};
GemmUnits gemm_units(const catalog::Accelerator& a);

// The parts of the GEMM-shape factor, each in (0, 1]:
//   fill      = min(1, m / tile_m) x min(1, n / tile_n) x min(1, k / tile_k)
//               (a dimension thinner than one tile leaves the rest of it idle)
//   tiles     = ceil(m / tile_m) x ceil(n / tile_n)
//   splits    = max(1, k / (4 tile_k))        (split-K slices when tiles are few)
//   occupancy = min(1, tiles x splits / units) (units without a tile idle: the
//               wave quantization of a grid smaller than one wave)
//   factor    = fill x occupancy
// A library with several tiles (tile_min > 0) picks, per shape, the tile
// among tile_m / 2^i x tile_n / 2^j (sides >= tile_min) with the largest
// factor; its smaller tiles' lower operand reuse is not charged.
// Beyond one full wave the schedulers of current libraries (stream-K,
// persistent kernels) spread the last partial wave over every unit, so it is
// not charged. The factor never exceeds 1 and never grows when m, n or k
// shrinks. Unknown units: 1.
struct GemmShapeFactor {
  double fill = 1, occupancy = 1, tiles = 0, splits = 1;
  double factor() const { return fill * occupancy; }
};
GemmShapeFactor gemm_shape_factor(const GemmShape& s, const GemmUnits& u);

// The K of the GEMM benchmarks the `compute` factors were measured on
// (4,096 to 14,336 in the Maximum Achievable Matmul FLOPS table): the depth
// at which gemm_depth_factor is 1.
inline constexpr double kGemmReferenceK = 8192;
// The share of the deep-GEMM rate a GEMM of depth k reaches when every
// output tile pays a fixed cost worth `fixed_k` of k: (k / (k + fixed_k)) /
// (K_ref / (K_ref + fixed_k)), at most 1; 1 when fixed_k is 0.
double gemm_depth_factor(double k, double fixed_k);

// The GEMM a matmul or convolution operator runs at `batch`, with its output
// columns divided by `shard` (tensor parallel). Derived from the operator's
// per-sample FLOPs, weights and outputs: m = batch x flops / (2 weights)
// (tokens, or output pixels of a convolution), n = out / (m per sample),
// k = weights / n. nullopt for other kinds or when the sizes are missing.
std::optional<GemmShape> op_gemm_shape(const workload::Operator& op, double batch, double shard);

// The fractions of the compute peak and of the memory bandwidth one operator
// reaches, and what set them (for `assumptions`).
struct OpEfficiency {
  double compute = 0;   // achieved / peak(p)
  double memory = 0;    // achieved / bandwidth
};
// op_efficiency is physics_efficiency times the stack factor of the
// operator's class (Efficiency::class_factor), each fraction at most 1.
OpEfficiency op_efficiency(const workload::Operator& op, double batch, double shard, Precision p,
                           const catalog::Accelerator& a, const Efficiency& e);
OpEfficiency physics_efficiency(const workload::Operator& op, double batch, double shard, Precision p,
                                const catalog::Accelerator& a, const Efficiency& e);

// Bytes a gather of rows of `row_bytes` really moves: each row rounded up to
// whole memory sectors (kSectorBytes).
inline constexpr double kSectorBytes = 32;
double gather_sector_efficiency(double row_bytes);

// The peak (FLOP/s or OP/s) of `a` at `p` for a workload of `family`: on a
// part whose int8 peak includes deep-learning accelerators (catalog
// compute.dla_int8), only CNNs use them; other workloads get the GPU's own.
double workload_peak(const catalog::Accelerator& a, Precision p, workload::Family family);

// The part as `family` at `p` sees it: a copy whose int8 peak is the GPU's
// own when the part's deep-learning accelerators (Jetson DLAs) cannot run
// that workload; nullopt when the part applies unchanged.
std::optional<catalog::Accelerator> without_unusable_units(const catalog::Accelerator& a, Precision p,
                                                           workload::Family family);

// What op_efficiency uses on `a` with the factors `e`, as `assumptions` lines
// (GEMM units and tile, GEMM depth, attention fraction, gathers, and when
// `training` the normalization backward), each with its source.
std::vector<Assumption> op_efficiency_assumptions(const catalog::Accelerator& a, const Efficiency& e, bool training);

}  // namespace rooftop::model
