#!/usr/bin/env bash
# rooftop validate on the published measurements in tests/data/validation:
# the model's median absolute percentage error must stay <= 25 % on the rows
# it can predict, and most rows must be predictable.
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
assert len(done) >= 20, [(r["id"], r["reason"]) for r in rows if r["predicted"] is None]
assert v["mdape"] <= 25, v["mdape"]
PY
# The text form ends with the summary line.
"$ROOFTOP" validate "$SRC/tests/data/validation/measurements.csv" | grep -q "MdAPE"
