#!/usr/bin/env bash
# ONNX files work wherever a model id does: `workload show` of a ResNet-50
# ONNX matches the zoo's resnet50 within 2 %, `predict` runs on it, and
# broken or hostile files (cyclic, truncated, missing weights, over 2 GiB)
# exit 2 with a message naming the file.
# labels: onnx
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
source "$SRC/tests/e2e/onnx_lib.bash"

"$ROOFTOP" workload show "$M/resnet50.onnx" --json > onnx.json
"$ROOFTOP" workload show resnet50 --json > zoo.json
python3 - onnx.json zoo.json <<'PY'
import json, sys
o, z = (json.load(open(f)) for f in sys.argv[1:3])
ratio = o["flops"] / z["flops"]
assert abs(ratio - 1) < 0.02, f"ONNX {o['flops']:.4g} vs zoo {z['flops']:.4g} FLOPs"
assert o["params"] == 25557032, o["params"]
print(f"resnet50.onnx: {o['flops']:.4g} FLOPs, zoo {z['flops']:.4g} (ratio {ratio:.4f})")
PY

"$ROOFTOP" predict --model "$M/resnet50.onnx" --accelerator nvidia-t4 --batch 8 --json > predict.json
python3 -c 'import json; p = json.load(open("predict.json")); assert p["throughput"]["value"] > 0 and p["batch"] == 8, p'

expect_2 "cyclic.onnx: .*cycle" workload show "$M/cyclic.onnx"
expect_2 "truncated.onnx: .*malformed or truncated" workload show "$M/truncated.onnx"
expect_2 "missing_weights.onnx: external data file 'does_not_exist.bin'" predict --model "$M/missing_weights.onnx" --accelerator nvidia-t4
truncate -s 3G big.onnx
expect_2 "big.onnx: .*2 GiB limit.*external data" workload show big.onnx
rm -f big.onnx
echo "ok"
