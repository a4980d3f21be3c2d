#!/usr/bin/env bash
# rooftop deploy: what it writes passes promtool, the pinned Kubernetes
# schema subset and the Grafana dashboard checks; bad input exits 2.
# labels: deploy
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf serve from-advise monitor monitor-rt
PY=/usr/bin/python3
SCHEMA="$SRC/tests/data/k8s/openapi-subset.json"

"$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 4 --model llama-2-70b \
  --image vllm/vllm-openai:v0.6.3 --name llama70b --namespace llm --out serve >/dev/null
"$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/llama2-70b-serving.yaml" --image vllm/vllm-openai:v0.6.3 \
  --out from-advise >/dev/null
"$ROOFTOP" deploy monitor --out monitor >/dev/null
"$ROOFTOP" deploy monitor --names rooftop --out monitor-rt >/dev/null

$PY "$SRC/tests/k8s_check.py" "$SCHEMA" serve/*.yaml from-advise/*.yaml monitor/*.yaml monitor/grafana-dashboard.json \
  monitor-rt/grafana-dashboard.json
grep -q 'nvidia.com/gpu: 4' serve/deployment.yaml
# The scenario path deploys advise's first choice with its sized startup probe.
grep -q 'rooftop.io/accelerator:' from-advise/deployment.yaml
grep -q 'startupProbe' from-advise/deployment.yaml

if command -v promtool >/dev/null; then
  for d in monitor monitor-rt; do
    promtool check config "$d/prometheus.yml"
    promtool check rules "$d/alert-rules.yml"
  done
else
  echo "promtool not installed: config and rules not checked by Prometheus" >&2
  exit 1
fi

# The JSON form lists the same files.
"$ROOFTOP" deploy monitor --json | $PY -c 'import json,sys; f=json.load(sys.stdin)["files"]; assert len(f)==6, f'

# Bad input: unknown accelerator, a count larger than a node, no image.
expect_2() { set +e; "$@" >/dev/null 2>err.txt; rc=$?; set -e; [ $rc -eq 2 ] || { echo "want exit 2, got $rc: $*"; cat err.txt; exit 1; }; }
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm9 --image x:1
grep -q "did you mean" err.txt
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 16 --image x:1
grep -q "exceeds one node" err.txt
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 1
expect_2 "$ROOFTOP" deploy monitor --names prometheus
expect_2 "$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/ad-training-cluster.yaml" --image x:1
grep -q "serving" err.txt
echo "deploy artefacts ok"
