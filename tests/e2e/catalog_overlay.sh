#!/usr/bin/env bash
# --catalog overlays: a user file adds an entry, a file with an existing id
# replaces it (show names the overlay as origin), a folder overlays every
# *.yaml in it; a missing path or a broken overlay is bad input (exit 2).
# labels: catalog
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
DATA="$SRC/tests/data/catalog"

# A new entry appears in list and show, found by its alias too.
"$ROOFTOP" --catalog "$DATA/good-card.yaml" catalog list --vendor local > list.out
grep -q "^good-card  *gpu  *local  *80  *160  *16  *0.5  *250  *\$2.00 k$" list.out
"$ROOFTOP" --catalog "$DATA/good-card.yaml" catalog show goodie --json > good.json
python3 -c 'import json; d=json.load(open("good.json")); assert d["id"]=="good-card" and d["peak_flop_per_s"]["fp16"]==80e12, d; assert d["sources"]["price.list"]["key"]=="shop", d["sources"]'

# Same id: the overlay replaces the embedded H100.
"$ROOFTOP" --catalog "$DATA/overlay" catalog show nvidia-h100-sxm5-80gb > h100.out
grep -q "^from $DATA/overlay/nvidia-h100-sxm5-80gb.yaml$" h100.out
grep -q "^compute.fp16  *bench  *700 TFLOP/s$" h100.out
grep -q "^efficiency.compute  *bench  *1$" h100.out

# Without the overlay the embedded figures are back.
# (Through a file: grep -q exiting early would end rooftop with SIGPIPE under pipefail.)
"$ROOFTOP" catalog show nvidia-h100-sxm5-80gb > embedded.out
grep -q "^compute.fp16 .* 989 TFLOP/s$" embedded.out

set +e
"$ROOFTOP" --catalog "$WORK/nope.yaml" catalog list > /dev/null 2> missing.err; rc1=$?
"$ROOFTOP" --catalog "$DATA/broken-card.yaml" catalog list > /dev/null 2> broken.err; rc2=$?
set -e
test "$rc1" -eq 2 && grep -q "$WORK/nope.yaml: no such catalog file or folder" missing.err
test "$rc2" -eq 2 && grep -q "broken-card.yaml:12:" broken.err
echo "catalog overlay: ok"
