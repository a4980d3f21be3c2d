#!/usr/bin/env bash
# bench/device-check.sh without a GPU: shellcheck-clean, bad arguments are
# exit 2 with a message, GPU names map to catalog entries, and --replay of
# the inputs under tests/data/bench/device-check gives the expected
# PASS/FAIL lines against the real catalog.
# labels: bench
# timeout: 60
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
script="$SRC/bench/device-check.sh"
helper="$SRC/bench/device_check.py"
data="$SRC/tests/data/bench/device-check"

if command -v shellcheck > /dev/null; then
  shellcheck "$script" "$0"
  echo "shellcheck: clean"
else
  echo "shellcheck not installed (scripts/setup.sh installs it): lint skipped"
fi

# Arguments.
expect_usage() {  # expect_usage "message part" args...
  local want=$1 rc=0
  shift
  bash "$script" "$@" > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $* exited $rc, not 2"; cat out.txt err.txt; exit 1; }
  grep -q -- "$want" err.txt || { echo "FAIL: $*: no '$want' in"; cat err.txt; exit 1; }
}
expect_usage "unknown argument '--bogus'" --bogus
expect_usage "--device must be a GPU index" --device cuda:0
expect_usage "--seconds must be" --seconds 3
expect_usage "--seconds must be" --seconds 20s
expect_usage "--keep needs a value" --keep
expect_usage "has no gpu.csv" --replay "$WORK/nowhere" --rooftop "$ROOFTOP"
expect_usage "--replay needs --rooftop" --replay "$data/h200-pass"
expect_usage "is not an executable" --replay "$data/h200-pass" --rooftop "$WORK/nowhere"
bash "$script" --help | grep -q -- "--replay DIR"

# GPU names (as NVML/nvidia-smi report them) to catalog entries.
"$ROOFTOP" catalog list --kind gpu --json > catalog.json
while IFS='|' read -r name want; do
  got=$(python3 "$helper" catalog-id --name "$name" --catalog catalog.json || true)
  [ "$got" = "$want" ] || { echo "FAIL: '$name' -> '$got', expected '$want'"; exit 1; }
done <<'EOF'
NVIDIA H200|nvidia-h200-sxm-141gb
NVIDIA H100 80GB HBM3|nvidia-h100-sxm5-80gb
NVIDIA H100 PCIe|nvidia-h100-pcie-80gb
NVIDIA A100-SXM4-40GB|nvidia-a100-sxm4-40gb
NVIDIA A100-SXM4-80GB|nvidia-a100-sxm4-80gb
NVIDIA A100 80GB PCIe|nvidia-a100-pcie-80gb
Tesla T4|nvidia-t4
Tesla V100-SXM2-32GB|nvidia-v100-sxm2-32gb
NVIDIA L40S|nvidia-l40s
NVIDIA GeForce RTX 4090|nvidia-rtx-4090
NVIDIA Imaginary Z9|
EOF

# A run whose figures all fit the H200 entry.
rc=0
bash "$script" --replay "$data/h200-pass" --rooftop "$ROOFTOP" > pass.txt 2>&1 || rc=$?
cat pass.txt
[ "$rc" = 0 ] || { echo "FAIL: the passing replay exited $rc"; exit 1; }
for check in "catalog entry: 'NVIDIA H200' is nvidia-h200-sxm-141gb" "sm clock" "gemm bf16 (cublas)" \
             "gemm fp8 (cublaslt)" "dram bandwidth" "host link h2d" "host link d2h" "dcgm names" \
             "utilisation" "memory" "power" "temperature"; do
  grep -q "^PASS $check" pass.txt || { echo "FAIL: no 'PASS $check'"; exit 1; }
done
grep -q "^SKIP gemm fp64 (cublas): .* no fp64 peak" pass.txt
if grep -q "^FAIL" pass.txt; then echo "FAIL: a check failed in the passing replay"; exit 1; fi

# One broken figure per check.
rc=0
bash "$script" --replay "$data/h200-fail" --rooftop "$ROOFTOP" > fail.txt 2>&1 || rc=$?
cat fail.txt
[ "$rc" = 1 ] || { echo "FAIL: the failing replay exited $rc, not 1"; exit 1; }
for check in "sm clock" "gemm bf16 (cublas)" "gemm int8 (cublas)" "gemm tf32 (cublas): result not verified" \
             "dram bandwidth" "dcgm names: missing DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_MEM_CLOCK" \
             "utilisation" "memory" "power" "temperature"; do
  grep -qF "FAIL $check" fail.txt || { echo "FAIL: no 'FAIL $check'"; exit 1; }
done
grep -q "^PASS gemm fp8 (cublaslt)" fail.txt   # within the bounds scaled to the 900 MHz clock
grep -q "some checks FAILED" fail.txt

# Another catalog entry by hand; a GPU name the catalog lacks fails that check.
bash "$script" --replay "$data/h200-pass" --rooftop "$ROOFTOP" --catalog-id nvidia-h100-sxm5-80gb > h100.txt 2>&1 || true
grep -q "of nvidia-h100-sxm5-80gb's" h100.txt
mkdir -p unknown && cp "$data"/h200-pass/* unknown/ && echo "NVIDIA Imaginary Z9, 1500, 1000, 4, 16" > unknown/gpu.csv
rc=0
bash "$script" --replay unknown --rooftop "$ROOFTOP" > unknown.txt 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: unknown GPU exited $rc, not 1"; cat unknown.txt; exit 1; }
grep -q "^FAIL catalog entry: no catalog entry for 'NVIDIA Imaginary Z9'" unknown.txt

# Unreadable recordings are exit 2 with the file named.
cp -r unknown broken && echo "{" > broken/bench.json
rc=0
bash "$script" --replay broken --rooftop "$ROOFTOP" --catalog-id nvidia-h200-sxm-141gb > broken.txt 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: broken recording exited $rc, not 2"; cat broken.txt; exit 1; }
grep -q "broken/bench.json" broken.txt
echo ok
