// The workload builders behind the zoo and custom model YAML. Each reads its
// `config:` mapping strictly (problems go to the mapping's Diagnostics with
// file:line) and builds a Workload at the requested shape. Internal to the
// workload module; docs/workloads.md documents every config key.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/yaml.h"
#include "workload/workload.h"

namespace rooftop::workload::detail {

enum class NormKind { layer, rms };
enum class HeadKind { none, lm, pooler, qa, classifier, projection };

struct TransformerConfig {
  bool decoder = true;          // causal LM with prefill/decode; false: encoder
  bool causal = true;           // causal attention mask (CLIP text encoders are causal encoders)
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;             // GQA/MQA; == heads for multi-head attention
  int head_dim = 0;             // default hidden / heads
  int ffn = 0;                  // FFN inner size (per expert for MoE)
  bool gated = false;           // SwiGLU/GeGLU: up projection to 2 x ffn
  int vocab = 0;
  int experts = 0;              // MoE experts per layer (0: dense)
  int top_k = 0;                // experts per token
  int shared_experts = 0;       // MoE: experts of size ffn every token runs (DeepSeek, Llama 4)
  int dense_layers = 0;         // MoE: layers with a dense FFN instead (DeepSeek's first_k_dense_replace)
  int dense_ffn = 0;            // MoE: those layers' FFN inner size (0: ffn)
  // Multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank > 0): queries
  // through a rank-q_lora_rank bottleneck (0: a full projection), keys and
  // values from a latent of kv_lora_rank plus a shared rotary key of
  // qk_rope_dim per token (docs/workloads.md#mla).
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_dim = 0;
  int qk_rope_dim = 0;
  int v_head_dim = 0;
  // Attention limited to the last `window` positions (sliding) or to the
  // current chunk of `window` (chunked, Llama 4) on `window_layers` of the
  // layers (0: all when window > 0).
  int window = 0;
  int window_layers = 0;
  bool chunked = false;
  bool sinks = false;           // learned per-head sink logits in the softmax (gpt-oss)
  int mtp_layers = 0;           // multi-token prediction modules shipped beside the model
  bool qk_norm = false;         // per-head RMS norm of queries and keys (Qwen3, Gemma 3)
  bool sandwich_norm = false;   // norms after attention and FFN too (Gemma 2/3), fused with the residual adds
  bool attn_softcap = false;    // cap x tanh(score / cap) on every score (Gemma 2)
  bool logit_softcap = false;   // the same on every output logit (Gemma 2)
  // The checkpoint's weight format on the operators of `stored_roles`
  // (Operator::stored_as) and its description.
  std::optional<Precision> stored_as;
  std::vector<Role> stored_roles;
  std::string quantization;
  bool tied_embeddings = false;
  bool attn_bias = false;
  bool qkv_bias = false;        // bias on q, k and v only (Qwen2)
  bool mlp_bias = false;        // dense FFN; MoE: experts and router
  bool lm_head_bias = false;
  bool parallel_block = false;  // GPT-J: attention and MLP share one norm
  NormKind norm = NormKind::rms;
  bool final_norm = true;
  bool embedding_norm = false;  // BERT: norm after the embeddings
  int max_positions = 0;        // learned absolute positions (0: rotary)
  int type_vocab = 0;           // BERT token types
  HeadKind head = HeadKind::lm;
  int classes = 0;              // classifier outputs
  int image_size = 0;           // ViT: square image, patch embedding instead of tokens
  int patch_size = 0;
  int channels = 3;
  int beams = 1;                // beam search width (decode runs `beams` hypotheses)
  int seq_len = 0;              // encoder length / decoder training length
  // Encoders: the mean real tokens of a padded sequence, which inference
  // runtimes that drop the padding compute on (0: inference runs padded).
  int unpadded_tokens = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  // The longest prompt and generation the serving setup must hold (MLPerf's
  // limits); a static KV cache keeps a slot of their sum per sequence.
  // 0: seq_len - output_tokens and output_tokens.
  int max_input_tokens = 0;
  int max_output_tokens = 0;
};

std::optional<TransformerConfig> parse_transformer(YamlMap& m);
// The consistency rules of the newer fields (latent attention, windows,
// shared experts, stored formats); each problem goes to `error`.
void check_transformer(const TransformerConfig& c, const std::function<void(const std::string&)>& error);

// One pass of a transformer over `tokens` positions of one sample.
struct Pass {
  Phase phase = Phase::forward;
  double tokens = 0;        // positions processed (decode: beams)
  double attn_pairs = 0;    // query-key pairs scored
  double kv_context = 0;    // decode: cached positions each query reads
  double head_tokens = 0;   // positions the output head runs on
  bool frozen = false;
  bool count_params = true;  // false: weights already counted by another phase
  // Decode: the contexts the mean is over ([from, to]; equal for a static
  // slot), for layers whose window caps what they read.
  double context_from = 0, context_to = 0;
};

// Appends the operators of one pass; names get `prefix` + ".".
void transformer_pass(std::vector<Operator>& ops, const TransformerConfig& c, const Pass& p,
                      const std::string& prefix = {});
// Encoder sequence length (ViT: patches + class token).
int encoder_tokens(const TransformerConfig& c);
Workload build_transformer(const TransformerConfig& c, const BuildOptions& opts);

// Builders reading their own config; nullopt when the config had errors
// (reported to m's Diagnostics).
std::optional<Workload> build_transformer_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_resnet_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_retinanet_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_yolov8_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_dlrm_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_diffusion_yaml(YamlMap& m, const BuildOptions& opts);
std::optional<Workload> build_unet3d_yaml(YamlMap& m, const BuildOptions& opts);

// Sliding-window inference: the windows of edge `roi` (stride roi x (1 -
// overlap)) covering a cubic volume of `mean_voxels` (at least 1).
double sliding_windows(double mean_voxels, double roi, double overlap);

// Reads a list of integers (e.g. stage depths); errors go to m.
std::vector<long long> int_list(YamlMap& m, const std::string& key, bool required, long long min_value = 0);

}  // namespace rooftop::workload::detail
