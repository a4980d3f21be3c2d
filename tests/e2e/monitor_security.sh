#!/usr/bin/env bash
# Hostile clients: huge headers, bad methods, binary garbage and a slowloris
# client get 4xx or a timeout, and the daemon keeps serving. Default bind is
# loopback.
# labels: monitor security
# timeout: 90
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
grep -q '127.0.0.1:9400' <("$ROOFTOP" monitor --help)
"$ROOFTOP" monitor --backends "fake:$SRC/data/traces/a100-idle.csv" --listen 127.0.0.1:0 --json > m.json &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s m.json ] && break; sleep 0.1; done
port=$(python3 -c 'import json; print(json.load(open("m.json"))["port"])')
url="http://127.0.0.1:$port"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

[ "$(code "$url/metrics")" = 200 ]
[ "$(code -H "X-Big: $(head -c 20000 /dev/zero | tr '\0' a)" "$url/metrics")" = 431 ]
[ "$(code -X POST -d x=1 "$url/metrics")" = 400 ]     # a body is refused outright
[ "$(code -X PUT "$url/metrics")" = 405 ]
[ "$(code -X OPTIONS "$url/healthz")" = 405 ]
[ "$(code "$url/../../etc/passwd" --path-as-is)" = 404 ]
[ "$(code "$url/")" = 404 ]
python3 - "$port" <<'PY'
import os, socket, sys, time
port = int(sys.argv[1])
def conn():
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10); return s
s = conn(); s.sendall(os.urandom(2048) + b"\r\n\r\n"); r = s.recv(100); assert r.startswith(b"HTTP/1.1 400"), r
s = conn(); s.sendall(b"\x00\xff" * 5000); r = s.recv(100); assert r.startswith(b"HTTP/1.1 4"), r
# slowloris: one byte per second never completes a head; the server must give up within ~5 s
s = conn(); s.setblocking(False); t0 = time.time(); closed = False
for ch in b"GET /metrics HTTP/1.1\r\nX-A: " + b"a" * 30:
    try:
        s.send(bytes([ch]))
        time.sleep(1)
        s.recv(100)            # a 408 or end-of-file: the server gave up on us
        closed = True; break
    except BlockingIOError:
        continue
    except (BrokenPipeError, ConnectionResetError):
        closed = True; break
assert closed and time.time() - t0 < 9, "slowloris connection was not closed"
print("ok: garbage 400, slowloris closed after %.1f s" % (time.time() - t0))
PY
[ "$(code "$url/metrics")" = 200 ]
[ "$(code "$url/healthz")" = 200 ]
kill -0 "$pid"
echo "ok: still serving after hostile clients"
