#!/usr/bin/env bash
# rooftop catalog validate: "ok FILE" for a good entry; every problem of a
# broken one as FILE:LINE: message and exit 2; unreadable files too.
# labels: catalog
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
DATA="$SRC/tests/data/catalog"

"$ROOFTOP" catalog validate "$DATA/good-card.yaml" > ok.out
grep -qx "ok $DATA/good-card.yaml" ok.out

# Every shipped entry validates.
"$ROOFTOP" catalog validate "$SRC"/data/accelerators/*.yaml > all.out
test "$(grep -c '^ok ' all.out)" -eq "$(ls "$SRC"/data/accelerators/*.yaml | wc -l)"

set +e
"$ROOFTOP" catalog validate "$DATA/good-card.yaml" "$DATA/broken-card.yaml" > bad.out 2> bad.err
rc=$?
set -e
test "$rc" -eq 2
grep -qx "ok $DATA/good-card.yaml" bad.out
grep -q "^$DATA/broken-card.yaml:12: 'compute.fp16_sparse': sparse figures are not stored" bad.err
grep -q "^$DATA/broken-card.yaml:14: 'memory.capacity_gb' has no source" bad.err
grep -q "^$DATA/broken-card.yaml:15: 'memory.bandwidth_gb_s' = -5 must be positive" bad.err
grep -q "4 problem(s) in 1 of 2 file(s)" bad.err

# JSON lists each file with its errors.
set +e
"$ROOFTOP" catalog validate --json "$DATA/broken-card.yaml" > bad.json
rc=$?
set -e
test "$rc" -eq 2
python3 -c 'import json,sys; d=json.load(open("bad.json")); f=d["files"][0]; assert not d["ok"] and len(f["errors"])==4, d; assert f["errors"][0]["where"].endswith("broken-card.yaml:12"), f'

# A null without a missing_reason, and a price without a date: exit 2, each
# named by file and line.
sed -e 's/^  tdp_w: 250$/  tdp_w: null/' \
    -e 's/^  list_usd: {value: 1999, date: "2024-05", source: shop}$/  list_usd: {value: 1999, source: shop}/' \
    "$DATA/good-card.yaml" > good-card.yaml
grep -qx "  tdp_w: null" good-card.yaml
grep -qx "  list_usd: {value: 1999, source: shop}" good-card.yaml
set +e
"$ROOFTOP" catalog validate good-card.yaml > undated.out 2> undated.err
rc=$?
set -e
test "$rc" -eq 2
grep -q "^good-card.yaml:29: 'power.tdp_w' is null without a reason" undated.err
grep -q "^good-card.yaml:32: .*missing required key 'date'" undated.err
grep -q "2 problem(s) in 1 of 1 file(s)" undated.err

# A missing file is bad input naming the file.
set +e
"$ROOFTOP" catalog validate missing.yaml 2> missing.err
rc=$?
set -e
test "$rc" -eq 2
grep -q "^missing.yaml: cannot open file" missing.err
echo "catalog validate: ok"
