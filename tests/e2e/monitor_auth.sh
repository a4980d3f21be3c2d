#!/usr/bin/env bash
# --web.config.file in node_exporter's format: basic_auth_users with bcrypt
# hashes guard /metrics (401 without or with wrong credentials, 200 with the
# right ones, for curl and for a real Prometheus); /healthz stays open. A
# file asking for http_server_config, a plain-text password or an unreadable file is exit 2.
# labels: monitor security
# timeout: 90
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf prom-data
# The hash is made here, with the C library's crypt(3) (bcrypt, $2y$, cost 10).
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024).replace("$2b$", "$2y$")))')
case "$hash" in '$2y$10$'*) ;; *) echo "FAIL: no bcrypt from crypt(3): $hash"; exit 1 ;; esac
printf 'basic_auth_users:\n  alice: %s\n' "$hash" > web.yml

expect_exit2() {  # expect_exit2 PATTERN FILE
  local rc=0
  "$ROOFTOP" monitor --web.config.file "$2" --backends "fake:$SRC/data/traces/a100-idle.csv" \
    --listen 127.0.0.1:0 > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] && grep -q -- "$1" err.txt || { cat err.txt; echo "FAIL: $2: exit $rc"; exit 1; }
}
expect_exit2 '/nonexistent/web.yml: cannot read' /nonexistent/web.yml
printf 'http_server_config:\n  http2: false\n' > http.yml
expect_exit2 'http.yml:2.*http_server_config is not supported' http.yml
printf 'basic_auth_users:\n  alice: s3cret\n' > plain.yml
expect_exit2 'plain.yml:2.*not a bcrypt hash' plain.yml
echo "ok: bad web config files are exit 2"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
. "$SRC/tests/monitor_lib.sh"
"$ROOFTOP" monitor --web.config.file web.yml --backends "fake:$SRC/data/traces/a100-idle.csv" \
  --listen 127.0.0.1:0 --json > m.json &
pids+=($!)
for _ in $(seq 50); do [ -s m.json ] && break; sleep 0.1; done
mport=$(python3 -c 'import json; print(json.load(open("m.json"))["port"])')
url="http://127.0.0.1:$mport"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "$url/metrics")" = 401 ]
curl -s -D headers.txt -o /dev/null "$url/metrics"
grep -qi '^WWW-Authenticate: Basic realm="rooftop monitor"' headers.txt
[ "$(code -u alice:wrong "$url/metrics")" = 401 ]
[ "$(code -u bob:s3cret "$url/metrics")" = 401 ]
[ "$(code -u alice:s3cret "$url/metrics")" = 200 ]
curl -sf -u alice:s3cret "$url/metrics" > metrics.txt  # (not piped: grep -q would cut curl off)
grep -q '^DCGM_FI_DEV_GPU_UTIL{' metrics.txt
[ "$(code "$url/healthz")" = 200 ]
echo "ok: basic auth guards /metrics"

# A real Prometheus scrapes with basic_auth.
prom_start "{job_name: rooftop, basic_auth: {username: alice, password: s3cret}, static_configs: [{targets: ['127.0.0.1:$mport']}]}"
prom_wait_up rooftop
[ "$(prom_count DCGM_FI_DEV_GPU_UTIL)" = 1 ]
echo "ok: Prometheus scrapes through basic auth"
