#!/usr/bin/env bash
# A Hugging Face config.json (or the folder holding it) is a model wherever a
# zoo id is: workload show gives the zoo entry built from the same published
# config, predict prices it. What the reader does not understand is exit 2
# naming it.
# labels: workload
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
HF="$SRC/tests/data/hf"

"$ROOFTOP" workload show "$HF/gpt-oss-120b" > folder.txt
grep -q "parameters:  117 G (5.71 G active per token)" folder.txt
grep -q "checkpoint:  MXFP4 routed experts" folder.txt
grep -q "layers.attn.sdpa_window" <("$ROOFTOP" workload show "$HF/gpt-oss-120b/config.json" --top 0)

# The same figures as the zoo entry built from it.
for id in deepseek-r1 gpt-oss-20b qwen3-235b-a22b; do
  "$ROOFTOP" workload show "$HF/$id/config.json" --json > hf.json
  "$ROOFTOP" workload show "$id" --json > zoo.json
  python3 - hf.json zoo.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("params", "active_params", "flops", "bytes", "kv_elems_per_token", "memory", "mtp_layers", "quantization"):
    assert a[k] == b[k], (k, a[k], b[k])
assert [(o["name"], o["role"], o["flops"]) for o in a["ops"]] == [(o["name"], o["role"], o["flops"]) for o in b["ops"]]
PY
done

"$ROOFTOP" predict --model "$HF/qwen3-32b/config.json" --accelerator nvidia-h100-sxm5-80gb --count 2 --json > predict.json
python3 -c 'import json,sys; p=json.load(open("predict.json")); assert p["throughput"]["unit"] == "tokens/s", p["throughput"]'

. "$SRC/tests/e2e_lib.sh"
expect_bad() {  # expect_bad PATTERN MODEL: workload show exits 2 naming the input
  expect_2 "$ROOFTOP" workload show "$2"
  grep -q -- "$1" err.txt || { echo "FAIL: workload show $2:"; cat err.txt; exit 1; }
}
printf '{"architectures": ["Phi3ForCausalLM"], "hidden_size": 8}\n' > phi.json
expect_bad "phi.json: architecture 'Phi3ForCausalLM' is not modelled" phi.json
sed 's/"vocab_size"/"num_frobs": 2, "vocab_size"/' "$HF/qwen3-32b/config.json" > frob.json
expect_bad "frob.json: field 'num_frobs' is not understood" frob.json
mkdir -p empty
expect_bad "empty: a model folder must hold a Hugging Face config.json" empty
printf '{"architectures": [' > broken.json
expect_bad "broken.json: not a JSON object" broken.json
test ! -s out.txt
echo ok
