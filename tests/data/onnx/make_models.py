#!/usr/bin/env python3
"""Writes the ONNX models rooftop's ONNX tests read (python3-onnx, numpy).

    make_models.py OUTDIR

Real topologies, tiny files: the big networks (ResNet-50 v1.5, a BERT-Base
encoder layer) keep their weights as ONNX *external data* in a file next to
the model, and that file is created sparse (truncate), so it occupies no disk
blocks while its size matches every declared offset and length. rooftop only
needs the weights' shapes, never their values, so counting is exact.

Besides those: one-operator models with hand-checkable costs, and broken or
hostile files (cyclic graph, missing input, negative or absurd shapes,
overflowing dimension products, truncated and garbage bytes, external data
that escapes the model folder or is missing).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OPSET = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
F = TensorProto.FLOAT


class External:
    """Float initializers stored in one sparse external-data file."""

    def __init__(self, location):
        self.location = location
        self.offset = 0
        self.inits = []

    def add(self, name, dims):
        t = TensorProto()
        t.name = name
        t.data_type = F
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        length = int(np.prod(dims)) * 4
        for k, v in (("location", self.location), ("offset", str(self.offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += (length + 4095) // 4096 * 4096
        self.inits.append(t)
        return name

    def write(self, outdir):
        with open(os.path.join(outdir, self.location), "wb") as f:
            f.truncate(self.offset)


def save(model, outdir, name):
    onnx.save(model, os.path.join(outdir, name))


def model(nodes, inputs, outputs, inits, name="g", opset=None):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    return helper.make_model(g, opset_imports=opset or OPSET, producer_name="rooftop-tests")


def resnet50(outdir):
    """ResNet-50 v1.5 (torchvision topology: stride on the 3x3 conv), batch symbolic."""
    ext = External("resnet50.weights")
    nodes = []
    n = [0]

    def uid(p):
        n[0] += 1
        return f"{p}{n[0]}"

    def conv_bn(x, cin, cout, k, stride, relu):
        c = uid("conv")
        w = ext.add(c + ".w", [cout, cin, k, k])
        nodes.append(helper.make_node("Conv", [x, w], [c], name=c, kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4))
        b = uid("bn")
        params = [ext.add(f"{b}.{p}", [cout]) for p in ("scale", "bias", "mean", "var")]
        nodes.append(helper.make_node("BatchNormalization", [c] + params, [b], name=b))
        if not relu:
            return b
        r = uid("relu")
        nodes.append(helper.make_node("Relu", [b], [r], name=r))
        return r

    x = conv_bn("input", 3, 64, 7, 2, True)
    nodes.append(helper.make_node("MaxPool", [x], ["pool1"], name="pool1", kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    x, cin = "pool1", 64
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
        for i in range(blocks):
            stride = 2 if (i == 0 and stage > 0) else 1
            y = conv_bn(x, cin, width, 1, 1, True)
            y = conv_bn(y, width, width, 3, stride, True)
            y = conv_bn(y, width, width * 4, 1, 1, False)
            short = conv_bn(x, cin, width * 4, 1, stride, False) if i == 0 else x
            a = uid("add")
            nodes.append(helper.make_node("Add", [y, short], [a], name=a))
            r = uid("relu")
            nodes.append(helper.make_node("Relu", [a], [r], name=r))
            x, cin = r, width * 4
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    w, b = ext.add("fc.w", [1000, 2048]), ext.add("fc.b", [1000])
    nodes.append(helper.make_node("Gemm", ["flat", w, b], ["logits"], name="fc", transB=1))
    m = model(nodes, [helper.make_tensor_value_info("input", F, ["batch", 3, 224, 224])],
              [helper.make_tensor_value_info("logits", F, ["batch", 1000])], ext.inits, "resnet50-v1.5")
    save(m, outdir, "resnet50.onnx")
    ext.write(outdir)


def bert_layer(outdir, hidden=768, heads=12, ffn=3072):
    """One BERT-Base encoder layer (post-norm, GELU), input [batch, seq, hidden] with symbolic seq."""
    ext = External("bert_layer.weights")
    hd = hidden // heads
    consts = [
        helper.make_tensor("split_heads", TensorProto.INT64, [4], [0, 0, heads, hd]),
        helper.make_tensor("merge_heads", TensorProto.INT64, [3], [0, 0, hidden]),
        helper.make_tensor("scale", F, [], [float(np.sqrt(hd))]),
        helper.make_tensor("sqrt2", F, [], [float(np.sqrt(2.0))]),
        helper.make_tensor("one", F, [], [1.0]),
        helper.make_tensor("half", F, [], [0.5]),
    ]
    nodes = []

    def linear(x, name, cin, cout):
        w, b = ext.add(name + ".w", [cin, cout]), ext.add(name + ".b", [cout])
        nodes.append(helper.make_node("MatMul", [x, w], [name + ".mm"], name=name))
        nodes.append(helper.make_node("Add", [name + ".mm", b], [name + ".out"], name=name + ".bias"))
        return name + ".out"

    def layernorm(x, name):
        g, b = ext.add(name + ".g", [hidden]), ext.add(name + ".b", [hidden])
        nodes.append(helper.make_node("LayerNormalization", [x, g, b], [name], name=name, axis=-1))
        return name

    for p, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        y = linear("hidden", p, hidden, hidden)
        nodes.append(helper.make_node("Reshape", [y, "split_heads"], [p + ".4d"], name=p + ".split"))
        nodes.append(helper.make_node("Transpose", [p + ".4d"], [p + ".t"], name=p + ".transpose", perm=perm))
    nodes += [
        helper.make_node("MatMul", ["q.t", "k.t"], ["scores"], name="scores"),
        helper.make_node("Div", ["scores", "scale"], ["scaled"], name="scale_scores"),
        helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v.t"], ["context"], name="context"),
        helper.make_node("Transpose", ["context"], ["context.t"], name="context.transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["context.t", "merge_heads"], ["context.3d"], name="context.merge"),
    ]
    o = linear("context.3d", "attn_out", hidden, hidden)
    nodes.append(helper.make_node("Add", [o, "hidden"], ["res1"], name="residual1"))
    h = layernorm("res1", "ln1")
    f = linear(h, "ffn_up", hidden, ffn)
    nodes += [
        helper.make_node("Div", [f, "sqrt2"], ["g.div"], name="gelu.div"),
        helper.make_node("Erf", ["g.div"], ["g.erf"], name="gelu.erf"),
        helper.make_node("Add", ["g.erf", "one"], ["g.add"], name="gelu.add"),
        helper.make_node("Mul", [f, "g.add"], ["g.mul"], name="gelu.mul"),
        helper.make_node("Mul", ["g.mul", "half"], ["gelu"], name="gelu.half"),
    ]
    d = linear("gelu", "ffn_down", ffn, hidden)
    nodes.append(helper.make_node("Add", [d, h], ["res2"], name="residual2"))
    out = layernorm("res2", "ln2")
    m = model(nodes, [helper.make_tensor_value_info("hidden", F, ["batch", "seq", hidden])],
              [helper.make_tensor_value_info(out, F, ["batch", "seq", hidden])], consts + ext.inits, "bert-layer")
    save(m, outdir, "bert_layer.onnx")
    ext.write(outdir)


def small(outdir):
    """One-operator models with costs a test can check by hand (inline weights)."""
    def w(name, dims):
        return helper.make_tensor(name, F, dims, np.zeros(int(np.prod(dims)), dtype=np.float32))

    def one(fname, node, inputs, outputs, inits=()):
        save(model([node], inputs, outputs, list(inits)), outdir, fname)

    vi = helper.make_tensor_value_info
    one("conv.onnx", helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        [vi("x", F, ["n", 8, 16, 16])], [vi("y", F, ["n", 4, 16, 16])], [w("w", [4, 8, 3, 3]), w("b", [4])])
    one("group_conv.onnx", helper.make_node("Conv", ["x", "w"], ["y"], name="dw", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=8),
        [vi("x", F, [1, 8, 16, 16])], [vi("y", F, [1, 8, 16, 16])], [w("w", [8, 1, 3, 3])])
    one("conv_transpose.onnx", helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up", kernel_shape=[2, 2], strides=[2, 2]),
        [vi("x", F, [1, 8, 16, 16])], [vi("y", F, [1, 4, 32, 32])], [w("w", [8, 4, 2, 2])])
    one("gemm.onnx", helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1),
        [vi("x", F, ["n", 64])], [vi("y", F, ["n", 32])], [w("w", [32, 64]), w("b", [32])])
    one("matmul.onnx", helper.make_node("MatMul", ["a", "b"], ["y"], name="bmm"),
        [vi("a", F, [2, 3, 5, 7]), vi("b", F, [2, 3, 7, 11])], [vi("y", F, [2, 3, 5, 11])])
    one("einsum.onnx", helper.make_node("Einsum", ["q", "k"], ["s"], name="qk", equation="bhqd,bhkd->bhqk"),
        [vi("q", F, [1, 4, 16, 8]), vi("k", F, [1, 4, 32, 8])], [vi("s", F, [1, 4, 16, 32])])
    one("embedding.onnx", helper.make_node("Gather", ["table", "ids"], ["e"], name="embed"),
        [vi("ids", TensorProto.INT64, ["n", 10])], [vi("e", F, ["n", 10, 16])], [w("table", [1000, 16])])
    save(model([helper.make_node("Relu", ["boxes"], ["b"], name="relu"),
                helper.make_node("NonMaxSuppression", ["b", "scores"], ["sel"], name="nms")],
               [vi("boxes", F, [1, 100, 4]), vi("scores", F, [1, 1, 100])], [vi("sel", TensorProto.INT64, [None, 3])], []),
         outdir, "unknown_op.onnx")
    # com.microsoft Attention: hidden 64, 4 heads, sequence 16.
    save(model([helper.make_node("Attention", ["x", "w", "b"], ["y"], name="attn", domain="com.microsoft", num_heads=4)],
               [vi("x", F, [2, 16, 64])], [vi("y", F, [2, 16, 64])], [w("w", [64, 192]), w("b", [192])]),
         outdir, "ms_attention.onnx")
    # Conv -> BatchNorm -> Relu -> (Add with a second branch): a fusion chain.
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["bn"], name="bn"),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("Add", ["r", "x"], ["y"], name="residual"),
    ]
    save(model(nodes, [vi("x", F, [1, 64, 56, 56])], [vi("y", F, [1, 64, 56, 56])],
               [w("w", [64, 64, 1, 1])] + [w(p, [64]) for p in ("s", "bb", "m", "v")]), outdir, "conv_bn_relu.onnx")


def hostile(outdir):
    """Broken and hostile files: each must give a clear error, never a crash."""
    vi = helper.make_tensor_value_info
    relu = lambda i, o: helper.make_node("Relu", [i], [o], name=o)
    save(model([relu("x", "a"), helper.make_node("Add", ["a", "c"], ["b"], name="b"), relu("b", "c")],
               [vi("x", F, [1, 4])], [vi("c", F, [1, 4])], []), outdir, "cyclic.onnx")
    save(model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")], [vi("x", F, [1, 4])], [vi("y", F, [1, 4])], []),
         outdir, "missing_input.onnx")
    save(model([relu("x", "y")], [vi("x", F, [1, -5])], [vi("y", F, [1, -5])], []), outdir, "negative_dim.onnx")
    save(model([relu("x", "y")], [vi("x", F, [1, 1 << 45])], [vi("y", F, [1, 1 << 45])], []), outdir, "absurd_dim.onnx")
    big = 1 << 30
    save(model([relu("x", "y")], [vi("x", F, [big, big, big])], [vi("y", F, [big, big, big])], []), outdir, "overflow.onnx")
    save(model([relu("x", "y")], [vi("x", F, [1, "seq"])], [vi("y", F, [1, "seq"])], []), outdir, "symbolic.onnx")
    t = TensorProto(name="w", data_type=F, dims=[4], data_location=TensorProto.EXTERNAL)
    for k, v in (("location", "../../etc/passwd"), ("offset", "0"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    save(model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", F, [1, 4])], [vi("y", F, [1, 4])], [t]),
         outdir, "traversal.onnx")
    t.external_data[0].value = "does_not_exist.bin"
    save(model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", F, [1, 4])], [vi("y", F, [1, 4])], [t]),
         outdir, "missing_weights.onnx")
    # Window operators with sizes ONNX requires positive: its shape inference
    # divides by the stride, so a stride of 0 would kill the process (SIGFPE).
    x, w = vi("x", F, [1, 3, 8, 8]), helper.make_tensor("w", F, [4, 3, 3, 3], np.zeros(108, dtype=np.float32))
    y = vi("y", F, None)
    conv = lambda **a: helper.make_node("Conv", ["x", "w"], ["y"], name="conv1", **a)
    save(model([conv(strides=[0, 0])], [x], [y], [w]), outdir, "zero_stride.onnx")
    save(model([conv(group=0)], [x], [y], [w]), outdir, "zero_group.onnx")
    save(model([helper.make_node("MaxPool", ["x"], ["y"], name="pool1", kernel_shape=[0, 2])], [x], [y], []), outdir,
         "zero_kernel.onnx")
    # A 3-D input with a 4-D weight and no kernel_shape: libonnx read the
    # input's spatial dimensions at the weight's rank, out of bounds.
    save(model([conv()], [vi("x", F, [1, 3, 8])], [y], [w]), outdir, "conv_rank_mismatch.onnx")
    # A weight computed in the graph: its shape is unknown before inference.
    save(model([helper.make_node("Relu", ["w"], ["wr"], name="relu"),
                helper.make_node("Conv", ["x", "wr"], ["y"], name="conv1")], [x], [y], [w]), outdir,
         "conv_computed_weight.onnx")
    with open(os.path.join(outdir, "resnet50.onnx"), "rb") as f:
        data = f.read()
    with open(os.path.join(outdir, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(outdir, "garbage.onnx"), "wb") as f:
        f.write(bytes(range(256)) * 8)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    resnet50(outdir)
    bert_layer(outdir)
    small(outdir)
    hostile(outdir)


if __name__ == "__main__":
    main()
