// Model files: the embedded zoo (data/models/*.yaml) and custom models in the
// same schema (docs/workloads.md). A file names a builder and its config, or
// lists its operators explicitly. Parsing is strict: unknown keys, negative
// numbers and wrong types are errors carrying file:line.
#include <algorithm>

#include "core/text.h"
#include "embedded/embedded.h"
#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload {

namespace {

using Builder = std::optional<Workload> (*)(YamlMap&, const BuildOptions&);

constexpr std::pair<std::string_view, Builder> kBuilders[] = {
    {"transformer", detail::build_transformer_yaml},
    {"resnet", detail::build_resnet_yaml},
    {"retinanet", detail::build_retinanet_yaml},
    {"yolov8", detail::build_yolov8_yaml},
    {"dlrm", detail::build_dlrm_yaml},
    {"diffusion", detail::build_diffusion_yaml},
    {"unet3d", detail::build_unet3d_yaml},
};

std::optional<Phase> parse_phase(std::string_view s) {
  for (Phase p : {Phase::forward, Phase::backward, Phase::optimizer, Phase::prefill, Phase::decode}) {
    if (to_string(p) == s) return p;
  }
  return std::nullopt;
}

constexpr double kMax = 1e30;

void read_op(const YAML::Node& node, const std::string& file, std::size_t index, Diagnostics& diag,
             std::vector<Operator>& ops) {
  YamlMap m(node, file, "ops[" + std::to_string(index) + "]", &diag);
  if (!m.valid()) return;
  Operator op;
  op.name = m.str("name", true).value_or("");
  std::vector<std::string> kinds;
  for (OpKind k : {OpKind::matmul, OpKind::conv, OpKind::attention, OpKind::elementwise, OpKind::norm,
                   OpKind::softmax, OpKind::embedding, OpKind::pool, OpKind::reduce, OpKind::memory, OpKind::other})
    kinds.emplace_back(to_string(k));
  if (auto k = m.choice("kind", kinds, true)) op.kind = *parse_op_kind(*k);
  op.role = default_role(op.kind);
  std::vector<std::string> roles;
  for (int r = 0; r <= int(Role::last); ++r) roles.emplace_back(to_string(Role(r)));
  if (auto r = m.choice("role", roles)) op.role = *parse_role(*r);
  if (auto p = m.choice("phase", {"forward", "prefill", "decode"})) op.phase = *parse_phase(*p);
  op.repeat = m.num("repeat", false, 1, kMax).value_or(1);
  op.flops = m.num("flops", false, 0, kMax).value_or(0);
  op.weight_elems = m.num("weight_elems", false, 0, kMax).value_or(0);
  op.weight_elems_per_sample = m.num("weight_elems_per_sample", false, 0, kMax).value_or(0);
  op.in_elems = m.num("in_elems", false, 0, kMax).value_or(0);
  op.out_elems = m.num("out_elems", false, 0, kMax).value_or(0);
  op.params = m.num("params", false, 0, kMax).value_or(op.weight_elems);
  op.frozen = m.boolean("frozen").value_or(false);
  op.groups = m.num("groups", false, 1, kMax).value_or(1);
  m.finish();
  ops.push_back(std::move(op));
}

// The explicit-operator form: family, sample and the operator list.
std::optional<Workload> read_ops(YamlMap& top, const BuildOptions& opts) {
  Diagnostics& diag = *top.diagnostics();
  std::size_t before = diag.errors.size();
  Workload w;
  std::vector<std::string> families;
  for (Family f : kYamlFamilies) families.emplace_back(to_string(f));
  w.family = parse_family(top.choice("family", families).value_or("custom")).value_or(Family::custom);
  w.sample = top.str("sample", true).value_or("");
  w.throughput_unit = top.choice("throughput_unit", {"samples/s", "tokens/s"}).value_or("samples/s");
  w.kv_elems_per_token = top.num("kv_elems_per_token", false, 0, kMax).value_or(0);
  w.activation_elems_per_sample = top.num("activation_elems_per_sample", false, 0, kMax).value_or(-1);
  w.train_activation_elems_per_sample = top.num("train_activation_elems_per_sample", false, 0, kMax).value_or(-1);
  w.seq_len = int(top.integer("seq_len", false, 1, 1 << 30).value_or(0));
  w.input_tokens = int(top.integer("input_tokens", false, 1, 1 << 30).value_or(0));
  w.output_tokens = int(top.integer("output_tokens", false, 1, 1 << 30).value_or(0));
  std::optional<double> params = top.num("params", false, 0, kMax);
  YAML::Node list = top.raw("ops");
  if (!list.IsSequence() || list.size() == 0) {
    top.error(list.IsDefined() ? list : top.node(), "'ops' must be a non-empty list of operators");
  } else {
    for (std::size_t i = 0; i < list.size(); ++i) read_op(list[i], top.file(), i, diag, w.ops);
  }
  if (opts.seq_len || opts.input_tokens || opts.output_tokens || opts.image_size) {
    top.error("an explicit operator list has a fixed shape; --seq/--input-tokens/--output-tokens need a builder");
  }
  if (diag.errors.size() > before) return std::nullopt;
  w.params = params.value_or(detail::sum_params(w.ops));
  w.active_params = w.params;
  if (w.activation_elems_per_sample < 0) w.activation_elems_per_sample = detail::peak_activation_elems(w.ops);
  if (w.train_activation_elems_per_sample < 0)
    w.train_activation_elems_per_sample = detail::saved_activation_elems(train_forward(w));
  return w;
}

Result<Workload> parse_model(std::string_view text, const std::string& file, const BuildOptions& opts,
                             const std::string& default_id) {
  if (opts.seq_len && *opts.seq_len < 1) return make_error(Errc::invalid_input, "must be >= 1", "--seq");
  if (opts.input_tokens && *opts.input_tokens < 1) return make_error(Errc::invalid_input, "must be >= 1", "--input-tokens");
  if (opts.output_tokens && *opts.output_tokens < 1)
    return make_error(Errc::invalid_input, "must be >= 1", "--output-tokens");
  if (opts.image_size && *opts.image_size < 1) return make_error(Errc::invalid_input, "must be >= 1", "--image-size");
  Result<YAML::Node> root = load_yaml(text, file);
  if (!root) return make_error(root.error());
  Diagnostics diag;
  YamlMap top(*root, file, "model", &diag);
  if (!top.valid()) return make_error(diag.to_result().error());
  std::string id = top.str("id").value_or(default_id);
  std::string name = top.str("name").value_or(id);
  top.str_list("aliases");
  std::vector<std::string> refs = top.str_list("references");
  std::vector<std::string> names;
  for (const auto& [n, fn] : kBuilders) names.emplace_back(n);
  names.emplace_back("ops");
  std::string builder = top.choice("builder", names).value_or(top.has("ops") ? "ops" : "");
  // The optimizer training uses (default Adam; recommenders train with Adagrad).
  const std::optional<std::string> optimizer = top.choice("optimizer", {"adam", "adagrad"});
  std::optional<Workload> w;
  if (builder == "ops") {
    w = read_ops(top, opts);
  } else if (builder.empty()) {
    if (diag.ok()) top.error("a model needs 'builder' with 'config', or an 'ops' list");
  } else {
    std::optional<std::string> note = top.str("sample_note");
    if (std::optional<YamlMap> cfg = top.map("config", true)) {
      for (const auto& [n, fn] : kBuilders) {
        if (n == builder) w = fn(*cfg, opts);
      }
    }
    if (w && note) w->sample += "; " + *note;
  }
  top.finish();
  if (!diag.ok() || !w) {
    if (diag.ok()) diag.add(Errc::invalid_input, "invalid model", file);
    return make_error(diag.to_result().error());
  }
  w->id = id;
  w->name = name;
  w->references = refs;
  if (optimizer == "adagrad") w->optimizer = Optimizer::adagrad;
  return std::move(*w);
}

std::string stem(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t dot = base.rfind('.');
  return std::string(dot == std::string_view::npos ? base : base.substr(0, dot));
}

// Aliases of a zoo file (read without the full strict pass).
std::vector<std::string> aliases_of(std::string_view text) {
  std::vector<std::string> out;
  try {
    YAML::Node n = YAML::Load(std::string(text));
    if (n.IsMap() && n["aliases"].IsSequence()) {
      for (const YAML::Node& a : n["aliases"]) out.push_back(a.Scalar());
    }
  } catch (const YAML::Exception&) {
  }
  return out;
}

}  // namespace

std::vector<std::string> zoo_ids() {
  std::vector<std::string> ids;
  for (const EmbeddedFile& f : embedded_files_under("models/")) ids.push_back(stem(f.path));
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<Workload> build_zoo(std::string_view id, const BuildOptions& opts) {
  std::string want = to_lower(id);
  std::vector<EmbeddedFile> files = embedded_files_under("models/");
  for (const EmbeddedFile& f : files) {
    if (stem(f.path) == want) return parse_model(f.content, "data/" + std::string(f.path), opts, stem(f.path));
  }
  for (const EmbeddedFile& f : files) {
    for (const std::string& a : aliases_of(f.content)) {
      if (to_lower(a) == want) return parse_model(f.content, "data/" + std::string(f.path), opts, stem(f.path));
    }
  }
  return make_error(Errc::not_found, did_you_mean("model", id, zoo_ids()), std::string(id));
}

Result<Workload> parse_workload_yaml(std::string_view text, const std::string& name, const BuildOptions& opts) {
  return parse_model(text, name, opts, stem(name));
}

}  // namespace rooftop::workload
