#!/usr/bin/env bash
# rooftop workload show answers bad input with exit 2 and a message naming
# the input: malformed YAML (file:line), unknown keys, negative numbers,
# unknown zoo ids (did you mean), impossible batch / precision / task.
# labels: workload
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

expect_bad() {  # expect_bad PATTERN ARGS...: exit 2 and PATTERN on stderr
  local pattern=$1; shift
  set +e
  "$ROOFTOP" workload show "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  if [ "$rc" -ne 2 ] || ! grep -q -- "$pattern" err.txt; then
    echo "FAIL: workload show $* -> rc=$rc, stderr:"; cat err.txt; exit 1
  fi
}

printf 'name: broken\nsample: s\nops:\n  - {name: a, kind: matmul, flops: 10\n' > syntax.yaml
expect_bad "syntax.yaml:[0-9]*:[0-9]*: malformed YAML" syntax.yaml
printf 'name: x\nsample: s\nops:\n  - name: a\n    kind: matmul\n    flops: -5\n' > negative.yaml
expect_bad "negative.yaml:6: 'flops' = -5 is out of range" negative.yaml
printf 'name: x\nbuilder: transformer\nconfig:\n  kind: decoder\n  layerz: 2\n' > unknown.yaml
expect_bad "unknown.yaml:5: unknown key 'layerz' in model.config (did you mean 'layers'?)" unknown.yaml
expect_bad "missing.yaml: cannot open file" missing.yaml
expect_bad "lama-2-7b: unknown model 'lama-2-7b'; did you mean: llama-2-7b" lama-2-7b
expect_bad "rooftop: error: --batch: must be >= 1" resnet50 --batch 0
expect_bad "rooftop: error: --batch: must be >= 1" resnet50 --batch -4
expect_bad "rooftop: error: --precision: unknown precision 'fp12'" resnet50 --precision fp12
expect_bad "rooftop: error: --task: unknown task 'serve'" resnet50 --task serve
expect_bad "rooftop: error: --input-tokens: must be >= 1" llama-2-7b --input-tokens 0
printf 'name: x\nsample: s\nops:\n  - {name: a, kind: matmul, flops: 5}\n' > fixed.yaml
expect_bad "fixed shape" fixed.yaml --seq 10
# Nothing on stdout when the input is bad.
test ! -s out.txt
echo ok
