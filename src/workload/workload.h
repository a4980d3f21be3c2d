// Workloads: a model as a list of operators with their FLOPs, parameters and
// activation traffic, so the roofline model can price each one on any
// accelerator. Built from the zoo (data/models/*.yaml), a custom YAML model
// (docs/workloads.md), or an ONNX file (src/onnx, which produces the same
// Workload value).
//
// Operators are per sample and linear in the batch: the model evaluates any
// batch size without rebuilding. Sizes are element counts; bytes come from
// the precision at prediction time (bytes_per_element).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/precision.h"
#include "core/result.h"

namespace rooftop::workload {

enum class Task { infer, train };
enum class Phase { forward, backward, optimizer, prefill, decode };
enum class OpKind {
  matmul,       // GEMM / linear / batched matmul
  conv,         // convolution (incl. transposed, depthwise)
  attention,    // score and context matmuls of attention (QK^T, PV)
  elementwise,  // activations, add, mul, residual, dropout
  norm,         // batch/layer/RMS/group norm
  softmax,
  embedding,    // table lookups (gather)
  pool,
  reduce,
  memory,       // shape-only ops: reshape, transpose, concat, copy, resize (bytes, no FLOPs)
  other,
};
// What an operator is, where the model must tell (expert parallel shards the
// routed experts and sends an all-to-all per router; decode attention reads
// the KV cache; the LM head runs on generated tokens). Builders set it on
// every operator, the ONNX importer where the graph says so, a custom model
// with `role:`; `other` is everything the model needs no name for.
enum class Role {
  other,
  embedding,       // token / position / table lookups
  attention_proj,  // q, k, v and output projections (MLA: the low-rank down and up projections)
  attention,       // scores and context; at decode it reads the KV cache
  ffn,             // a dense feed-forward block
  moe_router,      // the gate that picks each token's experts (one per MoE layer)
  routed_expert,   // expert FFNs a token reaches through the router (sharded by expert parallel)
  shared_expert,   // expert FFNs every token runs (DeepSeek, Llama 4)
  lm_head,         // the projection to the vocabulary
  last = lm_head,
};
enum class Family { cnn, encoder, decoder_llm, recsys, diffusion, custom, onnx };
// The optimizer a model trains with: its per-parameter state and the
// elements one update reads and writes (docs/model.md#memory).
//   adam:    m and v (2 states); reads parameter, gradient, m, v; writes parameter, m, v (7)
//   adagrad: one accumulator of squared gradients; reads parameter, gradient, accumulator;
//            writes parameter, accumulator (5)
enum class Optimizer { adam, adagrad };
std::string_view to_string(Optimizer o);
double optimizer_states(Optimizer o);            // fp32 state elements per parameter
double optimizer_update_elems(Optimizer o);      // elements one update moves per parameter

std::string_view to_string(Task t);
std::string_view to_string(Phase p);
std::string_view to_string(OpKind k);
std::string_view to_string(Family f);
// The family in words for messages a person reads ("decoder LLM").
std::string_view label(Family f);
// A model YAML's `family:` value (custom models: not onnx); nullopt if unknown.
std::optional<Family> parse_family(std::string_view s);
// The families a model YAML may declare, in the order the schema lists them.
inline constexpr Family kYamlFamilies[] = {Family::cnn,    Family::encoder,   Family::decoder_llm,
                                            Family::recsys, Family::diffusion, Family::custom};
std::optional<Task> parse_task(std::string_view s);
std::optional<OpKind> parse_op_kind(std::string_view s);
std::string_view to_string(Role r);
std::optional<Role> parse_role(std::string_view s);
// "other, embedding, ... or lm_head" (for errors and docs).
std::string role_choices();

// One operator (or `repeat` identical ones, e.g. the same layer N times).
// All sizes are for ONE instance; FLOPs and activations are for ONE sample
// (for LLM decode: one generated token of one sequence).
struct Operator {
  std::string name;                 // "layers.attn.qkv", "conv2_1.3x3"
  OpKind kind = OpKind::other;
  Phase phase = Phase::forward;
  double repeat = 1;                // identical instances
  double flops = 0;                 // per sample (multiply-add = 2 FLOPs)
  double weight_elems = 0;          // weights read per batch, independent of batch size
  // When > 0, the weights actually read grow with the batch until all are
  // touched: read = min(weight_elems, batch * weight_elems_per_sample)
  // (mixture-of-experts layers, embedding tables).
  double weight_elems_per_sample = 0;
  double in_elems = 0;              // activations read per sample (incl. KV cache reads in decode)
  double out_elems = 0;             // activations written per sample
  double params = 0;                // trainable parameters per instance
  // A grouped convolution's groups: its weights are block-diagonal, so it
  // runs `groups` GEMMs of out / groups columns each (1: a dense operator).
  double groups = 1;
  // Training: a frozen operator (e.g. a diffusion model's text encoder) runs
  // forward only; it gets no backward and its weights no optimizer update.
  bool frozen = false;
  // Training with frozen weights under a low-rank adapter (LoRA): the
  // backward pass computes only the input gradients (1x the forward FLOPs
  // for ops with weights) and the weights get no gradients or optimizer
  // state. The adapters' own parameters (well under 1 %) are not counted.
  bool adapter_only = false;
  // Inference: an elementwise op that serving stacks run as a kernel of its
  // own instead of in a GEMM epilogue. The gated FFN's activation x gate
  // needs both halves of the up-projection's output, which one output tile
  // of that GEMM does not hold: TensorRT-LLM runs "one Matmul followed by a
  // separate SwiGLU kernel" (perf-overview, Known issues) and vLLM a
  // SiluAndMul kernel (docs/model.md#fusion).
  bool own_kernel = false;
  // Training: a batch norm, whose statistics reduce over the whole batch
  // (every sample and position of a channel) before any element can be
  // normalized. Set by training_ops on a CNN's norms; inference uses the
  // running statistics, folded into the convolution (docs/model.md#batch-norm).
  bool batch_statistics = false;
  // Inference: the format the published checkpoint stores this operator's
  // weights in (a Hugging Face quantization_config: gpt-oss's MXFP4 experts,
  // DeepSeek-V3's block-scaled FP8). Weights are never read wider than the
  // checkpoint: a wider requested format keeps this one, a narrower one wins.
  std::optional<Precision> stored_as = std::nullopt;
  Role role = Role::other;          // what the operator is (Role; default_role(kind) for builders)
  // One of the per-layer operators of a transformer's layer stack, whatever
  // its repeat (MoE, dense and windowed ones run on a subset of the layers):
  // pipeline stages split these; the rest (embeddings, final norm, head) sit
  // whole on the first or last stage. False where the builder cannot tell.
  bool in_layer_stack = false;
};

// The role an operator's kind implies on its own (table lookups are
// embeddings, attention kernels attention); `other` for the rest, whose role
// only the builder or importer can know.
inline Role default_role(OpKind k) {
  return k == OpKind::embedding ? Role::embedding : k == OpKind::attention ? Role::attention : Role::other;
}

// A routed or shared expert FFN (the mixture-of-experts part of a layer).
inline bool is_expert(const Operator& op) {
  return op.role == Role::routed_expert || op.role == Role::shared_expert;
}

// Decode attention: its inputs are the KV cache (in the KV format).
inline bool reads_kv_cache(const Operator& op) {
  return op.phase == Phase::decode && (op.kind == OpKind::attention || op.role == Role::attention);
}

// Bytes per element of `op`'s weights when `requested` is asked for: the
// checkpoint's format when that is narrower (Operator::stored_as).
double weight_bytes_per_element(const Operator& op, Precision requested);

// A CNN's norms are batch norms: training reduces their statistics over the
// batch; inference folds them, with running statistics, into the convolution.
inline bool is_batch_norm(const Operator& op, Family family) {
  return op.kind == OpKind::norm && family == Family::cnn;
}

// Positions a query at context position x attends to when its layer reaches
// at most `limit` tokens (0: all of them): sliding, min(x, limit); chunked,
// the positions of the current chunk, x mod limit.
double attention_span(double x, double limit, bool chunked);
// The sum of attention_span(i) over positions i = 1..n (causal prefill pairs;
// limit 0: n (n + 1) / 2).
double span_pairs(double n, double limit, bool chunked);
// The integral of attention_span(x) over x in [0, n]: the mean span over the
// contexts [a, b] is (span_area(b) - span_area(a)) / (b - a) (limit 0: n^2 / 2).
double span_area(double n, double limit, bool chunked);

// Bytes one instance moves at `batch` samples and precision `p`.
double op_bytes(const Operator& op, double batch, Precision p);
// The same with weights, activations and the KV cache each in its own
// format (decode attention reads the cache: its inputs are in `kv`).
double op_bytes(const Operator& op, double batch, Precision weights, Precision activations, Precision kv);
// FLOPs of one instance at `batch` samples.
inline double op_flops(const Operator& op, double batch) { return op.flops * batch; }

struct Workload {
  std::string id;                   // zoo id, file stem or ONNX graph name
  std::string name;
  Family family = Family::custom;
  std::string sample;               // what one sample is ("one 224x224 RGB image", "one query of 384 tokens")
  std::string throughput_unit = "samples/s";  // "tokens/s" for LLM generation
  double params = 0;                // total parameters
  double active_params = 0;         // parameters used per sample/token (MoE); == params otherwise

  // Inference operators: phase forward, or prefill + decode for LLMs
  // (decode ops are per generated token at the mean context length).
  std::vector<Operator> ops;

  // Memory for inference: peak live activations per sample (elements).
  double activation_elems_per_sample = 0;
  // Memory for training: activations kept for the backward pass per sample.
  double train_activation_elems_per_sample = 0;

  // LLMs: KV cache per token of context per sequence (elements), and the
  // shape the ops were built for.
  double kv_elems_per_token = 0;
  int seq_len = 0;                  // encoder / training sequence length
  int input_tokens = 0;             // LLM prompt tokens
  int output_tokens = 0;            // LLM generated tokens
  int beams = 1;                    // LLM beam search width (kv_elems_per_token counts every beam)
  // Static KV cache: tokens of kv_elems_per_token one sequence holds (its
  // slot; the prompt part shared by the beams); 0: paged (live context).
  double kv_slot_tokens = 0;
  double pairs_per_sample = 0;      // recommenders: user-item pairs one sample aggregates (0: not a recommender)

  // Transformer shape (0 when the model is not a transformer or the shape is
  // unknown): bounds tensor parallel (heads), the KV-cache split (kv_heads),
  // pipeline depth (layers), recompute and expert parallel.
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0;
  int experts = 0, top_k = 0;       // mixture of experts: experts per layer, experts per token
  int shared_experts = 0;           // always-active experts per MoE layer (DeepSeek: 1)
  int moe_layers = 0;               // layers whose FFN is a mixture of experts (DeepSeek-V3: 58 of 61)
  // Multi-token prediction modules the checkpoint ships (DeepSeek-V3: 1). They
  // are not in `ops` or `params`: plain decoding does not run them; a
  // speculative decoder drafts with them.
  int mtp_layers = 0;

  // Attention limited to recent tokens on some layers (docs/workloads.md#windows):
  // the part of kv_elems_per_token those layers hold, and how far they reach.
  // A sliding window reads the last `kv_window` positions; chunked attention
  // (Llama 4) the positions of the current chunk of `kv_window`.
  double kv_window_elems_per_token = 0;
  double kv_window = 0;
  bool kv_window_chunked = false;
  // The published checkpoint's weight format, in words ("mxfp4 routed experts"); empty: 16-bit.
  std::string quantization;

  // Forward operators of one TRAINING sample when they differ from `ops`
  // (decoder LLMs: one sequence of seq_len tokens, LM head on every token;
  // diffusion: one denoising step of one image). Empty: the forward ops of
  // `ops` are the training forward pass.
  std::vector<Operator> train_forward_ops;

  Optimizer optimizer = Optimizer::adam;  // what training updates the parameters with

  std::vector<std::string> references;  // sources for params / FLOPs / the sample definition
  std::vector<std::string> unsupported_ops;  // ops an importer could not cost (listed, never zero)
};

// The model generates tokens (a decoder LLM: prefill then decode): its
// throughput is in tokens/s and it is served with continuous batching.
inline bool generates_tokens(const Workload& w) {
  for (const Operator& op : w.ops)
    if (op.phase == Phase::decode) return true;
  return false;
}

// KV-cache elements one sequence holds at a context of `tokens` positions:
// full-attention layers hold every position, windowed ones at most their
// window (docs/workloads.md#windows).
double kv_elems_at(const Workload& w, double tokens);

// The shape to build a workload for. Unset fields take the model's defaults
// (its MLPerf definition where one exists).
struct BuildOptions {
  std::optional<int> seq_len;
  std::optional<int> input_tokens;
  std::optional<int> output_tokens;
  std::optional<int> image_size;
  std::optional<int> pairs_per_sample = std::nullopt;  // recommenders: user-item pairs in one sample (training: 1)
  // Transformers: the tokenizer's vocabulary when a benchmark trains the
  // architecture with another one (MLPerf llama31_405b: Mixtral's 32,000).
  std::optional<int> vocab = std::nullopt;
  // LLM inference on a static KV cache (docs/model.md#static-kv): every
  // sequence holds a slot of max input + max output tokens, and each decode
  // step's attention reads the whole slot. Default: paged.
  bool static_kv = false;
};

// Training step operators (forward, backward, optimizer) derived from the
// inference forward operators: backward = 2x forward FLOPs (grads of inputs
// and of weights), optimizer = the workload's optimizer (Adam or Adagrad)
// update over the trainable parameters.
std::vector<Operator> training_ops(const Workload& w);

// The forward operators one training sample runs (train_forward_ops, or the
// forward-phase ops of `ops`).
std::vector<Operator> train_forward(const Workload& w);

// `w` fine-tuned with low-rank adapters (LoRA, Hu et al. 2021): every
// operator with weights becomes adapter_only.
Workload with_lora(Workload w);

// Totals at `batch` over `ops` (repeat included).
struct Totals {
  double flops = 0;
  double bytes = 0;
  double intensity = 0;  // flops / bytes
};
Totals totals(const std::vector<Operator>& ops, double batch, Precision p);


// Zoo ids (sorted).
std::vector<std::string> zoo_ids();

// Builds a zoo model; unknown id is Errc::not_found with "did you mean".
Result<Workload> build_zoo(std::string_view id, const BuildOptions& opts);

// Parses a custom model YAML (docs/workloads.md); errors carry file:line.
Result<Workload> parse_workload_yaml(std::string_view text, const std::string& name, const BuildOptions& opts);

// Reads a Hugging Face config.json (docs/workloads.md#hugging-face): the
// architectures listed there, every field that changes cost. An unknown
// architecture, or a field it does not understand, is invalid_input naming it.
Result<Workload> parse_hf_config(std::string_view json_text, const std::string& file, const BuildOptions& opts);

}  // namespace rooftop::workload
