// Strict reading of a transformer builder's `config:` mapping (keys in
// docs/workloads.md#transformer), with the consistency checks that make the
// operator counts meaningful (heads divide hidden, kv_heads divide heads,
// top_k <= experts, patches tile the image).
#include <cmath>

#include "workload/builders.h"

#include <functional>

namespace rooftop::workload::detail {

namespace {
int get_int(YamlMap& m, const std::string& key, bool required, int fallback, int min_value = 1) {
  std::optional<long long> v = m.integer(key, required, min_value, 1LL << 30);
  return v ? int(*v) : fallback;
}
bool get_bool(YamlMap& m, const std::string& key, bool fallback) { return m.boolean(key).value_or(fallback); }
}  // namespace

void check_transformer(const TransformerConfig& c, const std::function<void(const std::string&)>& error) {
  const bool mla = c.kv_lora_rank > 0;
  if (mla && (c.qk_nope_dim == 0 || c.qk_rope_dim == 0 || c.v_head_dim == 0))
    error("latent attention (kv_lora_rank) needs qk_nope_dim, qk_rope_dim and v_head_dim");
  if (!mla && (c.q_lora_rank > 0 || c.qk_nope_dim > 0 || c.qk_rope_dim > 0 || c.v_head_dim > 0))
    error("q_lora_rank, qk_nope_dim, qk_rope_dim and v_head_dim belong to latent attention: give kv_lora_rank");
  if (mla && c.window > 0) error("a window on latent attention is not modelled");
  if (c.experts == 0 && (c.shared_experts > 0 || c.dense_layers > 0 || c.dense_ffn > 0))
    error("shared_experts, dense_layers and dense_ffn need experts");
  if (c.experts > 0 && c.dense_layers >= c.layers) error("dense_layers must leave at least one mixture-of-experts layer");
  if (c.window_layers > c.layers) error("window_layers must not exceed layers");
  if (c.window_layers > 0 && c.window == 0) error("window_layers needs window");
  if (c.window > 0 && !c.causal) error("a window needs causal attention");
  if (c.stored_as.has_value() != !c.stored_roles.empty()) error("stored_as and stored_roles go together");
}

std::optional<TransformerConfig> parse_transformer(YamlMap& m) {
  std::size_t before = m.diagnostics()->errors.size();
  TransformerConfig c;
  std::string kind = m.choice("kind", {"encoder", "decoder"}, true).value_or("decoder");
  c.decoder = kind == "decoder";
  c.causal = get_bool(m, "causal", c.decoder);
  c.layers = get_int(m, "layers", true, 1);
  c.hidden = get_int(m, "hidden", true, 1);
  c.heads = get_int(m, "heads", true, 1);
  c.kv_heads = get_int(m, "kv_heads", false, c.heads);
  c.head_dim = get_int(m, "head_dim", false, 0);
  c.ffn = get_int(m, "ffn", true, 1);
  c.gated = get_bool(m, "gated", false);
  c.vocab = get_int(m, "vocab", false, 0);
  c.experts = get_int(m, "experts", false, 0, 0);
  c.top_k = get_int(m, "top_k", false, 0, 0);
  c.shared_experts = get_int(m, "shared_experts", false, 0, 0);
  c.dense_layers = get_int(m, "dense_layers", false, 0, 0);
  c.dense_ffn = get_int(m, "dense_ffn", false, 0, 0);
  c.q_lora_rank = get_int(m, "q_lora_rank", false, 0, 0);
  c.kv_lora_rank = get_int(m, "kv_lora_rank", false, 0, 0);
  c.qk_nope_dim = get_int(m, "qk_nope_dim", false, 0, 0);
  c.qk_rope_dim = get_int(m, "qk_rope_dim", false, 0, 0);
  c.v_head_dim = get_int(m, "v_head_dim", false, 0, 0);
  c.window = get_int(m, "window", false, 0, 0);
  c.window_layers = get_int(m, "window_layers", false, 0, 0);
  c.chunked = m.choice("window_kind", {"sliding", "chunked"}).value_or("sliding") == "chunked";
  c.sinks = get_bool(m, "sinks", false);
  c.mtp_layers = get_int(m, "mtp_layers", false, 0, 0);
  c.qk_norm = get_bool(m, "qk_norm", false);
  c.sandwich_norm = get_bool(m, "sandwich_norm", false);
  c.attn_softcap = get_bool(m, "attn_softcap", false);
  c.logit_softcap = get_bool(m, "logit_softcap", false);
  std::vector<std::string> precisions;
  for (Precision p : kAllPrecisions) precisions.emplace_back(to_string(p));
  if (std::optional<std::string> p = m.choice("stored_as", precisions)) c.stored_as = parse_precision(*p);
  for (const std::string& r : m.str_list("stored_roles")) {
    if (std::optional<Role> role = parse_role(r))
      c.stored_roles.push_back(*role);
    else
      m.error(m.node()["stored_roles"], "unknown role '" + r + "' in stored_roles; one of " + role_choices());
  }
  c.quantization = m.str("quantization").value_or("");
  c.tied_embeddings = get_bool(m, "tied_embeddings", false);
  c.attn_bias = get_bool(m, "attn_bias", false);
  c.qkv_bias = get_bool(m, "qkv_bias", false);
  c.mlp_bias = get_bool(m, "mlp_bias", false);
  c.lm_head_bias = get_bool(m, "lm_head_bias", false);
  c.parallel_block = get_bool(m, "parallel_block", false);
  c.norm = m.choice("norm", {"layernorm", "rmsnorm"}).value_or("rmsnorm") == "layernorm" ? NormKind::layer
                                                                                       : NormKind::rms;
  c.final_norm = get_bool(m, "final_norm", true);
  c.embedding_norm = get_bool(m, "embedding_norm", false);
  c.max_positions = get_int(m, "max_positions", false, 0, 0);
  c.type_vocab = get_int(m, "type_vocab", false, 0, 0);
  std::string head = m.choice("head", {"none", "lm", "pooler", "qa", "classifier", "projection"})
                         .value_or(c.decoder ? "lm" : "none");
  const std::pair<const char*, HeadKind> heads[] = {{"none", HeadKind::none},         {"lm", HeadKind::lm},
                                                    {"pooler", HeadKind::pooler},     {"qa", HeadKind::qa},
                                                    {"classifier", HeadKind::classifier},
                                                    {"projection", HeadKind::projection}};
  for (const auto& [name, kind_value] : heads) {
    if (head == name) c.head = kind_value;
  }
  c.classes = get_int(m, "classes", false, 0, 0);
  c.image_size = get_int(m, "image_size", false, 0, 0);
  c.patch_size = get_int(m, "patch_size", false, 0, 0);
  c.channels = get_int(m, "channels", false, 3);
  c.beams = get_int(m, "beams", false, 1);
  c.seq_len = get_int(m, "seq_len", c.image_size == 0, 0);
  c.unpadded_tokens = get_int(m, "unpadded_tokens", false, 0, 0);
  if (c.unpadded_tokens > c.seq_len) m.error(m.node()["unpadded_tokens"], "unpadded_tokens must not exceed seq_len");
  c.input_tokens = get_int(m, "input_tokens", c.decoder, 0);
  c.output_tokens = get_int(m, "output_tokens", c.decoder, 0);
  c.max_input_tokens = get_int(m, "max_input_tokens", false, 0, 0);
  c.max_output_tokens = get_int(m, "max_output_tokens", false, 0, 0);
  m.finish();
  if (m.diagnostics()->errors.size() > before) return std::nullopt;

  if (c.head_dim == 0) {
    if (c.hidden % c.heads != 0) m.error("heads (" + std::to_string(c.heads) + ") must divide hidden (" +
                                         std::to_string(c.hidden) + ") unless head_dim is given");
    c.head_dim = c.hidden / c.heads;
  }
  if (c.heads % c.kv_heads != 0) m.error("kv_heads must divide heads");
  if (c.experts > 0 && (c.top_k < 1 || c.top_k > c.experts)) m.error("top_k must be in [1, experts]");
  if (c.experts == 0 && c.top_k > 0) m.error("top_k needs experts");
  if ((c.head == HeadKind::lm || c.image_size == 0) && c.vocab == 0) m.error("vocab is required");
  if (c.head == HeadKind::classifier && c.classes == 0) m.error("a classifier head needs classes");
  if ((c.image_size > 0) != (c.patch_size > 0)) m.error("image_size and patch_size go together");
  if (c.image_size > 0 && c.image_size % c.patch_size != 0) m.error("patch_size must divide image_size");
  if (c.decoder && c.image_size > 0) m.error("a decoder takes tokens, not images");
  check_transformer(c, [&](const std::string& msg) { m.error(msg); });
  if (m.diagnostics()->errors.size() > before) return std::nullopt;
  return c;
}

std::optional<Workload> build_transformer_yaml(YamlMap& m, const BuildOptions& opts) {
  std::optional<TransformerConfig> c = parse_transformer(m);
  if (!c) return std::nullopt;
  return build_transformer(*c, opts);
}

std::vector<long long> int_list(YamlMap& m, const std::string& key, bool required, long long min_value) {
  YAML::Node n = m.raw(key);
  std::vector<long long> out;
  if (!n.IsDefined() || n.IsNull()) {
    if (required) m.error("missing required key '" + key + "' in " + m.what());
    return out;
  }
  if (!n.IsSequence()) {
    m.error(n, "'" + key + "' must be a list of whole numbers");
    return out;
  }
  for (const YAML::Node& item : n) {
    std::optional<double> v = yaml_number(item);
    // In range before the cast: a double past long long's range has no value there.
    if (!v || !(*v >= double(min_value) && *v < 9.2e18) || *v != std::floor(*v)) {
      m.error(item, "'" + key + "' items must be whole numbers >= " + std::to_string(min_value));
      continue;
    }
    out.push_back(static_cast<long long>(*v));
  }
  return out;
}

}  // namespace rooftop::workload::detail
