#!/usr/bin/env bash
# Bad input to `rooftop bench` exits 2 with a message naming the input,
# before anything is measured.
# labels: bench
# timeout: 60
set -uo pipefail
mkdir -p "$WORK" && cd "$WORK"

expect_bad() {  # expect_bad <text in stderr> <args...>
  local want=$1; shift
  "$ROOFTOP" "$@" > out.txt 2> err.txt
  local rc=$?
  if [[ $rc -ne 2 ]] || ! grep -q -- "$want" err.txt; then
    echo "FAIL: rooftop $* -> exit $rc, stderr:"; cat err.txt; exit 1
  fi
}

expect_bad "unknown device 'tpu'" bench --device tpu
expect_bad "bad CUDA device" bench --device cuda:x
expect_bad "suite" bench fast
expect_bad "--threads" bench compute --threads 100000
expect_bad "--threads" bench compute --threads 0
expect_bad "--link-gbps" bench collective --link-gbps=-5
expect_bad "does not match\|match the id" bench compute --quick --save-profile "$WORK/mybox.yaml"
expect_bad "--save-profile" bench compute --save-profile "$WORK/profile.txt"
# A profile path that cannot be written fails before minutes of measuring
# (the full suite takes them; this test's timeout does not allow them).
: > "$WORK/afile"
expect_bad "cannot write $WORK/afile/sub" bench --save-profile "$WORK/afile/sub/"
OMPI_COMM_WORLD_SIZE=1 "$ROOFTOP" bench compute > out.txt 2> err.txt; rc=$?
[[ $rc -eq 2 ]] && grep -q "only the collective suite" err.txt || { echo "FAIL: worker mode"; cat err.txt; exit 1; }
if ! grep -q "cuda" <("$ROOFTOP" bench --help); then echo "FAIL: help"; exit 1; fi
# Without CUDA in the build, or without a GPU, cuda:0 is exit 2 with a way out.
"$ROOFTOP" bench memory --quick --device cuda:0 > out.txt 2> err.txt; rc=$?
if [[ $rc -ne 0 ]]; then
  [[ $rc -eq 2 ]] && grep -q "ROOFTOP_CUDA=ON\|no CUDA device" err.txt || { echo "FAIL: cuda"; cat err.txt; exit 1; }
fi
echo ok
