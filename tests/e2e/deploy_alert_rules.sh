#!/usr/bin/env bash
# The alert rules `rooftop deploy monitor` writes, under `promtool test
# rules` for both name sets: row-remap failure, uncorrectable remapped rows,
# double-bit ECC, thermal and power throttling sustained 5 minutes, and the
# XIDs SREs act on by meaning, each on a series that fires it and one that
# does not (tests/alert_rules_test.py).
# labels: deploy monitor
# timeout: 120
set -euo pipefail
command -v promtool >/dev/null || { echo "promtool is not installed (scripts/setup.sh --test installs prometheus)"; exit 1; }
mkdir -p "$WORK" && cd "$WORK" && rm -rf dcgm rooftop
for names in dcgm rooftop; do
  "$ROOFTOP" deploy monitor --names "$names" --out "$names" >/dev/null
  promtool check rules "$names/alert-rules.yml"
  /usr/bin/python3 "$SRC/tests/alert_rules_test.py" "$names/alert-rules.yml" "$names" "$WORK"
done
echo "ok: alert rules pass promtool test rules"
