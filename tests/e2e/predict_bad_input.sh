#!/usr/bin/env bash
# rooftop predict: bad input is answered with a message naming the input and
# exit code 2, never a crash: unknown ids (with "did you mean"), impossible
# batch/count, a model that does not fit, an unsupported precision, a
# malformed custom model file.
# labels: predict
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

. "$SRC/tests/e2e_lib.sh"
P() { "$ROOFTOP" predict "$@"; }

expect_2 P --model resnet50 --accelerator nvidia-h100-sxm9
grep -q "did you mean" err.txt
expect_2 P --model resnet5O --accelerator nvidia-t4
grep -q "resnet5O" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --batch=-4
grep -q -- "--batch" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --batch 0
expect_2 P --model resnet50 --accelerator nvidia-t4 --count 0
grep -q -- "--count" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --precision fp8
grep -q "fp16" err.txt && grep -q "fp8" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --precision fp7
grep -q -- "--precision: unknown precision 'fp7'; accepted: .*w4a16.*fp8-kv" err.txt
expect_2 P --model llama-2-7b --accelerator nvidia-h100-sxm5-80gb --precision w4a16+w8a8
grep -q "unknown precision 'w4a16+w8a8'" err.txt
expect_2 P --model llama-2-7b --accelerator nvidia-h100-sxm5-80gb --task train --precision w4a16
grep -q -- "--precision" err.txt && grep -q "give one precision" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --scenario server --latency-target 100furlongs
grep -q -- "--latency-target: unknown duration unit 'furlongs'.*(use ms, s" err.txt
expect_2 P --model resnet50 --accelerator nvidia-t4 --scenario multistream
expect_2 P --model llama-3.1-405b --accelerator nvidia-t4
grep -q "does not fit" err.txt && grep -q "try --count" err.txt
expect_2 P --model llama-2-70b --accelerator nvidia-h100-sxm5-80gb --task train
grep -q "short by" err.txt

printf 'name: broken\nbuilder: transformer\nconfig: {layers: -2}\n' > bad.yaml
expect_2 P --model bad.yaml --accelerator nvidia-t4
grep -q "bad.yaml" err.txt

# Plans: an unknown key, a plan that does not divide the device count, tensor
# parallel wider than the heads; each names the offending value.
expect_2 P --model bert-large --accelerator h100 --task train --plan foo=1
grep -q "'foo'" err.txt
expect_2 P --model gpt-3-175b --accelerator h100 --count 1024 --task train --plan tp=3
grep -q "tp x pp = 3 does not divide --count 1024" err.txt
expect_2 P --model bert-large --accelerator h100 --count 32 --task train --plan tp=32
grep -q "tp=32" err.txt
expect_2 P --model bert-large --accelerator h100 --task train --plan zero=7
grep -q "zero='7'" err.txt
expect_2 P --model resnet50 --accelerator h100 --to-target
grep -q -- "--to-target" err.txt
expect_2 P --model llama-2-70b --accelerator gaudi2 --count 8 --kv-cache paging
grep -q "'paging' is not a KV cache layout (paged or static)" err.txt
expect_2 P --model llama-2-70b --accelerator gaudi2 --count 8 --kv-cache static --rate 5
grep -q -- "--kv-cache" err.txt

# Nothing crashed, and no stack traces or internal errors leaked out.
if grep -q "internal error" err.txt; then cat err.txt; exit 1; fi
echo "predict bad input ok"
