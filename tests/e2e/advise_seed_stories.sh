#!/usr/bin/env bash
# The example scenarios (data/scenarios/), each checked for
# the outcome it illustrates, through `rooftop advise --json`.
# labels: advise
# timeout: 300
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
run() { "$ROOFTOP" advise "$SRC/data/scenarios/$1.yaml" --json --top 50 > "$1.json"; }
check() {  # check NAME PYTHON-EXPRESSIONS (each must be true; j = the JSON)
  local name=$1
  shift
  python3 - "$name.json" "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c, rej = j["candidates"], {r["accelerator"]: r["reason"] for r in j["rejected"]}
by = {x["accelerator"]: x for x in c}
for expr in sys.argv[2:]:
    if not eval(expr):
        sys.exit(f"{sys.argv[1]}: failed: {expr}")
PY
}

# 8 x A100 bought for a job that needs a fraction of it.
run dlrm-overbought
check dlrm-overbought 'j["baseline"]["count"] == 8' 'j["baseline"]["utilisation"] < 0.35' \
  'j["baseline"]["scores"]["compute_adequacy"] < 0.5' \
  'any(x["count"] < 8 for x in c)' 'all(x["train"]["time_to_train_s"] <= 12 * 3600 for x in c)' \
  'by["nvidia-a100-sxm4-80gb"]["count"] < 8' \
  'str(by["nvidia-a100-sxm4-80gb"]["count"]) + " x NVIDIA A100 SXM4 80GB (bf16) would have been enough" in j["answer"]' \
  '"against the 8 you have" in j["answer"]'

# Small-batch BERT: memory-bound, bandwidth decides; both priced on cloud rates.
run bert-t4-vs-v100
check bert-t4-vs-v100 'set(by) <= {"nvidia-t4", "nvidia-v100-sxm2-32gb"}' 'all(x["priced"] for x in c)' \
  'all(x["latency_s"] <= 0.02 for x in c)' 'all(x["cost"]["cloud_usd"] > 0 for x in c)'

# CT: FP16 allowed next to FP32; the risk is stated.
run ct-fp16
check ct-fp16 'c[0]["precision"] == "fp16"' '"65504" in c[0]["precision_risk"]' \
  'all(x["throughput"]["value"] >= 4000 for x in c)'

# Factory edge: the cloud round trip rules the datacenter out.
run factory-edge
check factory-edge 'len(c) > 0' 'all(x["accelerator"].startswith("nvidia-jetson") for x in c)' \
  '"network round trip" in rej["nvidia-t4"]' 'by["nvidia-jetson-agx-orin-64gb"]["priced"]'

# Llama-2-70B: a copy needs several 80 GB devices at 16 bits.
run llama2-70b-serving
check llama2-70b-serving 'len(c) > 0' 'all(x["latency_s"] <= 20 for x in c)' \
'by["nvidia-a100-sxm4-80gb"]["count"] >= 2' 'all(x["replica_devices"] >= 2 for x in c if x["precision"] in ("bf16", "fp16") and x["accelerator"].endswith("80gb"))'

# Autonomous-driving training cluster: a split per part within the deadline and power.
run ad-training-cluster
check ad-training-cluster 'len(c) > 0' 'all(x["train"]["time_to_train_s"] <= 48 * 3600 for x in c)' \
  'all(x["power_w"] is None or x["power_w"] <= 250000 for x in c)' 'all(x["count"] <= 256 for x in c)'

# The required ecosystem decides CUDA vs Ascend, and flips with it.
run cuda-vs-ascend
check cuda-vs-ascend 'len(c) > 0' 'all(x["accelerator"].startswith("huawei-") for x in c)' \
  '"no mindspore support" in rej["nvidia-h100-sxm5-80gb"]'
sed -e 's/frameworks: \[mindspore\]/frameworks: [pytorch]/' -e 's/custom_ops: \[ascend-c\]/custom_ops: [cuda]/' \
  "$SRC/data/scenarios/cuda-vs-ascend.yaml" > cuda.yaml
"$ROOFTOP" advise cuda.yaml --json --top 50 > cuda.json
check cuda 'len(c) > 0' 'all(x["accelerator"].startswith("nvidia-") for x in c)'
echo ok
