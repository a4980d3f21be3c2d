#!/usr/bin/env bash
# rooftop validate: a malformed CSV (missing columns, a bad number, a short
# row, a missing file) exits 2 with the file and line in the message.
# labels: predict validate
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
expect_2() {
  set +e; "$ROOFTOP" validate "$1" >out.txt 2>err.txt; rc=$?; set -e
  [ $rc -eq 2 ] || { echo "want exit 2, got $rc for $1"; cat err.txt; exit 1; }
}
H=id,accelerator_id,model_id,category,workload,precision,batch_size,accelerator_count,scenario,metric,metric_value,unit

printf 'id,accelerator_id,metric_value\nA,nvidia-t4,1\n' > nocols.csv
expect_2 nocols.csv
grep -q "nocols.csv:1" err.txt && grep -q "missing column" err.txt

printf '%s\nA,nvidia-t4,gemm,microbench_gemm,"8x8x8",BF16,,1,m,m,1.5,TFLOP/s\nB,nvidia-t4,gemm,microbench_gemm,"8x8x8",BF16,,1,m,m,fast,TFLOP/s\n' "$H" > badnum.csv
expect_2 badnum.csv
grep -q "badnum.csv:3" err.txt && grep -q "metric_value" err.txt

printf '%s\nA,nvidia-t4,gemm\n' "$H" > short.csv
expect_2 short.csv
grep -q "short.csv:2" err.txt

expect_2 does-not-exist.csv
grep -q "does-not-exist.csv" err.txt

# A well-formed file with an unknown accelerator is not an error: the row says why.
printf '%s\nA,nvidia-h100-sxm9,gemm,microbench_gemm,"8x8x8",BF16,,1,m,m,1.5,TFLOP/s\n' "$H" > unknown.csv
"$ROOFTOP" validate unknown.csv > out.txt
grep -q "did you mean" out.txt
