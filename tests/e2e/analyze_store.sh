#!/usr/bin/env bash
# trace synth -> store -> analyze: every planted problem found, reports
# written, bad input answered with exit 2.
# labels: analyze
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf ./*
PY=/usr/bin/python3
"$ROOFTOP" trace synth mix --db mix.db --labels planted.json --duration 2h 2>/dev/null
"$ROOFTOP" analyze --db mix.db --json --report report.html >found.json 2>/dev/null
"$ROOFTOP" analyze --db mix.db --report report.md >table.txt 2>/dev/null
$PY - <<'PYEOF'
import json
planted = {(p["kind"], p["device"]) for p in json.load(open("planted.json"))["planted"]}
f = json.load(open("found.json"))
found = {(x["kind"], x["device"]) for x in f["findings"]}
assert planted == found, (planted ^ found)
for x in f["findings"]:
    assert x["evidence"] and x["recommendation"] and x["window"]["from_s"] < x["window"]["to_s"]
PYEOF
grep -q "idle" table.txt && grep -q "Recommendations" table.txt
grep -q "<svg" report.html && ! grep -q "http://\|https://" <(grep -v "xmlns" report.html)
ls report-*.svg >/dev/null && grep -q "report-" report.md

# --match job= keeps exactly the devices of that job (the straggler job of the mix).
"$ROOFTOP" analyze --db mix.db --match job=train-1 --json >job.json 2>/dev/null
$PY - <<'PYEOF'
import json
d = json.load(open("job.json"))
assert len(d["devices"]) == 3 and {x["job"] for x in d["devices"]} == {"train-1"}, d["devices"]
assert d["points"] == sum(x["samples"] for x in d["devices"])
assert {f["kind"] for f in d["findings"]} == {"straggler"}, d["findings"]
PYEOF

"$ROOFTOP" trace synth healthy --db healthy.db 2>/dev/null
"$ROOFTOP" analyze --db healthy.db --json | $PY -c 'import json,sys; assert json.load(sys.stdin)["findings"] == []'

# The trace file form replays in the monitor; its header names the columns.
"$ROOFTOP" trace synth straggler --devices 4 --duration 10m --out s.csv 2>/dev/null
grep -q "^t_s,host,job,gpu," s.csv

. "$SRC/tests/e2e_lib.sh"
expect_2 "$ROOFTOP" analyze --db missing.db
expect_2 "$ROOFTOP" analyze --db mix.db --since 7parsecs
expect_2 "$ROOFTOP" analyze --db mix.db --from 2000 --to 1000
expect_2 "$ROOFTOP" analyze --db mix.db --from 1000 --to 2000
grep -q "no samples" err.txt
expect_2 "$ROOFTOP" analyze --db mix.db --match job=nosuchjob
grep -q "no samples" err.txt
expect_2 "$ROOFTOP" analyze --db mix.db --threshold idle_pct=3
expect_2 "$ROOFTOP" analyze
echo "garbage" > bad.db
expect_2 "$ROOFTOP" analyze --db bad.db
expect_2 "$ROOFTOP" trace synth stragler
echo "analyze from the store ok"
