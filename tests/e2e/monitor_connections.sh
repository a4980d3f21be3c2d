#!/usr/bin/env bash
# 400 held half-open connections (a request head that never completes) do
# not lock scrapes out: at the connection cap (64) the server closes the
# oldest idle or incomplete connection for a new one, instead of answering
# 503 until the held ones time out. The only time bound is a generous one
# that fails on a hang, not a latency figure (benchmarks live in bench/).
# labels: monitor security
# timeout: 90
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
"$ROOFTOP" monitor --backends "fake:$SRC/data/traces/a100-idle.csv" --listen 127.0.0.1:0 --json > m.json &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s m.json ] && break; sleep 0.1; done
port=$(python3 -c 'import json; print(json.load(open("m.json"))["port"])')

python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])

def scrape():
    """One GET /metrics on a fresh connection: (status line, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], body

held = []
for i in range(400):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /metrics HTTP/1.1\r\nX-Held: " + str(i).encode())  # never completed
    held.append(s)
time.sleep(0.5)  # let the server accept them all: it is now at its cap
for attempt in range(3):  # every scrape, not just an eventual one, gets through
    t0 = time.time()
    status, body = scrape()
    assert status == b"HTTP/1.1 200 OK", (attempt, status)
    assert b"DCGM_FI_DEV_GPU_UTIL{" in body, body[:200]
    assert time.time() - t0 < 10, "scrape hung"
    # The flood goes on: more half-open connections after each scrape.
    for i in range(50):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /met")
        held.append(s)
    time.sleep(0.2)
print("ok: 3 scrapes answered 200 while %d half-open connections were opened and held" % len(held))
for s in held:
    s.close()
PY
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")" = 200 ]
kill -0 "$pid"
echo "ok: scrapes get through at the connection cap"
