#!/usr/bin/env bash
# A generated fleet (`rooftop trace synth fleet`, OpenMetrics) backfilled
# into a local Prometheus with promtool: `rooftop analyze --prometheus` must
# find exactly what was planted (precision = recall = 1.0), read the points
# of only some devices (the rest screened on window aggregates), and name
# each finding's namespace and pod. The 1,000-device, 7-day size of the same
# path is bench/analyze_fleet.sh. The same file read directly (--openmetrics)
# finds the same. Then bad input: a Prometheus that stalls mid-answer, and
# OpenMetrics garbage.
# labels: prometheus analyze
# timeout: 300
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf ./*
command -v prometheus >/dev/null && command -v promtool >/dev/null \
  || { echo "prometheus/promtool are not installed (scripts/setup.sh --test installs them)"; exit 1; }
PY=/usr/bin/python3
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

DUR=$((6 * 3600))
END=$(( $(date +%s) / 60 * 60 - 600 ))
START=$((END - DUR))
"$ROOFTOP" trace synth fleet --devices 64 --duration "${DUR}s" --step 30s --start "$START" \
  --openmetrics fleet.om --labels planted.json
promtool tsdb create-blocks-from openmetrics -q fleet.om tsdb >backfill.log 2>&1 || { cat backfill.log; exit 1; }

PP=$(free_port)
printf 'global: {scrape_interval: 15s}\n' >prom.yml
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --storage.tsdb.retention.time=30d \
  --web.listen-address=127.0.0.1:$PP --log.level=warn >prom.log 2>&1 & pids+=($!)
ready=0
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null && { ready=1; break; }; sleep 1; done
[ $ready = 1 ] || { echo "Prometheus did not become ready in 120 s"; cat prom.log; exit 1; }

"$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --from "$START" --to "$END" --json --report fleet.html >fleet.json
"$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --from "$START" --to "$END" >fleet.txt
$PY - <<'PYEOF'
import json
out = json.load(open("fleet.json"))
planted = {(p["kind"], p["device"]) for p in json.load(open("planted.json"))["planted"]}
found = {(f["kind"], f["device"]) for f in out["findings"]}
kinds = {k for k, _ in planted}
assert kinds == {"idle", "underused", "io-bound", "throttling", "straggler", "memory-pressure", "memory-headroom"}, kinds
tp = len(planted & found)
precision, recall = tp / len(found), tp / len(planted)
print(f"planted {len(planted)}, found {len(found)}: precision {precision:.2f}, recall {recall:.2f}")
print("false positives", sorted(found - planted)); print("missed", sorted(planted - found))
assert precision == 1.0 and recall == 1.0
assert len(out["devices"]) == 64, len(out["devices"])
assert 0 < out["devices_read"] < 64, out["devices_read"]
screened = [d for d in out["devices"] if not d["points_read"]]
assert screened and all(d["util_mean_pct"] is not None and d["samples"] > 0 for d in screened), screened[:2]
for f in out["findings"]:
    assert f["namespace"] and f["pod"], f
    assert f["summary"].startswith(f"namespace {f['namespace']}, pod {f['pod']}: "), f["summary"]
PYEOF
grep -q "screened on window aggregates" fleet.txt

# The recording rules `rooftop deploy monitor` writes, backfilled by promtool
# from this Prometheus: analyze reads them, and finds the same.
"$ROOFTOP" deploy monitor --out dm >/dev/null
promtool tsdb create-blocks-from rules -q --url "http://127.0.0.1:$PP" --start "$START" --end "$END" \
  --output-dir rules-data dm/recording-rules.yml >rules.log 2>&1 || { cat rules.log; exit 1; }
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
mv rules-data/* tsdb/
PP=$(free_port)
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --storage.tsdb.retention.time=30d \
  --web.listen-address=127.0.0.1:$PP --log.level=warn >prom2.log 2>&1 & pids+=($!)
ready=0
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null && { ready=1; break; }; sleep 1; done
[ $ready = 1 ] || { echo "Prometheus did not restart in 120 s"; cat prom2.log; exit 1; }
"$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --from "$START" --to "$END" --json >rules.json
$PY - <<'PYEOF'
import json
a, b = json.load(open("fleet.json")), json.load(open("rules.json"))
assert a["notes"] == [], a["notes"]
assert b["notes"] == ["recording rule rooftop:gpu_memory_used:ratio used",
                      "recording rule rooftop:gpu_clocks_held_down:bool used"], b["notes"]
key = lambda o: sorted((f["kind"], f["device"]) for f in o["findings"])
assert key(a) == key(b), (key(a), key(b))
print("with the recording rules: the same", len(key(b)), "findings")
PYEOF
grep -q "namespace vision, pod " fleet.txt
grep -q "^By workload:" fleet.txt
grep -Eq "^  namespace vision, pod job-[0-9a-f]+: 8 x NVIDIA A100-SXM4-80GB idle over 6.0 h" fleet.txt || { cat fleet.txt; exit 1; }
grep -q "<svg" fleet.html
# The same file read without a server finds the same.
"$ROOFTOP" analyze --openmetrics fleet.om --from "$START" --to "$END" --json >direct.json
$PY - <<'PYEOF'
import json
key = lambda n: sorted((f["kind"], f["device"]) for f in json.load(open(n))["findings"])
assert key("direct.json") == key("fleet.json"), (key("direct.json"), key("fleet.json"))
PYEOF

# Bad input.
. "$SRC/tests/e2e_lib.sh"
# A Prometheus that answers the headers, then stalls mid-body.
SP=$(free_port)
$PY - "$SP" <<'PYEOF' & pids+=($!)
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
held = []
while True:
    c, _ = s.accept(); c.recv(65536)
    c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"status":"success","data":{"resultType":"vector","result":[')
    held.append(c)
PYEOF
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$SP) 2>/dev/null && break; sleep 0.1; done
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$SP" --timeout 2s --from "$START" --to "$END"
grep -q "timed out after 2 s" err.txt || { cat err.txt; exit 1; }
grep -q -- "--prometheus http://127.0.0.1:$SP" err.txt || { cat err.txt; exit 1; }
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --timeout never
grep -q -- "--timeout" err.txt
# OpenMetrics with garbage: promtool refuses it, and so does analyze, naming the line.
{ head -n 3 fleet.om; echo 'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="node-0" 88 1700000000'; echo '# EOF'; } >garbage.om
if promtool tsdb create-blocks-from openmetrics garbage.om junk >/dev/null 2>&1; then echo "promtool took garbage"; exit 1; fi
expect_2 "$ROOFTOP" analyze --openmetrics garbage.om
grep -q -- "--openmetrics garbage.om:4: expected label=" err.txt || { cat err.txt; exit 1; }
head -c 4096 /dev/urandom >noise.om
expect_2 "$ROOFTOP" analyze --openmetrics noise.om
grep -q -- "--openmetrics noise.om:" err.txt
head -n 1000 fleet.om >cut.om   # no # EOF: cut short
expect_2 "$ROOFTOP" analyze --openmetrics cut.om
grep -q "cut short" err.txt
head -n 5 fleet.om | sed 's/ 1[0-9]*$//' >nots.om; echo '# EOF' >>nots.om
expect_2 "$ROOFTOP" analyze --openmetrics nots.om
grep -q "without a timestamp" err.txt
expect_2 "$ROOFTOP" analyze --openmetrics /nonexistent.om
grep -q -- "--openmetrics /nonexistent.om" err.txt
echo "analyze: a backfilled fleet, P = R = 1.0"
