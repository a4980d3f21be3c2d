#!/usr/bin/env bash
# The advise HTML report is self-contained and renders in headless Chromium:
# take a screenshot and check it is not blank. Skipped when chromium is absent.
# labels: browser advise
# timeout: 240
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  echo "skip: chromium is not installed"
  exit 0
fi

"$ROOFTOP" advise "$SRC/data/scenarios/factory-edge.yaml" --report "$WORK/report.html" > advise.txt
grep -q "<svg" report.html
grep -q "Pareto" report.html
# Self-contained: no scripts, no external stylesheets, images or fonts.
if grep -Eiq '<script|<link |(src|href)="(https?:)?//' report.html; then
  echo "report.html references external assets"
  exit 1
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f out.png
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$WORK/out.png" --window-size=1280,2000 \
  "file://$WORK/report.html" > chromium.log 2>&1 || { cat chromium.log; exit 1; }
test -s out.png
python3 "$SRC/tests/e2e/advise_png_check.py" out.png
