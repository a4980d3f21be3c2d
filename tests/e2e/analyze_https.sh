#!/usr/bin/env bash
# `rooftop analyze --prometheus https://...` against Prometheus' own web
# config: TLS with a self-signed certificate made here and basic auth
# (bcrypt), over a backfilled generated fleet; then through a gateway with a
# path prefix and a bearer token. libcurl is loaded at run time only for
# https. Bad input is exit 2 naming it: a wrong CA, no or wrong
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
for _ in $(seq 120); do
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

# A gateway in front of it, as hosted services have: a path prefix and a
# bearer token (Mimir's /prometheus, Grafana Cloud's /api/prom).
GP=$(free_port)
printf 't0ken-%s\n' "$RANDOM" >token
$PY - "$GP" "$PP" "$(cat token)" <<'PYEOF' & pids+=($!)
import base64, http.server, ssl, sys, urllib.request
port, upstream, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile="server.crt")
basic = "Basic " + base64.b64encode(b"alice:s3cret").decode()
class Gateway(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Authorization") != "Bearer " + token:
            self.send_response(401); self.send_header("Content-Length", "0"); self.end_headers(); return
        if not self.path.startswith("/prometheus/api/v1/"):
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        req = urllib.request.Request(f"https://127.0.0.1:{upstream}" + self.path[len("/prometheus"):], data=body,
                                     headers={"Authorization": basic,
                                              "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, context=ctx) as r:
            out = r.read()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
http.server.ThreadingHTTPServer(("127.0.0.1", port), Gateway).serve_forever()
PYEOF
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$GP) 2>/dev/null && break; sleep 0.1; done
"$ROOFTOP" analyze --prometheus "http://127.0.0.1:$GP/prometheus/" --bearer-token-file token \
  --from "$START" --to "$END" --json >gateway.json
$PY -c 'import json; k = lambda n: sorted((f["kind"], f["device"]) for f in json.load(open(n))["findings"]); assert k("gateway.json") == k("out.json")'

. "$SRC/tests/e2e_lib.sh"
AUTH=(--basic-auth alice --password-file password)
expect_2 "$ROOFTOP" analyze --prometheus "$URL" --ca-file other.crt "${AUTH[@]}" --from "$START" --to "$END"
grep -q "does not verify against other.crt" err.txt || { cat err.txt; exit 1; }
expect_2 "$ROOFTOP" analyze --prometheus "$URL" "${AUTH[@]}" --from "$START" --to "$END"   # the system's CAs
grep -q "certificate does not verify" err.txt || { cat err.txt; exit 1; }
# No system CA bundle at all (a minimal install without ca-certificates).
expect_2 env SSL_CERT_FILE="$WORK/no-such-bundle.crt" "$ROOFTOP" analyze --prometheus "$URL" "${AUTH[@]}" --from "$START" --to "$END"
grep -qF "the system CA bundle $WORK/no-such-bundle.crt is missing (install ca-certificates) or give --ca-file" err.txt \
  || { cat err.txt; exit 1; }
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
printf 'wrong\n' >badtoken
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$GP/prometheus" --bearer-token-file badtoken
grep -q "refused the credentials (HTTP 401)" err.txt
expect_2 "$ROOFTOP" analyze --prometheus "http://127.0.0.1:$GP/prometheus" --bearer-token-file token "${AUTH[@]}"
grep -q "not both" err.txt
echo "analyze: https with basic auth, a bearer token behind a path prefix, and their bad input"
