#!/usr/bin/env bash
# No two text elements of any chart overlap, in the report of every example
# scenario (and in the roofline charts of `rooftop roofline`), checked with
# the fixed font metric the charts are laid out with (svg_text_overlap.py).
# labels: advise report
# timeout: 600
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
rm -f ./*.svg ./*.html
for f in "$SRC"/data/scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  "$ROOFTOP" advise "$f" --report "$name.html" > /dev/null
done
python3 "$SRC/tests/e2e/svg_text_overlap.py" ./*.html
# The checker itself: two labels at the same place are found.
cat > clash.svg <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" font-size="12"><text x="10" y="50">layers.ffn.up</text><text x="14" y="52">layers.ffn.down</text></svg>
SVG
if python3 "$SRC/tests/e2e/svg_text_overlap.py" clash.svg > clash.txt; then
  echo "the overlap check missed an overlap"
  exit 1
fi
grep -q "overlaps" clash.txt
echo ok
