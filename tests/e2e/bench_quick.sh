#!/usr/bin/env bash
# `rooftop bench --quick`: every suite runs and verifies, the JSON carries the
# documented keys, and the saved profile is a catalog entry predict accepts.
# labels: bench
# timeout: 300
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
# The folder does not exist yet: --save-profile makes it, as the README's
# example expects.
rm -rf prof

"$ROOFTOP" bench --quick --json --save-profile prof/ > out.json 2> err.txt
grep -q "compute" err.txt   # progress went to stderr

python3 - <<'PY'
import json
r = json.load(open("out.json"))
env = r["environment"]
for k in ("cpu_model", "isa", "threads", "clock_measured_hz", "clock_nominal_hz", "libraries", "caches"):
    assert k in env, k
precisions = {c["precision"] for c in r["compute"] if not c["gemm"]}
assert {"fp64", "fp32"} <= precisions, precisions
for c in r["compute"]:
    assert c["verified"] and c["measured_flop_per_s"] > 0, c
    assert "theoretical_flop_per_s" in c
levels = {m["level"] for m in r["memory"]}
assert "DRAM" in levels and "L1" in levels, levels
for m in r["memory"]:
    assert m["bytes_per_s"] > 0 and m["working_set_bytes"] > 0
assert all(p["verified"] for p in r["memory_sweep"])
if "mpi" in env["libraries"]:
    col = r["collective"]
    assert col and col[0]["bytes"] == 1024, col
    for c in col:
        assert c["verified"] and c["time_s"] > 0
        assert abs(c["busbw_bytes_per_s"] - c["algbw_bytes_per_s"] * 2 * (c["ranks"] - 1) / c["ranks"]) < 1e-6 * c["algbw_bytes_per_s"]
PY

profile=$(ls prof/*.yaml)
id=$(basename "$profile" .yaml)
[[ "$id" == local-* ]]
"$ROOFTOP" catalog validate "$profile"
grep -qi "measured by rooftop bench" <("$ROOFTOP" --catalog "$profile" catalog show "$id")
"$ROOFTOP" --catalog "$profile" predict --model resnet50 --accelerator "$id" --precision fp32 --json > pred.json
python3 -c "import json; p = json.load(open('pred.json')); assert p['accelerator'] == '$id', p['accelerator']"

# The table form prints every section.
"$ROOFTOP" -q bench compute --quick --threads 1 > table.txt
grep -q "fp64" table.txt && grep -q "theory" table.txt
echo ok
