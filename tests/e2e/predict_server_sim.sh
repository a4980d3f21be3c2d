#!/usr/bin/env bash
# rooftop predict --scenario server for an LLM: the Server scenario is
# simulated (continuous batching, paged KV, chunked prefill) at a Poisson
# rate or over a trace; the JSON carries TTFT / ITL / TPOT percentiles and
# the highest rate within the MLPerf bounds. Bad rates and traces exit 2
# naming the input.
# labels: predict
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

. "$SRC/tests/e2e_lib.sh"
P() { "$ROOFTOP" predict "$@"; }

# Poisson at a rate: every percentile set is ordered, the max rate is positive
# and meets the llama-2-70b bounds (p99 TTFT <= 2 s, TPOT <= 200 ms).
P --model llama-2-70b --accelerator nvidia-h100-sxm5-80gb --count 8 --precision fp8 --rate 10 --json > rate.json
python3 - <<'PY'
import json
j = json.load(open("rate.json"))
s = j["serving"]
for run in ("at_rate", "at_max_rate"):
    for k in ("ttft_s", "itl_s", "tpot_s", "tpot_with_first_s", "latency_s"):
        p = s[run][k]
        assert 0 < p["p50"] <= p["p90"] <= p["p99"], (run, k, p)
assert s["rate_per_s"] == 10
assert abs(s["at_rate"]["requests_per_s"] - 10) < 1.5, s["at_rate"]["requests_per_s"]
assert s["max_rate_per_s"] > 10
assert s["at_max_rate"]["ttft_s"]["p99"] <= 2.0 and s["at_max_rate"]["tpot_s"]["p99"] <= 0.2
assert s["bounds"]["ttft_p99_s"] == 2.0 and s["bounds"]["tpot_p99_s"] == 0.2
assert s["kv_blocks"] > 0 and s["max_sequences"] >= 1
assert j["parallelism"]["tensor"] == 2, j["plan"]   # 80 GB parts serve llama-2-70b 2-way
PY

# The text output says the same.
P --model llama-2-70b --accelerator nvidia-h100-sxm5-80gb --count 8 --precision fp8 --rate 10 --top 0 > rate.txt
grep -q "server simulation" rate.txt
grep -q "TTFT p50 / p90 / p99" rate.txt
grep -q "highest rate within bounds" rate.txt
# The main table is labelled as the offline figure, third line, before it.
[ "$(sed -n 3p rate.txt)" = "metrics: offline, at the full batch; the server simulation below is at the arrival rate" ]

# A trace with arrivals: every request is simulated, in the trace's own time.
printf 'arrival_s,input_tokens,output_tokens\n0,200,50\n0.1,800,20\n0.2,100,200\n0.25,50,10\n1.0,400,100\n' > trace.csv
P --model llama-2-7b --accelerator nvidia-h100-sxm5-80gb --trace trace.csv --json > trace.json
python3 - <<'PY'
import json
s = json.load(open("trace.json"))["serving"]
assert s["at_rate"]["requests"] == 5, s["at_rate"]
assert s["rate_per_s"] is None
assert s["at_rate"]["ttft_s"]["p50"] > 0
PY

# Lengths only: Poisson arrivals at --rate with the trace's lengths.
printf 'input_tokens,output_tokens\n300,30\n900,90\n' > lengths.csv
P --model llama-2-7b --accelerator nvidia-h100-sxm5-80gb --trace lengths.csv --rate 5 --json > lengths.json
python3 -c 'import json; s=json.load(open("lengths.json"))["serving"]; assert s["rate_per_s"] == 5 and s["at_rate"]["requests"] >= 500'

# --requests fixes the Poisson requests simulated per replica (advise's
# `predict` lines use it to reproduce its simulated p99).
P --model llama-2-7b --accelerator nvidia-h100-sxm5-80gb --rate 5 --requests 700 --json > requests.json
python3 -c 'import json; s=json.load(open("requests.json"))["serving"]; assert s["at_rate"]["requests"] == 700, s["at_rate"]'

# Bad input.
expect_2 P --model llama-2-7b --accelerator h100 --trace trace.csv --rate 3
grep -q "arrival_s" err.txt
expect_2 P --model llama-2-7b --accelerator h100 --rate 0
grep -q -- "--rate" err.txt
expect_2 P --model llama-2-7b --accelerator h100 --rate=-3
expect_2 P --model llama-2-7b --accelerator h100 --trace missing.csv
grep -q "missing.csv" err.txt
printf 'input_tokens,output_tokens\n10,many\n' > bad.csv
expect_2 P --model llama-2-7b --accelerator h100 --trace bad.csv
grep -q "bad.csv:2" err.txt && grep -q "output_tokens 'many'" err.txt
printf 'prompt,output_tokens\n10,5\n' > badcol.csv
expect_2 P --model llama-2-7b --accelerator h100 --trace badcol.csv
grep -q "unknown column 'prompt'" err.txt
printf 'input_tokens,output_tokens\n4000000,5\n' > huge.csv
expect_2 P --model llama-2-7b --accelerator h100 --trace huge.csv
grep -q "trace request 1" err.txt
expect_2 P --model resnet50 --accelerator h100 --trace lengths.csv
grep -q "for LLMs" err.txt
expect_2 P --model llama-2-7b --accelerator h100 --rate 5 --scenario offline
grep -q -- "--scenario" err.txt
expect_2 P --model llama-2-7b --accelerator h100 --rate 5 --chunk-tokens=-1
grep -q -- "--chunk-tokens" err.txt

# A one-pass model: requests batched as they queue, within MLPerf's 15 ms p99 for ResNet-50.
P --model resnet50 --accelerator nvidia-h100-sxm5-80gb --rate 20000 --json > cnn.json
python3 - <<'PY'
import json
s = json.load(open("cnn.json"))["serving"]
assert s["bounds"]["latency_p99_s"] == 0.015 and s["bounds"]["ttft_p99_s"] is None, s["bounds"]
assert s["max_rate_per_s"] > 20000 and s["at_max_rate"]["latency_s"]["p99"] <= 0.015, s
assert s["at_rate"]["ttft_s"]["p50"] == s["at_rate"]["latency_s"]["p50"]   # one output per request
PY
expect_2 P --model llama-2-7b --accelerator h100 --rate 3 --requests 0
grep -q -- "--requests" err.txt
echo ok
