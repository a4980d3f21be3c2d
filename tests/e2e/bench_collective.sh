#!/usr/bin/env bash
# `mpirun -np 2 rooftop bench collective` (the user's own launcher): rank 0
# prints nccl-tests columns, every size is verified, eta follows --link-gbps.
# labels: bench mpi
# timeout: 120
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
if ! command -v mpirun > /dev/null; then echo "skipped: no mpirun"; exit 0; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 2 --oversubscribe --mca btl self,vader --mca oob_tcp_if_include lo \
  "$ROOFTOP" -q bench collective --quick --json --link-gbps 100 > out.json
python3 - <<'PY'
import json
r = json.load(open("out.json"))   # one document: only rank 0 printed
rows = r["collective"]
assert [c["bytes"] for c in rows] == [1024 * 4**i for i in range(6)], rows
for c in rows:
    assert c["ranks"] == 2 and c["verified"] and c["time_s"] > 0
    assert abs(c["algbw_bytes_per_s"] - c["bytes"] / c["time_s"]) <= 1e-9 * c["algbw_bytes_per_s"]
    assert c["busbw_bytes_per_s"] == c["algbw_bytes_per_s"]          # 2(n-1)/n = 1 for n = 2
    assert abs(c["eta"] - 0.5 * c["algbw_bytes_per_s"] / 12.5e9) < 1e-12
PY
# The launcher path: rooftop starts mpirun itself.
"$ROOFTOP" -q bench collective --quick --ranks 2 > table.txt
grep -q "busbw" table.txt
echo ok
