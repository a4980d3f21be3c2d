#!/usr/bin/env bash
# The monitor replays two synthetic traces (fake backend) with --db, a real
# Prometheus scrapes both, and `rooftop analyze --prometheus` must find the
# same problems as `rooftop analyze --db` on the same data and window.
# labels: prometheus
# timeout: 300
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf ./*
command -v prometheus >/dev/null || { echo "prometheus is not installed (scripts/setup.sh installs it)"; exit 1; }
PY=/usr/bin/python3
DUR=${ANALYZE_E2E_SECONDS:-60}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$ROOFTOP" trace synth io-bound --devices 2 --host node-a --duration "${DUR}s" --out a.csv --labels a.json 2>/dev/null
"$ROOFTOP" trace synth mix --devices 9 --host node-b --duration "${DUR}s" --out b.csv --labels b.json 2>/dev/null
PA=$(free_port); PB=$(free_port); PP=$(free_port)
cat > prom.yml <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: rooftop
    static_configs: [{targets: ["127.0.0.1:$PA", "127.0.0.1:$PB"]}]
YML
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$PP \
  --log.level=warn >prom.log 2>&1 & pids+=($!)
ready=0
for i in $(seq 120); do curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null && { ready=1; break; }; sleep 1; done
[ $ready = 1 ] || { echo "Prometheus did not become ready in 120 s"; cat prom.log; exit 1; }
# The monitors start once Prometheus is ready, so the replayed traces begin
# when scraping does and the window below covers one pass of each trace.
T0=$(date +%s)
"$ROOFTOP" monitor --listen 127.0.0.1:$PA --interval 1s --backends fake:a.csv --db a.db >a.log 2>&1 & pids+=($!)
"$ROOFTOP" monitor --listen 127.0.0.1:$PB --interval 1s --backends fake:b.csv --db b.db >b.log 2>&1 & pids+=($!)
FROM=$((T0 + 5)); TO=$((T0 + DUR - 1))
sleep $((TO - $(date +%s) + 3))
# The series are in Prometheus (read back through its query API), asked at a
# time when both monitors were still up: after they stop, Prometheus marks
# their series stale.
q=$(curl -sf "http://127.0.0.1:$PP/api/v1/query?query=count(DCGM_FI_DEV_GPU_UTIL)&time=$TO") \
  || { echo "Prometheus query failed"; cat prom.log; exit 1; }
grep -q '"11"' <<<"$q" || { echo "want 11 GPU series in Prometheus, got: $q"; tail -n 20 prom.log a.log b.log; exit 1; }
# Monitor b stops; monitor a stays up to play "an exporter that is not a
# Prometheus" below (its store is read while it writes: SQLite WAL).
kill "${pids[2]}"; wait "${pids[2]}" 2>/dev/null || true

TH=(--threshold min_window_s=$((DUR / 4)))
"$ROOFTOP" analyze --db a.db --from "$FROM" --to "$TO" "${TH[@]}" --json >db-a.json
"$ROOFTOP" analyze --db b.db --from "$FROM" --to "$TO" "${TH[@]}" --json >db-b.json
"$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --from "$FROM" --to "$TO" "${TH[@]}" --json --report fleet.html >prom.json
$PY - <<'PYEOF'
import json
def found(*files):
    return sorted({(f["kind"], f["device"]) for n in files for f in json.load(open(n))["findings"]})
planted = sorted({(p["kind"], p["device"]) for n in ("a.json", "b.json") for p in json.load(open(n))["planted"]})
db, prom = found("db-a.json", "db-b.json"), found("prom.json")
print("planted   ", planted); print("--db      ", db); print("--prometheus", prom)
assert db == prom, "store and Prometheus disagree"
assert db == planted, "findings differ from what was planted"
PYEOF
grep -q "<svg" fleet.html

# Bad input: unreachable server, a bad response, an empty window, unknown labels.
. "$SRC/tests/e2e_lib.sh"
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$(free_port)"
grep -q "cannot reach Prometheus" err.txt
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PA"   # the exporter, not a Prometheus
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --from 1000 --to 2000
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --match nosuchlabel=x
expect_2 "$ROOFTOP" analyze --db a.db --match rack=7
echo "analyze: store and Prometheus agree"
