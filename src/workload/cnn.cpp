// Convolutional networks layer by layer: ResNet / ResNeXt (v1.5: stride in
// the 3x3 conv), RetinaNet (ResNeXt-FPN backbone, MLPerf's detector) and
// YOLOv8 (Ultralytics). Identical blocks of a stage are one operator set with
// `repeat`; detector heads shared across pyramid levels count their weights
// once (read once per level). Post-processing (anchor decoding, NMS) is not
// counted. Sources and checks: docs/workloads.md#cnn.
#include <algorithm>
#include <cmath>

#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload::detail {

namespace {

struct ResnetConfig {
  std::vector<long long> blocks{3, 4, 6, 3};
  int groups = 1;
  int width_per_group = 64;
  int classes = 1000;
  int image_size = 224;
};

void set_repeat(std::vector<Operator>& ops, std::size_t from, double repeat) {
  for (std::size_t i = from; i < ops.size(); ++i) ops[i].repeat = repeat;
}

Shape bottleneck(Net& net, const std::string& name, Shape in, double planes, int stride, const ResnetConfig& c) {
  double width = std::floor(planes * (c.width_per_group / 64.0)) * c.groups;
  Shape x = net.conv(name + ".conv1", in, width, 1);
  net.bn(name + ".bn1", x);
  net.act(name + ".relu1", x);
  x = net.conv(name + ".conv2", x, width, 3, stride, c.groups);
  net.bn(name + ".bn2", x);
  net.act(name + ".relu2", x);
  x = net.conv(name + ".conv3", x, planes * 4, 1);
  net.bn(name + ".bn3", x);
  if (stride != 1 || in.c != planes * 4) {
    Shape d = net.conv(name + ".downsample", in, planes * 4, 1, stride);
    net.bn(name + ".downsample_bn", d);
  }
  net.add(name + ".add", x);
  return net.act(name + ".relu3", x);
}

// Stem and the four stages; returns the output of every stage.
std::vector<Shape> resnet_backbone(Net& net, Shape in, const ResnetConfig& c) {
  Shape x = net.conv("stem.conv", in, 64, 7, 2);
  net.bn("stem.bn", x);
  net.act("stem.relu", x);
  x = net.max_pool("stem.maxpool", x, 3, 2);
  std::vector<Shape> stages;
  for (std::size_t s = 0; s < c.blocks.size(); ++s) {
    double planes = 64.0 * (1 << s);
    std::string layer = "layer" + std::to_string(s + 1);
    x = bottleneck(net, layer + ".block0", x, planes, s == 0 ? 1 : 2, c);
    if (c.blocks[s] > 1) {
      std::size_t mark = net.ops().size();
      x = bottleneck(net, layer + ".blocks1-" + std::to_string(c.blocks[s] - 1), x, planes, 1, c);
      set_repeat(net.ops(), mark, double(c.blocks[s] - 1));
    }
    stages.push_back(x);
  }
  return stages;
}

std::optional<ResnetConfig> parse_resnet(YamlMap& m, bool with_classes) {
  std::size_t before = m.diagnostics()->errors.size();
  ResnetConfig c;
  if (m.has("blocks")) c.blocks = int_list(m, "blocks", true, 1);
  else m.allow("blocks");
  if (c.blocks.size() != 4) m.error("'blocks' must list the depth of the 4 stages");
  c.groups = int(m.integer("groups", false, 1, 1024).value_or(1));
  c.width_per_group = int(m.integer("width_per_group", false, 1, 4096).value_or(64));
  if (with_classes) c.classes = int(m.integer("classes", false, 1, 1 << 24).value_or(1000));
  c.image_size = int(m.integer("image_size", false, 32, 1 << 16).value_or(with_classes ? 224 : 800));
  return m.diagnostics()->errors.size() > before ? std::nullopt : std::optional<ResnetConfig>(c);
}

void finish_cnn(Workload& w, int image_size, const std::string& what) {
  w.family = Family::cnn;
  std::string s = std::to_string(image_size);
  w.sample = "one " + s + "x" + s + " RGB image" + what;
  w.seq_len = 0;
  w.params = sum_params(w.ops);
  w.active_params = w.params;
  w.activation_elems_per_sample = peak_activation_elems(w.ops);
  w.train_activation_elems_per_sample = saved_activation_elems(w.ops);
}

}  // namespace

std::optional<Workload> build_resnet_yaml(YamlMap& m, const BuildOptions& opts) {
  std::optional<ResnetConfig> c = parse_resnet(m, true);
  m.finish();
  if (!c) return std::nullopt;
  if (opts.image_size) c->image_size = *opts.image_size;
  Workload w;
  Net net(w.ops, Phase::forward);
  std::vector<Shape> stages = resnet_backbone(net, {3, double(c->image_size), double(c->image_size)}, *c);
  Shape pooled = net.global_pool("avgpool", stages.back());
  net.linear("fc", pooled.c, c->classes);
  finish_cnn(w, c->image_size, "");
  return w;
}

// RetinaNet (Lin et al., arXiv:1708.02002) as torchvision builds it: FPN on
// C3-C5 with P6/P7 from P5, and class/box subnets of 4 conv layers each,
// shared over P3-P7.
std::optional<Workload> build_retinanet_yaml(YamlMap& m, const BuildOptions& opts) {
  std::optional<ResnetConfig> c = parse_resnet(m, false);
  int classes = int(m.integer("classes", true, 1, 1 << 20).value_or(1));
  int anchors = int(m.integer("anchors", false, 1, 1024).value_or(9));
  double fpn = double(m.integer("fpn_channels", false, 1, 1 << 16).value_or(256));
  m.finish();
  if (!c) return std::nullopt;
  if (opts.image_size) c->image_size = *opts.image_size;
  Workload w;
  Net net(w.ops, Phase::forward);
  std::vector<Shape> st = resnet_backbone(net, {3, double(c->image_size), double(c->image_size)}, *c);
  std::vector<Shape> p(3);
  double positions = 0;  // anchor positions over P3-P7
  Shape inner = net.conv("fpn.inner5", st[3], fpn, 1, 1, 1, true);
  p[2] = net.conv("fpn.layer5", inner, fpn, 3, 1, 1, true);
  for (int i = 1; i >= 0; --i) {
    std::string lvl = std::to_string(i + 3);
    Shape lateral = net.conv("fpn.inner" + lvl, st[i + 1], fpn, 1, 1, 1, true);
    net.upsample("fpn.upsample" + lvl, inner, 2);
    inner = net.add("fpn.merge" + lvl, lateral);
    p[i] = net.conv("fpn.layer" + lvl, inner, fpn, 3, 1, 1, true);
  }
  Shape p6 = net.conv("fpn.p6", p[2], fpn, 3, 2, 1, true);
  net.act("fpn.p7_relu", p6);
  Shape p7 = net.conv("fpn.p7", p6, fpn, 3, 2, 1, true);
  p.push_back(p6);
  p.push_back(p7);
  for (std::size_t l = 0; l < p.size(); ++l) {
    std::size_t mark = w.ops.size();
    std::string lvl = "P" + std::to_string(l + 3);
    positions += p[l].h * p[l].w;
    for (const char* head : {"cls", "box"}) {
      std::string base = std::string("head.") + head + "." + lvl;
      Shape x = p[l];
      std::size_t convs = w.ops.size();
      x = net.conv(base + ".convs", x, fpn, 3, 1, 1, true);
      net.act(base + ".relu", x);
      set_repeat(w.ops, convs, 4);
      net.conv(base + ".out", x, double(anchors) * (head[0] == 'c' ? classes : 4), 3, 1, 1, true);
    }
    if (l > 0) {
      for (std::size_t i = mark; i < w.ops.size(); ++i) w.ops[i].params = 0;  // shared with P3
    }
  }
  finish_cnn(w, c->image_size, "");
  // Training adds the loss, which inference does not run: the sigmoid focal
  // loss (Lin et al. 2017, eq. 5; torchvision sigmoid_focal_loss, as the
  // MLPerf reference trains it) over every anchor x class logit, a reduction
  // kernel of its own that reads the logits (its backward reads them again
  // and writes their gradient). Per logit: sigmoid (exp, add, divide), the
  // binary cross-entropy with logits (max, exp, log1p, multiply, subtract),
  // p_t and alpha_t (two multiply-adds each), (1 - p_t)^2 and the products
  // into the sum: 20 FLOPs. The box loss (L1 on the few matched anchors) and
  // the anchor matching (anchors x ground-truth boxes) are negligible beside it.
  const double logits = positions * anchors * classes;
  w.train_forward_ops = w.ops;
  add_op(w.train_forward_ops, "loss.focal", OpKind::reduce, Phase::forward, 20 * logits, 0, logits, 1, 1, 0);
  w.train_activation_elems_per_sample = saved_activation_elems(w.train_forward_ops);
  return w;
}

namespace {

struct Yolo {
  Net& net;
  double width;
  double depth;
  double max_channels;
  double ch(double c) const { return std::ceil(std::min(c, max_channels) * width / 8) * 8; }
  int n(int base) const { return std::max(int(std::lround(base * depth)), 1); }
  Shape conv(const std::string& name, Shape in, double c, int k, int s = 1) {
    return net.conv_bn_act(name, in, c, k, s, 1, 4);  // SiLU ~ 4 FLOPs per element
  }
  // C2f: split, n bottlenecks, concat, 1x1 fuse (Ultralytics nn/modules/block.py).
  Shape c2f(const std::string& name, Shape in, double c2, int repeats, bool shortcut) {
    double c = std::floor(c2 * 0.5);
    Shape x = conv(name + ".cv1", in, 2 * c, 1);
    Shape y{c, x.h, x.w};
    for (int i = 0; i < repeats; ++i) {
      std::string b = name + ".m" + std::to_string(i);
      Shape t = conv(b + ".cv1", y, c, 3);
      t = conv(b + ".cv2", t, c, 3);
      if (shortcut) net.add(b + ".add", t);
      y = t;
    }
    net.concat(name + ".concat", Shape{2 * c, x.h, x.w}, Shape{repeats * c, x.h, x.w});
    return conv(name + ".cv2", Shape{(2 + repeats) * c, x.h, x.w}, c2, 1);
  }
  Shape sppf(const std::string& name, Shape in, double c2) {
    double c = std::floor(in.c / 2);
    Shape x = conv(name + ".cv1", in, c, 1);
    for (int i = 0; i < 3; ++i) net.max_pool(name + ".pool" + std::to_string(i), x, 5, 1);
    net.concat(name + ".concat", Shape{2 * c, x.h, x.w}, Shape{2 * c, x.h, x.w});
    return conv(name + ".cv2", Shape{4 * c, x.h, x.w}, c2, 1);
  }
};

}  // namespace

// YOLOv8 (Ultralytics cfg/models/v8/yolov8.yaml) scaled by depth/width.
std::optional<Workload> build_yolov8_yaml(YamlMap& m, const BuildOptions& opts) {
  std::size_t before = m.diagnostics()->errors.size();
  double depth = m.num("depth_multiple", true, 0.01, 10).value_or(1);
  double width = m.num("width_multiple", true, 0.01, 10).value_or(1);
  double max_ch = double(m.integer("max_channels", false, 8, 1 << 16).value_or(1024));
  int classes = int(m.integer("classes", false, 1, 1 << 16).value_or(80));
  int reg_max = int(m.integer("reg_max", false, 1, 64).value_or(16));
  int image = int(m.integer("image_size", false, 32, 1 << 16).value_or(640));
  m.finish();
  if (m.diagnostics()->errors.size() > before) return std::nullopt;
  if (opts.image_size) image = *opts.image_size;
  Workload w;
  Net net(w.ops, Phase::forward);
  Yolo y{net, width, depth, max_ch};
  Shape x = y.conv("b0", {3, double(image), double(image)}, y.ch(64), 3, 2);
  x = y.conv("b1", x, y.ch(128), 3, 2);
  x = y.c2f("b2", x, y.ch(128), y.n(3), true);
  x = y.conv("b3", x, y.ch(256), 3, 2);
  Shape p3 = y.c2f("b4", x, y.ch(256), y.n(6), true);
  x = y.conv("b5", p3, y.ch(512), 3, 2);
  Shape p4 = y.c2f("b6", x, y.ch(512), y.n(6), true);
  x = y.conv("b7", p4, y.ch(1024), 3, 2);
  x = y.c2f("b8", x, y.ch(1024), y.n(3), true);
  Shape p5 = y.sppf("b9", x, y.ch(1024));
  Shape u = net.upsample("h10", p5, 2);
  Shape h12 = y.c2f("h12", net.concat("h11", u, p4), y.ch(512), y.n(3), false);
  u = net.upsample("h13", h12, 2);
  Shape out3 = y.c2f("h15", net.concat("h14", u, p3), y.ch(256), y.n(3), false);
  x = y.conv("h16", out3, y.ch(256), 3, 2);
  Shape out4 = y.c2f("h18", net.concat("h17", x, h12), y.ch(512), y.n(3), false);
  x = y.conv("h19", out4, y.ch(512), 3, 2);
  Shape out5 = y.c2f("h21", net.concat("h20", x, p5), y.ch(1024), y.n(3), false);
  // Detect head: box branch (4 x reg_max distribution bins) and class branch per level.
  double c2 = std::max({16.0, std::floor(out3.c / 4), 4.0 * reg_max});
  double c3 = std::max(out3.c, double(std::min(classes, 100)));
  double anchors = 0;
  int level = 3;
  for (Shape in : {out3, out4, out5}) {
    std::string l = "detect.P" + std::to_string(level++);
    Shape b = y.conv(l + ".box1", in, c2, 3);
    b = y.conv(l + ".box2", b, c2, 3);
    net.conv(l + ".box_out", b, 4.0 * reg_max, 1, 1, 1, true);
    Shape c = y.conv(l + ".cls1", in, c3, 3);
    c = y.conv(l + ".cls2", c, c3, 3);
    net.conv(l + ".cls_out", c, classes, 1, 1, 1, true);
    anchors += in.h * in.w;
  }
  // Distribution focal loss decoding: a fixed 1x1 conv over reg_max bins (16 weights).
  add_op(w.ops, "detect.dfl", OpKind::conv, Phase::forward, 2.0 * reg_max * 4 * anchors, reg_max,
         4.0 * reg_max * anchors, 4 * anchors);
  finish_cnn(w, image, "");
  return w;
}

}  // namespace rooftop::workload::detail
