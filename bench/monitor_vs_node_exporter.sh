#!/usr/bin/env bash
# Compares `rooftop monitor` with Debian's prometheus-node-exporter on this
# machine, in one run (issue 5 targets; run by hand, not in CI):
#   CPU seconds per 1000 scrapes  <= 1/5 of node_exporter's   (wrk, 1 connection, 10 s)
#   peak RSS                      <= 1/2 of node_exporter's   (VmHWM after all runs)
#   p99 scrape latency            <= 2 ms                      (wrk --latency, 1 connection)
#   60 s wrk, 4 connections       0 errors, < 1 MiB RSS growth
# Usage: bench/monitor_vs_node_exporter.sh [path/to/rooftop] [extra monitor flags...]
# Default monitor flags: --backends auto (host + whatever GPUs are present).
set -euo pipefail
ROOFTOP=${1:-${ROOFTOP:-build/rooftop}}
shift || true
extra=("$@")
for t in "$ROOFTOP" prometheus-node-exporter wrk curl python3; do
  command -v "$t" >/dev/null || [ -x "$t" ] || { echo "missing: $t (scripts/setup.sh installs the tools)"; exit 1; }
done
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
wait_up() { for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "not up: $1"; exit 1; }

rport=$(free_port); nport=$(free_port)
"$ROOFTOP" monitor --listen "127.0.0.1:$rport" --quiet "${extra[@]}" 2> "$work/monitor.err" &
pids+=($!); rpid=$!
prometheus-node-exporter --web.listen-address="127.0.0.1:$nport" 2> "$work/node.err" &
pids+=($!); npid=$!
wait_up "http://127.0.0.1:$rport/metrics"; wait_up "http://127.0.0.1:$nport/metrics"
for port in $rport $nport; do for _ in $(seq 20); do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; done; done

# run_wrk PID URL CONNS SECONDS -> "requests cpu_s p99_ms errors"
run_wrk() {
  local before after out
  before=$(cpu_s "$1")
  out=$(wrk -t1 -c"$3" -d"$4"s --latency "$2")
  after=$(cpu_s "$1")
  python3 - "$before" "$after" <<PY
import re, sys
out = """$out"""
req = int(re.search(r"(\d+) requests in", out).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
p99 = float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]
err = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
err += int(m.group(1)) if m else 0
print(req, float(sys.argv[2]) - float(sys.argv[1]), p99, err)
PY
}

echo "payload: rooftop $(curl -s "http://127.0.0.1:$rport/metrics" | wc -c) bytes / $(curl -s "http://127.0.0.1:$rport/metrics" | grep -vc '^#') series;" \
     "node_exporter $(curl -s "http://127.0.0.1:$nport/metrics" | wc -c) bytes / $(curl -s "http://127.0.0.1:$nport/metrics" | grep -vc '^#') series"
read -r r_req r_cpu r_p99 r_err <<< "$(run_wrk "$rpid" "http://127.0.0.1:$rport/metrics" 1 10)"
read -r n_req n_cpu n_p99 n_err <<< "$(run_wrk "$npid" "http://127.0.0.1:$nport/metrics" 1 10)"
rss0=$(kib "$rpid" VmRSS)
read -r l_req l_cpu l_p99 l_err <<< "$(run_wrk "$rpid" "http://127.0.0.1:$rport/metrics" 4 60)"
rss1=$(kib "$rpid" VmRSS)
r_hwm=$(kib "$rpid" VmHWM); n_hwm=$(kib "$npid" VmHWM)

python3 - <<PY
r_cpu_k = $r_cpu / $r_req * 1000; n_cpu_k = $n_cpu / $n_req * 1000
rows = [
  ("CPU s per 1000 scrapes (wrk -c1 10s)", f"{r_cpu_k:.3f}", f"{n_cpu_k:.3f}", f"{r_cpu_k / n_cpu_k:.3f}", "<= 0.2", r_cpu_k <= n_cpu_k / 5),
  ("peak RSS KiB (VmHWM)", "$r_hwm", "$n_hwm", f"{$r_hwm / $n_hwm:.3f}", "<= 0.5", $r_hwm <= $n_hwm / 2),
  ("p99 scrape latency ms (wrk -c1)", f"{$r_p99:.3f}", f"{$n_p99:.3f}", f"{$r_p99 / $n_p99:.3f}", "rooftop <= 2 ms", $r_p99 <= 2),
  ("wrk -c4 60s: requests / errors", f"$l_req / $l_err", "-", "-", "0 errors", $l_err == 0),
  ("wrk -c4 60s: RSS growth KiB", f"{$rss1 - $rss0}", "-", "-", "< 1024", $rss1 - $rss0 < 1024),
]
print(f"{'measure':40} {'rooftop':>14} {'node_exporter':>14} {'ratio':>8}  target")
ok = True
for name, a, b, ratio, target, passed in rows:
    ok &= passed
    print(f"{name:40} {a:>14} {b:>14} {ratio:>8}  {target:16} {'PASS' if passed else 'FAIL'}")
print(f"(1-connection runs: rooftop {$r_req} scrapes, node_exporter {$n_req}; errors {$r_err}/{$n_err})")
raise SystemExit(0 if ok else 1)
PY
