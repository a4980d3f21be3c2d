#!/usr/bin/env bash
# Fuzzes the ONNX importer for a bounded time (libFuzzer + ASan + UBSan,
# target tests/fuzz/onnx_import_fuzz.cpp), seeded with the generated test
# models. Any crash, leak, hang or insane count fails the test. Skipped,
# saying so, where clang's libFuzzer is not installed.
# labels: fuzz onnx slow
# timeout: 240
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
fuzzer="$BUILD/fuzz_onnx_import"
if [ ! -x "$fuzzer" ]; then echo "skip: $fuzzer not built (needs clang++ and libclang-rt-14-dev)"; exit 0; fi
source "$SRC/tests/e2e/onnx_lib.bash"
rm -rf corpus && mkdir corpus
for f in "$M"/*.onnx; do cp "$f" corpus/; done
seconds="${ROOFTOP_FUZZ_SECONDS:-60}"
"$fuzzer" corpus -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 2> fuzz.log || { tail -60 fuzz.log; exit 1; }
grep -E "stat::number_of_executed_units|Done" fuzz.log | tail -2
