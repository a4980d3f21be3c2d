#!/usr/bin/env bash
# `promtool check metrics` on both name sets: rooftop names lint clean; dcgm
# names only draw the problems their names force (camelCase labels, which
# every device series of the set carries, and counters without _total).
# labels: monitor
# timeout: 60
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
. "$SRC/tests/monitor_lib.sh"
for names in rooftop dcgm; do
  monitor_start m.json --names "$names" --proc-root "$SRC/tests/data/proc/basic" \
    --backends "proc,fake:$SRC/data/traces/h100x2-training.csv"
  curl -sf "http://127.0.0.1:$MON_PORT/metrics" > "$names.prom"
  kill -TERM "$MON_PID"; wait "$MON_PID"
  rc=0; promtool check metrics < "$names.prom" 2> "$names.lint" || rc=$?
  if [ "$names" = rooftop ]; then
    [ "$rc" = 0 ] || { cat "$names.lint"; echo "FAIL: rooftop names are not lint clean"; exit 1; }
    grep -q '^rooftop_gpu_utilization_ratio{gpu="0",uuid=' rooftop.prom
    grep -q '^rooftop_host_memory_total_bytes 16777216000$' rooftop.prom
  else
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat "$names.lint"; echo "FAIL: promtool could not parse"; exit 1; }
    if grep -v -E '^(DCGM_FI_[A-Z_]+ |rooftop_gpu_[a-z_]+ )(label names should be written in .snake_case. not .camelCase.|counter metrics should have "_total" suffix)$' "$names.lint"; then
      echo "FAIL: unexpected lint problems above"; exit 1
    fi
    grep -q '^DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-7f1c2d3e-0000-4000-8000-000000000000",pci_bus_id="",device="fake0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-a"} 96$' dcgm.prom
  fi
  echo "ok: $names (promtool rc=$rc)"
done
