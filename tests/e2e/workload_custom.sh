#!/usr/bin/env bash
# rooftop workload show on custom model files: a builder config and an
# explicit operator list, text and JSON; the JSON figures follow the file.
# labels: workload
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

cat > tiny-llama.yaml <<'YAML'
name: tiny-llama
builder: transformer
config: {kind: decoder, layers: 22, hidden: 2048, heads: 32, kv_heads: 4, ffn: 5632, gated: true,
         vocab: 32000, seq_len: 2048, input_tokens: 512, output_tokens: 128}
YAML
"$ROOFTOP" workload show tiny-llama.yaml > llm.txt
grep -q "^tiny-llama: tiny-llama (decoder_llm)" llm.txt
grep -q "^prefill *prompt" llm.txt
grep -q "^decode *token" llm.txt
# TinyLlama-1.1B's published size: 1.1B parameters.
"$ROOFTOP" workload show tiny-llama.yaml --json --batch 8 > llm.json
python3 - <<'PY'
import json
d = json.load(open("llm.json"))
assert abs(d["params"] / 1.1e9 - 1) < 0.02, d["params"]
assert d["per"] == "token" and d["batch"] == 8
assert [p["phase"] for p in d["phases"]] == ["prefill", "decode"], d["phases"]
# Paged KV cache: 2 x 22 layers x 4 kv heads x 64 x (512 + 128/2) live tokens x 8 sequences x 2 bytes.
assert d["memory"]["kv_cache_bytes"] == 2 * 22 * 4 * 64 * 576 * 8 * 2, d["memory"]
PY

cat > mlp.yaml <<'YAML'
name: two-layer mlp
sample: one feature vector of 1024 values
ops:
  - {name: fc, kind: matmul, flops: 2097152, weight_elems: 1048576, in_elems: 1024, out_elems: 1024, repeat: 2}
  - {name: relu, kind: elementwise, flops: 1024, in_elems: 1024, out_elems: 1024, repeat: 2}
YAML
"$ROOFTOP" workload show mlp.yaml --json --precision fp32 --batch 4 > mlp.json
python3 - <<'PY'
import json
d = json.load(open("mlp.json"))
assert d["model"] == "mlp" and d["params"] == 2 * 1048576
assert d["flops"] == 2 * (2097152 + 1024), d["flops"]
# Per sample at batch 4: weights shared by the batch, activations per sample, fp32.
want = (2 * (1048576 / 4 + 2048) + 2 * 2048) * 4
assert abs(d["bytes"] - want) < 1e-6, (d["bytes"], want)
PY
"$ROOFTOP" workload show mlp.yaml --task train --json > train.json
python3 -c 'import json; d=json.load(open("train.json")); assert [p["phase"] for p in d["phases"]]==["forward","backward","optimizer"], d["phases"]; assert d["memory"]["optimizer_bytes"]==12*2*1048576'
