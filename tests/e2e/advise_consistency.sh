#!/usr/bin/env bash
# Every example scenario's advice agrees with itself: the rank is the order
# of the score the table shows; the one-line answer comes first and names the
# first row; a note never contradicts the table (no "no TDP" beside a power,
# no "no list price" beside a capex, no empty "(has )" list); a serving copy
# uses at least the devices its memory needs, a training plan uses exactly
# the devices it is sized for; an over-provisioned baseline is never ranked
# above rank 1 (by score), nor has less capacity than rank 1 when the
# scenario asks "what would have been enough?" (rank_by: least_capacity).
# labels: advise
# timeout: 600
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
"$ROOFTOP" catalog list --json > catalog.json
for f in "$SRC"/data/scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  "$ROOFTOP" advise "$f" --json --top 100 > "$name.json"
  "$ROOFTOP" advise "$f" --top 100 > "$name.txt"
  python3 - "$name" <<'PY'
import json, sys
name = sys.argv[1]
j = json.load(open(f"{name}.json"))
cat = {a["id"]: a for a in json.load(open("catalog.json"))["accelerators"]}
text = open(f"{name}.txt").read().splitlines()
bad = []
c = j["candidates"]
def capacity(x):
    return x["count"] * (cat[x["accelerator"]]["peak_flop_per_s"][x["precision"]] or 0)
# With a TCO weight, the parts whose cost is known come first, then the score.
priced_first = j["weights"]["tco"] > 0
shown = [((0 if x["priced"] or not priced_first else 1), -round(x["scores"]["total"], 2)) for x in c]
if j["rank_by"] == "score" and shown != sorted(shown):
    bad.append(f"rank is not the order of (cost known, shown score): {shown}")
caps = [capacity(x) for x in c]
if j["rank_by"] == "least_capacity" and caps != sorted(caps):
    bad.append(f"rank is not the order of the capacity, least first: {caps}")
if [x["rank"] for x in c] != list(range(1, len(c) + 1)):
    bad.append("ranks are not 1..n")
answer = text[1] if len(text) > 1 else ""
if c:
    top = c[0]
    name0 = cat[top["accelerator"]]["name"]
    if not (answer.startswith("Buy ") or answer.startswith("Rent ")) or f'{top["count"]} x {name0} ({top["precision"]})' not in answer:
        bad.append(f"the first line is not the answer naming rank 1: {answer!r}")
    if j["answer"] != answer:
        bad.append("--json answer differs from the terminal's")
elif not answer.startswith("No recommendation"):
    bad.append(f"no candidate but the first line is {answer!r}")
for x in c + ([j["baseline"]] if j["baseline"] else []):
    a = cat[x["accelerator"]]
    words = " ".join(x["notes"] + x["explanation"])
    if x["power_w"] is not None and "no TDP" in words:
        bad.append(f'{x["accelerator"]}: says "no TDP" beside a power of {x["power_w"]} W')
    if x["cost"]["capex_usd"] is not None and "no list price" in words:
        bad.append(f'{x["accelerator"]}: says "no list price" beside a capex')
    if x["priced"] != (x["cost"]["tco_usd"] is not None):
        bad.append(f'{x["accelerator"]}: priced flag disagrees with its TCO')
    mem = a["memory_bytes"]
    if mem and x["memory_bytes"] > 0.9 * mem * (1 + 1e-9):
        bad.append(f'{x["accelerator"]}: plans {x["memory_bytes"]:.3g} B per device, over 90 % of {mem:.3g} B')
    if "train" in x:
        t = x["train"]
        if t["data"] * t["tensor"] * t["pipeline"] != x["count"]:
            bad.append(f'{x["accelerator"]}: split {t["data"]}x{t["tensor"]}x{t["pipeline"]} != {x["count"]} devices')
    else:
        if x["replica_devices"] < 1 or x["count"] % x["replica_devices"]:
            bad.append(f'{x["accelerator"]}: {x["count"]} devices are not whole copies of {x["replica_devices"]}')
for r in j["rejected"]:
    if "(has )" in r["reason"]:
        bad.append(f'{r["accelerator"]}: empty list in "{r["reason"]}"')
# An over-provisioned baseline: a setup that meets the target with less
# capacity (devices x peak at its precision) ranks above it.
b = j["baseline"]
if b and c and b["utilisation"] < 0.35:
    if j["rank_by"] == "least_capacity" and capacity(c[0]) > capacity(b):
        bad.append("the baseline is over-provisioned but rank 1 buys more capacity")
    if j["rank_by"] == "score" and b["scores"]["total"] > c[0]["scores"]["total"]:
        bad.append("the over-provisioned baseline scores better than rank 1")
for line in bad:
    print(f"{name}: {line}")
sys.exit(1 if bad else 0)
PY
done
echo ok
