#!/usr/bin/env bash
# A backend asked for by name that cannot load stops `monitor` and `top` with
# exit 2 and a message naming the backend and the library it tried; `auto`
# warns once and goes on serving the host. This machine has no NVIDIA, ROCm
# or Ascend driver; ROOFTOP_NVML_LIBRARY points NVML at a path that is not there.
# labels: monitor
# timeout: 60
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
missing=/nonexistent/libnvidia-ml.so.1
expect_exit2() {  # expect_exit2 PATTERN... -- COMMAND...
  local pats=()
  while [ "$1" != -- ]; do pats+=("$1"); shift; done
  shift
  local rc=0
  timeout 20 "$@" > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] || { cat out.txt err.txt; echo "FAIL: exit $rc, expected 2: $*"; exit 1; }
  for p in "${pats[@]}"; do grep -q -- "$p" err.txt || { cat err.txt; echo "FAIL: no '$p' in stderr"; exit 1; }; done
  [ "$(wc -l < err.txt)" = 1 ] || { cat err.txt; echo "FAIL: expected one line"; exit 1; }
  [ ! -s out.txt ]
}
expect_exit2 '^rooftop: error: --backends nvml: cannot load the NVML library' "$missing" -- \
  env ROOFTOP_NVML_LIBRARY="$missing" "$ROOFTOP" monitor --backends nvml --listen 127.0.0.1:0
libs=$( (ldconfig -p || /sbin/ldconfig -p) 2>/dev/null || true)
installed() { grep -q "$1" <<< "$libs"; }  # a machine with the driver: those cases do not apply
installed libnvidia-ml.so || expect_exit2 '^rooftop: error: --backends nvml: ' 'libnvidia-ml.so.1' -- \
  env -u ROOFTOP_NVML_LIBRARY "$ROOFTOP" monitor --backends nvml --listen 127.0.0.1:0
installed librocm_smi64 ||
  expect_exit2 '^rooftop: error: --backends rocm: ' 'librocm_smi64.so' -- "$ROOFTOP" monitor --backends rocm --listen 127.0.0.1:0
installed libdcmi.so ||
  expect_exit2 '^rooftop: error: --backends ascend: ' 'libdcmi.so' -- "$ROOFTOP" monitor --backends proc,ascend --listen 127.0.0.1:0
expect_exit2 '^rooftop: error: --backends nvml: ' "$missing" -- \
  env ROOFTOP_NVML_LIBRARY="$missing" "$ROOFTOP" top --once --backends nvml
# The library loads but the kernel driver is not loaded: also exit 2, with the reason.
lib="$BUILD/tests/fake_nvml/libnvidia-ml.so.1"
if [ -f "$lib" ]; then
  expect_exit2 '^rooftop: error: ' 'driver is not loaded' -- \
    env FAKE_NVML_INIT_FAIL=1 ROOFTOP_NVML_LIBRARY="$lib" "$ROOFTOP" monitor --backends nvml --listen 127.0.0.1:0
fi
echo "ok: named backends that cannot load exit 2"

# auto: one warning naming what was tried, then serve the host.
ROOFTOP_NVML_LIBRARY="$missing" "$ROOFTOP" monitor --backends auto --proc-root "$SRC/tests/data/proc/basic" \
  --listen 127.0.0.1:0 --json > m.json 2> m.err &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s m.json ] && break; sleep 0.1; done
[ -s m.json ] || { cat m.err; echo "FAIL: auto did not start serving"; exit 1; }
port=$(python3 -c 'import json; print(json.load(open("m.json"))["port"])')
curl -sf "http://127.0.0.1:$port/metrics" > metrics.txt
grep -q '^rooftop_host_memory_total_bytes ' metrics.txt
cat m.err
if ! installed librocm_smi64 && ! installed libdcmi.so; then
  [ "$(grep -c 'warning' m.err)" = 1 ]
  grep -q '^rooftop: warning: no accelerator found, serving host metrics only (nvml: .*nonexistent.*; rocm: .*; ascend: ' m.err
fi
kill "$pid"
wait "$pid" || true
echo "ok: auto warns once and serves the host"
