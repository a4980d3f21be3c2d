#!/usr/bin/env bash
# Right-sizing is advise: an under-used device's load, as analyze turns it
# into a scenario (the measured demand, the current part as baseline, the
# user's constraints and economics), must get the same ranking from
# `rooftop advise` on that scenario, with the savings analyze reports.
# labels: analyze
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf ./*
PY=/usr/bin/python3
"$ROOFTOP" trace synth underused --devices 2 --duration 2h --db u.db --labels planted.json 2>/dev/null
cat >serve.yaml <<'YML'
name: "Chat assistant on cloud"
workload:
  model: llama-3.1-8b
  task: infer
  precisions: [bf16, fp16, fp8, int8]
  input_tokens: 1024
  output_tokens: 256
objective:
  p99_latency_s: 15
  arrival_rate_per_s: 4
constraints:
  form_factor: [datacenter]
  max_devices: 16
economics:
  horizon_years: 1
  deployment: cloud
  utilisation: 0.6
  prices:
    nvidia-a100-sxm4-80gb: {cloud_usd_per_hour: 2.0, source: "this test's own quote"}
YML
"$ROOFTOP" analyze --db u.db --scenario serve.yaml --json >an.json
"$ROOFTOP" analyze --db u.db --scenario serve.yaml >an.txt
grep -q "Top alternatives:" an.txt
$PY - <<'PYEOF'
import json, subprocess, os
out = json.load(open("an.json"))
rs = [f for f in out["findings"] if f["kind"] == "underused"]
assert rs and all(f["rightsizing"] for f in rs), out["findings"]
base = open("serve.yaml").read().split("objective:")[0]
tail = open("serve.yaml").read().split("constraints:")[1]
for f in rs:
    r = f["rightsizing"]
    assert r["current"] == "nvidia-a100-sxm4-80gb" and r["count"] == 1, r
    assert 0 < r["demand"] < r["capacity"], r
    assert r["ranking"], r
    # The same load, written by hand as an advise scenario.
    with open("same.yaml", "w") as y:
        y.write(base + f"objective:\n  throughput_per_s: {r['demand']!r}\nconstraints:" + tail +
                f"baseline: {{accelerator: {r['current']}, count: {r['count']}}}\n")
    adv = json.loads(subprocess.run([os.environ["ROOFTOP"], "advise", "same.yaml", "--json", "--top", "1000"],
                                    check=True, capture_output=True, text=True).stdout)
    want = [(c["accelerator"], c["count"], c["precision"]) for c in adv["candidates"]]
    got = [(o["accelerator"], o["count"], o["precision"]) for o in r["ranking"]]
    assert got == want, f"analyze {got[:5]} vs advise {want[:5]}"
    tco = adv["baseline"]["cost"]["tco_usd"]
    assert tco and abs(r["current_tco_usd"] - tco) < 1e-6 * tco, (r["current_tco_usd"], tco)
    for o, c in zip(r["ranking"], adv["candidates"]):
        if c["cost"]["tco_usd"] is not None:
            assert abs(o["saving_usd"] - (tco - c["cost"]["tco_usd"])) < 1e-6 * tco, (o, c["cost"])
    top = r["ranking"][0]
    assert f"{top['count']} x {top['accelerator']}" in f["recommendation"], f["recommendation"]
    assert abs(f["wasted_usd"] - 2.0 * f["wasted_device_hours"]) < 1e-9, f  # the scenario's price
    print(f["device"], "->", got[:3], "same as advise")
PYEOF

# Bad input: a training scenario, a scenario that does not parse.
. "$SRC/tests/e2e_lib.sh"
expect_2 "$ROOFTOP" analyze --db u.db --scenario "$SRC/data/scenarios/dlrm-overbought.yaml"
grep -q "serving scenario" err.txt && grep -q "dlrm-overbought.yaml" err.txt
printf 'workload: {model: nosuchmodel}\n' >bad.yaml
expect_2 "$ROOFTOP" analyze --db u.db --scenario bad.yaml
grep -q "bad.yaml" err.txt
echo "analyze: right-sizing ranks as advise does"
