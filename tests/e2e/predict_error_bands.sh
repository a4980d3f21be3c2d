#!/usr/bin/env bash
# Ranges (docs/model.md#ranges): the error bands shipped in
# data/validation/error-bands.csv are what `rooftop validate --bands`
# computes now from the published rows in tests/data/validation (a model
# change that moves a prediction must regenerate them), and predictions
# carry them: a range in words and in the JSON, or "unvalidated".
# labels: predict validate
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
V="$SRC/tests/data/validation"
"$ROOFTOP" validate "$V/measurements.csv" "$V/training.csv" --bands > bands.csv
if ! diff -u "$SRC/data/validation/error-bands.csv" bands.csv; then
  echo "data/validation/error-bands.csv is stale; regenerate it with:" >&2
  echo "  rooftop validate tests/data/validation/measurements.csv tests/data/validation/training.csv --bands > data/validation/error-bands.csv" >&2
  exit 1
fi
# A validated combination: nvidia CNN inference at int8.
"$ROOFTOP" predict --model resnet50 --accelerator nvidia-h100-sxm5-80gb --json > h100.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("h100.json"))
r = d["throughput"]["range"]
assert set(r) == {"low", "high", "basis"}, r
assert r["low"] <= d["throughput"]["value"] <= r["high"], (r, d["throughput"])
l = d["latency_range_s"]
assert l["low"] <= d["latency_s"] <= l["high"], (l, d["latency_s"])
assert "published inference rows of nvidia CNN workloads" in r["basis"], r["basis"]
assert "PV-" not in r["basis"] and "PT-" not in r["basis"]
assert d["unvalidated"] is False and d["validation"] is None, d["validation"]
PY
"$ROOFTOP" predict --model resnet50 --accelerator nvidia-h100-sxm5-80gb --top 0 > h100.txt
grep -q "^throughput .* (likely .* to .*)$" h100.txt
grep -q "^range basis .*published inference rows of nvidia CNN workloads" h100.txt
# No published AMD LLM serving row: unvalidated, in words and in the JSON.
"$ROOFTOP" predict --model llama-2-7b --accelerator amd-mi300x --json > mi300x.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("mi300x.json"))
assert d["unvalidated"] is True and d["throughput"]["range"] is None, d["throughput"]
assert "no published inference rows of amd decoder LLM workloads" in d["validation"], d["validation"]
PY
"$ROOFTOP" predict --model llama-2-7b --accelerator amd-mi300x --top 0 > mi300x.txt
grep -q "^validation  *unvalidated: no published inference rows of amd decoder LLM workloads check this combination$" mi300x.txt
# A covered vendor and family at a precision none of its rows was checked in: range, but unvalidated.
"$ROOFTOP" predict --model resnet50 --accelerator nvidia-h100-sxm5-80gb --precision bf16 --json > bf16.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("bf16.json"))
assert d["throughput"]["range"] is not None and d["unvalidated"] is True, d
assert "was checked in bf16" in d["validation"], d["validation"]
PY
