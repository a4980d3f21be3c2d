// Latent diffusion (Stable Diffusion 2, SDXL) as diffusers builds it: CLIP
// text encoders, a UNet2DConditionModel evaluated twice per denoising step
// under classifier-free guidance (conditional and unconditional, batched
// together, so the UNet weights are read once per step), and the VAE decoder
// from latents to pixels. Training: one denoising step of one image with the
// text encoders frozen. Sources and checks: docs/workloads.md#diffusion.
#include <cmath>

#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload::detail {

namespace {

struct UnetConfig {
  std::vector<long long> channels;    // per resolution level
  std::vector<long long> attention;   // transformer depth per level (0: none)
  int layers_per_block = 2;
  int mid_attention = 1;
  int head_dim = 64;
  double context_dim = 0;
  double addition_embed_dim = 0;      // SDXL micro-conditioning (text_time)
  double in_channels = 4;
};

struct VaeConfig {
  std::vector<long long> channels;
  int layers_per_block = 2;
};

class Unet {
 public:
  Unet(Net& net, const UnetConfig& c, double context_tokens) : net_(net), c_(c), ctx_(context_tokens) {
    temb_ = 4.0 * double(c.channels.front());
  }

  Shape resnet(const std::string& name, Shape in, double out_c, bool temb = true) {
    net_.group_norm(name + ".norm1", in);
    net_.act(name + ".silu1", in, 4);
    Shape x = net_.conv(name + ".conv1", in, out_c, 3, 1, 1, true);
    if (temb) net_.linear(name + ".time_emb_proj", temb_, out_c);
    net_.group_norm(name + ".norm2", x);
    net_.act(name + ".silu2", x, 4);
    x = net_.conv(name + ".conv2", x, out_c, 3, 1, 1, true);
    if (in.c != out_c) net_.conv(name + ".shortcut", in, out_c, 1, 1, 1, true);
    return net_.add(name + ".add", x);
  }

  // Transformer2DModel with linear projections: depth x (self-attention,
  // cross-attention to the text context, GEGLU feed-forward).
  void transformer(const std::string& name, Shape x, int depth) {
    const double c = x.c, n = x.h * x.w, heads = c / c_.head_dim;
    std::vector<Operator>& ops = net_.ops();
    net_.group_norm(name + ".norm", x);
    net_.linear(name + ".proj_in", c, c, n);
    std::size_t mark = ops.size();
    std::string b = name + ".blocks";
    net_.op(b + ".norm1", OpKind::norm, 8 * c * n, 2 * c, c * n, c * n);
    net_.op(b + ".attn1.qkv", OpKind::matmul, 2 * 3 * c * c * n, 3 * c * c, c * n, 3 * c * n);
    net_.op(b + ".attn1.sdpa", OpKind::attention, 4 * c * n * n + 5 * heads * n * n, 0, 3 * c * n, c * n);
    net_.op(b + ".attn1.out", OpKind::matmul, 2 * c * c * n + c * n, c * c + c, c * n, c * n);
    net_.op(b + ".norm2", OpKind::norm, 8 * c * n, 2 * c, c * n, c * n);
    net_.op(b + ".attn2.q", OpKind::matmul, 2 * c * c * n, c * c, c * n, c * n);
    net_.op(b + ".attn2.kv", OpKind::matmul, 2 * 2 * c_.context_dim * c * ctx_, 2 * c_.context_dim * c,
           c_.context_dim * ctx_, 2 * c * ctx_);
    net_.op(b + ".attn2.sdpa", OpKind::attention, 4 * c * n * ctx_ + 5 * heads * n * ctx_, 0,
           c * n + 2 * c * ctx_, c * n);
    net_.op(b + ".attn2.out", OpKind::matmul, 2 * c * c * n + c * n, c * c + c, c * n, c * n);
    net_.op(b + ".norm3", OpKind::norm, 8 * c * n, 2 * c, c * n, c * n);
    net_.op(b + ".ff.geglu", OpKind::matmul, 2 * c * 8 * c * n + 8 * c * n, 8 * c * c + 8 * c, c * n,
           8 * c * n);
    net_.op(b + ".ff.act", OpKind::elementwise, 9 * 4 * c * n, 0, 8 * c * n, 4 * c * n);
    net_.op(b + ".ff.out", OpKind::matmul, 2 * 4 * c * c * n + c * n, 4 * c * c + c, 4 * c * n, c * n);
    net_.op(b + ".residual", OpKind::elementwise, 3 * c * n, 0, 6 * c * n, 3 * c * n);
    for (std::size_t i = mark; i < ops.size(); ++i) ops[i].repeat = depth;
    net_.linear(name + ".proj_out", c, c, n);
    net_.add(name + ".add", x);
  }

  void build(Shape latent) {
    double t0 = double(c_.channels.front());
    net_.linear("time_embedding.linear1", t0, temb_);
    net_.act("time_embedding.silu", {temb_, 1, 1}, 4);
    net_.linear("time_embedding.linear2", temb_, temb_);
    if (c_.addition_embed_dim > 0) {
      net_.linear("add_embedding.linear1", c_.addition_embed_dim, temb_);
      net_.linear("add_embedding.linear2", temb_, temb_);
    }
    Shape x = net_.conv("conv_in", latent, t0, 3, 1, 1, true);
    std::vector<Shape> skips{x};
    const std::size_t levels = c_.channels.size();
    for (std::size_t l = 0; l < levels; ++l) {
      for (int j = 0; j < c_.layers_per_block; ++j) {
        std::string name = "down" + std::to_string(l) + ".res" + std::to_string(j);
        x = resnet(name, x, double(c_.channels[l]));
        if (c_.attention[l] > 0) transformer("down" + std::to_string(l) + ".attn" + std::to_string(j), x, int(c_.attention[l]));
        skips.push_back(x);
      }
      if (l + 1 < levels) {
        x = net_.conv("down" + std::to_string(l) + ".downsample", x, x.c, 3, 2, 1, true);
        skips.push_back(x);
      }
    }
    x = resnet("mid.res0", x, x.c);
    transformer("mid.attn", x, c_.mid_attention);
    x = resnet("mid.res1", x, x.c);
    for (std::size_t r = 0; r < levels; ++r) {
      std::size_t l = levels - 1 - r;
      for (int j = 0; j <= c_.layers_per_block; ++j) {
        Shape skip = skips.back();
        skips.pop_back();
        std::string name = "up" + std::to_string(r) + ".res" + std::to_string(j);
        Shape cat = net_.concat(name + ".concat", x, skip);
        x = resnet(name, cat, double(c_.channels[l]));
        if (c_.attention[l] > 0) transformer("up" + std::to_string(r) + ".attn" + std::to_string(j), x, int(c_.attention[l]));
      }
      if (l > 0) {
        x = net_.upsample("up" + std::to_string(r) + ".upsample", x, 2);
        x = net_.conv("up" + std::to_string(r) + ".upsample_conv", x, x.c, 3, 1, 1, true);
      }
    }
    net_.group_norm("conv_norm_out", x);
    net_.act("conv_out.silu", x, 4);
    net_.conv("conv_out", x, c_.in_channels, 3, 1, 1, true);
  }

  // AutoencoderKL decoder: latent -> image (single-head attention in the mid block).
  Shape vae_decoder(Shape latent, const VaeConfig& v) {
    Shape x = net_.conv("post_quant_conv", latent, latent.c, 1, 1, 1, true);
    double top = double(v.channels.back());
    x = net_.conv("conv_in", x, top, 3, 1, 1, true);
    x = resnet("mid.res0", x, top, false);
    const double n = x.h * x.w;
    net_.group_norm("mid.attn.norm", x);
    net_.linear("mid.attn.qkv", top, 3 * top, n);
    net_.op("mid.attn.sdpa", OpKind::attention, 4 * top * n * n + 5 * n * n, 0,
           3 * top * n, top * n);
    net_.linear("mid.attn.out", top, top, n);
    net_.add("mid.attn.add", x);
    x = resnet("mid.res1", x, top, false);
    for (std::size_t r = 0; r < v.channels.size(); ++r) {
      double ch = double(v.channels[v.channels.size() - 1 - r]);
      for (int j = 0; j <= v.layers_per_block; ++j) {
        x = resnet("up" + std::to_string(r) + ".res" + std::to_string(j), x, ch, false);
      }
      if (r + 1 < v.channels.size()) {
        x = net_.upsample("up" + std::to_string(r) + ".upsample", x, 2);
        x = net_.conv("up" + std::to_string(r) + ".upsample_conv", x, x.c, 3, 1, 1, true);
      }
    }
    net_.group_norm("conv_norm_out", x);
    net_.act("conv_out.silu", x, 4);
    return net_.conv("conv_out", x, 3, 3, 1, 1, true);
  }

 private:
  Net& net_;
  const UnetConfig& c_;
  double ctx_;
  double temb_ = 0;
};

std::optional<UnetConfig> parse_unet(YamlMap& m) {
  std::size_t before = m.diagnostics()->errors.size();
  UnetConfig u;
  u.channels = int_list(m, "block_channels", true, 1);
  u.attention = int_list(m, "attention_depth", true, 0);
  u.layers_per_block = int(m.integer("layers_per_block", false, 1, 64).value_or(2));
  u.mid_attention = int(m.integer("mid_attention_depth", false, 1, 64).value_or(1));
  u.head_dim = int(m.integer("head_dim", false, 1, 4096).value_or(64));
  u.context_dim = m.num("context_dim", true, 1, 1e6).value_or(1);
  u.addition_embed_dim = m.num("addition_embed_dim", false, 0, 1e6).value_or(0);
  u.in_channels = double(m.integer("in_channels", false, 1, 1024).value_or(4));
  m.finish();
  if (u.channels.size() != u.attention.size()) m.error("attention_depth needs one entry per block_channels entry");
  return m.diagnostics()->errors.size() > before ? std::nullopt : std::optional<UnetConfig>(u);
}

double causal_pairs(double t) { return t * (t + 1) / 2; }

}  // namespace

std::optional<Workload> build_diffusion_yaml(YamlMap& m, const BuildOptions& opts) {
  std::size_t before = m.diagnostics()->errors.size();
  int image = int(m.integer("image_size", true, 8, 1 << 16).value_or(512));
  int scale = int(m.integer("vae_scale", false, 1, 64).value_or(8));
  int steps = int(m.integer("steps", true, 1, 100000).value_or(1));
  bool guidance = m.boolean("guidance").value_or(true);
  double prompt = double(m.integer("prompt_tokens", false, 1, 1 << 20).value_or(77));
  std::optional<UnetConfig> unet;
  if (std::optional<YamlMap> u = m.map("unet", true)) unet = parse_unet(*u);
  VaeConfig vae;
  if (std::optional<YamlMap> v = m.map("vae_decoder", true)) {
    vae.channels = int_list(*v, "block_channels", true, 1);
    vae.layers_per_block = int(v->integer("layers_per_block", false, 1, 64).value_or(2));
    v->finish();
  }
  std::vector<TransformerConfig> encoders;
  YAML::Node list = m.raw("text_encoders");
  if (!list.IsSequence() || list.size() == 0) {
    m.error(list.IsDefined() ? list : m.node(), "'text_encoders' must be a non-empty list of transformer configs");
  } else {
    for (std::size_t i = 0; i < list.size(); ++i) {
      YamlMap e(list[i], m.file(), m.what() + ".text_encoders[" + std::to_string(i) + "]", m.diagnostics());
      if (!e.valid()) continue;
      if (std::optional<TransformerConfig> c = parse_transformer(e)) encoders.push_back(*c);
    }
  }
  m.finish();
  if (opts.image_size) image = *opts.image_size;
  if (image % (scale * (1 << 3)) != 0) m.error("image_size must be a multiple of 8 x vae_scale");
  if (opts.seq_len || opts.input_tokens || opts.output_tokens) m.error("a diffusion model's shape is its image_size");
  if (m.diagnostics()->errors.size() > before || !unet) return std::nullopt;

  const double evals = guidance ? 2 : 1;
  const double side = double(image) / scale;
  const Shape latent{unet->in_channels, side, side};
  Workload w;
  w.family = Family::diffusion;
  double params = 0;
  auto encode = [&](std::vector<Operator>& ops, double prompts, bool frozen) {
    for (std::size_t i = 0; i < encoders.size(); ++i) {
      Pass p{Phase::forward, prompts * prompt, prompts * causal_pairs(prompt), 0, prompts, frozen};
      std::vector<Operator> enc;
      transformer_pass(enc, encoders[i], p, "text_encoder" + std::to_string(i + 1));
      if (&ops == &w.ops) params += sum_params(enc);
      ops.insert(ops.end(), enc.begin(), enc.end());
    }
  };
  // Inference: prompts (positive + negative under guidance), steps x UNet, VAE decode.
  encode(w.ops, evals, false);
  std::vector<Operator> unet_ops;
  Net un(unet_ops, Phase::forward, "unet");
  Unet builder(un, *unet, prompt);
  builder.build(latent);
  params += sum_params(unet_ops);
  for (Operator op : unet_ops) {
    op.flops *= evals;
    op.in_elems *= evals;
    op.out_elems *= evals;
    op.repeat *= steps;
    w.ops.push_back(std::move(op));
  }
  add_op(w.ops, "scheduler.step", OpKind::elementwise, Phase::forward, 8 * latent.elems(), 0,
         (evals + 1) * latent.elems(), latent.elems(), steps, 0);
  std::size_t vae_mark = w.ops.size();
  Net vn(w.ops, Phase::forward, "vae_decoder");
  Unet(vn, *unet, prompt).vae_decoder(latent, vae);
  for (std::size_t i = vae_mark; i < w.ops.size(); ++i) params += w.ops[i].params * w.ops[i].repeat;
  // Training: one noisy latent, one UNet evaluation, frozen text encoders.
  encode(w.train_forward_ops, 1, true);
  w.train_forward_ops.insert(w.train_forward_ops.end(), unet_ops.begin(), unet_ops.end());
  add_op(w.train_forward_ops, "loss.mse", OpKind::elementwise, Phase::forward, 3 * latent.elems(), 0,
         2 * latent.elems(), 1, 1, 0);

  w.params = params;
  w.active_params = params;
  std::string s = std::to_string(image);
  w.sample = "one " + s + "x" + s + " image: text encoders on " + (guidance ? "a positive and a negative prompt" : "one prompt") +
             " of " + std::to_string(int(prompt)) + " tokens, " + std::to_string(steps) + " denoising steps x " +
             std::to_string(int(evals)) + " UNet evaluations" + (guidance ? " (classifier-free guidance)" : "") +
             ", VAE decode; training: one denoising step of one image";
  w.activation_elems_per_sample = peak_activation_elems(w.ops);
  w.train_activation_elems_per_sample = saved_activation_elems(w.train_forward_ops);
  return w;
}

}  // namespace rooftop::workload::detail
