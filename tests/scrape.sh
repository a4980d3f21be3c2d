# Sourced by e2e scripts that start `rooftop monitor` somewhere else (a
# chroot): scrape_metrics PORT OUT LOG waits up to 10 s for the exporter on
# 127.0.0.1:PORT, saves /metrics in OUT, and fails showing LOG when nothing
# with a metric family came back.
scrape_metrics() {
  local port=$1 out=$2 log=$3
  for _ in $(seq 1 50); do
    curl -fsS "http://127.0.0.1:$port/metrics" >"$out" 2>/dev/null && break
    sleep 0.2
  done
  grep -q '^# TYPE' "$out" 2>/dev/null || { echo "no metrics scraped from 127.0.0.1:$port"; cat "$log"; return 1; }
}
