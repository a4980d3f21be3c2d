// ONNX import: reads a model file (protobuf, optionally with external
// weight data), applies the input shapes the user asks for, runs ONNX shape
// inference, and prices every node as a workload::Operator (FLOPs, weights
// read, activations read and written). The result is the same Workload value
// the zoo and the YAML builder produce, so predict, advise and roofline take
// ONNX files wherever they take a model id.
//
// Operators are per sample: the importer divides what it counted at the
// applied batch by that batch (weights are per batch). Operators it cannot
// price (unknown op types, shapes inference could not resolve) are listed in
// Workload::unsupported_ops, never counted as zero. Counting conventions per
// operator are in docs/onnx.md.
//
// The graph's adjacency (which operator feeds which) travels beside the
// Workload so that fusion advice can follow real producer->consumer chains.
// Everything here is a pure function of its inputs except import_file, which
// reads the model file and stats its external-data files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "workload/workload.h"

namespace rooftop::onnx {

// One protobuf message cannot exceed 2 GiB - 1 byte; bigger models must keep
// their weights in external data files (docs/onnx.md).
inline constexpr std::uint64_t kMaxModelFileBytes = 2147483647ULL;
// Largest single dimension and tensor (elements) accepted: beyond these a
// shape is corrupt or hostile, not a model.
inline constexpr double kMaxDim = 1099511627776.0;         // 2^40
inline constexpr double kMaxTensorElems = 1125899906842624.0;  // 2^50

// "--input name=1x3x224x224": the shape to give graph input `name`.
struct InputShape {
  std::string name;
  std::vector<std::int64_t> dims;
};
// Parses "name=1x3x224x224"; errors name the offending text.
Result<InputShape> parse_input_shape(std::string_view spec);

struct ImportOptions {
  std::vector<InputShape> inputs;      // explicit shapes (override the file's)
  std::optional<std::int64_t> batch;   // sets every input's symbolic first dimension
  // Folder external-data locations are relative to; empty = do not check
  // that external-data files exist (import_bytes on untrusted buffers).
  std::string external_data_dir;
};

struct ImportedModel {
  workload::Workload workload;         // family onnx, ops per sample
  std::vector<std::string> op_types;   // per op: "Conv", "com.microsoft.Attention"
  // Per op: indices of the ops whose outputs it reads (graph edges).
  std::vector<std::vector<std::size_t>> producers;
  // Per op: how many consumers read its output, plus one if it is a graph output.
  std::vector<std::size_t> consumer_count;
  std::int64_t batch = 1;              // the batch the counts were divided by
};

// Reads `path` (refused with a clear message when over kMaxModelFileBytes,
// checked before parsing) and imports it. External data is looked up next to
// the model file.
Result<ImportedModel> import_file(const std::string& path, const ImportOptions& opts);

// Imports a serialized ModelProto held in memory; `name` is used in messages
// and as the workload id. Never crashes on malformed or hostile bytes.
Result<ImportedModel> import_bytes(std::string_view bytes, const std::string& name, const ImportOptions& opts);

// ---- Fusion advice -----------------------------------------------------------

// A GEMM/Conv followed by a chain of memory-bound element-wise or
// normalisation operators that one fused kernel could run as its epilogue:
// the chain's intermediate tensors are then never written to or read back
// from memory.
struct FusionCandidate {
  std::size_t anchor = 0;              // index of the matmul/conv op
  std::vector<std::size_t> chain;      // fused ops in order
  workload::Operator fused;            // the one kernel replacing anchor + chain
};

// Walks every matmul/conv op forward along single-consumer edges while the
// next op is element-wise or a normalisation, has the same repeat and phase,
// and memory_bound[i] is true (the caller's roofline). `producers` and
// `consumer_count` describe the graph (see ImportedModel; for operator lists
// without a graph use sequential_graph).
std::vector<FusionCandidate> find_fusions(const std::vector<workload::Operator>& ops,
                                          const std::vector<std::vector<std::size_t>>& producers,
                                          const std::vector<std::size_t>& consumer_count,
                                          const std::vector<bool>& memory_bound);

// A chain graph for an operator list in execution order: op i reads op i-1.
struct Adjacency {
  std::vector<std::vector<std::size_t>> producers;
  std::vector<std::size_t> consumer_count;
};
Adjacency sequential_graph(std::size_t op_count);

}  // namespace rooftop::onnx
