#!/usr/bin/env bash
# Parts that published multi-device training results run on can be predicted
# end to end: a 16-bit peak and a priced scale-up link (GB300, MI355X, MI350X,
# MI250X, Trainium1/2, TPU v3, Ascend 910C), and `catalog show` names the
# domain, the scale-out network and their sources.
# labels: catalog
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

# predict ARGS... -> prediction text in out.txt; fails when predict fails.
predict() {
  "$ROOFTOP" predict --task train "$@" > out.txt
  grep -q "^throughput " out.txt
}

predict --model llama-2-70b --accelerator amd-mi355x --count 8
grep -q "^llama-2-70b on 8 x amd-mi355x: train bf16" out.txt
grep -q "^communication .* over Infinity Fabric (xGMI, 8-GPU node)" out.txt

# 64 MI355X: eight 8-GPU nodes joined by one 400 Gb/s NIC per GPU.
predict --model llama-2-70b --accelerator amd-mi355x --count 64
grep -q "^communication .* + Pensando Pollara 400 AI NIC (one per GPU)" out.txt

predict --model llama-2-70b --accelerator amd-mi350x --count 8
grep -q "^llama-2-70b on 8 x amd-mi350x: train bf16" out.txt

predict --model llama-2-70b --accelerator gb300 --count 72 --precision bf16
grep -q "^llama-2-70b on 72 x nvidia-gb300: train bf16" out.txt
grep -q "^communication .* over NVLink 5 (NVL72)" out.txt
predict --model llama-2-70b --accelerator gb300 --count 144 --precision bf16
grep -q "^communication .* + ConnectX-8 800 Gb/s (one per GPU)" out.txt

# 32 Trainium2: two 16-chip instances, NeuronLink-v3 inside, EFA between.
predict --model llama-2-70b --accelerator trainium2 --count 32
grep -q "^communication .* over NeuronLink-v3 (trn2.48xlarge, 4x4 torus) + EFA" out.txt

predict --model llama-2-70b --accelerator trainium1 --count 128
grep -q "^communication .* over NeuronLink-v2 (trn1.32xlarge) + EFA" out.txt

predict --model resnet50 --accelerator tpu-v3 --count 64
grep -q "^resnet50 on 64 x google-tpu-v3: train bf16" out.txt
grep -q "^communication .* over ICI (2D torus)" out.txt

predict --model resnet50 --accelerator amd-mi250x --count 4
grep -q "^communication .* over Infinity Fabric (xGMI, 4-OAM node)" out.txt

predict --model llama-2-70b --accelerator ascend-910c --count 64
grep -q "^communication .* over Unified Bus (UB, CloudMatrix384)" out.txt

# catalog show: domain, peers, scale-out and devices per node with their source keys.
"$ROOFTOP" catalog show amd-mi355x > mi355x.out
grep -q "^interconnect.scale_up.topology  *-  *full_mesh$" mi355x.out
grep -q "^interconnect.scale_up.peers  *cdna4  *7 peer links$" mi355x.out
grep -q "^interconnect.scale_up.domain  *cdna4  *8 devices$" mi355x.out
grep -q "^interconnect.devices_per_node  *mori  *8 devices$" mi355x.out
"$ROOFTOP" catalog show aws-trainium2 --json > trn2.json
python3 - <<'PY'
import json
d = json.load(open("trn2.json"))
assert d["scale_up_domain"]["topology"] == "torus_2d" and d["scale_up_domain"]["devices"] == 16, d["scale_up_domain"]
assert d["scale_out"]["bytes_per_s_per_direction"] == 25e9, d["scale_out"]
assert d["devices_per_node"] == 16, d["devices_per_node"]
assert d["sources"]["interconnect.scale_out"]["key"] == "trn2", d["sources"]
PY

# An unknown scale-out network says why.
"$ROOFTOP" catalog show amd-mi350x > mi350x.out
grep -q "^interconnect.scale_out  *-  *NICs chosen by the server maker, bandwidth unknown (no MI350X cluster configuration was found" mi350x.out
