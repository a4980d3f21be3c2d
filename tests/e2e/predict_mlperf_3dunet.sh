#!/usr/bin/env bash
# The MLPerf Inference 3d-unet benchmark end to end: the zoo lists it,
# predict prices it offline and single-stream, validate maps the MLPerf
# model ids (3d-unet-99, 3d-unet-99.9) to it, and a window edge the network
# cannot halve down to its bottleneck is refused with exit code 2.
# labels: workload predict validate
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

"$ROOFTOP" workload list > list.txt
grep -q "^3d-unet " list.txt

for scenario in offline single-stream; do
  "$ROOFTOP" predict --model 3d-unet --accelerator nvidia-h100-sxm5-80gb --precision int8 --scenario "$scenario" \
    --json > "$scenario.json"
done
python3 - <<'PY'
import json
for scenario in ("offline", "single-stream"):
    d = json.load(open(scenario + ".json"))
    assert d["model"] == "3d-unet" and d["precision"] == "int8", d
    assert d["throughput"]["unit"] == "samples/s", d["throughput"]
    assert d["throughput"]["value"] > 0 and d["latency_s"] > 0, d
single = json.load(open("single-stream.json"))
assert single["batch"] == 1, single["batch"]
# One volume at a time: the latency is the time of one sample.
assert abs(single["latency_s"] * single["throughput"]["value"] - 1) < 1e-6, single
PY

header=$(head -1 "$SRC/tests/data/validation/measurements.csv")
{
  echo "$header"
  echo 'T-1,nvidia-h100-sxm5-80gb,3d-unet-99,mlperf_inference,H100,NVIDIA H100,1,NVIDIA,TensorRT,"3D-UNet (3d-unet-99)",infer,Offline,INT8,,samples/s,5,samples/s,5,no,test row,'
  echo 'T-2,nvidia-jetson-agx-orin-64gb,3d-unet-99.9,edge_inference,Orin,NVIDIA Jetson AGX Orin,1,NVIDIA,TensorRT,"3D-UNet (3d-unet-99.9)",infer,SingleStream,INT8,1,90th percentile latency,4000,ms,4000,no,test row,'
} > rows.csv
"$ROOFTOP" validate rows.csv --json > validate.json
python3 - <<'PY'
import json
d = json.load(open("validate.json"))
assert d["predicted_rows"] == 2, d
for r in d["rows"]:
    assert r["reason"] is None and r["predicted"] > 0, r
    assert "predict 3d-unet int8" in r["method"], r
PY

set +e
"$ROOFTOP" workload show 3d-unet --image-size 100 2> bad.err
rc=$?
set -e
[ "$rc" -eq 2 ]
grep -q -- "--image-size" bad.err
