#!/usr/bin/env bash
# Runs one parser's libFuzzer target (tests/fuzz/NAME_fuzz.cpp, built as
# $BUILD/fuzz_NAME by tests/fuzz/targets.cmake) for a fixed time, seeded with
# tests/fuzz/corpus/NAME/ (real input files). Any crash, leak, hang, UBSan
# report or failed check fails the test and leaves the input in $WORK.
# Prints the number of inputs executed (also into $WORK/result.txt, which
# `make slow` lists at the end). Skipped, saying so, where the target
# is not built (no clang++ or libclang-rt-14-dev).
# Usage: run.sh NAME (environment: SRC, BUILD, WORK; ROOFTOP_FUZZ_SECONDS, default 25)
set -euo pipefail
name="$1"
fuzzer="$BUILD/fuzz_$name"
if [ ! -x "$fuzzer" ]; then echo "skip: $fuzzer not built (make slow builds it; needs clang++ and libclang-rt-14-dev)"; exit 0; fi
rm -rf "$WORK" && mkdir -p "$WORK/corpus"
cp "$SRC/tests/fuzz/corpus/$name"/* "$WORK/corpus/"
seconds="${ROOFTOP_FUZZ_SECONDS:-25}"
cd "$WORK"
status=0
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$fuzzer" corpus -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$WORK/" -print_final_stats=1 2> fuzz.log || status=$?
if [ "$status" -ne 0 ]; then
  tail -60 fuzz.log
  echo "fuzz_$name failed; the input is in $WORK (crash-*, leak-*, timeout-*)"
  exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log)
echo "fuzz_$name: $runs inputs in ${seconds} s, no crash, leak or hang" | tee "$WORK/result.txt"
