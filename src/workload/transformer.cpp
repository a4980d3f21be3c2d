// Transformer builder: encoders (BERT, ViT, CLIP text), decoder LLMs with
// grouped-query attention, gated FFNs and mixture-of-experts layers. One
// layer is a handful of operators repeated `layers` times. Decoders produce
// a prefill pass (one prompt) and a decode pass (one generated token at the
// mean context), plus a training pass over seq_len tokens. Counting rules
// are in docs/workloads.md#transformer.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload::detail {

namespace {

int q_dim(const TransformerConfig& c) { return c.heads * c.head_dim; }
int kv_dim(const TransformerConfig& c) { return c.kv_heads * c.head_dim; }
double norm_flops_per_elem(const TransformerConfig& c) { return c.norm == NormKind::layer ? 8 : 4; }
double norm_weights(const TransformerConfig& c) { return c.norm == NormKind::layer ? 2.0 * c.hidden : c.hidden; }

struct Emit {
  std::vector<Operator>& ops;
  const Pass& p;
  std::string prefix;
  Operator& op(const std::string& name, OpKind kind, double flops, double weights, double in, double out,
               double repeat = 1, double params = -1) {
    Operator& o = add_op(ops, prefix + name, kind, p.phase, flops, weights, in, out, repeat, params);
    if (!p.count_params) o.params = 0;
    o.frozen = p.frozen;
    return o;
  }
};

void embeddings(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, t = e.p.tokens;
  if (c.image_size > 0) {
    double n = std::pow(double(c.image_size) / c.patch_size, 2);
    double k = double(c.channels) * c.patch_size * c.patch_size;
    e.op("embed.patches", OpKind::conv, 2 * k * h * n + h * n, k * h + h,
         double(c.channels) * c.image_size * c.image_size, h * n);
    e.op("embed.cls_positions", OpKind::elementwise, h * t, h * t + h, h * t, h * t);
  } else {
    Operator& tok = e.op("embed.tokens", OpKind::embedding, 0, double(c.vocab) * h, t, h * t);
    tok.weight_elems_per_sample = h * t;
    tok.role = Role::embedding;
    if (c.max_positions > 0 || c.type_vocab > 0) {
      double rows = double(c.max_positions) + c.type_vocab;
      double lookups = (c.max_positions > 0 ? 1 : 0) + (c.type_vocab > 0 ? 1 : 0);
      Operator& pos = e.op("embed.positions", OpKind::embedding, lookups * h * t, rows * h, h * t, h * t);
      pos.weight_elems_per_sample = lookups * h * t;
      pos.role = Role::embedding;
    }
  }
  if (c.embedding_norm) e.op("embed.norm", OpKind::norm, norm_flops_per_elem(c) * h * t, norm_weights(c), h * t, h * t);
}

// Layers whose attention reaches every position, and those with a window.
double window_layers(const TransformerConfig& c) {
  return c.window <= 0 ? 0 : c.window_layers > 0 ? c.window_layers : c.layers;
}

// The scored pairs and (decode) the positions each query reads on a layer
// whose attention reaches at most `limit` positions (0: all).
struct Reach {
  double pairs = 0, context = 0;
};
Reach reach(const TransformerConfig& c, const Pass& p, double limit) {
  if (limit <= 0) return {p.attn_pairs, p.kv_context};
  if (p.kv_context <= 0) return {span_pairs(p.tokens, limit, c.chunked), 0};
  const double a = p.context_from, b = p.context_to;
  const double ctx = b > a ? (span_area(b, limit, c.chunked) - span_area(a, limit, c.chunked)) / (b - a)
                           : attention_span(b, limit, c.chunked);
  return {p.tokens * ctx, ctx};
}

// Scores and context of standard (grouped-query) attention over `repeat`
// layers reaching `limit` positions. Fused (FlashAttention-style): QK^T and
// PV (2 FLOPs per MAC) plus ~5 FLOPs per score for the softmax; the score
// matrix never reaches memory. Decode reads the K and V of every position
// it reaches. Sinks add one logit per head and query; a soft cap 3 FLOPs
// per score (divide, tanh, multiply).
void sdpa(Emit& e, const TransformerConfig& c, const std::string& name, double repeat, double limit) {
  if (repeat <= 0) return;
  const double t = e.p.tokens, q = q_dim(c), kv = kv_dim(c);
  const Reach r = reach(c, e.p, limit);
  const double per_score = 5.0 + (c.attn_softcap ? 3.0 : 0.0);
  // Positions whose K and V one decode step reads from memory. Beam search
  // (t = beams > 1) on a paged cache: the beams share the prompt's blocks
  // (copy on write), and the kernel runs a sequence's beams together, so the
  // prompt's K and V come from memory once per step for all beams (the other
  // beams' reads of the same blocks hit the cache) and only each beam's own
  // generated positions are read per beam (docs/workloads.md#beam-search).
  double read = r.context * t;
  const bool shared_prompt = e.p.phase == Phase::decode && t > 1 && limit <= 0 && e.p.context_to > e.p.context_from &&
                             e.p.context_from > 0 && r.context > e.p.context_from;
  if (shared_prompt) read = e.p.context_from + t * (r.context - e.p.context_from);
  const double in = r.context > 0 ? q * t + 2 * kv * read : (q + 2 * kv) * t;
  const double sinks = c.sinks ? c.heads : 0;
  Operator& o = e.op(name, OpKind::attention, 4 * q * r.pairs + per_score * c.heads * r.pairs + 5 * sinks * t, sinks,
                     in, q * t, repeat);
  o.role = Role::attention;
}

void attention(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, t = e.p.tokens, q = q_dim(c), kv = kv_dim(c), L = c.layers;
  const double ab = c.attn_bias || c.qkv_bias ? 1 : 0, ob = c.attn_bias ? 1 : 0;
  e.op("layers.attn.qkv", OpKind::matmul, 2 * h * (q + 2 * kv) * t + ab * (q + 2 * kv) * t,
       h * (q + 2 * kv) + ab * (q + 2 * kv), h * t, (q + 2 * kv) * t, L)
      .role = Role::attention_proj;
  if (c.qk_norm)
    e.op("layers.attn.qk_norm", OpKind::elementwise, 4 * (q + kv) * t, 2.0 * c.head_dim, (q + kv) * t, (q + kv) * t, L);
  const double lw = window_layers(c);
  sdpa(e, c, "layers.attn.sdpa", L - lw, 0);
  sdpa(e, c, "layers.attn.sdpa_window", lw, c.window);
  e.op("layers.attn.out", OpKind::matmul, 2 * q * h * t + ob * h * t, q * h + ob * h, q * t, h * t, L).role =
      Role::attention_proj;
}

// Multi-head latent attention (DeepSeek-V2 section 2.1): queries through a
// low-rank bottleneck, keys and values from a latent of kv_lora_rank (r) plus
// one rotary key of qk_rope_dim (d_r) shared by the heads: the KV cache
// holds r + d_r per token and layer. Prefill and training decompress the
// latent (kv_b) and run attention with heads of d_nope + d_r (keys) and
// d_v (values). Decode runs it absorbed (DeepSeek-V2 section 2.1.2): kv_b's
// key half is folded into the queries and its value half applied after the
// context, so attention is one shared KV head of r + d_r over the cached
// latent (docs/workloads.md#mla).
void latent_attention(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, t = e.p.tokens, L = c.layers, n = c.heads;
  const double r = c.kv_lora_rank, rope = c.qk_rope_dim, nope = c.qk_nope_dim, v = c.v_head_dim, qr = c.q_lora_rank;
  const double qk = nope + rope, qdim = n * qk;
  if (qr > 0) {
    e.op("layers.attn.q_a", OpKind::matmul, 2 * h * qr * t, h * qr, h * t, qr * t, L).role = Role::attention_proj;
    e.op("layers.attn.q_b", OpKind::matmul, 2 * qr * qdim * t, qr * qdim, qr * t, qdim * t, L).role = Role::attention_proj;
  } else {
    e.op("layers.attn.q", OpKind::matmul, 2 * h * qdim * t, h * qdim, h * t, qdim * t, L).role = Role::attention_proj;
  }
  e.op("layers.attn.kv_a", OpKind::matmul, 2 * h * (r + rope) * t, h * (r + rope), h * t, (r + rope) * t, L).role =
      Role::attention_proj;
  e.op("layers.attn.latent_norm", OpKind::elementwise, 4 * (qr + r) * t, qr + r, (qr + r) * t, (qr + r) * t, L);
  const double kvb = r * n * (nope + v);
  const Reach a = reach(c, e.p, 0);
  if (e.p.kv_context > 0) {
    // Absorbed: q_nope x W_UK per head into the latent, then the context x W_UV.
    e.op("layers.attn.kv_b_absorbed", OpKind::matmul, 2 * kvb * t, kvb, n * nope * t + n * r * t, n * r * t + n * v * t, L)
        .role = Role::attention_proj;
    e.op("layers.attn.sdpa", OpKind::attention, 2 * n * (r + rope) * a.pairs + 2 * n * r * a.pairs + 5 * n * a.pairs, 0,
         n * (r + rope) * t + (r + rope) * a.context * t, n * r * t, L)
        .role = Role::attention;
  } else {
    e.op("layers.attn.kv_b", OpKind::matmul, 2 * kvb * t, kvb, r * t, n * (nope + v) * t, L).role = Role::attention_proj;
    e.op("layers.attn.sdpa", OpKind::attention, 2 * qdim * a.pairs + 2 * n * v * a.pairs + 5 * n * a.pairs, 0,
         (2 * qdim + n * v) * t, n * v * t, L)
        .role = Role::attention;
  }
  e.op("layers.attn.out", OpKind::matmul, 2 * n * v * h * t, n * v * h, n * v * t, h * t, L).role = Role::attention_proj;
}

// Expected number of distinct experts `tokens` routed tokens touch when each
// picks top_k of `experts` uniformly: E (1 - (1 - k/E)^T).
double experts_touched(const TransformerConfig& c, double tokens) {
  double e = c.experts, k = c.top_k;
  return e * (1 - std::pow(1 - k / e, tokens));
}

// An FFN of `width` inner size per copy, `copies` of it run per token
// (shared experts), over `repeat` layers.
void ffn(Emit& e, const TransformerConfig& c, const std::string& name, Role role, double width, double copies,
         double repeat) {
  if (repeat <= 0 || copies <= 0) return;
  const double h = c.hidden, t = e.p.tokens, mb = c.mlp_bias ? 1 : 0;
  const double f = width * copies, up = c.gated ? 2.0 * f : f;
  const double act_flops = c.gated ? 5.0 * f : 8.0 * f;  // SiLU x gate / GELU (tanh form)
  e.op(name + ".up", OpKind::matmul, 2 * h * up * t + mb * up * t, h * up + mb * up, h * t, up * t, repeat).role = role;
  e.op(name + ".act", OpKind::elementwise, act_flops * t, 0, up * t, f * t, repeat).own_kernel = c.gated;
  e.op(name + ".down", OpKind::matmul, 2 * f * h * t + mb * copies * h * t, f * h + mb * copies * h, f * t, h * t, repeat)
      .role = role;
}

void layer(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, t = e.p.tokens, L = c.layers;
  const double nf = norm_flops_per_elem(c), nw = norm_weights(c);
  e.op("layers.attn_norm", OpKind::norm, nf * h * t, nw, h * t, h * t, L);
  if (c.kv_lora_rank > 0)
    latent_attention(e, c);
  else
    attention(e, c);
  // Sandwich norms (after attention and after the FFN) run fused with the
  // residual adds (vLLM's fused_add_rms_norm): their FLOPs and weights join them.
  const double post = c.sandwich_norm ? 2 : 0;
  e.op("layers.residual", OpKind::elementwise, 2 * h * t + post * nf * h * t, post * nw, 4 * h * t, 2 * h * t, L);
  if (!c.parallel_block) e.op("layers.ffn_norm", OpKind::norm, nf * h * t, nw, h * t, h * t, L);
  const double moe = c.experts > 0 ? L - c.dense_layers : 0;
  ffn(e, c, "layers.ffn", Role::ffn, c.experts > 0 && c.dense_ffn > 0 ? c.dense_ffn : c.ffn, 1, L - moe);
  if (moe <= 0) return;
  const double ex = c.experts, k = c.top_k, touched = experts_touched(c, t), mb = c.mlp_bias ? 1 : 0;
  const double up = c.gated ? 2.0 * c.ffn : c.ffn;
  const double act_flops = c.gated ? 5.0 * c.ffn : 8.0 * c.ffn;
  e.op("layers.moe.router", OpKind::matmul, 2 * h * ex * t + mb * ex * t, h * ex + mb * ex, h * t, ex * t, moe).role =
      Role::moe_router;
  Operator& u = e.op("layers.moe.experts.up", OpKind::matmul, 2 * h * up * k * t + mb * up * k * t,
                     ex * (h * up + mb * up), h * t, k * up * t, moe);
  u.weight_elems_per_sample = touched * (h * up + mb * up);
  u.role = Role::routed_expert;
  e.op("layers.moe.experts.act", OpKind::elementwise, act_flops * k * t, 0, k * up * t, k * c.ffn * t, moe).own_kernel =
      c.gated;
  Operator& d = e.op("layers.moe.experts.down", OpKind::matmul, 2 * c.ffn * h * k * t + mb * h * k * t,
                     ex * (c.ffn * h + mb * h), k * c.ffn * t, h * t, moe);
  d.weight_elems_per_sample = touched * (c.ffn * h + mb * h);
  d.role = Role::routed_expert;
  ffn(e, c, "layers.moe.shared", Role::shared_expert, c.ffn, c.shared_experts, moe);
}

void head(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, ht = e.p.head_tokens;
  if (c.final_norm) e.op("final_norm", OpKind::norm, norm_flops_per_elem(c) * h * e.p.tokens, norm_weights(c),
                         h * e.p.tokens, h * e.p.tokens);
  switch (c.head) {
    case HeadKind::none: break;
    case HeadKind::lm: {
      double v = c.vocab, b = c.lm_head_bias ? 1 : 0;
      double params = (c.tied_embeddings ? 0 : v * h) + b * v;
      const double cap = c.logit_softcap ? 3 * v * ht : 0;  // cap x tanh(logit / cap)
      e.op("lm_head", OpKind::matmul, 2 * h * v * ht + b * v * ht + cap, v * h + b * v, h * ht, v * ht, 1, params).role =
          Role::lm_head;
      break;
    }
    case HeadKind::pooler:
      e.op("pooler", OpKind::matmul, 2 * h * h * ht + h * ht, h * h + h, h * ht, h * ht);
      break;
    case HeadKind::qa:
      e.op("qa_head", OpKind::matmul, 2 * h * 2 * ht + 2 * ht, 2 * h + 2, h * ht, 2 * ht);
      break;
    case HeadKind::classifier:
      e.op("classifier", OpKind::matmul, 2 * h * c.classes * ht + c.classes * ht, h * c.classes + c.classes,
           h * ht, c.classes * ht);
      break;
    case HeadKind::projection:
      e.op("projection", OpKind::matmul, 2 * h * h * ht, h * h, h * ht, h * ht);
      break;
  }
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

double causal_pairs(double t) { return t * (t + 1) / 2; }

double head_tokens_for(const TransformerConfig& c, double tokens) {
  switch (c.head) {
    case HeadKind::lm:
    case HeadKind::qa: return tokens;
    default: return 1;
  }
}

}  // namespace

void transformer_pass(std::vector<Operator>& ops, const TransformerConfig& c, const Pass& p, const std::string& prefix) {
  Emit e{ops, p, prefix.empty() ? std::string() : prefix + "."};
  embeddings(e, c);
  const std::size_t first = ops.size();
  layer(e, c);
  for (std::size_t i = first; i < ops.size(); ++i) ops[i].in_layer_stack = true;
  head(e, c);
}

int encoder_tokens(const TransformerConfig& c) {
  if (c.image_size > 0) return (c.image_size / c.patch_size) * (c.image_size / c.patch_size) + 1;
  return c.seq_len;
}

Workload build_transformer(const TransformerConfig& base, const BuildOptions& opts) {
  TransformerConfig c = base;
  if (opts.seq_len) c.seq_len = *opts.seq_len;
  if (opts.vocab && c.vocab > 0) c.vocab = *opts.vocab;
  if (opts.input_tokens) c.input_tokens = *opts.input_tokens;
  if (opts.output_tokens) c.output_tokens = *opts.output_tokens;
  if (opts.image_size && c.image_size > 0) c.image_size = *opts.image_size;

  Workload w;
  w.seq_len = encoder_tokens(c);
  w.layers = c.layers, w.hidden = c.hidden, w.heads = c.heads, w.kv_heads = c.kv_heads;
  w.experts = c.experts, w.top_k = c.top_k, w.shared_experts = c.experts > 0 ? c.shared_experts : 0;
  w.moe_layers = c.experts > 0 ? c.layers - c.dense_layers : 0;
  w.mtp_layers = c.mtp_layers;
  w.quantization = c.quantization;
  // KV cache per token: K and V of every KV head (GQA), or MLA's latent and
  // rotary key, shared by the heads (one KV head: tensor parallel replicates it).
  const double kv_per_layer = c.kv_lora_rank > 0 ? double(c.kv_lora_rank) + c.qk_rope_dim : 2.0 * kv_dim(c);
  if (c.kv_lora_rank > 0) w.kv_heads = 1;
  w.kv_elems_per_token = c.layers * kv_per_layer * c.beams;
  w.kv_window_elems_per_token = window_layers(c) * kv_per_layer * c.beams;
  w.kv_window = window_layers(c) > 0 ? c.window : 0;
  w.kv_window_chunked = c.chunked;
  std::vector<Operator> first;  // the pass whose operators define the parameters
  if (!c.decoder) {
    w.family = Family::encoder;
    double t = w.seq_len;
    Pass p{Phase::forward, t, c.causal ? causal_pairs(t) : t * t, 0, head_tokens_for(c, t)};
    // Inference without padding (docs/workloads.md#unpadded): every pass
    // runs on the mean real length; the attention pairs use its square (the
    // mean of squares is larger, by the variance: a small underestimate).
    // Training and an explicit --seq keep the full length.
    const bool unpadded = c.unpadded_tokens > 0 && !opts.seq_len && c.image_size == 0;
    if (unpadded) {
      double u = c.unpadded_tokens;
      transformer_pass(w.ops, c, Pass{Phase::forward, u, c.causal ? causal_pairs(u) : u * u, 0, head_tokens_for(c, u)});
      transformer_pass(w.train_forward_ops, c, p);
    } else {
      transformer_pass(w.ops, c, p);
    }
    first = unpadded ? w.train_forward_ops : w.ops;
    w.kv_elems_per_token = w.kv_window_elems_per_token = w.kv_window = 0;
    std::string img = std::to_string(c.image_size);
    w.sample = c.image_size > 0 ? "one " + img + "x" + img + " RGB image (" + std::to_string(w.seq_len - 1) +
                                      " patches + class token)"
                                : "one sequence of " + std::to_string(w.seq_len) + " tokens" +
                                      (unpadded ? " (inference: " + std::to_string(c.unpadded_tokens) +
                                                      " real tokens on average, padding dropped)"
                                                : "");
  } else {
    w.family = Family::decoder_llm;
    w.throughput_unit = "tokens/s";
    w.input_tokens = c.input_tokens;
    w.output_tokens = c.output_tokens;
    w.beams = c.beams;
    double in = c.input_tokens, beams = c.beams;
    Pass prefill{Phase::prefill, in, causal_pairs(in), 0, 1};
    transformer_pass(w.ops, c, prefill);
    first = w.ops;
    double ctx = in + c.output_tokens / 2.0;
    if (opts.static_kv) {
      // A static cache (no paged attention: HPU graphs, XLA, FasterTransformer)
      // allocates the longest prompt and generation for every sequence, and
      // its fixed-shape attention reads the whole slot at every step.
      const double max_out = c.max_output_tokens > 0 ? c.max_output_tokens : c.output_tokens;
      const double max_in = c.max_input_tokens > 0 ? c.max_input_tokens : std::max(in, c.seq_len - max_out);
      ctx = max_in + max_out;
      w.kv_slot_tokens = max_in / beams + max_out;
    }
    Pass decode{Phase::decode, beams, beams * ctx, ctx, beams, false, false, in, in + c.output_tokens};
    if (opts.static_kv) decode.context_from = decode.context_to = ctx;
    transformer_pass(w.ops, c, decode);
    double s = c.seq_len;
    Pass train{Phase::forward, s, causal_pairs(s), 0, s};
    transformer_pass(w.train_forward_ops, c, train);
    w.sample = "one prompt of " + std::to_string(c.input_tokens) + " tokens generating " +
               std::to_string(c.output_tokens) + " tokens" +
               (c.beams > 1 ? " (beam search, " + std::to_string(c.beams) + " beams)" : "") +
               "; decode figures are per generated token at the " +
               (opts.static_kv ? "static KV slot of " : "mean context of ") + number(ctx) + " tokens; training: one sequence of " + std::to_string(c.seq_len) + " tokens";
  }
  w.params = sum_params(first);
  // Active per token: all but the routed experts a token does not pick.
  w.active_params = w.params;
  for (const Operator& op : first)
    if (op.role == Role::routed_expert) w.active_params -= op.params * op.repeat * (c.experts - c.top_k) / c.experts;
  // The checkpoint's format applies to inference; training keeps 16-bit weights.
  if (c.stored_as)
    for (Operator& op : w.ops)
      if (std::find(c.stored_roles.begin(), c.stored_roles.end(), op.role) != c.stored_roles.end()) op.stored_as = c.stored_as;
  w.activation_elems_per_sample = peak_activation_elems(w.ops);
  w.train_activation_elems_per_sample = saved_activation_elems(train_forward(w));
  return w;
}

}  // namespace rooftop::workload::detail
