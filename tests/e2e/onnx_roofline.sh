#!/usr/bin/env bash
# `rooftop roofline`: per-operator roofline of an ONNX ResNet-50 and of a
# BERT layer (shaped with --input), fusion candidates with the time they
# save, the SVG chart with one point per operator; the zoo works too; bad
# input exits 2.
# labels: onnx
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
source "$SRC/tests/e2e/onnx_lib.bash"

"$ROOFTOP" roofline "$M/resnet50.onnx" --accelerator nvidia-t4 --precision fp16 --svg r.svg --json > r.json
python3 - r.json r.svg <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
svg = open(sys.argv[2]).read()
ops = r["ops"]
assert len(ops) > 100 and r["unsupported_ops"] == [], (len(ops), r["unsupported_ops"])
assert abs(sum(o["share"] for o in ops) - 1) < 1e-6
assert {o["bound"] for o in ops} >= {"compute", "memory"}, "ResNet-50 on a T4 has both kinds"
convs = [o for o in ops if o["op_type"] == "Conv"]
assert len(convs) == 53 and all(o["intensity_flop_per_byte"] > 0 for o in convs)
f = r["fusion"]
assert len(f["candidates"]) >= 50 and f["time_saved_s"] > 0, f["time_saved_s"]
assert any(c["chain"][-1].startswith("relu") for c in f["candidates"])
assert svg.lstrip().startswith("<svg") and svg.count("<circle") >= len(convs), "one point per operator"
print(f"{len(ops)} ops, {len(f['candidates'])} fusion candidates save {f['time_saved_s']*1e6:.0f} us of {r['total']['time_s']*1e6:.0f} us")
PY

"$ROOFTOP" roofline "$M/bert_layer.onnx" --accelerator nvidia-a100-sxm4-80gb --input hidden=8x384x768 > bert.txt
grep -q "roofline of bert_layer on nvidia-a100-sxm4-80gb, .*batch 8" bert.txt
grep -Eq "^scores +MatMul +attention" bert.txt
grep -q "fusion: .* candidates would save" bert.txt

"$ROOFTOP" roofline resnet50 --accelerator nvidia-t4 --top 5 > zoo.txt
grep -q "top 5 of" zoo.txt

expect_2 "dimension 1 \('seq'\) is symbolic" roofline "$M/bert_layer.onnx" --accelerator nvidia-t4
expect_2 "--input: .*did you mean.*hidden" roofline "$M/bert_layer.onnx" --accelerator nvidia-t4 --input hiden=1x8x768
expect_2 "--input: .*not NAME=DIMxDIM" roofline "$M/bert_layer.onnx" --accelerator nvidia-t4 --input hidden
expect_2 "--precision: .*nvidia-t4.* has no fp8" roofline resnet50 --accelerator nvidia-t4 --precision fp8
expect_2 "did you mean" roofline resnet50 --accelerator nvidia-t5
echo "ok"
