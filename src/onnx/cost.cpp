// Prices one ONNX node: FLOPs from the operator's definition and its
// inferred shapes, weights = constant inputs (initializers), activations =
// the other inputs and all outputs. Counting conventions (a multiply-add is
// 2 FLOPs; per-element costs of activations and normalisations) are listed
// in docs/onnx.md. Shapes here are at the applied batch; import.cpp divides
// by the batch afterwards.
#include <onnx/onnx_pb.h>

#include <string_view>
#include <unordered_map>

#include "onnx/graph.h"

namespace rooftop::onnx::detail {

namespace {

using workload::OpKind;
using workload::Operator;

// FLOPs per output element of element-wise operators: one per arithmetic
// step, one per special function (exp, erf, tanh, ...), so composites add up
// (Sigmoid = neg + exp + add + div = 4).
const std::unordered_map<std::string_view, double> kElementwise = {
    {"Add", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"Pow", 1}, {"Mod", 1}, {"Neg", 1}, {"Abs", 1},
    {"Relu", 1}, {"Reciprocal", 1}, {"Sqrt", 1}, {"Exp", 1}, {"Log", 1}, {"Erf", 1}, {"Floor", 1},
    {"Ceil", 1}, {"Round", 1}, {"Sign", 1}, {"Sin", 1}, {"Cos", 1}, {"Tan", 1}, {"Asin", 1}, {"Acos", 1},
    {"Atan", 1}, {"Sinh", 1}, {"Cosh", 1}, {"Asinh", 1}, {"Acosh", 1}, {"Atanh", 1}, {"Tanh", 1},
    {"Not", 1}, {"And", 1}, {"Or", 1}, {"Xor", 1}, {"Equal", 1}, {"Less", 1}, {"Greater", 1},
    {"LessOrEqual", 1}, {"GreaterOrEqual", 1}, {"Where", 1}, {"IsNaN", 1}, {"IsInf", 1}, {"BitShift", 1},
    {"ThresholdedRelu", 1}, {"CumSum", 1}, {"Clip", 2}, {"LeakyRelu", 2}, {"PRelu", 2}, {"Elu", 3},
    {"Selu", 4}, {"Celu", 4}, {"Sigmoid", 4}, {"HardSigmoid", 3}, {"HardSwish", 4}, {"Softplus", 3},
    {"Softsign", 3}, {"Mish", 5}, {"Gelu", 5}, {"DequantizeLinear", 2}, {"QuantizeLinear", 3},
    {"com.microsoft.Gelu", 5}, {"com.microsoft.BiasGelu", 6}, {"com.microsoft.FastGelu", 8},
    {"com.microsoft.QuickGelu", 6}, {"com.microsoft.BiasAdd", 2},
};
// Variadic element-wise: (inputs - 1) per element, Mean one more.
const std::unordered_map<std::string_view, double> kVariadic = {{"Sum", 0}, {"Max", 0}, {"Min", 0}, {"Mean", 1}};

// FLOPs per element of normalisations (inference): BatchNorm folds to a
// scale and shift; LayerNorm = mean, centre, square+accumulate, normalise,
// scale, shift.
const std::unordered_map<std::string_view, double> kNorm = {
    {"BatchNormalization", 2}, {"LayerNormalization", 7}, {"InstanceNormalization", 7},
    {"GroupNormalization", 7}, {"MeanVarianceNormalization", 5}, {"LpNormalization", 3}, {"LRN", 5},
    {"com.microsoft.LayerNormalization", 7}, {"com.microsoft.SkipLayerNormalization", 8},
    {"com.microsoft.SimplifiedLayerNormalization", 4}, {"com.microsoft.SkipSimplifiedLayerNormalization", 5},
};
const std::unordered_map<std::string_view, double> kSoftmax = {{"Softmax", 5}, {"LogSoftmax", 6}, {"Hardmax", 2}};
// Reductions: FLOPs per input element.
const std::unordered_map<std::string_view, double> kReduce = {
    {"ReduceMean", 1}, {"ReduceSum", 1}, {"ReduceMax", 1}, {"ReduceMin", 1}, {"ReduceProd", 1},
    {"ReduceL1", 2}, {"ReduceL2", 2}, {"ReduceSumSquare", 2}, {"ReduceLogSum", 1}, {"ReduceLogSumExp", 2},
    {"ArgMax", 1}, {"ArgMin", 1}, {"TopK", 1},
};
// Data movement only: bytes, no FLOPs.
const std::unordered_set<std::string_view> kMemory = {
    "Reshape", "Transpose", "Concat", "Slice", "Squeeze", "Unsqueeze", "Flatten", "Split", "Shape", "Size",
    "Cast", "CastLike", "Expand", "Tile", "Pad", "Identity", "Dropout", "DepthToSpace", "SpaceToDepth",
    "ConstantOfShape", "Range", "ScatterND", "ScatterElements", "Scatter", "GatherElements", "GatherND",
    "Compress", "OneHot", "ReverseSequence", "Trilu", "EyeLike", "NonZero", "Gather",
};
const std::unordered_set<std::string_view> kPool = {"MaxPool", "AveragePool", "LpPool"};
const std::unordered_set<std::string_view> kGlobalPool = {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"};

const ::onnx::AttributeProto* attr(const ::onnx::NodeProto& n, std::string_view a) {
  for (const auto& x : n.attribute()) {
    if (x.name() == a) return &x;
  }
  return nullptr;
}
std::int64_t attr_int(const ::onnx::NodeProto& n, std::string_view a, std::int64_t fallback) {
  const ::onnx::AttributeProto* x = attr(n, a);
  return x && x->has_i() ? x->i() : fallback;
}
std::string attr_string(const ::onnx::NodeProto& n, std::string_view a, std::string fallback) {
  const ::onnx::AttributeProto* x = attr(n, a);
  return x && x->has_s() ? x->s() : fallback;
}

bool present(const ::onnx::NodeProto& n, int i) { return i < n.input_size() && !n.input(i).empty(); }

// Traffic of a node: constant inputs are weights, other inputs and every
// output are activations. False when a shape is unknown.
bool traffic(const ::onnx::NodeProto& n, const Tensors& t, Operator& op) {
  for (const std::string& in : n.input()) {
    if (in.empty()) continue;
    std::optional<double> e = t.elems(in);
    if (!e) return false;
    (t.is_constant(in) ? op.weight_elems : op.in_elems) += *e;
  }
  for (const std::string& out : n.output()) {
    if (out.empty()) continue;
    std::optional<double> e = t.elems(out);
    if (!e) return false;
    op.out_elems += *e;
  }
  return true;
}

double out0(const ::onnx::NodeProto& n, const Tensors& t) {
  return n.output_size() > 0 ? t.elems(n.output(0)).value_or(0) : 0;
}

// Conv: 2 x outputs x (input channels per group x kernel) MACs, plus the bias.
std::optional<double> conv_flops(const ::onnx::NodeProto& n, const Tensors& t, int w_index, bool transposed) {
  const Dims* w = present(n, w_index) ? t.shape(n.input(w_index)) : nullptr;
  if (!w || w->size() < 2) return std::nullopt;
  double per_point = 1;
  for (std::size_t i = 1; i < w->size(); ++i) per_point *= (*w)[i];
  double out = out0(n, t);
  double bias = (!transposed && n.op_type() == "QLinearConv") ? (present(n, 8) ? out : 0) : (present(n, 2) ? out : 0);
  if (transposed) {
    std::optional<double> x = t.elems(n.input(0));
    if (!x) return std::nullopt;
    return 2 * *x * per_point + bias;
  }
  return 2 * out * per_point + bias;
}

// MatMul-like: 2 x outputs x K, K the shared dimension of A.
std::optional<double> matmul_flops(const ::onnx::NodeProto& n, const Tensors& t) {
  const Dims* a = t.shape(n.input(0));
  if (!a || a->empty()) return std::nullopt;
  double k = a->back();
  if (n.op_type() == "Gemm" && attr_int(n, "transA", 0) != 0) k = a->front();
  if (n.op_type() == "FusedMatMul" && attr_int(n, "transA", 0) != 0 && a->size() >= 2) k = (*a)[a->size() - 2];
  double out = out0(n, t);
  double bias = (n.op_type() == "Gemm" && present(n, 2)) ? out : 0;
  return 2 * out * k + bias;
}

// com.microsoft Attention: the QKV projection, then scores, softmax and context.
NodeCost ms_attention(const ::onnx::NodeProto& n, const std::string& name, const Tensors& t) {
  const Dims* x = t.shape(n.input(0));
  const Dims* w = n.input_size() > 1 ? t.shape(n.input(1)) : nullptr;
  const Dims* out = n.output_size() > 0 ? t.shape(n.output(0)) : nullptr;
  std::int64_t heads = attr_int(n, "num_heads", 0);
  if (!x || !w || !out || x->size() != 3 || w->size() != 2 || out->size() != 3 || heads <= 0) {
    return {CostStatus::unknown_shape, {}};
  }
  double b = (*x)[0], s = (*x)[1], in = (*x)[2], qkv = (*w)[1], hv = (*out)[2];
  double hq = (qkv - hv) / 2;  // hidden of Q (= K) when V's hidden is hv
  Operator proj{.name = name + ".qkv", .kind = OpKind::matmul};
  proj.flops = 2 * b * s * in * qkv + (present(n, 2) ? b * s * qkv : 0);
  proj.weight_elems = in * qkv + (present(n, 2) ? qkv : 0);
  proj.in_elems = b * s * in;
  proj.out_elems = b * s * qkv;
  Operator att{.name = name + ".attention", .kind = OpKind::attention};
  att.flops = 2 * b * s * s * hq + 5 * b * static_cast<double>(heads) * s * s + 2 * b * s * s * hv;
  att.in_elems = b * s * qkv;
  att.out_elems = b * s * hv;
  return {CostStatus::ok, {proj, att}};
}

// com.microsoft MultiHeadAttention (separate Q, K, V of shape [B, S|L, D]).
NodeCost ms_mha(const ::onnx::NodeProto& n, const std::string& name, const Tensors& t) {
  const Dims* q = t.shape(n.input(0));
  const Dims* k = n.input_size() > 1 ? t.shape(n.input(1)) : nullptr;
  const Dims* v = n.input_size() > 2 ? t.shape(n.input(2)) : nullptr;
  std::int64_t heads = attr_int(n, "num_heads", 0);
  if (!q || !k || !v || q->size() != 3 || k->size() != 3 || v->size() != 3 || heads <= 0) {
    return {CostStatus::unknown_shape, {}};
  }
  double b = (*q)[0], s = (*q)[1], d = (*q)[2], l = (*k)[1], dv = (*v)[2];
  Operator att{.name = name, .kind = OpKind::attention};
  att.flops = 2 * b * s * l * d + 5 * b * static_cast<double>(heads) * s * l + 2 * b * s * l * dv;
  if (!traffic(n, t, att)) return {CostStatus::unknown_shape, {}};
  return {CostStatus::ok, {att}};
}

// Resize: nearest copies; linear/cubic blend 2^d / 4^d taps over the d resized axes.
void resize_flops(const ::onnx::NodeProto& n, const Tensors& t, Operator& op) {
  std::string mode = attr_string(n, "mode", "nearest");
  const Dims* in = t.shape(n.input(0));
  const Dims* out = t.shape(n.output(0));
  if (mode == "nearest" || !in || !out || in->size() != out->size()) {
    op.kind = OpKind::memory;
    return;
  }
  double taps = 1;
  for (std::size_t i = 0; i < in->size(); ++i) {
    if ((*in)[i] != (*out)[i]) taps *= (mode == "cubic" ? 4 : 2);
  }
  op.kind = OpKind::elementwise;
  op.flops = 2 * taps * product(*out);
}

template <typename Map>
const double* lookup(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

bool known_type(const std::string& type) {
  static const std::unordered_set<std::string_view> kOthers = {
      "Conv", "ConvInteger", "com.microsoft.FusedConv", "QLinearConv", "ConvTranspose", "Gemm", "MatMul",
      "MatMulInteger", "QLinearMatMul", "com.microsoft.FusedMatMul", "Einsum", "Resize", "Upsample"};
  return kOthers.count(type) || kElementwise.count(type) || kVariadic.count(type) || kNorm.count(type) ||
         kSoftmax.count(type) || kReduce.count(type) || kPool.count(type) || kGlobalPool.count(type) ||
         kMemory.count(type);
}

}  // namespace

NodeCost cost_node(const ::onnx::NodeProto& n, const std::string& name, const Tensors& t) {
  const std::string type = qualified_type(n);
  if (type == "Constant") return {CostStatus::free, {}};
  if (!known_type(type) && type != "com.microsoft.Attention" && type != "com.microsoft.MultiHeadAttention") {
    return {CostStatus::unsupported, {}};
  }
  if (n.input_size() == 0 || n.output_size() == 0) return {CostStatus::unknown_shape, {}};
  if (type == "com.microsoft.Attention") return ms_attention(n, name, t);
  if (type == "com.microsoft.MultiHeadAttention") return ms_mha(n, name, t);

  Operator op{.name = name};
  if (!traffic(n, t, op)) return {CostStatus::unknown_shape, {}};
  const double out = op.out_elems;
  const double in = op.in_elems;

  if (type == "Conv" || type == "ConvInteger" || type == "com.microsoft.FusedConv" || type == "QLinearConv" ||
      type == "ConvTranspose") {
    std::optional<double> f = conv_flops(n, t, type == "QLinearConv" ? 3 : 1, type == "ConvTranspose");
    if (!f) return {CostStatus::unknown_shape, {}};
    op.kind = OpKind::conv;
    op.flops = *f;
    op.groups = double(std::max<std::int64_t>(1, attr_int(n, "group", 1)));
  } else if (type == "Gemm" || type == "MatMul" || type == "MatMulInteger" || type == "QLinearMatMul" ||
             type == "com.microsoft.FusedMatMul") {
    std::optional<double> f = matmul_flops(n, t);
    if (!f) return {CostStatus::unknown_shape, {}};
    op.kind = OpKind::matmul;
    op.flops = *f;
  } else if (type == "Einsum") {
    std::vector<const Dims*> shapes;
    for (const std::string& i : n.input()) shapes.push_back(t.shape(i));
    std::optional<EinsumCost> e = einsum_cost(attr_string(n, "equation", ""), shapes);
    if (!e) return {CostStatus::unknown_shape, {}};
    op.kind = e->contracts && n.input_size() >= 2 ? OpKind::matmul : (e->flops > 0 ? OpKind::reduce : OpKind::memory);
    op.flops = e->flops;
  } else if (const double* f = lookup(kElementwise, type)) {
    op.kind = OpKind::elementwise;
    op.flops = *f * out;
  } else if (const double* v = lookup(kVariadic, type)) {
    op.kind = OpKind::elementwise;
    op.flops = (static_cast<double>(n.input_size()) - 1 + *v) * out;
  } else if (const double* nf = lookup(kNorm, type)) {
    op.kind = OpKind::norm;
    op.flops = *nf * t.elems(n.input(0)).value_or(0);
  } else if (const double* sf = lookup(kSoftmax, type)) {
    op.kind = OpKind::softmax;
    op.flops = *sf * out;
  } else if (const double* rf = lookup(kReduce, type)) {
    op.kind = OpKind::reduce;
    op.flops = *rf * t.elems(n.input(0)).value_or(0);
  } else if (kPool.count(type)) {
    const ::onnx::AttributeProto* k = attr(n, "kernel_shape");
    if (!k || k->ints_size() == 0) return {CostStatus::unknown_shape, {}};
    double window = 1;
    for (std::int64_t d : k->ints()) window *= static_cast<double>(d > 0 ? d : 1);
    op.kind = OpKind::pool;
    op.flops = window * t.elems(n.output(0)).value_or(0);
  } else if (kGlobalPool.count(type)) {
    op.kind = OpKind::pool;
    op.flops = in;
  } else if (type == "Resize" || type == "Upsample") {
    resize_flops(n, t, op);
  } else if (type == "Gather" && present(n, 0) && t.is_constant(n.input(0))) {
    // Embedding lookup: the rows it gathers are the weights it reads.
    op.kind = OpKind::embedding;
    op.weight_elems_per_sample = out;  // divided by the batch in import.cpp
  } else if (kMemory.count(type)) {
    op.kind = OpKind::memory;
    if (type == "Shape" || type == "Size") op.in_elems = 0;  // reads metadata, not data
  } else {
    return {CostStatus::unsupported, {}};
  }
  return {CostStatus::ok, {op}};
}

}  // namespace rooftop::onnx::detail
