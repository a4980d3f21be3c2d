#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes `rooftop monitor` replaying a
# fake trace; the series are read back through Prometheus' HTTP query API.
# labels: monitor prometheus
# timeout: 120
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf prom-data
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$ROOFTOP" monitor --backends "fake:$SRC/data/traces/h100x2-training.csv" --listen 127.0.0.1:0 --json > monitor.json &
pids+=($!)
for _ in $(seq 50); do [ -s monitor.json ] && break; sleep 0.1; done
mport=$(python3 -c 'import json; print(json.load(open("monitor.json"))["port"])')

pport=$(free_port)
cat > prometheus.yml <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 15s}
scrape_configs:
  - job_name: rooftop
    static_configs: [{targets: ['127.0.0.1:$mport']}]
YML
prometheus --config.file=prometheus.yml --storage.tsdb.path=prom-data \
  --web.listen-address="127.0.0.1:$pport" > prometheus.log 2>&1 &
pids+=($!)

query() { curl -sf -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
count() { query "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))' 2>/dev/null || echo 0; }
for _ in $(seq 60); do [ "$(count DCGM_FI_DEV_GPU_UTIL)" = 2 ] && break; sleep 1; done
[ "$(count DCGM_FI_DEV_GPU_UTIL)" = 2 ] || { cat prometheus.log; echo "FAIL: no GPU series in Prometheus"; exit 1; }

# Labels as dcgm-exporter writes them, values from the trace.
query 'DCGM_FI_DEV_GPU_UTIL{gpu="1"}' | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"][0]
m = r["metric"]
assert m["UUID"] == "GPU-7f1c2d3e-0000-4000-8000-000000000001", m
assert m["modelName"] == "NVIDIA H100 80GB HBM3" and m["Hostname"] == "node-a" and m["device"] == "fake1", m
assert float(r["value"][1]) in (94.0, 12.0), r
print("ok: GPU series", m["UUID"], r["value"][1])'
[ "$(count 'up{job="rooftop"} == 1')" = 1 ]
[ "$(count 'DCGM_FI_DEV_FB_USED > 60000')" = 2 ]          # MiB
[ "$(count 'rooftop_host_cpu_iowait_ratio')" = 1 ]
[ "$(count 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION')" = 2 ]
echo "ok: Prometheus scraped rooftop monitor"
