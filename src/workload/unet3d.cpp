// 3D U-Net (MLPerf Inference 3d-unet, KiTS19) with sliding-window
// inference: one sample is one whole CT volume, cut into overlapping cubic
// windows (regions of interest) that each run the network; the window
// outputs are weighted by a Gaussian and accumulated into the volume, which
// is then normalised and arg-maxed. The network follows the MLPerf
// reference (mlcommons/training image_segmentation/pytorch/model: an input
// block, strided-conv downsampling blocks, a bottleneck, transposed-conv
// upsampling blocks with skip concatenation, a 1x1x1 output conv; every
// block two 3x3x3 convs + instance norm + ReLU). Sources and the window
// count: docs/workloads.md#3d-unet.
#include <algorithm>
#include <cmath>

#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload::detail {

namespace {

struct Unet3dConfig {
  std::vector<long long> channels{32, 64, 128, 256, 320, 320};  // per level, the last the bottleneck
  int in_channels = 1;
  int classes = 3;
  int roi = 128;              // window edge (voxels)
  double overlap = 0.5;       // fraction of a window shared with its neighbour along each axis
  double mean_voxels = 0;     // mean voxels of one volume (the sample)
};

// A cubic feature map: channels x edge^3 voxels.
struct Volume {
  double c = 0, edge = 0;
  double voxels() const { return edge * edge * edge; }
  double elems() const { return c * voxels(); }
};

// The operators of one window, built level by level.
class UnetWindow {
 public:
  explicit UnetWindow(std::vector<Operator>& ops) : ops_(ops) {}

  // k^3 convolution with padding k/2 (the reference's 3x3x3, padding 1).
  Volume conv(const std::string& name, Volume in, double out_c, int k, int stride, bool bias) {
    Volume out{out_c, std::floor((in.edge + 2.0 * (k / 2) - k) / stride) + 1};
    const double weights = double(k) * k * k * in.c * out_c;
    add_op(ops_, name, OpKind::conv, Phase::forward, 2 * weights * out.voxels() + (bias ? out.elems() : 0),
           weights + (bias ? out_c : 0), in.elems(), out.elems());
    return out;
  }
  // Transposed conv, kernel 2 stride 2: each input voxel writes a 2x2x2 block.
  Volume up_conv(const std::string& name, Volume in, double out_c) {
    Volume out{out_c, 2 * in.edge};
    const double weights = 8 * in.c * out_c;
    add_op(ops_, name, OpKind::conv, Phase::forward, 2 * weights * in.voxels() + out.elems(), weights + out_c,
           in.elems(), out.elems());
    return out;
  }
  // conv + instance norm (affine: 2 parameters per channel; statistics over
  // the whole window per channel, then scale and shift: ~8 FLOPs per
  // element, as group norm) + ReLU.
  Volume conv_norm_relu(const std::string& name, Volume in, double out_c, int stride) {
    Volume x = conv(name + ".conv", in, out_c, 3, stride, false);
    add_op(ops_, name + ".instance_norm", OpKind::norm, Phase::forward, 8 * x.elems(), 2 * x.c, x.elems(), x.elems());
    add_op(ops_, name + ".relu", OpKind::elementwise, Phase::forward, x.elems(), 0, x.elems(), x.elems());
    return x;
  }
  Volume block(const std::string& name, Volume in, double out_c, int stride) {
    return conv_norm_relu(name + ".conv2", conv_norm_relu(name + ".conv1", in, out_c, stride), out_c, 1);
  }
  Volume concat(const std::string& name, Volume a, Volume b) {
    Volume out{a.c + b.c, a.edge};
    add_op(ops_, name, OpKind::memory, Phase::forward, 0, 0, out.elems(), out.elems());
    return out;
  }

 private:
  std::vector<Operator>& ops_;
};

// The network on one roi^3 window.
void unet_window(std::vector<Operator>& ops, const Unet3dConfig& c) {
  UnetWindow net(ops);
  const std::size_t levels = c.channels.size();
  Volume x = net.block("input_block", {double(c.in_channels), double(c.roi)}, double(c.channels[0]), 1);
  std::vector<Volume> skips{x};
  for (std::size_t l = 1; l + 1 < levels; ++l) {
    x = net.block("down" + std::to_string(l), x, double(c.channels[l]), 2);
    skips.push_back(x);
  }
  x = net.block("bottleneck", x, double(c.channels[levels - 1]), 2);
  for (std::size_t l = levels - 1; l-- > 0;) {
    const std::string name = "up" + std::to_string(levels - 1 - l);
    Volume u = net.up_conv(name + ".transposed_conv", x, double(c.channels[l]));
    x = net.block(name, net.concat(name + ".concat", u, skips[l]), double(c.channels[l]), 1);
  }
  net.conv("output.conv", x, c.classes, 1, 1, true);
}

std::optional<Unet3dConfig> parse_unet3d(YamlMap& m) {
  std::size_t before = m.diagnostics()->errors.size();
  Unet3dConfig c;
  if (m.has("channels")) c.channels = int_list(m, "channels", true, 1);
  else m.allow("channels");
  if (c.channels.size() < 2) m.error("'channels' must list at least 2 levels (the last is the bottleneck)");
  c.in_channels = int(m.integer("in_channels", false, 1, 1 << 16).value_or(1));
  c.classes = int(m.integer("classes", true, 1, 1 << 16).value_or(1));
  c.roi = int(m.integer("roi", true, 8, 1 << 12).value_or(128));
  c.overlap = m.num("overlap", true, 0, 0.95).value_or(0.5);
  c.mean_voxels = m.num("mean_voxels", true, 1, 1e15).value_or(1);
  if (m.diagnostics()->errors.size() == before && c.roi % (1 << (c.channels.size() - 1)) != 0)
    m.error("'roi' must be divisible by 2^(levels - 1) = " + std::to_string(1 << (c.channels.size() - 1)) +
            " (each level halves the window)");
  return m.diagnostics()->errors.size() > before ? std::nullopt : std::optional<Unet3dConfig>(c);
}

}  // namespace

double sliding_windows(double mean_voxels, double roi, double overlap) {
  // Windows start every stride = roi x (1 - overlap) voxels along each axis,
  // the last flush with the far edge: (edge - roi) / stride + 1 per axis (a
  // volume smaller than the window is padded to it). The volume is taken as
  // a cube of the mean voxel count.
  const double stride = std::max(1.0, std::floor(roi * (1 - overlap)));
  const double edge = std::cbrt(mean_voxels);
  const double per_axis = std::max(1.0, (edge - roi) / stride + 1);
  return per_axis * per_axis * per_axis;
}

std::optional<Workload> build_unet3d_yaml(YamlMap& m, const BuildOptions& opts) {
  std::optional<Unet3dConfig> c = parse_unet3d(m);
  m.finish();
  if (!c) return std::nullopt;
  if (opts.image_size) {
    if (*opts.image_size % (1 << (c->channels.size() - 1)) != 0) {
      m.error("--image-size (the window edge) must be divisible by " + std::to_string(1 << (c->channels.size() - 1)));
      return std::nullopt;
    }
    c->roi = *opts.image_size;
  }
  Workload w;
  w.family = Family::custom;
  std::vector<Operator> window;
  unet_window(window, *c);
  const double windows = sliding_windows(c->mean_voxels, c->roi, c->overlap);
  const double roi_voxels = double(c->roi) * c->roi * c->roi;
  // Training (MLPerf Training unet3d) runs the network on one window-sized
  // crop per sample; inference runs it on every window of the volume.
  w.train_forward_ops = window;
  w.train_activation_elems_per_sample = saved_activation_elems(window);
  w.params = sum_params(window);
  w.active_params = w.params;
  const double window_peak = peak_activation_elems(window);
  // Cutting a window out of the volume: a copy of roi^3 input voxels.
  add_op(w.ops, "window.slice", OpKind::memory, Phase::forward, 0, 0, c->in_channels * roi_voxels,
         c->in_channels * roi_voxels);
  for (Operator& op : window) w.ops.push_back(op);
  // Gaussian-weighted accumulation into the volume, a kernel of its own:
  // result += output x gaussian and norm_map += gaussian per class channel
  // (3 FLOPs per element); reads the window's output, the Gaussian patch
  // (a constant, read once per batch) and both accumulators, writes both.
  const double cls = c->classes * roi_voxels;
  Operator& acc = add_op(w.ops, "window.gaussian_accumulate", OpKind::elementwise, Phase::forward, 3 * cls,
                         roi_voxels, 3 * cls, 2 * cls, 1, 0);
  acc.own_kernel = true;
  for (Operator& op : w.ops) {
    op.flops *= windows;
    op.in_elems *= windows;
    op.out_elems *= windows;
  }
  // Once per volume: divide by the norm map and arg-max over the classes.
  const double vol = c->mean_voxels;
  add_op(w.ops, "volume.normalize_argmax", OpKind::reduce, Phase::forward, 2 * c->classes * vol, 0,
         2 * c->classes * vol, vol);
  // Memory: the windows of one volume run one after another (a batch of
  // volumes batches their windows), so a sample holds one window's peak plus
  // the volume's input and its two class accumulators.
  w.activation_elems_per_sample = window_peak + c->in_channels * vol + 2 * c->classes * vol;
  char buf[200];
  std::snprintf(buf, sizeof buf, "one CT volume of %.0f voxels (mean), %.1f sliding windows of %dx%dx%d at %g overlap",
                vol, windows, c->roi, c->roi, c->roi, c->overlap);
  w.sample = buf;
  return w;
}

}  // namespace rooftop::workload::detail
