#!/usr/bin/env bash
# The CUDA backend on a real GPU: cuBLAS GEMM per precision, device and
# host-link bandwidth, all verified. Skips (passes) without a GPU.
# labels: bench gpu
# timeout: 300
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU"; exit 0
fi
set +e
"$ROOFTOP" bench --device cuda:0 --quick --json > out.json 2> err.txt
rc=$?
set -e
if [[ $rc -eq 2 ]] && grep -q "ROOFTOP_CUDA=ON" err.txt; then echo "skipped: built without CUDA"; exit 0; fi
[[ $rc -eq 0 ]] || { cat err.txt; exit 1; }
python3 - <<'PY'
import json
r = json.load(open("out.json"))
got = {c["precision"] for c in r["compute"]}
assert {"fp64", "fp32", "tf32", "fp16", "bf16", "int8"} <= got, got
assert all(c["verified"] for c in r["compute"])
kernels = {p["kernel"] for p in r["memory_sweep"]}
assert {"device_triad", "h2d", "d2h"} <= kernels, kernels
PY
echo ok
