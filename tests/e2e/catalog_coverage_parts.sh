#!/usr/bin/env bash
# The parts added for coverage (H100 NVL, H200 NVL, A30, MI300A, Data Center
# GPU Max 1550) and the gaps filled (Jetson AGX Thor's FP16/FP8/INT8 peaks,
# Groq's chip-to-chip link) can be predicted end to end, and `catalog show`
# prints the rented price with its provider, region and date.
# labels: catalog
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

# predict ARGS... -> prediction text in out.txt; fails when predict fails.
predict() {
  "$ROOFTOP" predict "$@" > out.txt
  grep -q "^throughput " out.txt
}

# Thor had only an FP4 peak: inference at 16 and 8 bits now has a rate.
for p in fp16 fp8 int8; do
  predict --model llama-2-7b --accelerator jetson-thor --precision "$p"
  grep -q "^llama-2-7b on 1 x nvidia-jetson-agx-thor: infer $p" out.txt
done

# Multi-chip Groq runs are priced over the C2C links.
predict --model llama-2-7b --accelerator groq-lpu --count 64
grep -q "^communication .* over Groq chip-to-chip (C2C) links" out.txt

# Two H100 NVL hold llama-2-70b at FP16 only together: tensor parallel over the bridge.
predict --model llama-2-70b --accelerator h100-nvl --count 2 --precision fp16
grep -q "^llama-2-70b on 2 x nvidia-h100-nvl-94gb: infer fp16, data 1 x tensor 2" out.txt
grep -q "^communication .* over NVLink bridge (2 GPUs)" out.txt

predict --model llama-2-70b --accelerator h200-nvl --count 4 --precision fp16
grep -q "^llama-2-70b on 4 x nvidia-h200-nvl-141gb: infer fp16" out.txt
predict --model llama-2-7b --accelerator a30 --precision int8
grep -q "^llama-2-7b on 1 x nvidia-a30: infer int8" out.txt
predict --model llama-2-7b --accelerator mi300a --precision fp8
grep -q "^llama-2-7b on 1 x amd-mi300a: infer fp8" out.txt
predict --model llama-2-7b --accelerator max-1550 --precision bf16
grep -q "^llama-2-7b on 1 x intel-gpu-max-1550: infer bf16" out.txt

# The rented price names where and when it was read; derived peaks show their formula.
"$ROOFTOP" catalog show h100-nvl > nvl.out
grep -q '^price.cloud  *sky  *\$6.98/h (2026-12-01, azure, eastus)$' nvl.out
"$ROOFTOP" catalog show max-1550 > pvc.out
grep -q "^compute.bf16  *derived  *838.9 TFLOP/s (derived: 4096 BF16 ops per clock per Xe-core (XMX) x 128 Xe-cores x 1.6 GHz" pvc.out

# GB10 (DGX Spark): NVIDIA publishes FP32 and sparse FP4 only; FP32 runs, an
# FP16 request fails naming the part (exit 2), and the catalog says why.
predict --model llama-2-7b --accelerator dgx-spark --precision fp32
grep -q "^llama-2-7b on 1 x nvidia-gb10-dgx-spark: infer fp32" out.txt
rc=0
"$ROOFTOP" predict --model llama-2-7b --accelerator dgx-spark --precision fp16 > spark.out 2> spark.err || rc=$?
[ "$rc" -eq 2 ]
grep -q "'nvidia-gb10-dgx-spark' has no fp16 peak in the catalog (NVIDIA publishes only the sparse FP4 headline.*); it has: fp32, fp4" spark.err
"$ROOFTOP" catalog list --missing > missing.out
grep -q "^nvidia-gb10-dgx-spark  *compute.fp16  *NVIDIA publishes only the sparse FP4 headline" missing.out
