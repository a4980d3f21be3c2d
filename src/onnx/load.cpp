// Reading and preparing an ONNX graph before it is priced: protobuf parsing
// with explicit limits, structural validation (every name resolves, no
// cycles, sane initializers and external data), topological order, the
// user's input shapes, and ONNX shape inference (plus the output shapes of
// the com.microsoft attention ops, which ONNX itself does not know).
// Everything hostile is turned into an Error here, before any counting.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <deque>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <map>
#include <string_view>

#include "core/text.h"
#include "onnx/graph.h"

namespace rooftop::onnx::detail {

namespace {

namespace fs = std::filesystem;

Unexpected bad(const std::string& name, std::string message) {
  return make_error(Errc::invalid_input, std::move(message), name);
}

// Bytes per element of an ONNX TensorProto data type; 0 when unknown or variable (string).
double element_bytes(int data_type) {
  using T = ::onnx::TensorProto;
  switch (data_type) {
    case T::FLOAT: case T::INT32: case T::UINT32: return 4;
    case T::DOUBLE: case T::INT64: case T::UINT64: case T::COMPLEX64: return 8;
    case T::COMPLEX128: return 16;
    case T::FLOAT16: case T::BFLOAT16: case T::INT16: case T::UINT16: return 2;
    case T::INT8: case T::UINT8: case T::BOOL: return 1;
    default: return 0;
  }
}

// Elements a TensorProto holds inline (typed fields or raw_data); nullopt when none.
std::optional<double> inline_elems(const ::onnx::TensorProto& t) {
  double width = element_bytes(t.data_type());
  if (t.has_raw_data() && width > 0) return static_cast<double>(t.raw_data().size()) / width;
  double n = t.float_data_size() + t.int32_data_size() + t.int64_data_size() + t.double_data_size() +
             t.uint64_data_size() + t.string_data_size();
  if (t.data_type() == ::onnx::TensorProto::COMPLEX64 || t.data_type() == ::onnx::TensorProto::COMPLEX128) n /= 2;
  if (n > 0) return n;
  return std::nullopt;
}

Result<double> checked_elems(const google::protobuf::RepeatedField<std::int64_t>& dims, const std::string& what,
                             const std::string& name) {
  double n = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return bad(name, fmt::format("{} has a negative dimension ({})", what, d));
    if (static_cast<double>(d) > kMaxDim) {
      return bad(name, fmt::format("{} has an absurd dimension ({} > 2^40)", what, d));
    }
    n *= static_cast<double>(d);
    if (n > kMaxTensorElems) {
      return bad(name, fmt::format("{} has an absurd size (more than 2^50 elements)", what));
    }
  }
  return n;
}

// A relative path that stays inside the model's folder.
bool safe_location(const std::string& loc) {
  if (loc.empty() || loc.find('\0') != std::string::npos) return false;
  fs::path p(loc);
  if (p.is_absolute() || p.has_root_name()) return false;
  for (const fs::path& part : p) {
    if (part == "..") return false;
  }
  return true;
}

// Checks one external-data initializer; loads small integer tensors (the
// shape operands of Reshape/Expand) so shape inference can read them.
Result<void> check_external(::onnx::TensorProto& t, double elems, const ImportOptions& opts, const std::string& name) {
  std::string location;
  std::optional<std::int64_t> offset, length;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset" || kv.key() == "length") {
      std::optional<long long> v = parse_int(kv.value());
      if (!v || *v < 0) return bad(name, fmt::format("initializer '{}' has a bad external-data {} '{}'", t.name(), kv.key(), kv.value()));
      (kv.key() == "offset" ? offset : length) = *v;
    }
  }
  if (!safe_location(location)) {
    return bad(name, fmt::format("initializer '{}' has an unsafe or empty external-data location '{}' "
                                 "(must be a relative path inside the model's folder)", t.name(), location));
  }
  double need = elems * element_bytes(t.data_type());
  if (length && element_bytes(t.data_type()) > 0 && static_cast<double>(*length) != need) {
    return bad(name, fmt::format("initializer '{}' declares {} elements but its external data is {} bytes",
                                 t.name(), elems, *length));
  }
  if (opts.external_data_dir.empty()) return {};
  fs::path file = fs::path(opts.external_data_dir) / location;
  std::error_code ec;
  std::uintmax_t size = fs::file_size(file, ec);
  if (ec) {
    return make_error(Errc::not_found, fmt::format("external data file '{}' of initializer '{}' is missing "
                                                   "(looked in {})", location, t.name(), opts.external_data_dir), name);
  }
  double end = static_cast<double>(offset.value_or(0)) + need;
  if (end > static_cast<double>(size)) {
    return bad(name, fmt::format("external data file '{}' is {} bytes, too short for initializer '{}' "
                                 "(needs bytes up to {})", location, size, t.name(), end));
  }
  bool small_int = (t.data_type() == ::onnx::TensorProto::INT64 || t.data_type() == ::onnx::TensorProto::INT32) &&
                   need <= 65536;
  if (!small_int) return {};
  std::string data(static_cast<std::size_t>(need), '\0');
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return make_error(Errc::io, fmt::format("cannot open external data file '{}'", location), name);
  bool ok = std::fseek(f, static_cast<long>(offset.value_or(0)), SEEK_SET) == 0 &&
            std::fread(data.data(), 1, data.size(), f) == data.size();
  std::fclose(f);
  if (!ok) return make_error(Errc::io, fmt::format("cannot read external data file '{}'", location), name);
  t.clear_external_data();
  t.set_data_location(::onnx::TensorProto::DEFAULT);
  t.set_raw_data(std::move(data));
  return {};
}

Result<void> check_initializers(::onnx::GraphProto& g, const ImportOptions& opts, const std::string& name) {
  for (::onnx::TensorProto& t : *g.mutable_initializer()) {
    if (t.name().empty()) return bad(name, "an initializer has no name");
    Result<double> elems = checked_elems(t.dims(), fmt::format("initializer '{}'", t.name()), name);
    if (!elems) return make_error(elems.error());
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
      ROOFTOP_TRY(check_external(t, *elems, opts, name));
      continue;
    }
    std::optional<double> held = inline_elems(t);
    if (held.value_or(0) != *elems) {
      return bad(name, fmt::format("initializer '{}' declares {} elements but holds {}", t.name(), *elems, held.value_or(0)));
    }
  }
  return {};
}

// The window operators' strides, dilations and kernel sizes size their
// outputs in ONNX's shape inference, which divides by the stride unchecked
// (a stride of 0 is a division by zero: the process dies of SIGFPE). The ONNX
// operator specs require all of them, and Conv's group, to be at least 1;
// say which node breaks that before inference runs, in subgraphs too.
constexpr std::string_view kWindowOps[] = {"Conv",    "ConvInteger", "QLinearConv", "ConvTranspose", "MaxPool",
                                           "AveragePool", "LpPool",  "MaxUnpool",   "DeformConv"};

Result<void> check_window_attributes(const ::onnx::GraphProto& g, const std::string& name) {
  for (const ::onnx::NodeProto& n : g.node()) {
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) ROOFTOP_TRY(check_window_attributes(a.g(), name));
      for (const ::onnx::GraphProto& sub : a.graphs()) ROOFTOP_TRY(check_window_attributes(sub, name));
    }
    if (std::find(std::begin(kWindowOps), std::end(kWindowOps), n.op_type()) == std::end(kWindowOps)) continue;
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      const bool sizes = a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape";
      if (sizes) {
        for (std::int64_t v : a.ints()) {
          if (v < 1)
            return bad(name, fmt::format("node '{}' ({}) has {} {}; every value must be at least 1", n.name(),
                                         n.op_type(), a.name(), v));
        }
      }
      if (a.name() == "group" && a.i() < 1)
        return bad(name, fmt::format("node '{}' ({}) has group {}; it must be at least 1", n.name(), n.op_type(), a.i()));
    }
  }
  return {};
}

// Conv, ConvInteger and QLinearConv may take their kernel size from the
// weight's shape instead of a kernel_shape attribute, and libonnx then reads
// the input's spatial dimensions, strides and pads at the weight's rank
// unchecked (a 3-D input with a 4-D weight reads out of bounds). Writing the
// attribute from the weight's shape makes libonnx's own rank check run. A
// weight whose shape is not known before inference (neither an initializer
// nor a graph input) is refused with the fix to make.
using KnownShapes = std::unordered_map<std::string, std::vector<std::int64_t>>;

Result<void> pin_conv_kernels(::onnx::GraphProto& g, KnownShapes known, const std::string& name) {
  for (const ::onnx::TensorProto& t : g.initializer()) known[t.name()].assign(t.dims().begin(), t.dims().end());
  for (const ::onnx::ValueInfoProto& vi : g.input()) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape() || known.count(vi.name())) continue;
    std::vector<std::int64_t>& dims = known[vi.name()];
    for (const auto& d : vi.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  for (::onnx::NodeProto& n : *g.mutable_node()) {
    for (::onnx::AttributeProto& a : *n.mutable_attribute()) {
      if (a.has_g()) ROOFTOP_TRY(pin_conv_kernels(*a.mutable_g(), known, name));
      for (::onnx::GraphProto& sub : *a.mutable_graphs()) ROOFTOP_TRY(pin_conv_kernels(sub, known, name));
    }
    const std::string& op = n.op_type();
    const int w = op == "QLinearConv" ? 3 : op == "Conv" || op == "ConvInteger" ? 1 : -1;
    if (w < 0 || n.input_size() <= w) continue;
    const auto& attrs = n.attribute();
    if (std::any_of(attrs.begin(), attrs.end(), [](const auto& a) { return a.name() == "kernel_shape"; })) continue;
    auto it = known.find(n.input(w));
    const bool sized = it != known.end() && it->second.size() >= 3 &&
                       std::all_of(it->second.begin(), it->second.end(), [](std::int64_t d) { return d >= 0; });
    if (!sized) {
      return bad(name, fmt::format("node '{}' ({}) has no kernel_shape and the shape of its weight '{}' is not known "
                                   "before shape inference; give the node a kernel_shape attribute",
                                   n.name(), op, n.input(w)));
    }
    auto x = known.find(n.input(0));
    if (x != known.end() && x->second.size() != it->second.size()) {
      return bad(name, fmt::format("node '{}' ({}) convolves input '{}' of rank {} with weight '{}' of rank {}; "
                                   "they must have the same rank",
                                   n.name(), op, n.input(0), x->second.size(), n.input(w), it->second.size()));
    }
    ::onnx::AttributeProto* k = n.add_attribute();
    k->set_name("kernel_shape");
    k->set_type(::onnx::AttributeProto::INTS);
    for (std::size_t i = 2; i < it->second.size(); ++i) k->add_ints(it->second[i]);
  }
  return {};
}

// Kahn's algorithm over tensor names; rewrites the node order. Errors name
// a missing input, a tensor produced twice, or a node on a cycle.
Result<void> sort_nodes(::onnx::GraphProto& g, const std::string& name) {
  std::unordered_set<std::string> available;
  for (const auto& i : g.input()) available.insert(i.name());
  for (const auto& t : g.initializer()) available.insert(t.name());
  std::unordered_map<std::string, int> producer;
  const int n = g.node_size();
  for (int i = 0; i < n; ++i) {
    for (const std::string& o : g.node(i).output()) {
      if (o.empty()) continue;
      if (available.count(o) || !producer.emplace(o, i).second) {
        return bad(name, fmt::format("tensor '{}' is produced twice (by node '{}' and another)", o, g.node(i).name()));
      }
    }
  }
  std::vector<int> waiting(n, 0);
  std::unordered_map<std::string, std::vector<int>> readers;
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : g.node(i).input()) {
      if (in.empty() || available.count(in)) continue;
      if (!producer.count(in)) {
        return bad(name, fmt::format("node '{}' ({}) reads '{}', which no node, graph input or initializer provides",
                                     g.node(i).name(), g.node(i).op_type(), in));
      }
      ++waiting[i];
      readers[in].push_back(i);
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (const std::string& o : g.node(i).output()) {
      auto it = readers.find(o);
      if (it == readers.end()) continue;
      for (int r : it->second) {
        if (--waiting[r] == 0) ready.push_back(r);
      }
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (waiting[i] > 0) {
        return bad(name, fmt::format("the graph has a cycle through node '{}' ({})", g.node(i).name(), g.node(i).op_type()));
      }
    }
  }
  google::protobuf::RepeatedPtrField<::onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = g.node(i);
  g.mutable_node()->Swap(&sorted);
  return {};
}

// Fixes every graph input's shape: explicit --input shapes, then --batch
// (or 1) for a symbolic first dimension. Returns the applied batch.
Result<std::int64_t> apply_shapes(::onnx::GraphProto& g, const ImportOptions& opts, const std::string& name) {
  std::unordered_set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::map<std::string, const InputShape*> given;
  for (const InputShape& s : opts.inputs) given[s.name] = &s;
  std::vector<std::string> input_names;
  for (const ::onnx::ValueInfoProto& vi : g.input()) {
    if (!inits.count(vi.name())) input_names.push_back(vi.name());
  }
  for (const InputShape& s : opts.inputs) {
    if (std::find(input_names.begin(), input_names.end(), s.name) == input_names.end()) {
      return make_error(Errc::invalid_input, did_you_mean("graph input", s.name, input_names), "--input");
    }
  }
  std::optional<std::int64_t> batch;
  for (::onnx::ValueInfoProto& vi : *g.mutable_input()) {
    if (inits.count(vi.name())) continue;
    if (!vi.type().has_tensor_type()) continue;
    ::onnx::TypeProto_Tensor* tt = vi.mutable_type()->mutable_tensor_type();
    auto it = given.find(vi.name());
    if (it != given.end()) {
      if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(it->second->dims.size())) {
        return make_error(Errc::invalid_input, fmt::format("input '{}' has rank {}, but --input gives {} dimensions",
                                                           vi.name(), tt->shape().dim_size(), it->second->dims.size()), "--input");
      }
      tt->mutable_shape()->clear_dim();
      for (std::int64_t d : it->second->dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
    } else if (!tt->has_shape()) {
      return bad(name, fmt::format("input '{}' has no shape; give it with --input {}=DIMxDIM...", vi.name(), vi.name()));
    }
    for (int axis = 0; axis < tt->shape().dim_size(); ++axis) {
      ::onnx::TensorShapeProto_Dimension* d = tt->mutable_shape()->mutable_dim(axis);
      if (!d->has_dim_value()) {
        if (axis != 0) {
          return bad(name, fmt::format("input '{}' dimension {} ('{}') is symbolic; give its size with --input {}=...",
                                       vi.name(), axis, d->dim_param(), vi.name()));
        }
        d->set_dim_value(opts.batch.value_or(1));
      }
      if (d->dim_value() < 0) return bad(name, fmt::format("input '{}' dimension {} is negative ({})", vi.name(), axis, d->dim_value()));
      if (static_cast<double>(d->dim_value()) > kMaxDim) {
        return bad(name, fmt::format("input '{}' dimension {} is absurd ({} > 2^40)", vi.name(), axis, d->dim_value()));
      }
    }
    if (!batch && tt->shape().dim_size() > 0) batch = tt->shape().dim(0).dim_value();
  }
  if (batch && *batch == 0) return bad(name, "the batch dimension is 0");
  return batch.value_or(1);
}

const ::onnx::TensorShapeProto* find_shape(const ::onnx::GraphProto& g, const std::string& n) {
  auto match = [&](const ::onnx::ValueInfoProto& vi) {
    return vi.name() == n && vi.type().has_tensor_type() && vi.type().tensor_type().has_shape();
  };
  for (const auto& vi : g.input()) if (match(vi)) return &vi.type().tensor_type().shape();
  for (const auto& vi : g.value_info()) if (match(vi)) return &vi.type().tensor_type().shape();
  return nullptr;
}

bool static_dims(const ::onnx::TensorShapeProto* s, int rank, std::vector<std::int64_t>& out) {
  if (!s || s->dim_size() != rank) return false;
  out.clear();
  for (const auto& d : s->dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
    out.push_back(d.dim_value());
  }
  return true;
}

std::vector<std::int64_t> initializer_dims(const ::onnx::GraphProto& g, const std::string& n) {
  for (const auto& t : g.initializer()) {
    if (t.name() == n) return {t.dims().begin(), t.dims().end()};
  }
  std::vector<std::int64_t> d;
  static_dims(find_shape(g, n), 2, d);
  return d;
}

// Output shape of a com.microsoft op ONNX shape inference does not know.
std::optional<std::vector<std::int64_t>> contrib_output_shape(const ::onnx::GraphProto& g, const ::onnx::NodeProto& n) {
  static const std::unordered_set<std::string> kSameAsInput = {
      "FastGelu", "BiasGelu", "Gelu", "QuickGelu", "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
      "SimplifiedLayerNormalization", "BiasAdd", "LayerNormalization", "FusedConv"};
  if (n.input_size() == 0) return std::nullopt;
  std::vector<std::int64_t> x;
  const ::onnx::TensorShapeProto* xs = find_shape(g, n.input(0));
  if (n.op_type() == "Attention" || n.op_type() == "MultiHeadAttention") {
    if (!static_dims(xs, 3, x)) return std::nullopt;
    if (n.op_type() == "Attention") {
      std::vector<std::int64_t> w = n.input_size() > 1 ? initializer_dims(g, n.input(1)) : std::vector<std::int64_t>{};
      if (w.size() != 2 || w[1] % 3 != 0) return std::nullopt;
      return std::vector<std::int64_t>{x[0], x[1], w[1] / 3};
    }
    std::vector<std::int64_t> v;
    if (n.input_size() < 3 || !static_dims(find_shape(g, n.input(2)), 3, v)) return std::nullopt;
    return std::vector<std::int64_t>{x[0], x[1], v[2]};
  }
  if (kSameAsInput.count(n.op_type()) && xs) {
    if (!static_dims(xs, xs->dim_size(), x)) return std::nullopt;
    return x;
  }
  return std::nullopt;
}

// Einsum: ONNX 1.12 infers only the output's rank; the dimensions follow from the equation.
std::optional<std::vector<std::int64_t>> einsum_output_shape(const ::onnx::GraphProto& g, const ::onnx::NodeProto& n) {
  std::vector<Dims> shapes;
  for (const std::string& in : n.input()) {
    const ::onnx::TensorShapeProto* s = find_shape(g, in);
    std::vector<std::int64_t> d;
    if (!s || !static_dims(s, s->dim_size(), d)) {
      bool found = false;
      for (const auto& t : g.initializer()) {
        if (t.name() == in) d.assign(t.dims().begin(), t.dims().end()), found = true;
      }
      if (!found) return std::nullopt;
    }
    shapes.emplace_back(d.begin(), d.end());
  }
  std::vector<const Dims*> ptrs;
  for (const Dims& d : shapes) ptrs.push_back(&d);
  std::string eq;
  for (const auto& a : n.attribute()) {
    if (a.name() == "equation") eq = a.s();
  }
  std::optional<EinsumCost> c = einsum_cost(eq, ptrs);
  if (!c) return std::nullopt;
  return std::vector<std::int64_t>(c->out_dims.begin(), c->out_dims.end());
}

// Adds value_info for outputs ONNX could not shape (com.microsoft ops,
// Einsum) once their inputs have shapes; true if any was added.
bool add_contrib_shapes(::onnx::GraphProto& g) {
  bool added = false;
  for (const ::onnx::NodeProto& n : g.node()) {
    const bool einsum = n.op_type() == "Einsum" && (n.domain().empty() || n.domain() == "ai.onnx");
    if ((n.domain() != "com.microsoft" && !einsum) || n.output_size() == 0 || n.output(0).empty()) continue;
    const ::onnx::TensorShapeProto* known = find_shape(g, n.output(0));
    std::vector<std::int64_t> unused;
    if (known && static_dims(known, known->dim_size(), unused)) continue;
    std::optional<std::vector<std::int64_t>> dims = einsum ? einsum_output_shape(g, n) : contrib_output_shape(g, n);
    if (!dims) continue;
    int elem_type = ::onnx::TensorProto::FLOAT;
    for (const auto& vi : g.input()) if (vi.name() == n.input(0)) elem_type = vi.type().tensor_type().elem_type();
    for (const auto& vi : g.value_info()) if (vi.name() == n.input(0)) elem_type = vi.type().tensor_type().elem_type();
    ::onnx::ValueInfoProto* vi = nullptr;
    for (::onnx::ValueInfoProto& v : *g.mutable_value_info()) {
      if (v.name() == n.output(0)) vi = &v;
    }
    if (!vi) vi = g.add_value_info();
    vi->set_name(n.output(0));
    vi->mutable_type()->mutable_tensor_type()->clear_shape();
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    for (std::int64_t d : *dims) vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    added = true;
  }
  return added;
}

}  // namespace

Result<::onnx::ModelProto> parse_model(std::string_view bytes, const std::string& name) {
  if (bytes.size() > kMaxModelFileBytes) {
    return bad(name, fmt::format("the model is {}, over protobuf's 2 GiB limit for one message; save its weights as "
                                 "external data (onnx.save_model(..., save_as_external_data=True))",
                                 iec_bytes(static_cast<double>(bytes.size()))));
  }
  ::onnx::ModelProto m;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(64);
  if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return bad(name, "not a valid ONNX model (the protobuf is malformed or truncated)");
  }
  if (!m.has_graph()) return bad(name, "not an ONNX model (it has no graph)");
  return m;
}

Result<std::int64_t> prepare_graph(::onnx::ModelProto& m, const ImportOptions& opts, const std::string& name) {
  ::onnx::GraphProto& g = *m.mutable_graph();
  ROOFTOP_TRY(check_initializers(g, opts, name));
  ROOFTOP_TRY(sort_nodes(g, name));
  ROOFTOP_TRY(check_window_attributes(g, name));
  Result<std::int64_t> batch = apply_shapes(g, opts, name);
  if (!batch) return batch;
  ROOFTOP_TRY(pin_conv_kernels(g, {}, name));
  // Stale shapes from the exporter would clash with the shapes just applied.
  g.clear_value_info();
  for (::onnx::ValueInfoProto& o : *g.mutable_output()) {
    if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  try {
    ::onnx::ShapeInferenceOptions si(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    for (int round = 0; round < 8; ++round) {
      ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(), si);
      if (!add_contrib_shapes(g)) break;
    }
  } catch (const std::exception& e) {
    return bad(name, fmt::format("ONNX shape inference failed: {}", e.what()));
  }
  return batch;
}

Result<Tensors> collect_tensors(const ::onnx::ModelProto& m, const std::string& name) {
  const ::onnx::GraphProto& g = m.graph();
  Tensors t;
  auto add = [&](const ::onnx::ValueInfoProto& vi) -> Result<void> {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return {};
    Dims dims;
    double n = 1;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return {};
      if (d.dim_value() < 0) return bad(name, fmt::format("tensor '{}' has a negative dimension ({})", vi.name(), d.dim_value()));
      dims.push_back(static_cast<double>(d.dim_value()));
      n *= dims.back();
      if (dims.back() > kMaxDim || n > kMaxTensorElems) {
        return bad(name, fmt::format("tensor '{}' has an absurd shape (more than 2^50 elements or a dimension over 2^40); "
                                     "the model is corrupt or the input shapes are wrong", vi.name()));
      }
    }
    t.shapes[vi.name()] = std::move(dims);
    return {};
  };
  for (const auto& vi : g.input()) ROOFTOP_TRY(add(vi));
  for (const auto& vi : g.value_info()) ROOFTOP_TRY(add(vi));
  for (const auto& vi : g.output()) {
    ROOFTOP_TRY(add(vi));
    t.graph_outputs.insert(vi.name());
  }
  for (const auto& init : g.initializer()) {
    t.shapes[init.name()] = Dims(init.dims().begin(), init.dims().end());
    t.constants.insert(init.name());
  }
  return t;
}

double product(const Dims& d) {
  double n = 1;
  for (double x : d) n *= x;
  return n;
}

const Dims* Tensors::shape(const std::string& name) const {
  auto it = shapes.find(name);
  return it == shapes.end() ? nullptr : &it->second;
}

std::optional<double> Tensors::elems(const std::string& name) const {
  const Dims* d = shape(name);
  if (!d) return std::nullopt;
  return product(*d);
}

std::string qualified_type(const ::onnx::NodeProto& n) {
  if (n.domain().empty() || n.domain() == "ai.onnx") return n.op_type();
  return n.domain() + "." + n.op_type();
}

}  // namespace rooftop::onnx::detail
