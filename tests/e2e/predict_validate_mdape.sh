#!/usr/bin/env bash
# rooftop validate on the published measurements in tests/data/validation:
# every row is predicted, the median absolute percentage error stays <= 25 %
# over all rows and <= 15 % over the end-to-end (MLPerf, edge) rows, and no
# end-to-end row is off by more than 60 %.
# labels: predict validate
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
"$ROOFTOP" validate "$SRC/tests/data/validation/measurements.csv" --json > v.json
/usr/bin/python3 - <<'PY'
import json
v = json.load(open("v.json"))
rows = v["rows"]
assert v["total_rows"] == len(rows) == 26, len(rows)
done = [r for r in rows if r["predicted"] is not None]
for r in rows:
    assert set(r) >= {"id", "measured", "predicted", "reason"}, r
    assert (r["predicted"] is None) == (r["reason"] is not None), r
print(f"MdAPE {v['mdape']:.1f} % over {len(done)} of {len(rows)} rows")
assert len(done) == len(rows), [(r["id"], r["reason"]) for r in rows if r["predicted"] is None]
assert v["mdape"] <= 25, v["mdape"]
e2e = {g["group"]: g for g in v["groups"]}["end-to-end"]
assert e2e["predicted_rows"] == e2e["rows"] == 11 and e2e["mdape"] <= 15, e2e
worst = max((r for r in rows if r["category"] in ("mlperf_inference", "edge_inference")), key=lambda r: abs(r["error_pct"]))
assert abs(worst["error_pct"]) <= 60, (worst["model"], worst["accelerator"], worst["error_pct"])
PY
# The text form ends with the summary line.
"$ROOFTOP" validate "$SRC/tests/data/validation/measurements.csv" > v.txt
grep -q "MdAPE" v.txt
