#!/usr/bin/env bash
# `rooftop analyze --prometheus https://...` against Prometheus' own web
# config: TLS with a self-signed certificate made here and basic auth
# (bcrypt), over a backfilled generated fleet. libcurl is loaded at run time
# only for https. Bad input is exit 2 naming it: a wrong CA, no or wrong
# credentials, a CA file that is not PEM, a CA file for an http URL.
# labels: prometheus analyze security
# timeout: 180
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf ./*
for t in prometheus promtool openssl; do
  command -v $t >/dev/null || { echo "$t is not installed (scripts/setup.sh --test installs it)"; exit 1; }
done
PY=/usr/bin/python3
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

END=$(( $(date +%s) / 60 * 60 - 600 )); START=$((END - 3 * 3600))
"$ROOFTOP" trace synth fleet --devices 24 --duration 3h --step 30s --start "$START" --openmetrics fleet.om \
  --labels planted.json 2>/dev/null
promtool tsdb create-blocks-from openmetrics -q fleet.om tsdb >backfill.log 2>&1 || { cat backfill.log; exit 1; }

# A self-signed certificate for 127.0.0.1, and another one that did not sign it.
for n in server other; do
  openssl req -x509 -newkey rsa:2048 -nodes -keyout $n.key -out $n.crt -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
done
hash=$($PY -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  alice: %s\n' "$hash" >web.yml
printf 's3cret\n' >password; printf 'wrong\n' >wrong
PP=$(free_port)
printf 'global: {scrape_interval: 15s}\n' >prom.yml
prometheus --config.file=prom.yml --web.config.file=web.yml --storage.tsdb.path=tsdb \
  --storage.tsdb.retention.time=30d --web.listen-address=127.0.0.1:$PP --log.level=warn >prom.log 2>&1 & pids+=($!)
ready=0
for i in $(seq 120); do
  curl -sf --cacert server.crt -u alice:s3cret "https://127.0.0.1:$PP/-/ready" >/dev/null && { ready=1; break; }; sleep 1
done
[ $ready = 1 ] || { echo "Prometheus (https) did not become ready in 120 s"; cat prom.log; exit 1; }

URL="https://127.0.0.1:$PP"
"$ROOFTOP" analyze --prometheus "$URL" --ca-file server.crt --basic-auth alice --password-file password \
  --from "$START" --to "$END" --json >out.json
$PY - <<'PYEOF'
import json
out = json.load(open("out.json"))
planted = {(p["kind"], p["device"]) for p in json.load(open("planted.json"))["planted"]}
found = {(f["kind"], f["device"]) for f in out["findings"]}
print("planted", sorted(planted)); print("found  ", sorted(found))
assert planted and found == planted
assert len(out["devices"]) == 24
PYEOF

expect_2() { set +e; "$@" >/dev/null 2>err.txt; rc=$?; set -e; [ $rc -eq 2 ] || { echo "want 2, got $rc: $*"; cat err.txt; exit 1; }; }
AUTH=(--basic-auth alice --password-file password)
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file other.crt "${AUTH[@]}" --from "$START" --to "$END"
grep -q "does not verify against other.crt" err.txt || { cat err.txt; exit 1; }
expect_2 "$ROOFTOP" analyze --prometheus "$URL" "${AUTH[@]}" --from "$START" --to "$END"   # the system's CAs
grep -q "certificate does not verify" err.txt || { cat err.txt; exit 1; }
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file server.crt --from "$START" --to "$END"
grep -q "refused the credentials (HTTP 401)" err.txt || { cat err.txt; exit 1; }
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file server.crt --basic-auth alice --password-file wrong
grep -q "HTTP 401" err.txt
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file server.key "${AUTH[@]}"
grep -q -- "--ca-file server.key: not a PEM certificate" err.txt
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$PP" --ca-file server.crt "${AUTH[@]}"
grep -q "a CA file is for https" err.txt
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file server.crt --basic-auth alice
grep -q -- "--password-file" err.txt
echo "analyze: https with basic auth, and its bad input"
