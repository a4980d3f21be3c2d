#!/usr/bin/env bash
# advise's training objective to the MLPerf quality target
# (objective.train_to_target: mlperf): the samples come from the reference
# convergence points at the global batch, each plan's time to train adds the
# timed evaluations, and the best plan fed to `predict --plan --to-target`
# (with the scenario's default straggler_cv 0.05) gives the same minutes.
# A model without an MLPerf benchmark, the key beside train_samples, or
# another target is bad input (exit 2).
# labels: advise
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

"$ROOFTOP" advise "$SRC/tests/data/advise/bert-mlperf-target.yaml" --json > advice.json
"$ROOFTOP" advise "$SRC/tests/data/advise/bert-mlperf-target.yaml" > advice.txt
grep -q "objective: train to the MLPerf quality target within 60 min" advice.txt
python3 - <<'PY' > predict_args.txt
import json, math
d = json.load(open("advice.json"))
c = d["candidates"]
assert c, d["rejected"]
for x in c:
    t = x["train"]
    # RCP at batch 448: 2,414,421.333 samples -> ceil(/ 448) = 5,390 optimizer steps.
    assert t["steps"] == 5390, t
    evals = t["time_to_train_s"] - t["steps"] * t["step_s"]
    assert evals > 0, t   # the evaluations are timed
    assert t["time_to_train_s"] <= 3600, t
names = {x["name"]: x["value"] for x in d["assumptions"]}
assert names["train_to_target"].startswith("2.41 Msamples at global batch 448, RCP at batch 448"), names
assert "10,000 eval samples" in names["evaluation"], names
best = c[0]
print(best["accelerator"], best["count"], best["plan"], best["train"]["time_to_train_s"], best["train"]["step_s"])
PY
read -r acc count plan ttt step < predict_args.txt
"$ROOFTOP" predict --model bert-large --accelerator "$acc" --count "$count" --task train --seq 512 --plan "$plan" --straggler-cv 0.05 --to-target --json > ttt.json
python3 - "$ttt" "$step" <<'PY'
import json, sys
ttt, step = float(sys.argv[1]), float(sys.argv[2])
p = json.load(open("ttt.json"))
t = p["time_to_train"]
assert abs(p["latency_s"] - step) <= 1e-3 * step, (p["latency_s"], step)
# advise counts whole optimizer steps; predict divides the samples by samples/s.
assert abs(t["eval_s"] + 5390 * step - ttt) <= 1e-3 * ttt, (t, ttt)
assert abs(t["minutes"] * 60 - ttt) <= 0.01 * ttt, (t["minutes"] * 60, ttt)
PY

# Llama-2-70B's MLPerf benchmark fine-tunes LoRA adapters on 8,192-token
# sequences: advise prices that recipe, and predict --to-target gives the
# best candidate's minutes with the same recipe.
sed 's/model: bert-large/model: llama-2-70b/; s/global_batch: 448/global_batch: 8/; s/max_devices: 16/max_devices: 8/; s/deadline_hours: 1/deadline_hours: 3/' \
  "$SRC/tests/data/advise/bert-mlperf-target.yaml" > lora.yaml
"$ROOFTOP" advise lora.yaml --json > lora.json
python3 - <<'PY' > lora_args.txt
import json
d = json.load(open("lora.json"))
assert d["candidates"], d["rejected"]
best = d["candidates"][0]
print(best["accelerator"], best["count"], best["plan"], best["train"]["time_to_train_s"])
PY
read -r acc count plan ttt < lora_args.txt
"$ROOFTOP" predict --model llama-2-70b --accelerator "$acc" --count "$count" --task train --plan "$plan" --straggler-cv 0.05 --to-target --json > lora_predict.json
python3 - "$ttt" <<'PY'
import json, sys
ttt = float(sys.argv[1])
p = json.load(open("lora_predict.json"))
assert p["model"] == "llama-2-70b (LoRA)", p["model"]
names = {k: v["value"] for k, v in p["assumptions"].items()}
assert "8192-token sequences" in names["training_recipe"] and "LoRA" in names["training_recipe"], names
assert abs(p["time_to_train"]["minutes"] * 60 - ttt) <= 0.01 * ttt, (p["time_to_train"]["minutes"] * 60, ttt)
PY

expect_2() {  # expect_2 PATTERN FILE: exit code 2 and PATTERN on stderr
  local rc=0
  "$ROOFTOP" advise "$2" > out.txt 2> err.txt || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -Eq "$1" err.txt; then
    echo "advise $2: exit $rc, expected 2 and /$1/ in:"; cat err.txt; exit 1
  fi
}
sed 's/model: bert-large/model: llama-2-7b/' "$SRC/tests/data/advise/bert-mlperf-target.yaml" > no-benchmark.yaml
expect_2 "train_to_target.*'llama-2-7b' is not an MLPerf Training benchmark model" no-benchmark.yaml
sed 's/  train_to_target: mlperf/  train_to_target: mlperf\n  train_samples: 1000/' "$SRC/tests/data/advise/bert-mlperf-target.yaml" > both.yaml
expect_2 "give one of train_samples, train_tokens, train_to_target" both.yaml
sed 's/train_to_target: mlperf/train_to_target: imagenet/' "$SRC/tests/data/advise/bert-mlperf-target.yaml" > bad-value.yaml
expect_2 "train_to_target.*mlperf" bad-value.yaml
echo "advise train_to_target: ok"
