# Sourced by the monitor e2e scripts (after `pids=()` and an EXIT trap that
# kills "${pids[@]}").
#
# monitor_start JSON ARGS...  starts `rooftop monitor ARGS... --listen
#   127.0.0.1:0 --json` in the background, waits for its JSON line in JSON,
#   and sets MON_PID and MON_PORT.
monitor_start() {
  local json=$1
  shift
  rm -f "$json"
  "$ROOFTOP" monitor "$@" --listen 127.0.0.1:0 --json > "$json" &
  MON_PID=$!
  pids+=("$MON_PID")
  for _ in $(seq 50); do [ -s "$json" ] && break; sleep 0.1; done
  MON_PORT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$json")
}

# prom_start SCRAPE_CONFIG  starts Debian's Prometheus (1 s scrapes) with one
#   scrape config (YAML, the list item's body lines, indented 4), in
#   ./prom-data, and sets PROM_PORT. prom_count QUERY prints how many series
#   the query returns; prom_wait_up JOB waits up to 60 s for up{job=JOB} == 1.
prom_start() {
  PROM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rm -rf prom-data
  printf 'global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n  - %s\n' "$1" > prometheus.yml
  prometheus --config.file=prometheus.yml --storage.tsdb.path=prom-data \
    --web.listen-address="127.0.0.1:$PROM_PORT" > prometheus.log 2>&1 &
  pids+=($!)
}
prom_count() {
  curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))' 2>/dev/null || echo 0
}
prom_wait_up() {
  for _ in $(seq 60); do [ "$(prom_count "up{job=\"$1\"} == 1")" = 1 ] && return 0; sleep 1; done
  cat prometheus.log
  echo "FAIL: Prometheus could not scrape job $1"
  return 1
}
