// The accelerator catalog: what each part can do on paper, with the source
// of every number. Entries are YAML files (data/accelerators/*.yaml, schema in
// docs/catalog.md), embedded in the binary and overlaid by user files
// (--catalog PATH) or by profiles measured with `rooftop bench`.
//
// Values cross into the model as plain structs in base units (FLOP/s,
// bytes, bytes/s, watts). An unknown value is an empty optional, never a
// guess: the model and advisor say so when they need it.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_table.h"
#include "core/precision.h"
#include "core/result.h"

namespace rooftop::catalog {

enum class Kind { gpu, tpu, npu, fpga, asic, cpu, edge };
enum class FormFactor { datacenter, workstation, edge };
// The one spelling of each (core/enum_table.h): to_string, parsing and the
// allowed values in catalog errors come from these.
inline constexpr EnumName<Kind> kKinds[] = {{Kind::gpu, "gpu"},   {Kind::tpu, "tpu"},   {Kind::npu, "npu"},
                                            {Kind::fpga, "fpga"}, {Kind::asic, "asic"}, {Kind::cpu, "cpu"},
                                            {Kind::edge, "edge"}};
static_assert(enum_table_complete(kKinds, static_cast<std::size_t>(Kind::edge) + 1));
inline constexpr EnumName<FormFactor> kFormFactors[] = {
    {FormFactor::datacenter, "datacenter"}, {FormFactor::workstation, "workstation"}, {FormFactor::edge, "edge"}};
static_assert(enum_table_complete(kFormFactors, static_cast<std::size_t>(FormFactor::edge) + 1));

std::string_view to_string(Kind k);
std::string_view to_string(FormFactor f);
std::optional<Kind> parse_kind(std::string_view s);
std::optional<FormFactor> parse_form_factor(std::string_view s);

// A number and where it came from. `value` empty = unknown (not published,
// or not found); `source` is the full citation text, resolved from the
// file's `sources:` map. An unknown value the file wrote as null carries
// `missing_reason` (why no figure: "Google publishes no TPU TDP"); a value
// computed from published figures carries its formula in `derived`.
struct Sourced {
  Sourced() = default;
  Sourced(std::optional<double> v, std::string src) : value(v), source(std::move(src)) {}

  std::optional<double> value;
  std::string source;
  std::string missing_reason;       // set only when value is empty
  std::string derived;              // "56 cores x 1.9 GHz x 2048 FLOP/cycle"; empty = quoted as published

  bool known() const { return value.has_value(); }
  double or_else(double fallback) const { return value.value_or(fallback); }
};

// How the devices of a scale-up domain are wired (docs/catalog.md#systems).
enum class Topology { unknown, switched, full_mesh, ring, torus_2d, torus_3d };
std::string_view to_string(Topology t);
std::optional<Topology> parse_topology(std::string_view s);

struct Link {
  std::string name;                 // "NVLink 4", "PCIe Gen5 x16", "ICI"; empty when none
  Sourced bytes_per_s_per_direction;  // per device (scale-out: this device's share of the NICs)
};

// The scale-up domain a part is deployed in (all optional).
struct ScaleUpDomain {
  Topology topology = Topology::unknown;
  Sourced peers;                    // full mesh: peer links the scale-up bandwidth is the sum over
  Sourced devices;                  // devices one domain connects (NVSwitch island, board, TPU slice)
  Sourced latency_s;                // per hop
};

struct Price {
  Sourced list_usd;                 // purchase price per device
  std::string list_date;            // "2024-03" (when that price was quoted)
  Sourced cloud_usd_per_hour;       // on-demand price per device-hour
  std::string cloud_date;
  std::string cloud_provider;       // "AWS p5.48xlarge / 8"
  std::string cloud_region;         // "us-east-1"
};

struct Framework {
  std::string name;                 // "pytorch", "tensorflow", "jax", "onnxruntime", "paddle", "mindspore"
  std::string version;              // newest version known supported ("2.4"); empty = supported, version unknown
};

struct Software {
  std::vector<std::string> stacks;          // "cuda", "tensorrt", "rocm", "cann", "xla", "synapseai", "openvino", "neuron", ...
  std::vector<Framework> frameworks;
  std::vector<std::string> custom_kernels;  // how users write their own ops: "cuda", "triton", "hip", "ascend-c", "tpc-c", "pallas", "hls"
  std::string source;
};

// Efficiency overrides for the roofline model, set by calibrated profiles
// (`rooftop bench --save-profile`), whose peaks are measured rather than
// quoted: there the achievable fraction is 1 by construction.
struct Calibration {
  std::optional<double> compute_efficiency;
  std::optional<double> memory_efficiency;
  std::string source;
};

// A licence or fitness caveat a buyer must know before choosing the part
// (docs/catalog.md#caveats): the kind, one line of text, and its citation.
// `consumer` parts are excluded by a scenario's constraints.consumer_parts: false.
enum class CaveatKind { consumer, cloud_only, export_control };
inline constexpr std::string_view kCaveatKinds[] = {"consumer", "cloud_only", "export_control"};
std::string_view to_string(CaveatKind k);
struct Caveat {
  CaveatKind kind = CaveatKind::consumer;
  std::string text;    // "GeForce driver licence excludes data-centre deployment"
  std::string source;  // full citation, resolved from the file's `sources:`
};

struct Accelerator {
  std::string id;                   // "nvidia-h100-sxm5-80gb"
  std::string name;                 // "NVIDIA H100 SXM5 80GB"
  std::string vendor;               // "nvidia"
  std::vector<std::string> aliases; // "h100", "h100-sxm"
  Kind kind = Kind::gpu;
  FormFactor form_factor = FormFactor::datacenter;
  std::optional<int> launch_year;
  std::string launch_year_source;   // citation of launch_year

  // Dense peak per precision (index = static_cast<size_t>(Precision)):
  // FLOP/s for float formats, OP/s for integer formats. Sparse figures are
  // never stored here.
  std::array<Sourced, kAllPrecisions.size()> peak_flop_per_s;
  // How the matrix units execute a GEMM (docs/model.md#gemm-shape), each
  // optional and sourced: the parallel compute units a GEMM's output tiles
  // are spread over (SMs, CUs, MMEs, MXUs), and the output tile (m x n,
  // k per step) one unit computes at full rate in the vendor's library.
  Sourced compute_units;
  Sourced tile_m, tile_n, tile_k;
  Sourced tile_min;                 // smallest tile side the library also runs (null: one fixed tile)
  // Fraction of the dense peak that the published fused-attention kernel
  // of this generation reaches (FlashAttention-2/3 or the vendor's own).
  Sourced attention_fraction;
  // Jetson-class SoCs: the part of the int8 peak that is in the deep-learning
  // accelerators (DLAs), which run CNN layers only; LLMs, attention and
  // transformers run on the GPU's own peak (the int8 peak minus this).
  Sourced dla_int8_ops;

  Sourced memory_bytes;             // device memory capacity
  Sourced memory_bytes_per_s;       // device memory bandwidth
  std::string memory_type;          // "HBM3", "GDDR6", "LPDDR5", "DDR5"
  Sourced sram_bytes;               // on-chip SRAM / L2 / last-level cache

  Link scale_up;                    // device-to-device link (bandwidth per direction, per device)
  ScaleUpDomain domain;             // how the scale-up link is wired (docs/catalog.md#systems)
  Link host;                        // host interface
  Link scale_out;                   // network between scale-up domains, per device (NICs / ports)
  Sourced scale_out_latency_s;      // per hop across the scale-out network
  Sourced devices_per_node;         // devices in one server / tray
  Sourced power_w;                  // TDP / board power
  Price price;
  bool cloud_only = false;          // only rented (TPU, Trainium, Inferentia): no purchase price exists
  Software software;
  Calibration calibration;
  std::vector<Caveat> caveats;      // licence and fitness caveats, in file order
  std::string notes;
  std::string origin;               // where the entry was read: "embedded:accelerators/x.yaml" or a path
  std::map<std::string, std::string> sources;  // the file's `sources:` map, key -> citation

  const Sourced& peak(Precision p) const { return peak_flop_per_s[static_cast<std::size_t>(p)]; }
  bool supports(Precision p) const { return peak(p).known() && *peak(p).value > 0; }
  std::vector<Precision> precisions() const;  // those with a known, non-zero peak
  bool has_caveat(CaveatKind k) const;
};

// A figure a buyer compares that the entry does not give, and why.
struct MissingField {
  std::string field;   // "power.tdp_w", "compute", "price"
  std::string reason;  // the entry's missing_reason; empty when it gives none
};

// The buyer-facing figures of `a` that are unknown: TDP, memory capacity and
// bandwidth, dense compute (when no precision is known), scale-up link
// bandwidth (when a link is named), price (when neither a list nor a cloud
// price is known, or a cloud-only part has no cloud price), and any compute
// precision written as null with a reason. In field order.
std::vector<MissingField> missing_fields(const Accelerator& a);

// One YAML document to read: its text and the name used in messages.
struct SourceText {
  std::string name;  // "embedded:accelerators/nvidia-t4.yaml" or a file path
  std::string text;
};

// A system as it is sold or rented (data/systems/*.yaml,
// docs/catalog.md#systems-as-sold): the accelerators it holds and the unit a buyer
// orders, with its host, power, rack space, cooling and price, each sourced.
enum class PurchaseUnit { node, rack, slice, instance, card, kit };
inline constexpr EnumName<PurchaseUnit> kPurchaseUnits[] = {
    {PurchaseUnit::node, "node"},         {PurchaseUnit::rack, "rack"}, {PurchaseUnit::slice, "slice"},
    {PurchaseUnit::instance, "instance"}, {PurchaseUnit::card, "card"}, {PurchaseUnit::kit, "kit"}};
static_assert(enum_table_complete(kPurchaseUnits, static_cast<std::size_t>(PurchaseUnit::kit) + 1));
enum class Cooling { unknown, air, liquid };
inline constexpr EnumName<Cooling> kCoolings[] = {
    {Cooling::unknown, "unknown"}, {Cooling::air, "air"}, {Cooling::liquid, "liquid"}};
static_assert(enum_table_complete(kCoolings, static_cast<std::size_t>(Cooling::liquid) + 1));
std::string_view to_string(PurchaseUnit u);
std::string_view to_string(Cooling c);

struct System {
  std::string id;                   // "nvidia-dgx-b200"
  std::string name;                 // "NVIDIA DGX B200"
  std::string vendor;
  std::string accelerator;          // id of the part it holds (an entry of the catalog)
  Sourced accelerators;             // how many per unit (devices)
  PurchaseUnit unit = PurchaseUnit::node;
  std::string host_cpu;             // "2 x Intel Xeon Platinum 8570"; empty = not stated
  Sourced host_memory_bytes;
  std::string nics;                 // "8 x ConnectX-7 400 Gb/s"; empty = not stated
  Sourced power_w;                  // the whole unit, from the vendor's datasheet (maximum)
  Sourced rack_units;               // U; a rack-scale unit gives the rack's own height
  Cooling cooling = Cooling::unknown;
  std::string cooling_source;
  bool cloud_only = false;          // rented only (an instance shape, a TPU slice)
  Price price;                      // per unit: list price, or per unit-hour
  std::string notes;
  std::string origin;
  std::map<std::string, std::string> sources;
};

// Parses and validates one system entry (strict, like parse_accelerator).
Result<System> parse_system(const SourceText& src);
// True when the document is a system entry (it has a top-level `holds:`).
bool is_system_entry(const SourceText& src);

struct Catalog {
  std::vector<Accelerator> accelerators;  // sorted by id
  std::vector<System> systems;            // sorted by id; each holds an entry of `accelerators`

  // The systems that hold accelerator `id`, in id order.
  std::vector<const System*> systems_for(std::string_view id) const;

  // By id or alias (case-insensitive); nullptr when absent.
  const Accelerator* find(std::string_view id_or_alias) const;
  // Like find, but an unknown id is Errc::not_found with "did you mean".
  Result<const Accelerator*> get(std::string_view id_or_alias) const;
  std::vector<std::string> ids() const;
  // The entry a device's reported model name is ("NVIDIA A100-SXM4-80GB",
  // as NVML, dcgm-exporter's modelName or a monitor store say it), by token
  // overlap with ids, names and aliases; the model number must match.
  // nullptr when none is close (match_name.cpp).
  const Accelerator* match_reported_name(std::string_view reported) const;
};

// Parses and validates one entry (strict: unknown keys, numbers without a
// source, bad units are errors with "file:line"; all problems are reported
// in one Error).
Result<Accelerator> parse_accelerator(const SourceText& src);

// Every problem parse_accelerator finds, one Error each (context
// "file:line"); empty when the entry is valid. For `rooftop catalog validate`.
// A system entry (one with `holds:`) is checked as a system.
std::vector<Error> check_accelerator(const SourceText& src);

// The key of the file's `sources:` map whose citation is `citation` (for
// showing short source names); empty when none.
std::string source_key(const Accelerator& a, const std::string& citation);

// Builds a catalog from the embedded entries, then overlays each path in
// order (a .yaml file, or a folder whose *.yaml files are read). An overlay
// entry whose id exists replaces it; duplicate ids within one layer are an
// error.
Result<Catalog> load_catalog(const std::vector<SourceText>& base, const std::vector<std::string>& overlay_paths);
// The same from texts already read: `base`, then each overlay layer in order
// (the files of one overlay path).
Result<Catalog> layer_catalog(const std::vector<SourceText>& base, const std::vector<std::vector<SourceText>>& overlays);

// The embedded entries (data/accelerators/*.yaml and data/systems/*.yaml) as
// SourceText. A layer's system entries are told apart by `holds:`; a system
// that holds an id the catalog lacks is an error.
std::vector<SourceText> embedded_sources();

}  // namespace rooftop::catalog
