// Internal to src/onnx: the steps of an import, shared by its .cpp files.
// load.cpp parses, validates and shapes the graph; cost.cpp prices one node;
// einsum.cpp prices an Einsum equation; import.cpp walks the graph and
// assembles the Workload. Not part of the module's public header.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/result.h"
#include "onnx/onnx.h"
#include "workload/workload.h"

namespace rooftop::onnx::detail {

// A static shape; dimensions as doubles so products never overflow.
using Dims = std::vector<double>;

double product(const Dims& d);

// What shape inference and the initializers tell about every tensor.
struct Tensors {
  std::unordered_map<std::string, Dims> shapes;   // tensors with a fully known shape
  std::unordered_set<std::string> constants;      // initializers, Constant outputs, folded values
  std::unordered_set<std::string> graph_outputs;

  const Dims* shape(const std::string& name) const;
  std::optional<double> elems(const std::string& name) const;
  bool is_constant(const std::string& name) const { return constants.count(name) > 0; }
};

// Parses a serialized ModelProto (size limit and trailing garbage checked).
Result<::onnx::ModelProto> parse_model(std::string_view bytes, const std::string& name);

// Validates the graph (names resolve, no cycles, sane initializers and
// external data), sorts its nodes topologically, applies the user's input
// shapes and runs shape inference. Returns the batch that was applied.
Result<std::int64_t> prepare_graph(::onnx::ModelProto& m, const ImportOptions& opts, const std::string& name);

// Collects shapes and constants after prepare_graph; errors on absurd shapes.
Result<Tensors> collect_tensors(const ::onnx::ModelProto& m, const std::string& name);

enum class CostStatus {
  ok,             // ops holds the node's operators (at the applied batch, not yet per sample)
  free,           // costs nothing at run time (Constant, folded at load)
  unsupported,    // op type rooftop cannot price
  unknown_shape,  // a shape it needs was not inferred
};
struct NodeCost {
  CostStatus status = CostStatus::ok;
  std::vector<workload::Operator> ops;
};

// Prices one node. Names of the returned ops start with `name`.
NodeCost cost_node(const ::onnx::NodeProto& n, const std::string& name, const Tensors& t);

// FLOPs of an Einsum: nullopt when the equation or shapes do not fit;
// `contracts` tells whether an index is summed over (a real contraction).
struct EinsumCost {
  double flops = 0;
  bool contracts = false;
  Dims out_dims;  // the output's shape
};
std::optional<EinsumCost> einsum_cost(std::string_view equation, const std::vector<const Dims*>& inputs);

// "com.microsoft.Attention" for contrib ops, "Conv" for the default domain.
std::string qualified_type(const ::onnx::NodeProto& n);

}  // namespace rooftop::onnx::detail
