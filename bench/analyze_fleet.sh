#!/usr/bin/env bash
# `rooftop analyze --prometheus` on a generated fleet at full size (issue 16
# targets; run by hand, not in CI): 1,000 devices x 7 days, backfilled into a
# local Prometheus with promtool, analysed in under 60 s with under 500 MB
# peak RSS on 2 cores. Prints the analysis' wall time and peak RSS (and
# Prometheus' during the analysis), and precision/recall against what was planted.
# The test-sized variant of the same path is tests/e2e/analyze_fleet.sh.
# Usage: bench/analyze_fleet.sh [path/to/rooftop]
# Environment: DEVICES (1000), DAYS (7), STEP (60s), KEEP=DIR to keep the TSDB,
#              CPUS (taskset list for rooftop and Prometheus, default 0-1).
# Disk: the OpenMetrics text is written and backfilled 12 h at a time
# (about 1.3 GB per part at the defaults), so peak disk is one part plus the TSDB.
set -euo pipefail
ROOFTOP=${1:-${ROOFTOP:-build/rooftop}}
DEVICES=${DEVICES:-1000}; DAYS=${DAYS:-7}; STEP=${STEP:-60s}; CPUS=${CPUS:-0-1}
for t in "$ROOFTOP" prometheus promtool curl python3 taskset /usr/bin/time; do
  command -v "$t" >/dev/null || [ -x "$t" ] || { echo "missing: $t (scripts/setup.sh --test installs the tools)"; exit 1; }
done
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The window ends on a 2 h boundary, so 12 h parts give promtool blocks that do not overlap.
END=$(( ($(date +%s) - 3600) / 7200 * 7200 ))
DUR=$((DAYS * 86400)); START=$((END - DUR)); PARTS=$((DAYS * 2))
if [ ! -d "$work/tsdb" ]; then
  t0=$(date +%s)
  for i in $(seq "$PARTS"); do
    "$ROOFTOP" --quiet trace synth fleet --devices "$DEVICES" --duration "${DUR}s" --step "$STEP" --start "$START" \
      --part "$i/$PARTS" --openmetrics "$work/part.om" --labels "$work/planted.json" 2>/dev/null
    promtool tsdb create-blocks-from openmetrics -q "$work/part.om" "$work/tsdb" >"$work/backfill.log" 2>&1 \
      || { cat "$work/backfill.log"; exit 1; }
    rm -f "$work/part.om"
    echo "backfilled part $i/$PARTS ($(( $(date +%s) - t0 )) s)"
  done
  echo "$START $END" >"$work/window"
fi
read -r START END <"$work/window"

port=$(free_port)
printf 'global: {scrape_interval: 15s}\n' >"$work/prom.yml"
# min = max block duration: no compaction competes with the queries.
taskset -c "$CPUS" prometheus --config.file="$work/prom.yml" --storage.tsdb.path="$work/tsdb" \
  --storage.tsdb.retention.time=400d --storage.tsdb.min-block-duration=2h --storage.tsdb.max-block-duration=2h \
  --web.listen-address=127.0.0.1:$port --log.level=warn >"$work/prom.log" 2>&1 & pids+=($!)
for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$port/-/ready" && break; sleep 0.5; done
curl -sf -o /dev/null "http://127.0.0.1:$port/-/ready" || { echo "Prometheus did not start"; cat "$work/prom.log"; exit 1; }
prom_pid=${pids[0]}
prom_rss0=$(awk '/VmRSS/ {print $2}' /proc/$prom_pid/status)

taskset -c "$CPUS" /usr/bin/time -f "%e %M" -o "$work/time.txt" \
  "$ROOFTOP" --quiet analyze --prometheus "http://127.0.0.1:$port" --from "$START" --to "$END" --timeout 300s --json \
  >"$work/out.json"
read -r wall rss_kib <"$work/time.txt"
prom_hwm=$(awk '/VmHWM/ {print $2}' /proc/$prom_pid/status)
python3 - "$work" "$wall" "$rss_kib" "$prom_rss0" "$prom_hwm" "$DEVICES" "$DAYS" "$STEP" <<'PYEOF'
import json, sys
work, wall, rss, prom0, promhwm, devices, days, step = sys.argv[1:]
out = json.load(open(f"{work}/out.json"))
planted = {(p["kind"], p["device"]) for p in json.load(open(f"{work}/planted.json"))["planted"]}
found = {(f["kind"], f["device"]) for f in out["findings"]}
tp = len(planted & found)
print(f"fleet: {devices} devices x {days} days at {step}; {len(out['devices'])} devices seen, "
      f"{out['devices_read']} read in full, {out['points']} points read")
print(f"analyze: {float(wall):.1f} s wall, {int(rss) / 1024:.0f} MiB peak RSS   (targets: < 60 s, < 500 MB)")
print(f"prometheus: {int(prom0) / 1024:.0f} MiB RSS before, {int(promhwm) / 1024:.0f} MiB peak")
print(f"planted {len(planted)}, found {len(found)}: precision {tp / max(len(found), 1):.3f}, recall {tp / max(len(planted), 1):.3f}")
PYEOF
