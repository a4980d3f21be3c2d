// Hugging Face config.json: the transformer builder's config from the file a
// model ships with (docs/workloads.md#hugging-face). Strict: every key is
// either read (it changes cost), known not to change cost, or an error that
// names it; an unknown architecture is an error too. Never an approximation
// the user does not see.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/enum_table.h"
#include "workload/builders.h"

namespace rooftop::workload {

namespace {

using nlohmann::json;

enum class Arch { llama, mistral, qwen2, qwen3, mixtral, qwen3_moe, deepseek, gpt_oss, gemma2, gemma3, last = gemma3 };

struct ArchRow {
  std::string_view architecture;  // the class in `architectures`
  Arch arch;
  bool tied;                      // tie_word_embeddings when the file leaves it out (the class's default)
};

constexpr ArchRow kArchitectures[] = {
    {"LlamaForCausalLM", Arch::llama, false},        {"MistralForCausalLM", Arch::mistral, false},
    {"Qwen2ForCausalLM", Arch::qwen2, false},        {"Qwen3ForCausalLM", Arch::qwen3, false},
    {"MixtralForCausalLM", Arch::mixtral, false},    {"Qwen3MoeForCausalLM", Arch::qwen3_moe, false},
    {"DeepseekV2ForCausalLM", Arch::deepseek, false}, {"DeepseekV3ForCausalLM", Arch::deepseek, false},
    {"GptOssForCausalLM", Arch::gpt_oss, false},     {"Gemma2ForCausalLM", Arch::gemma2, true},
    {"Gemma3ForCausalLM", Arch::gemma3, true},
};

// Keys that do not change what the model computes or stores per token:
// token ids, initialisation, numerics (eps, rope bases and scaling), routing
// details that keep top-k (groups, scoring, scaling), training-only losses.
const std::set<std::string, std::less<>> kNoCost = {
    "_name_or_path", "architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
    "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range", "rms_norm_eps", "rope_theta",
    "rope_scaling", "rope_local_base_freq", "use_cache", "attention_dropout", "max_position_embeddings",
    "pretraining_tp", "query_pre_attn_scalar", "output_router_logits", "router_aux_loss_coef", "norm_topk_prob",
    "initial_context_length", "swiglu_limit", "router_jitter_noise", "cache_implementation", "n_group",
    "topk_group", "topk_method", "scoring_func", "routed_scaling_factor", "aux_loss_alpha", "seq_aux",
    "auto_map", "tokenizer_class"};

class Reader {
 public:
  Reader(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  // A whole number >= min_value; `fallback` when absent (null counts as absent).
  std::optional<long long> integer(const std::string& key, bool required, long long min_value = 1) {
    read_.insert(key);
    if (!has(key)) {
      if (required) error("missing '" + key + "'");
      return std::nullopt;
    }
    const json& v = j_.at(key);
    if (!v.is_number_integer() || v.get<long long>() < min_value || v.get<long long>() > (1LL << 30)) {
      error("'" + key + "' must be a whole number >= " + std::to_string(min_value));
      return std::nullopt;
    }
    return v.get<long long>();
  }
  int count(const std::string& key, int fallback, long long min_value = 0) {
    return int(integer(key, false, min_value).value_or(fallback));
  }
  int need(const std::string& key) { return int(integer(key, true).value_or(0)); }
  bool flag(const std::string& key, bool fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    if (!j_.at(key).is_boolean()) {
      error("'" + key + "' must be true or false");
      return fallback;
    }
    return j_.at(key).get<bool>();
  }
  std::optional<std::string> text(const std::string& key) {
    read_.insert(key);
    if (!has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) {
      error("'" + key + "' must be a string");
      return std::nullopt;
    }
    return j_.at(key).get<std::string>();
  }
  const json* raw(const std::string& key) {
    read_.insert(key);
    return has(key) ? &j_.at(key) : nullptr;
  }
  // `key` must be absent, null or `ok` (a value that changes nothing).
  void only(const std::string& key, const json& ok, const std::string& why) {
    read_.insert(key);
    if (has(key) && j_.at(key) != ok) error("'" + key + "' = " + j_.at(key).dump() + " is not modelled (" + why + ")");
  }
  void error(const std::string& msg) { errors_.push_back(msg); }

  // Keys neither read nor known to leave cost unchanged.
  void finish() {
    for (const auto& [key, value] : j_.items()) {
      if (read_.count(key) || kNoCost.count(key)) continue;
      error("field '" + key + "' is not understood, and it may change cost");
    }
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  const json& j_;
  std::string file_;
  std::set<std::string> read_;
  std::vector<std::string> errors_;
};

// Layers of `layer_types` that use a sliding window ("sliding_attention");
// nullopt when absent.
std::optional<int> sliding_layers(Reader& r, int layers) {
  const json* types = r.raw("layer_types");
  if (!types) return std::nullopt;
  if (!types->is_array() || int(types->size()) != layers) {
    r.error("'layer_types' must list one entry per layer (" + std::to_string(layers) + ")");
    return std::nullopt;
  }
  int sliding = 0;
  for (const json& t : *types) {
    if (t == "sliding_attention")
      ++sliding;
    else if (t != "full_attention")
      r.error("layer_types: '" + t.dump() + "' is not understood (full_attention or sliding_attention)");
  }
  return sliding;
}

// The activation of a gated FFN: SiLU (SwiGLU) or tanh-GELU (GeGLU), both
// costed the same way (docs/workloads.md#transformer).
void gated_activation(Reader& r, const std::string& key, std::initializer_list<std::string_view> ok) {
  std::optional<std::string> act = r.text(key);
  if (act && std::find(ok.begin(), ok.end(), *act) == ok.end())
    r.error("'" + key + "' = '" + *act + "' is not modelled for this architecture");
}

// The windows of each architecture: how many layers, how far.
void windows(Reader& r, Arch arch, detail::TransformerConfig& c) {
  const std::optional<int> window = [&]() -> std::optional<int> {
    if (arch == Arch::qwen2 || arch == Arch::qwen3 || arch == Arch::qwen3_moe) {
      // Qwen keeps sliding_window in the file with use_sliding_window false.
      const bool on = r.flag("use_sliding_window", false);
      std::optional<long long> w = r.integer("sliding_window", false);
      const int full = r.count("max_window_layers", c.layers);
      if (!on) return std::nullopt;
      c.window_layers = std::max(0, c.layers - full);
      return w ? std::optional<int>(int(*w)) : std::nullopt;
    }
    std::optional<long long> w = r.integer("sliding_window", false);
    return w ? std::optional<int>(int(*w)) : std::nullopt;
  }();
  const std::optional<int> typed = sliding_layers(r, c.layers);
  const int pattern = arch == Arch::gemma3 ? r.count("sliding_window_pattern", 6, 1) : 0;  // one global layer in every `pattern`
  if (!window) {
    if (typed && *typed > 0) r.error("layer_types names sliding_attention layers but sliding_window is not given");
    return;
  }
  c.window = *window;
  if (typed) {
    c.window_layers = *typed;
  } else if (arch == Arch::gemma2) {
    c.window_layers = (c.layers + 1) / 2;  // even layers slide (Gemma2DecoderLayer: not layer_idx % 2)
  } else if (arch == Arch::gemma3) {
    c.window_layers = c.layers - c.layers / pattern;
  } else if (arch == Arch::gpt_oss) {
    c.window_layers = (c.layers + 1) / 2;  // alternating, sliding first
  } else if (c.window_layers == 0) {
    c.window_layers = c.layers;  // Mistral, Mixtral: every layer
  }
  if (c.window_layers == 0) c.window = 0;
}

// quantization_config: the checkpoint's stored weight format. Understood:
// MXFP4 (gpt-oss: the routed experts; OCP microscaling, block 32 with an
// E8M0 scale) and block-scaled FP8 (DeepSeek-V3: e4m3 with 128x128 scales on
// every linear layer but the router and the LM head).
void quantization(const json* q, Reader& r, detail::TransformerConfig& c) {
  if (!q) return;
  if (!q->is_object()) return r.error("'quantization_config' must be an object");
  const std::string method = q->value("quant_method", "");
  auto known = [&](std::initializer_list<const char*> keys) {
    for (const auto& item : q->items()) {
      const std::string& k = item.key();
      if (std::none_of(keys.begin(), keys.end(), [&](const char* x) { return k == x; }))
        r.error("quantization_config: '" + k + "' is not understood");
    }
  };
  if (method == "mxfp4") {
    known({"quant_method", "modules_to_not_convert"});
    c.stored_as = Precision::fp4;
    c.stored_roles = {Role::routed_expert};
    c.quantization = "MXFP4 routed experts (block 32, E8M0 scales; stored as fp4, scales not counted)";
    // What gpt-oss keeps at 16 bits: none of it is an expert.
    const std::set<std::string> unconverted = {"model.layers.*.self_attn", "model.layers.*.mlp.router",
                                               "model.embed_tokens", "lm_head"};
    if (q->contains("modules_to_not_convert")) {
      const json& m = q->at("modules_to_not_convert");
      if (!m.is_array()) return r.error("quantization_config.modules_to_not_convert must be a list");
      for (const json& name : m)
        if (!name.is_string() || !unconverted.count(name.get<std::string>()))
          r.error("quantization_config.modules_to_not_convert: " + name.dump() + " is not understood");
    }
    return;
  }
  if (method == "fp8") {
    known({"quant_method", "fmt", "activation_scheme", "weight_block_size"});
    if (q->value("fmt", "e4m3") != "e4m3") r.error("quantization_config.fmt: only e4m3 is understood");
    if (q->value("activation_scheme", "dynamic") != "dynamic")
      r.error("quantization_config.activation_scheme: only dynamic is understood");
    std::string block = "per-tensor scales";
    if (q->contains("weight_block_size")) {
      const json& b = q->at("weight_block_size");
      if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
        return r.error("quantization_config.weight_block_size must be two whole numbers");
      block = std::to_string(b[0].get<long long>()) + "x" + std::to_string(b[1].get<long long>()) + " block scales";
    }
    c.stored_as = Precision::fp8;
    c.stored_roles = {Role::attention_proj, Role::ffn, Role::routed_expert, Role::shared_expert};
    c.quantization = "FP8 e4m3 weights with " + block +
                     " on every linear layer but the router and the LM head (scales not counted)";
    return;
  }
  r.error("quantization_config.quant_method '" + method + "' is not understood (mxfp4 or fp8)");
}

// The shape a config.json does not give: a 1,024-token prompt generating
// 1,024 tokens (the 1k/1k point of SemiAnalysis InferenceMAX) and a 4,096
// token training sequence (at most max_position_embeddings).
constexpr int kDefaultInputTokens = 1024, kDefaultOutputTokens = 1024, kDefaultSeqLen = 4096;

std::optional<detail::TransformerConfig> read_config(Reader& r, const ArchRow& row) {
  using detail::TransformerConfig;
  const Arch a = row.arch;
  TransformerConfig c;
  c.layers = r.need("num_hidden_layers");
  c.hidden = r.need("hidden_size");
  c.heads = r.need("num_attention_heads");
  if (c.layers == 0 || c.hidden == 0 || c.heads == 0) return std::nullopt;
  c.kv_heads = r.count("num_key_value_heads", c.heads, 1);
  c.head_dim = r.count("head_dim", 0, 1);
  c.vocab = r.need("vocab_size");
  c.tied_embeddings = r.flag("tie_word_embeddings", row.tied);
  c.gated = true;
  c.norm = detail::NormKind::rms;
  c.seq_len = kDefaultSeqLen;
  if (std::optional<long long> p = r.integer("max_position_embeddings", false)) c.seq_len = int(std::min<long long>(*p, c.seq_len));
  c.input_tokens = kDefaultInputTokens;
  c.output_tokens = kDefaultOutputTokens;
  const bool gemma = a == Arch::gemma2 || a == Arch::gemma3;
  gated_activation(r, gemma ? "hidden_activation" : "hidden_act",
                   gemma ? std::initializer_list<std::string_view>{"gelu_pytorch_tanh", "gelu_tanh"}
                         : std::initializer_list<std::string_view>{"silu"});
  if (gemma) r.only("hidden_act", "gelu_pytorch_tanh", "Gemma's FFN runs hidden_activation");

  switch (a) {
    case Arch::llama:
      c.attn_bias = r.flag("attention_bias", false);
      c.mlp_bias = r.flag("mlp_bias", false);
      break;
    case Arch::qwen2: c.qkv_bias = true; break;  // Qwen2Attention: q, k, v with bias, o without
    case Arch::qwen3:
    case Arch::qwen3_moe:
    case Arch::gemma3:
      c.qk_norm = true;
      c.attn_bias = r.flag("attention_bias", false);
      break;
    case Arch::gpt_oss:
      c.attn_bias = r.flag("attention_bias", true);
      c.mlp_bias = true;  // GptOssExperts and GptOssTopKRouter carry biases
      c.sinks = true;     // GptOssAttention.sinks: one learned logit per head
      break;
    default: break;
  }
  if (a == Arch::mistral || a == Arch::mixtral || a == Arch::qwen2 || a == Arch::deepseek || gemma)
    r.only("attention_bias", false, "this architecture's attention has no bias");
  if (gemma) {
    c.sandwich_norm = true;
    c.attn_softcap = r.has("attn_logit_softcapping");
    c.logit_softcap = r.has("final_logit_softcapping");
    r.raw("attn_logit_softcapping");
    r.raw("final_logit_softcapping");
  }

  if (a == Arch::mixtral || a == Arch::gpt_oss) {
    c.experts = r.need("num_local_experts");
    const int per_token = r.count("experts_per_token", 0, 1);  // gpt-oss's own spelling, beside the HF one
    c.top_k = r.count("num_experts_per_tok", per_token, 1);
    if (c.top_k == 0) r.error("missing 'num_experts_per_tok'");
    if (per_token > 0 && per_token != c.top_k) r.error("experts_per_token and num_experts_per_tok disagree");
    c.ffn = r.need("intermediate_size");
  } else if (a == Arch::qwen3_moe) {
    c.experts = r.need("num_experts");
    c.top_k = r.need("num_experts_per_tok");
    c.ffn = r.need("moe_intermediate_size");
    c.dense_ffn = r.count("intermediate_size", 0, 1);
    r.only("decoder_sparse_step", 1, "mixture-of-experts every layer");
    if (const json* dense = r.raw("mlp_only_layers")) {
      if (!dense->is_array()) r.error("'mlp_only_layers' must be a list of layer indices");
      else c.dense_layers = int(dense->size());
    }
  } else if (a == Arch::deepseek) {
    c.experts = r.need("n_routed_experts");
    c.top_k = r.need("num_experts_per_tok");
    c.shared_experts = r.count("n_shared_experts", 0, 0);
    c.dense_layers = r.count("first_k_dense_replace", 0, 0);
    c.ffn = r.need("moe_intermediate_size");
    c.dense_ffn = r.need("intermediate_size");
    r.only("moe_layer_freq", 1, "mixture-of-experts on every layer after first_k_dense_replace");
    r.only("ep_size", 1, "a training-time layout");
    c.q_lora_rank = r.count("q_lora_rank", 0, 1);  // null: a full-rank query projection (V2-Lite)
    c.kv_lora_rank = r.need("kv_lora_rank");
    c.qk_nope_dim = r.need("qk_nope_head_dim");
    c.qk_rope_dim = r.need("qk_rope_head_dim");
    c.v_head_dim = r.need("v_head_dim");
    c.mtp_layers = r.count("num_nextn_predict_layers", 0, 0);
    // MLA's heads are the query heads: head_dim is not what the KV cache holds.
    c.kv_heads = c.heads;
    c.head_dim = 0;
  } else {
    c.ffn = r.need("intermediate_size");
  }
  if (c.head_dim == 0) c.head_dim = c.hidden / c.heads;
  if (c.kv_lora_rank == 0 && c.hidden % c.heads != 0 && !r.has("head_dim"))
    r.error("num_attention_heads must divide hidden_size unless head_dim is given");
  if (c.heads % c.kv_heads != 0) r.error("num_key_value_heads must divide num_attention_heads");
  if (c.experts > 0 && c.top_k > c.experts) r.error("num_experts_per_tok exceeds the experts");
  if (a != Arch::llama && a != Arch::deepseek) windows(r, a, c);
  quantization(r.raw("quantization_config"), r, c);
  detail::check_transformer(c, [&](const std::string& m) { r.error(m); });
  r.finish();
  if (!r.errors().empty()) return std::nullopt;
  return c;
}

std::string folder_name(const std::string& file) {
  std::string path = file;
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "config";
  path = path.substr(0, slash);
  slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<Workload> parse_hf_config(std::string_view json_text, const std::string& file, const BuildOptions& opts) {
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error(Errc::invalid_input, "not a JSON object (a Hugging Face config.json)", file);
  for (const char* wrapper : {"text_config", "vision_config", "audio_config"}) {
    if (j.contains(wrapper))
      return make_error(Errc::invalid_input,
                        std::string("'") + wrapper +
                            "': multimodal models are not read from config.json (their vision or audio towers are not "
                            "modelled); give the language model's own config",
                        file);
  }
  std::string architecture;
  if (j.contains("architectures")) {
    const json& a = j["architectures"];
    if (!a.is_array() || a.size() != 1 || !a[0].is_string())
      return make_error(Errc::invalid_input, "'architectures' must name one model class, as Hugging Face writes it", file);
    architecture = a[0].get<std::string>();
  }
  const ArchRow* row = nullptr;
  for (const ArchRow& r : kArchitectures)
    if (r.architecture == architecture) row = &r;
  if (!row) {
    std::string known;
    for (const ArchRow& r : kArchitectures) known += (known.empty() ? "" : ", ") + std::string(r.architecture);
    return make_error(Errc::invalid_input,
                      "architecture '" + (architecture.empty() ? std::string("(none)") : architecture) +
                          "' is not modelled; config.json is read for " + known,
                      file);
  }
  Reader r(j, file);
  std::optional<detail::TransformerConfig> c = read_config(r, *row);
  if (!c) {
    std::string msg;
    for (const std::string& e : r.errors()) msg += (msg.empty() ? "" : "; ") + e;
    return make_error(Errc::invalid_input, msg, file);
  }
  Workload w = detail::build_transformer(*c, opts);
  w.id = folder_name(file);
  w.name = w.id;
  w.references.push_back("Hugging Face config.json " + file + " (" + architecture + ")");
  if (!opts.input_tokens || !opts.output_tokens)
    w.sample += "; shape not in config.json: 1,024-token prompts generating 1,024 tokens (SemiAnalysis "
                "InferenceMAX's 1k/1k) unless --input-tokens/--output-tokens say otherwise";
  return w;
}

}  // namespace rooftop::workload
