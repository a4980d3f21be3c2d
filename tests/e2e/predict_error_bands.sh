#!/usr/bin/env bash
# Ranges (docs/model.md#ranges, #calibration): the fitted parameters in
# data/calibration.yaml and the 80 % ranges in data/validation/error-bands.csv
# are what `rooftop calibrate` fits now on the published record in
# tests/data/corpus (a model change that moves a prediction must refit
# them), the cross-validated error stays within the gate below, and
# predictions carry the ranges: in words and in the JSON, or "unvalidated".
# labels: predict validate
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
C="$SRC/tests/data/corpus"
"$ROOFTOP" --no-calibration calibrate "$C/mlperf-inference-v4.1.csv" "$C/mlperf-training-corpus.csv" \
  -o calibration.yaml --bands-out bands.csv --json > fit.json 2>/dev/null
for f in calibration.yaml:data/calibration.yaml bands.csv:data/validation/error-bands.csv; do
  if ! diff -u "$SRC/${f#*:}" "${f%%:*}"; then
    echo "${f#*:} is stale; refit with:" >&2
    echo "  rooftop calibrate tests/data/corpus/mlperf-inference-v4.1.csv tests/data/corpus/mlperf-training-corpus.csv" >&2
    exit 1
  fi
done
# The gate is the cross-validated figure (each system left out in turn),
# not the in-sample one; the 80 % ranges cover 75-85 % of the rows.
/usr/bin/python3 - <<'PY'
import json
cv = json.load(open("fit.json"))["cv_summary"]
assert cv["group"] == "system" and cv["groups"] > 300, (cv["group"], cv["groups"])
line = {l["key"]: l for l in cv["by"]["all"]}["all end-to-end rows"]
assert line["rows"] >= 1300, line
assert line["mdape_cv"] <= 19.0, line          # 17.8 % when this gate was set
assert line["mdape_cv"] < line["mdape_physics"], line
assert 0.75 <= cv["range_coverage"] <= 0.85, cv["range_coverage"]
by_cat = {l["key"]: l for l in cv["by"]["category"]}
assert by_cat["mlperf_training"]["mdape_cv"] <= 17.0, by_cat["mlperf_training"]
assert by_cat["mlperf_inference"]["mdape_cv"] <= 20.0, by_cat["mlperf_inference"]
for p in json.load(open("fit.json"))["parameters"]:
    assert 0.05 <= p["low"] <= p["value"] <= p["high"] <= 1.25, p
    assert p["models"] >= 2 and p["groups"] >= 2 and p["rows"] >= 8, p
PY
# validate with the shipped calibration: every end-to-end row carries the
# range a prediction of its kind carries, and those hold about 80 % of the
# measured values.
"$ROOFTOP" validate "$C/mlperf-inference-v4.1.csv" "$C/mlperf-training-corpus.csv" --json > corpus.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("corpus.json"))
e2e = [r for r in d["rows"] if r["predicted"] is not None and r["category"] in ("mlperf_inference", "edge_inference", "mlperf_training")]
assert len(e2e) >= 1300 and all(r["range"] for r in e2e), len(e2e)
assert all(r["stack"] for r in e2e), [r["id"] for r in e2e if not r["stack"]][:5]
inside = sum(1 for r in e2e if r["range"][0] <= r["measured"] <= r["range"][1]) / len(e2e)
assert 0.75 <= inside <= 0.9, inside
assert d["mdape"] <= 18.0, d["mdape"]   # in sample with the fitted factors: 16.9 % when this gate was set
PY
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
# No published row of Tenstorrent LLMs: the range of every inference row,
# unvalidated, in words and in the JSON.
"$ROOFTOP" predict --model llama-2-7b --accelerator tenstorrent-blackhole-p150a --json > tt.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("tt.json"))
assert d["unvalidated"] is True and d["throughput"]["range"] is not None, d["throughput"]
assert "no published inference row of tenstorrent decoder LLM workloads" in d["validation"], d["validation"]
assert "the range of every inference row" in d["validation"], d["validation"]
PY
"$ROOFTOP" predict --model llama-2-7b --accelerator tenstorrent-blackhole-p150a --top 0 > tt.txt
grep -q "^validation  *unvalidated: no published inference row of tenstorrent decoder LLM workloads; the range of every inference row$" tt.txt
# A covered vendor and family at a precision none of its rows was checked in: range, but unvalidated.
"$ROOFTOP" predict --model resnet50 --accelerator nvidia-h100-sxm5-80gb --precision bf16 --json > bf16.json
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("bf16.json"))
assert d["throughput"]["range"] is not None and d["unvalidated"] is True, d
assert "was checked in bf16" in d["validation"], d["validation"]
PY
