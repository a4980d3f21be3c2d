#!/usr/bin/env bash
# One performance model: for every example scenario, each advise candidate's
# plan fed back to `rooftop predict --plan` (with the arguments advise prints
# under `predict`) gives the same throughput, step (or service) time and
# memory within 0.1 %, and a simulated serving p99 the same as
# `predict --rate` simulates. A training candidate's plan is the one predict's
# own search picks at that count and global batch (without --plan): advise
# sizes with the model's plan search, it has none of its own.
# labels: advise predict model
# timeout: 600
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

checked=0
for scenario in "$SRC"/data/scenarios/*.yaml "$SRC"/tests/data/advise/*.yaml; do
  rc=0
  "$ROOFTOP" advise "$scenario" --json --top 100 > advice.json 2> advise.err || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || { echo "advise $scenario: exit $rc"; cat advise.err; exit 1; }
  python3 - "$ROOFTOP" advice.json "$scenario" <<'PY' >> checked.txt
import json, shlex, subprocess, sys
rooftop, path, scenario = sys.argv[1:]
advice = json.load(open(path))
cands = list(advice["candidates"]) + ([advice["baseline"]] if advice.get("baseline") else [])
for c in cands:
    args = shlex.split(c["predict"])
    out = subprocess.run([rooftop, "predict", *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{scenario}: predict {c['predict']} failed: {out.stderr}")
    p = json.loads(out.stdout)
    time_key = "latency_s" if advice["task"] == "train" else "service_s"
    pairs = [("throughput", c["throughput"]["value"], p["throughput"]["value"]),
             ("time", c[time_key], p["latency_s"]),
             ("memory", c["memory_bytes"], p["memory"]["required_bytes"])]
    for name, want, got in pairs:
        if abs(got - want) > 1e-3 * abs(want):
            sys.exit(f"{scenario}: {c['accelerator']} plan {c['plan']}: {name} advise {want} vs predict {got}")
    # The bandwidth fit reads the operator times predict prints for this plan:
    # attained FLOP/s = the per_op FLOPs over their time (docs/advise.md#scores).
    ops = p["per_op"]
    t = sum(o["time_s"] for o in ops)
    if t > 0:
        attained = sum(o["flops"] for o in ops) / t
        if abs(attained - c["achieved_flop_per_s"]) > 1e-6 * attained:
            sys.exit(f"{scenario}: {c['accelerator']}: bandwidth fit attains {c['achieved_flop_per_s']} FLOP/s, predict's per_op {attained}")
    # A simulated serving p99 is what `predict --rate` simulates (docs/advise.md#serving).
    sv = c.get("serving")
    if sv and sv["simulated"]:
        got = p["serving"]["at_rate"]["latency_s"]["p99"]
        if abs(got - sv["latency_p99_s"]) > 1e-9 * sv["latency_p99_s"]:
            sys.exit(f"{scenario}: {c['accelerator']}: simulated p99 advise {sv['latency_p99_s']} vs predict --rate {got}")
    if advice["task"] == "train":
        i = args.index("--plan")
        free = args[:i] + args[i + 2:]
        out = subprocess.run([rooftop, "predict", *free, "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{scenario}: predict {shlex.join(free)} failed: {out.stderr}")
        q = json.loads(out.stdout)
        if q["plan"] != c["plan"]:
            sys.exit(f"{scenario}: {c['accelerator']} x {c['count']}: advise plan {c['plan']} vs predict's search {q['plan']}")
        if abs(q["throughput"]["value"] - c["throughput"]["value"]) > 1e-3 * c["throughput"]["value"]:
            sys.exit(f"{scenario}: {c['accelerator']}: throughput advise {c['throughput']['value']} vs predict's search {q['throughput']['value']}")
    print(scenario, c["accelerator"], c["plan"])
PY
done
grep -q "resnet50-one-h100.yaml nvidia-h100-sxm5-80gb .*mb=816,ga=4" checked.txt ||
  { echo "ResNet-50 on one H100 at global batch 3264: expected mb=816, ga=4"; grep resnet50 checked.txt; exit 1; }
checked=$(wc -l < checked.txt)
[ "$checked" -ge 10 ] || { echo "only $checked candidates checked"; exit 1; }
echo "ok: $checked candidates reproduced"
