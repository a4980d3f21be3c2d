// Transformer builder: encoders (BERT, ViT, CLIP text), decoder LLMs with
// grouped-query attention, gated FFNs and mixture-of-experts layers. One
// layer is a handful of operators repeated `layers` times. Decoders produce
// a prefill pass (one prompt) and a decode pass (one generated token at the
// mean context), plus a training pass over seq_len tokens. Counting rules
// are in docs/workloads.md#transformer.
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
    if (c.max_positions > 0 || c.type_vocab > 0) {
      double rows = double(c.max_positions) + c.type_vocab;
      double lookups = (c.max_positions > 0 ? 1 : 0) + (c.type_vocab > 0 ? 1 : 0);
      Operator& pos = e.op("embed.positions", OpKind::embedding, lookups * h * t, rows * h, h * t, h * t);
      pos.weight_elems_per_sample = lookups * h * t;
    }
  }
  if (c.embedding_norm) e.op("embed.norm", OpKind::norm, norm_flops_per_elem(c) * h * t, norm_weights(c), h * t, h * t);
}

// Expected number of distinct experts `tokens` routed tokens touch when each
// picks top_k of `experts` uniformly: E (1 - (1 - k/E)^T).
double experts_touched(const TransformerConfig& c, double tokens) {
  double e = c.experts, k = c.top_k;
  return e * (1 - std::pow(1 - k / e, tokens));
}

void layer(Emit& e, const TransformerConfig& c) {
  const double h = c.hidden, t = e.p.tokens, q = q_dim(c), kv = kv_dim(c), L = c.layers;
  const double nf = norm_flops_per_elem(c), nw = norm_weights(c);
  const double ab = c.attn_bias ? 1 : 0, mb = c.mlp_bias ? 1 : 0;
  e.op("layers.attn_norm", OpKind::norm, nf * h * t, nw, h * t, h * t, L);
  e.op("layers.attn.qkv", OpKind::matmul, 2 * h * (q + 2 * kv) * t + ab * (q + 2 * kv) * t,
       h * (q + 2 * kv) + ab * (q + 2 * kv), h * t, (q + 2 * kv) * t, L);
  // Fused attention (FlashAttention-style): QK^T and PV (2 FLOPs per MAC)
  // plus ~5 FLOPs per score for the softmax; the score matrix never
  // reaches memory. Decode reads the K and V of every cached position.
  double attn_in = e.p.kv_context > 0 ? q * t + 2 * kv * e.p.kv_context * t : (q + 2 * kv) * t;
  e.op("layers.attn.sdpa", OpKind::attention, 4 * q * e.p.attn_pairs + 5.0 * c.heads * e.p.attn_pairs, 0, attn_in,
       q * t, L);
  e.op("layers.attn.out", OpKind::matmul, 2 * q * h * t + ab * h * t, q * h + ab * h, q * t, h * t, L);
  e.op("layers.residual", OpKind::elementwise, 2 * h * t, 0, 4 * h * t, 2 * h * t, L);
  if (!c.parallel_block) e.op("layers.ffn_norm", OpKind::norm, nf * h * t, nw, h * t, h * t, L);
  const double up = c.gated ? 2.0 * c.ffn : c.ffn;
  const double act_flops = c.gated ? 5.0 * c.ffn : 8.0 * c.ffn;  // SiLU x gate / GELU (tanh form)
  if (c.experts == 0) {
    e.op("layers.ffn.up", OpKind::matmul, 2 * h * up * t + mb * up * t, h * up + mb * up, h * t, up * t, L);
    e.op("layers.ffn.act", OpKind::elementwise, act_flops * t, 0, up * t, c.ffn * t, L).own_kernel = c.gated;
    e.op("layers.ffn.down", OpKind::matmul, 2 * c.ffn * h * t + mb * h * t, c.ffn * h + mb * h, c.ffn * t, h * t, L);
    return;
  }
  const double ex = c.experts, k = c.top_k, touched = experts_touched(c, t);
  e.op("layers.moe.router", OpKind::matmul, 2 * h * ex * t, h * ex, h * t, ex * t, L);
  Operator& u = e.op("layers.moe.experts.up", OpKind::matmul, 2 * h * up * k * t, ex * h * up, h * t, k * up * t, L);
  u.weight_elems_per_sample = touched * h * up;
  e.op("layers.moe.experts.act", OpKind::elementwise, act_flops * k * t, 0, k * up * t, k * c.ffn * t, L).own_kernel =
      c.gated;
  Operator& d = e.op("layers.moe.experts.down", OpKind::matmul, 2 * c.ffn * h * k * t, ex * c.ffn * h,
                     k * c.ffn * t, h * t, L);
  d.weight_elems_per_sample = touched * c.ffn * h;
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
      e.op("lm_head", OpKind::matmul, 2 * h * v * ht + b * v * ht, v * h + b * v, h * ht, v * ht, 1, params);
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
  layer(e, c);
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
  w.experts = c.experts, w.top_k = c.top_k;
  w.kv_elems_per_token = 2.0 * c.layers * kv_dim(c) * c.beams;
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
    w.kv_elems_per_token = 0;
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
    Pass decode{Phase::decode, beams, beams * ctx, ctx, beams, false, false};
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
  w.active_params = w.params;
  if (c.experts > 0) {
    double expert = (c.gated ? 3.0 : 2.0) * c.hidden * c.ffn * c.layers;
    w.active_params = w.params - (c.experts - c.top_k) * expert;
  }
  w.activation_elems_per_sample = peak_activation_elems(w.ops);
  w.train_activation_elems_per_sample = saved_activation_elems(train_forward(w));
  return w;
}

}  // namespace rooftop::workload::detail
