// The import itself: file checks, then for every node in topological order
// its price (cost.cpp), attention patterns (MatMul -> Softmax -> MatMul)
// marked as attention, constant subgraphs folded away, and the totals a
// Workload carries (parameters, peak live activations) computed from the
// graph. Counts are divided by the applied batch at the end.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

#include "core/text.h"
#include "onnx/graph.h"

namespace rooftop::onnx {

namespace {

using detail::CostStatus;
using detail::Tensors;

bool is_float_type(int t) {
  using T = ::onnx::TensorProto;
  return t == T::FLOAT || t == T::FLOAT16 || t == T::BFLOAT16 || t == T::DOUBLE || t == T::INT8 || t == T::UINT8;
}

// Index of every tensor's producing node and of its consuming nodes.
struct NodeGraph {
  std::unordered_map<std::string, int> producer;
  std::unordered_map<std::string, std::vector<int>> consumers;
};
NodeGraph node_graph(const ::onnx::GraphProto& g) {
  NodeGraph ng;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& o : g.node(i).output()) ng.producer[o] = i;
    for (const std::string& in : g.node(i).input()) ng.consumers[in].push_back(i);
  }
  return ng;
}

// MatMul/Einsum nodes on both sides of a Softmax (through scaling, masking
// and dropout): the score (Q K^T) and context (P V) products of attention.
std::unordered_set<int> attention_nodes(const ::onnx::GraphProto& g, const NodeGraph& ng) {
  static const std::unordered_set<std::string> kBetween = {"Div", "Mul", "Add", "Sub", "Where", "Cast", "Dropout"};
  auto is_product = [&](int i) { return g.node(i).op_type() == "MatMul" || g.node(i).op_type() == "Einsum"; };
  std::unordered_set<int> out;
  for (int s = 0; s < g.node_size(); ++s) {
    if (g.node(s).op_type() != "Softmax" || g.node(s).input_size() == 0) continue;
    // Backwards to the score product.
    std::string t = g.node(s).input(0);
    for (int hop = 0; hop < 4; ++hop) {
      auto p = ng.producer.find(t);
      if (p == ng.producer.end()) break;
      if (is_product(p->second)) {
        out.insert(p->second);
        break;
      }
      if (!kBetween.count(g.node(p->second).op_type()) || g.node(p->second).input_size() == 0) break;
      t = g.node(p->second).input(0);
    }
    // Forwards to the context product.
    std::vector<std::string> frontier = {g.node(s).output_size() ? g.node(s).output(0) : std::string()};
    for (int hop = 0; hop < 3 && !frontier.empty(); ++hop) {
      std::vector<std::string> next;
      for (const std::string& f : frontier) {
        auto c = ng.consumers.find(f);
        if (f.empty() || c == ng.consumers.end()) continue;
        for (int i : c->second) {
          if (is_product(i)) {
            out.insert(i);
          } else if (kBetween.count(g.node(i).op_type()) && g.node(i).output_size()) {
            next.push_back(g.node(i).output(0));
          }
        }
      }
      frontier = std::move(next);
    }
  }
  return out;
}

// Trainable parameters: floating initializers, less BatchNorm running statistics.
double count_params(const ::onnx::GraphProto& g) {
  std::unordered_set<std::string> stats;
  for (const auto& n : g.node()) {
    if (n.op_type() != "BatchNormalization") continue;
    for (int i = 3; i < std::min(5, n.input_size()); ++i) stats.insert(n.input(i));
  }
  double params = 0;
  for (const auto& t : g.initializer()) {
    if (!is_float_type(t.data_type()) || stats.count(t.name())) continue;
    params += detail::product(detail::Dims(t.dims().begin(), t.dims().end()));
  }
  return params;
}

// Peak of simultaneously live activation tensors over the node order, and their sum.
std::pair<double, double> activation_elems(const ::onnx::GraphProto& g, const Tensors& t, const NodeGraph& ng) {
  const int n = g.node_size();
  std::vector<double> delta(static_cast<std::size_t>(n) + 2, 0);
  double total = 0;
  auto live = [&](const std::string& name, int from) {
    if (name.empty() || t.is_constant(name)) return;
    std::optional<double> e = t.elems(name);
    if (!e) return;
    int last = from;
    auto c = ng.consumers.find(name);
    if (c != ng.consumers.end()) {
      for (int i : c->second) last = std::max(last, i);
    }
    if (t.graph_outputs.count(name)) last = n;
    delta[static_cast<std::size_t>(from + 1)] += *e;
    delta[static_cast<std::size_t>(last + 1)] -= *e;
    if (from >= 0) total += *e;
  };
  for (const auto& vi : g.input()) live(vi.name(), -1);
  for (int i = 0; i < n; ++i) {
    for (const std::string& o : g.node(i).output()) live(o, i);
  }
  double cur = 0, peak = 0;
  for (double d : delta) {
    cur += d;
    peak = std::max(peak, cur);
  }
  return {peak, total};
}

std::string stem(const std::string& name) {
  std::string s = std::filesystem::path(name).stem().string();
  return s.empty() ? name : s;
}

std::string input_summary(const ::onnx::GraphProto& g, const Tensors& t) {
  std::vector<std::string> parts;
  for (const auto& vi : g.input()) {
    if (t.is_constant(vi.name())) continue;
    const detail::Dims* d = t.shape(vi.name());
    if (!d) continue;
    std::string dims;
    for (std::size_t i = 1; i < d->size(); ++i) dims += (i > 1 ? "x" : "") + fmt::format("{}", (*d)[i]);
    parts.push_back(fmt::format("{} [{}]", vi.name(), dims));
  }
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

Result<ImportedModel> import_model(::onnx::ModelProto& m, const std::string& name, const ImportOptions& opts) {
  Result<std::int64_t> batch = detail::prepare_graph(m, opts, name);
  if (!batch) return make_error(batch.error());
  Result<Tensors> tensors = detail::collect_tensors(m, name);
  if (!tensors) return make_error(tensors.error());
  Tensors& t = *tensors;
  const ::onnx::GraphProto& g = m.graph();
  const NodeGraph ng = node_graph(g);
  const std::unordered_set<int> attention = attention_nodes(g, ng);

  ImportedModel out;
  out.batch = *batch;
  workload::Workload& w = out.workload;
  std::map<std::string, int> unsupported, unknown;
  std::unordered_map<std::string, std::size_t> op_of_tensor;
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& n = g.node(i);
    std::string node_name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), i) : n.name();
    bool folded = n.input_size() > 0;
    for (const std::string& in : n.input()) folded = folded && (in.empty() || t.is_constant(in));
    detail::NodeCost c = folded ? detail::NodeCost{CostStatus::free, {}} : detail::cost_node(n, node_name, t);
    if (c.status == CostStatus::free) {
      for (const std::string& o : n.output()) t.constants.insert(o);
      continue;
    }
    if (c.status == CostStatus::unsupported) ++unsupported[detail::qualified_type(n)];
    if (c.status == CostStatus::unknown_shape) ++unknown[detail::qualified_type(n)];
    if (c.status != CostStatus::ok) continue;
    std::vector<std::size_t> producers;
    for (const std::string& in : n.input()) {
      auto p = op_of_tensor.find(in);
      if (p != op_of_tensor.end() &&
          std::find(producers.begin(), producers.end(), p->second) == producers.end()) {
        producers.push_back(p->second);
      }
    }
    for (workload::Operator& op : c.ops) {
      if (attention.count(i) && op.kind == workload::OpKind::matmul) op.kind = workload::OpKind::attention;
      // What the graph tells: table lookups and attention kernels. A router or
      // an expert is a plain MatMul in ONNX, so MoE roles stay unknown (other).
      op.role = workload::default_role(op.kind);
      w.ops.push_back(std::move(op));
      out.op_types.push_back(detail::qualified_type(n));
      out.producers.push_back(producers);
      producers = {w.ops.size() - 1};
    }
    for (const std::string& o : n.output()) op_of_tensor[o] = w.ops.size() - 1;
  }

  for (const auto& [type, count] : unsupported) w.unsupported_ops.push_back(fmt::format("{} x{} (unknown operator)", type, count));
  for (const auto& [type, count] : unknown) w.unsupported_ops.push_back(fmt::format("{} x{} (shape not inferred)", type, count));
  if (w.ops.empty()) {
    std::string why = w.unsupported_ops.empty() ? "the graph has no operators" : "not priced: ";
    for (std::size_t i = 0; i < w.unsupported_ops.size(); ++i) why += (i ? ", " : "") + w.unsupported_ops[i];
    return make_error(Errc::invalid_input, "no operator rooftop can price (" + why + ")", name);
  }

  out.consumer_count.assign(w.ops.size(), 0);
  for (const auto& ps : out.producers) {
    for (std::size_t p : ps) ++out.consumer_count[p];
  }
  for (const auto& vi : g.output()) {
    auto p = op_of_tensor.find(vi.name());
    if (p != op_of_tensor.end()) ++out.consumer_count[p->second];
  }

  const double b = static_cast<double>(out.batch);
  for (workload::Operator& op : w.ops) {
    op.flops /= b;
    op.in_elems /= b;
    op.out_elems /= b;
    op.weight_elems_per_sample /= b;
  }
  auto [peak, total] = activation_elems(g, t, ng);
  w.activation_elems_per_sample = peak / b;
  w.train_activation_elems_per_sample = total / b;
  w.params = count_params(g);
  w.active_params = w.params;
  w.id = stem(name);
  w.name = g.name().empty() ? w.id : g.name();
  w.family = workload::Family::onnx;
  w.sample = fmt::format("one sample of the graph's inputs: {} (counted at batch {})", input_summary(g, t), out.batch);
  w.references.push_back(fmt::format("ONNX file {} (ir_version {}, producer '{}' {})", name, m.ir_version(),
                                     m.producer_name(), m.producer_version()));
  return out;
}

}  // namespace

Result<InputShape> parse_input_shape(std::string_view spec) {
  std::size_t eq = spec.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size()) {
    return make_error(Errc::invalid_input, fmt::format("'{}' is not NAME=DIMxDIM... (e.g. input=1x3x224x224)", spec), "--input");
  }
  InputShape s{std::string(spec.substr(0, eq)), {}};
  for (const std::string& part : split(spec.substr(eq + 1), 'x')) {
    std::optional<long long> d = parse_int(trim(part));
    if (!d || *d <= 0 || static_cast<double>(*d) > kMaxDim) {
      return make_error(Errc::invalid_input, fmt::format("'{}': dimension '{}' is not a positive whole number up to 2^40", spec, part), "--input");
    }
    s.dims.push_back(*d);
  }
  return s;
}

Result<ImportedModel> import_bytes(std::string_view bytes, const std::string& name, const ImportOptions& opts) {
  Result<::onnx::ModelProto> m = detail::parse_model(bytes, name);
  if (!m) return make_error(m.error());
  return import_model(*m, name, opts);
}

Result<ImportedModel> import_file(const std::string& path, const ImportOptions& opts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return make_error(Errc::not_found, "no such file", path);
  if (!fs::is_regular_file(path, ec)) return make_error(Errc::invalid_input, "not a regular file", path);
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return make_error(Errc::io, "cannot read its size: " + ec.message(), path);
  if (size > kMaxModelFileBytes) {
    return make_error(Errc::unsupported,
                      fmt::format("the file is {}, over the 2 GiB limit of one ONNX protobuf (2147483647 bytes); "
                                  "save the weights as external data next to the model "
                                  "(onnx.save_model(model, path, save_as_external_data=True))",
                                  iec_bytes(static_cast<double>(size))),
                      path);
  }
  std::ifstream f(path, std::ios::binary);
  std::ostringstream buf;
  buf << f.rdbuf();
  if (!f && !f.eof()) return make_error(Errc::io, "cannot read the file", path);
  ImportOptions o = opts;
  if (o.external_data_dir.empty()) {
    fs::path dir = fs::path(path).parent_path();
    o.external_data_dir = dir.empty() ? "." : dir.string();
  }
  const std::string bytes = buf.str();
  return import_bytes(bytes, path, o);
}

}  // namespace rooftop::onnx
