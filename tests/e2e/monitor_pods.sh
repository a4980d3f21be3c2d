#!/usr/bin/env bash
# Kubernetes attribution: a fake kubelet pod-resources gRPC server on a unix
# socket (tests/fake_podresources.py) assigns one GPU to a pod; the device's
# series carry pod, namespace and container labels (both name sets), the
# other GPU's do not, and the history stores the samples under the job
# "namespace/pod". A path that is not a socket, or a gRPC socket that is not
# pod-resources, is exit 2 naming it.
# labels: monitor
# timeout: 90
set -euo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
mkdir -p "$WORK" && cd "$WORK" && rm -f ./*.sock h.db* m.json
PY=/usr/bin/python3
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
. "$SRC/tests/monitor_lib.sh"
# Two GPUs, no job column: attribution provides the job.
cat > pods.csv <<CSV
t_s,host,gpu,uuid,model,gpu_util_pct,fb_used_bytes,fb_free_bytes
0,node-k,0,GPU-aaaa0000-0000-4000-8000-000000000000,NVIDIA H100 80GB HBM3,90,1000,2000
0,node-k,1,GPU-bbbb0000-0000-4000-8000-000000000001,NVIDIA H100 80GB HBM3,5,1000,2000
1,node-k,0,GPU-aaaa0000-0000-4000-8000-000000000000,NVIDIA H100 80GB HBM3,91,1000,2000
1,node-k,1,GPU-bbbb0000-0000-4000-8000-000000000001,NVIDIA H100 80GB HBM3,6,1000,2000
CSV
start_server() {  # start_server SOCKET ARGS...
  local sock=$1; shift
  $PY "$SRC/tests/fake_podresources.py" "$@" > "$sock.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q ready "$sock.log" 2>/dev/null && [ -S "$sock" ] && return; sleep 0.1; done
  cat "$sock.log"; echo "FAIL: the fake pod-resources server did not start"; exit 1
}
start_server kubelet.sock kubelet.sock "trainer-0/ml/main=GPU-aaaa0000-0000-4000-8000-000000000000" \
  "other-0/ml/side=0000:c1:00.0"
start_server other.sock --other-service other.sock

for names in dcgm rooftop; do
  rm -f h.db*
  monitor_start m.json --names "$names" --backends "fake:$WORK/pods.csv" --pod-resources "$WORK/kubelet.sock" --db h.db
  curl -sf "http://127.0.0.1:$MON_PORT/metrics" > "$names.prom"
  kill -TERM "$MON_PID"; wait "$MON_PID"
  util=$([ "$names" = dcgm ] && echo DCGM_FI_DEV_GPU_UTIL || echo rooftop_gpu_utilization_ratio)
  grep -E "^$util\{gpu=\"0\",.*,pod=\"trainer-0\",namespace=\"ml\",container=\"main\"\} " "$names.prom"
  grep -E "^$util\{gpu=\"1\"," "$names.prom" | grep -v 'pod=' >/dev/null
  if grep -E "^$util\{gpu=\"1\",.*pod=" "$names.prom"; then echo "FAIL: GPU1 has no pod"; exit 1; fi
  [ "$names" = dcgm ] || promtool check metrics < "$names.prom"
done
echo "ok: pod, namespace and container labels on the pod's device only"

# The history keeps the pod as the job of the pod's device (and none for the other).
[ "$(sqlite3 h.db "SELECT DISTINCT jobs.name FROM samples JOIN jobs ON jobs.id = job_id")" = "ml/trainer-0" ]
[ "$(sqlite3 h.db "SELECT count(*) FROM samples WHERE job_id IS NULL")" -ge 1 ]
[ "$(sqlite3 h.db "SELECT DISTINCT pods.namespace, pods.pod, pods.container FROM samples JOIN pods ON pods.id = pod_id")" = "ml|trainer-0|main" ]
echo "ok: the store keeps the pod with each sample"

expect_exit2() {  # expect_exit2 PATTERN SOCKET
  local rc=0
  "$ROOFTOP" monitor --backends "fake:$WORK/pods.csv" --pod-resources "$2" --listen 127.0.0.1:0 \
    > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] && grep -q -- "$1" err.txt || { cat err.txt; echo "FAIL: $2: exit $rc"; exit 1; }
}
expect_exit2 "$WORK/other.sock: not a kubelet pod-resources socket.*status 12" "$WORK/other.sock"
expect_exit2 "pods.csv: not a unix socket" "$WORK/pods.csv"
expect_exit2 "/nonexistent/kubelet.sock: cannot reach" /nonexistent/kubelet.sock
echo "ok: a socket that is not pod-resources is exit 2"
