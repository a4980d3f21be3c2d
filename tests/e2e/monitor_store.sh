#!/usr/bin/env bash
# History store: SIGKILL never corrupts the database and loses at most the
# last round; a restart appends to it; SIGTERM stops cleanly (exit 0); a
# corrupt, locked or unwritable database is refused at start-up (exit 2).
# labels: monitor
# timeout: 90
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf h.db* ro
trace="fake:$SRC/data/traces/h100x2-training.csv"
start() {  # start DB: runs a monitor in the background, waits for it to serve
  rm -f m.json
  "$ROOFTOP" monitor --backends "$trace" --listen 127.0.0.1:0 --interval 200ms --db "$1" --json > m.json &
  pid=$!
  for _ in $(seq 50); do [ -s m.json ] && break; sleep 0.1; done
  [ -s m.json ]
}
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
rows() { sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0; }
wait_rows() {  # wait_rows DB N: polls (up to 20 s) until the store holds more than N rows
  for _ in $(seq 200); do [ "$(rows "$1")" -gt "$2" ] && return 0; sleep 0.1; done
  echo "FAIL: the store $1 never held more than $2 rows"; exit 1
}

# SIGKILL once rows are being written: the store must come back intact.
start h.db; wait_rows h.db 9; kill -KILL "$pid"; wait "$pid" || true
[ "$(sqlite3 h.db 'PRAGMA integrity_check')" = ok ]
rows1=$(sqlite3 h.db 'SELECT count(*) FROM samples')
[ "$rows1" -ge 10 ] || { echo "FAIL: only $rows1 rows survived SIGKILL (10 were seen before it)"; exit 1; }
[ "$(sqlite3 h.db "SELECT value FROM meta WHERE key='schema_version'")" = 1 ]
[ "$(sqlite3 h.db 'PRAGMA journal_mode')" = wal ]

start h.db; wait_rows h.db "$rows1"; kill -TERM "$pid"; wait "$pid"   # clean stop: exit 0
rows2=$(sqlite3 h.db 'SELECT count(*) FROM samples')
[ "$rows2" -gt "$rows1" ]
[ "$(sqlite3 h.db "SELECT count(*) FROM jobs WHERE name='llama-7b-pretrain'")" = 1 ]
echo "ok: $rows1 rows survived SIGKILL, $rows2 after restart"

expect_bad() {  # expect_bad DB PATTERN
  set +e; "$ROOFTOP" monitor --backends "$trace" --listen 127.0.0.1:0 --db "$1" 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "$2" err.txt || { echo "FAIL: rc=$rc for $1"; cat err.txt; exit 1; }
  echo "ok: $(cat err.txt)"
}
head -c 8192 /dev/urandom > corrupt.db
expect_bad corrupt.db "corrupt.db: .*not a rooftop database or is corrupt"
expect_bad "$WORK/no/such/dir/h.db" "cannot"
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect("h.db", isolation_level=None); c.execute("BEGIN EXCLUSIVE")
open("locked.flag", "w").close(); time.sleep(8)' &
holder=$!
for _ in $(seq 50); do [ -e locked.flag ] && break; sleep 0.1; done
expect_bad h.db "locked by another process"
kill "$holder" 2>/dev/null || true; wait "$holder" 2>/dev/null || true; rm -f locked.flag
if [ "$(id -u)" != 0 ]; then
  mkdir ro && cp h.db ro/ && chmod 555 ro && expect_bad ro/h.db "cannot"; chmod 755 ro
fi
