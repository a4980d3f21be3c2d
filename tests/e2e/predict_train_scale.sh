#!/usr/bin/env bash
# Training at scale: GPT-3 175B on 1,024 H100s keeps tensor parallel inside
# the 8-GPU NVLink domain and names the scale-out network; every row of the
# MLPerf Training results is predicted (time to train from the reference
# convergence points); a searched plan fed back with --plan reproduces it.
# labels: predict model
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

"$ROOFTOP" predict --model gpt-3-175b --accelerator h100 --count 1024 --task train --json > gpt3.json
python3 - <<'PY'
import json
d = json.load(open("gpt3.json"))
assert d["parallelism"]["tensor"] <= 8, d["parallelism"]
assert "ConnectX-7" in d["communication"]["link"], d["communication"]
assert d["communication"]["scale_out"], d["communication"]
PY
plan=$(python3 -c 'import json; print(json.load(open("gpt3.json"))["plan"])')
"$ROOFTOP" predict --model gpt-3-175b --accelerator h100 --count 1024 --task train --plan "$plan" --json > again.json
python3 - <<'PY'
import json
a, b = json.load(open("gpt3.json")), json.load(open("again.json"))
for k in ("latency_s",):
    assert abs(a[k] - b[k]) <= 1e-9 * a[k], (a[k], b[k])
assert abs(a["throughput"]["value"] - b["throughput"]["value"]) <= 1e-9 * a["throughput"]["value"]
PY

# A CNN's batch norms (docs/model.md#batch-norm): on a GPU the training
# prediction names their second pass and the cache that can hold it; the
# search keeps the whole per-GPU batch in one micro-batch, as MLPerf's
# ResNet-50 submissions run it. A TPU and a transformer carry no such line.
"$ROOFTOP" predict --model resnet50 --accelerator a100-80gb --count 8 --task train --global-batch 3264 --json > rn50.json
"$ROOFTOP" predict --model resnet50 --accelerator tpu-v4 --count 8 --task train --global-batch 3264 --json > rn50tpu.json
"$ROOFTOP" predict --model bert-large --accelerator a100-80gb --count 8 --task train --global-batch 448 --json > bert.json
python3 - <<'PY'
import json
d = json.load(open("rn50.json"))
bn = d["assumptions"]["batch_norm"]
assert "two passes" in bn["value"] and "40.00 MiB last-level cache" in bn["value"], bn
assert bn["source"].startswith("docs/model.md#batch-norm"), bn
assert d["plan"].startswith("dp=8,") and ",mb=408,ga=1," in d["plan"], d["plan"]
for f in ("rn50tpu.json", "bert.json"):
    assert "batch_norm" not in json.load(open(f))["assumptions"], f
PY

"$ROOFTOP" predict --model bert-large --accelerator a100-80gb --count 8 --task train --seq 512 --global-batch 448 --to-target --json > ttt.json
python3 - <<'PY'
import json
t = json.load(open("ttt.json"))["time_to_train"]
assert t["global_batch"] == 448 and t["minutes"] > 0, t
# BERT evaluates every 150,000 samples at batch 448 (the rules' formula): samples / 150,000 evaluations, timed.
assert abs(t["evaluations"] - t["samples"] / 150000) < 1e-9, t
assert t["eval_s"] > 0 and abs(t["minutes"] * 60 - (t["train_s"] + t["eval_s"])) < 1e-6 * t["minutes"] * 60, t
PY
# fp8 training runs the matmuls in fp8 and keeps tensors at bf16: on one
# plan the memory is bf16's, and the speed-up is what NVIDIA publishes for
# it, not the 2x of the fp8 peak. The plan and the step times (bf16 8.309 s,
# fp8 5.626 s on 128 H100s) are NVIDIA dgxc-benchmarking's GPT-3 175B recipe
# (nemo_megatron/README_175b.md); the model stays within 25 % of both.
plan=dp=4,tp=4,pp=8,vp=12,mb=1,ga=64,zero=1
"$ROOFTOP" predict --model gpt-3-175b --accelerator h100 --count 128 --task train --plan $plan --json > bf16.json
"$ROOFTOP" predict --model gpt-3-175b --accelerator h100 --count 128 --task train --plan $plan --precision fp8 --json > fp8.json
python3 - <<'PY'
import json
b, f = json.load(open("bf16.json")), json.load(open("fp8.json"))
assert f["precision"] == "fp8" and f["precisions"]["matmuls"] == "fp8" and f["precisions"]["weights"] == "bf16", f["precisions"]
assert f["memory"]["required_bytes"] == b["memory"]["required_bytes"], (f["memory"], b["memory"])
assert abs(b["latency_s"] / 8.309 - 1) < 0.25 and abs(f["latency_s"] / 5.626 - 1) < 0.25, (b["latency_s"], f["latency_s"])
speedup = b["latency_s"] / f["latency_s"]
assert abs(speedup / (8.309 / 5.626) - 1) < 0.1, speedup
PY
# Llama 3.1 pretraining: 405B with the benchmark's 32,000-token tokenizer,
# three timed evaluations at 1,152 (17 points, the first 14 skipped); 8B
# every 12,288 sequences.
"$ROOFTOP" predict --model llama-3.1-405b --accelerator h100 --count 512 --task train --global-batch 1152 --to-target --json > l405.json
"$ROOFTOP" predict --model llama-3.1-8b --accelerator b200 --count 8 --task train --global-batch 32 --to-target --json > l8.json
python3 - <<'PY'
import json
big, small = json.load(open("l405.json")), json.load(open("l8.json"))
t = big["time_to_train"]
assert t["samples"] == 313344 and t["evaluations"] == 3 and "llama31_405b" in t["how"], t
assert "32000-token vocabulary" in big["assumptions"]["training_recipe"]["value"], big["assumptions"]
t = small["time_to_train"]
assert abs(t["samples"] - 178858.667) < 1e-3 and abs(t["evaluations"] - t["samples"] / 12288) < 1e-9, t
assert t["minutes"] > 0 and abs(t["minutes"] * 60 - (t["train_s"] + t["eval_s"])) < 1e-6 * t["minutes"] * 60, t
PY
# Llama-2-70B to its MLPerf target is the LoRA benchmark: predict prices the
# same recipe as validate's row for 8 x H100 at global batch 8, and --lora
# alone (no target) gives the same step; --lora needs --task train.
"$ROOFTOP" predict --model llama-2-70b --accelerator h100 --count 8 --task train --global-batch 8 --to-target --json > lora.json
"$ROOFTOP" predict --model llama-2-70b --accelerator h100 --count 8 --task train --global-batch 8 --seq 8192 --lora --json > lora_flag.json
"$ROOFTOP" predict --model llama-2-70b --accelerator h100 --count 8 --task train --global-batch 8 --json > full.json 2>&1 || true
python3 - <<'PY'
import json
a, b = json.load(open("lora.json")), json.load(open("lora_flag.json"))
assert a["model"] == "llama-2-70b (LoRA)" and a["time_to_train"]["minutes"] > 0, a["model"]
assert abs(a["latency_s"] - b["latency_s"]) <= 1e-9 * a["latency_s"], (a["latency_s"], b["latency_s"])
assert b["memory"]["gradients_bytes"] == 0, b["memory"]   # frozen weights: no gradients
PY
grep -q "does not fit" full.json   # full fine-tuning of 70B does not fit 8 x 80 GB
rc=0; "$ROOFTOP" predict --model llama-2-70b --accelerator h100 --lora 2> err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q "needs --task train" err.txt
rc=0; "$ROOFTOP" predict --model gpt-3-175b --accelerator h100 --count 64 --task train --global-batch 1536 --lora --to-target 2> err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q "gpt3 benchmark trains every weight" err.txt

# A vendor training-throughput row (tokens/s per accelerator at a global
# batch) is predicted as predict's training throughput divided by the count.
python3 - "$SRC/tests/data/validation/training.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = {k: "" for k in rows[0]}
r.update(id="V-1", accelerator_id="nvidia-h100-sxm5-80gb", model_id="llama-2-7b", category="vendor_train_throughput",
         accelerator_count="8", task="train", scenario="pretraining", batch_size="128", metric="training throughput",
         metric_value="10000", unit="tokens/s")
w = csv.DictWriter(open("vendor.csv", "w"), fieldnames=list(rows[0])); w.writeheader(); w.writerow(r)
PY
"$ROOFTOP" validate vendor.csv --json > vendor.json
"$ROOFTOP" predict --model llama-2-7b --accelerator h100 --count 8 --task train --global-batch 128 --json > vendor_predict.json
python3 - <<'PY'
import json
v, p = json.load(open("vendor.json")), json.load(open("vendor_predict.json"))
row = v["rows"][0]
assert row["predicted"] is not None, row
assert p["throughput"]["unit"] == "tokens/s", p["throughput"]
assert abs(row["predicted"] - p["throughput"]["value"] / 8) <= 1e-9 * row["predicted"], (row["predicted"], p["throughput"]["value"])
assert [g["group"] for g in v["groups"]] == ["vendor_train_throughput", "end-to-end"], v["groups"]
PY

# Stable Diffusion evaluates offline: no evaluation in the timed region.
"$ROOFTOP" predict --model stable-diffusion-v2 --accelerator h100 --count 8 --task train --global-batch 256 --to-target > sd.txt
grep -q "time to MLPerf target .* 0 evaluations taking 0 s" sd.txt

# Every published training row is predicted, and the end-to-end MdAPE stays
# within the 15 % goal (13.7 % today; docs/model.md "Training results").
"$ROOFTOP" validate "$SRC/tests/data/validation/training.csv" --json > training.json
python3 - <<'PY'
import json
d = json.load(open("training.json"))
assert d["total_rows"] >= 20, d["total_rows"]
assert d["predicted_rows"] == d["total_rows"], [r["reason"] for r in d["rows"] if r["predicted"] is None]
print("training rows: %d of %d predicted, MdAPE %.1f %%" % (d["predicted_rows"], d["total_rows"], d["mdape"]))
e2e = [g for g in d["groups"] if g["group"] == "end-to-end"]
assert e2e and e2e[0]["mdape"] <= 15.0, e2e
PY
echo "training at scale ok"
