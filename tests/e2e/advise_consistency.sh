#!/usr/bin/env bash
# Every example scenario's advice agrees with itself: the rank is the order
# of the score the table shows (an unpriced part ranked on its merits, two
# unpriced parts by their own score); the one-line answer comes first and
# agrees with the table: it buys (or rents, as its TCO is counted) the best
# priced row, at the precision and the TCO that row shows, never says "cost
# unknown" beside a priced row, and names each unpriced row ranked above it;
# a note never contradicts the table (no "no TDP" beside a power,
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
  python3 - "$name" "$f" <<'PY'
import json, re, sys
name = sys.argv[1]
m = re.search(r"^\s*precisions:\s*\[([^\]]*)\]", open(sys.argv[2]).read(), re.M)
allowed = [p.strip() for p in m.group(1).split(",")] if m else []
j = json.load(open(f"{name}.json"))
cat = {a["id"]: a for a in json.load(open("catalog.json"))["accelerators"]}
text = open(f"{name}.txt").read().splitlines()
bad = []
c = j["candidates"]
def capacity(x):
    # Compute bought: the part's fastest dense peak among the allowed precisions.
    peaks = cat[x["accelerator"]]["peak_flop_per_s"]
    return x["count"] * max([peaks.get(p) or 0 for p in allowed + [x["precision"]]])
# The table as the terminal shows it: one row per candidate, then the baseline.
head = next((i for i, l in enumerate(text) if l.strip().startswith("rank ") and "accelerator" in l), None)
cols = re.split(r"\s{2,}", text[head].strip()) if head is not None else []
rows = []
for l in text[head + 2:] if head is not None else []:
    if not re.match(r"^\s*(\d+|baseline)\s", l):
        break
    rows.append(dict(zip(cols, re.split(r"\s{2,}", l.strip()))))
if len(rows) != len(c) + (1 if j["baseline"] else 0):
    bad.append(f"the table has {len(rows)} rows for {len(c)} candidates")
shown = [round(x["scores"]["total"], 2) for x in c]
if j["rank_by"] == "score":
    if shown != sorted(shown, reverse=True):
        bad.append(f"rank is not the order of the shown score: {shown}")
    for i in range(1, len(c)):
        if shown[i] == shown[i - 1] and c[i]["priced"] and not c[i - 1]["priced"]:
            bad.append(f"rank {i}: an unpriced part above a priced one of the same shown score")
unpriced = [x["scores"]["total"] for x in c if not x["priced"]]
if j["rank_by"] == "score" and unpriced != sorted(unpriced, reverse=True):
    bad.append(f"unpriced parts do not follow their own score: {unpriced}")
caps = [capacity(x) for x in c]
if j["rank_by"] == "least_capacity" and caps != sorted(caps):
    bad.append(f"rank is not the order of the capacity, least first: {caps}")
if [x["rank"] for x in c] != list(range(1, len(c) + 1)):
    bad.append("ranks are not 1..n")
answer = text[1] if len(text) > 1 else ""
def setup(x):
    return f'{x["count"]} x {cat[x["accelerator"]]["name"]}'
if c and len(rows) >= len(c):
    lead = next((i for i, x in enumerate(c) if x["priced"]), None)
    if lead is None:
        if not answer.startswith("Nothing to buy on cost") or f'{setup(c[0])} ({rows[0]["precision"]})' not in answer:
            bad.append(f"no priced finalist, but the first line is {answer!r}")
    else:
        x, row = c[lead], rows[lead]
        k = x["cost"]
        buying = k["capex_usd"] + k["energy_usd"] if k["capex_usd"] is not None and k["energy_usd"] is not None else None
        rented = k["cloud_usd"] is not None and k["tco_usd"] == k["cloud_usd"] and (
            j["deployment"] == "cloud" or buying is None or k["cloud_usd"] < buying)
        want = ("Rent " if rented else "Buy ") + f'{setup(x)} ({row["precision"]})'
        if not answer.startswith(want):
            bad.append(f"the first line does not start {want!r}: {answer!r}")
        if f'{row["TCO"]} over ' not in answer:
            bad.append(f'the first line does not show the table\'s TCO {row["TCO"]}: {answer!r}')
        if lead > 0 and f", rank {lead + 1} in the table:" not in answer:
            bad.append(f"the first line does not say its part is rank {lead + 1}: {answer!r}")
        if "cost unknown" in answer:
            bad.append(f"the first line says 'cost unknown' beside a priced row: {answer!r}")
        for y in c[:min(lead, 3)]:
            if f"unpriced: " not in answer or f"{setup(y)} (" not in answer.split("unpriced: ", 1)[1]:
                bad.append(f"the first line does not name {setup(y)}, unpriced and ranked above it: {answer!r}")
    if j["answer"] != answer:
        bad.append("--json answer differs from the terminal's")
elif not c and not answer.startswith("No recommendation"):
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
