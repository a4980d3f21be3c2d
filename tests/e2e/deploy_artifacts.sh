#!/usr/bin/env bash
# rooftop deploy: what it writes passes promtool, the pinned Kubernetes
# schema subset (kinds served by Kubernetes 1.27+), the device plugins'
# resource names and the Grafana dashboard checks; the Helm chart renders to
# the plain files; the scenario path serves advise's plan; the --help
# examples run; bad input exits 2.
# labels: deploy
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf serve from-advise keda keda-team-b monitor monitor-rt monitor-multi helm-* vendor-* k8s chart
PY=/usr/bin/python3
SCHEMA="$SRC/tests/data/k8s/openapi-subset.json"
CHECK="$PY $SRC/tests/deploy_check.py"

"$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 4 --model llama-2-70b \
  --name llama70b --namespace llm --out serve >/dev/null
"$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/llama2-70b-serving.yaml" --out from-advise >/dev/null
"$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/llama2-70b-serving.yaml" --autoscaler keda --out keda >/dev/null
"$ROOFTOP" deploy monitor --out monitor >/dev/null
"$ROOFTOP" deploy monitor --names rooftop --out monitor-rt >/dev/null
"$ROOFTOP" deploy monitor --accelerator nvidia-h100-sxm5-80gb --accelerator amd-mi300x --accelerator huawei-ascend-910b \
  --out monitor-multi >/dev/null

$PY "$SRC/tests/k8s_check.py" "$SCHEMA" serve/*.yaml from-advise/*.yaml keda/*.yaml monitor/*.yaml monitor-multi/*.yaml \
  monitor/grafana-dashboard.json monitor-rt/grafana-dashboard.json
grep -q 'nvidia.com/gpu: 4' serve/deployment.yaml
grep -q -- '--tensor-parallel-size' serve/deployment.yaml
# The scenario path deploys advise's first choice: its part, devices per copy, replicas, precision.
"$ROOFTOP" advise "$SRC/data/scenarios/llama2-70b-serving.yaml" --json >advise.json
$CHECK plan advise.json from-advise/deployment.yaml
grep -q 'startupProbe' from-advise/deployment.yaml
# No host system library folder on the monitor's LD_LIBRARY_PATH.
if grep -A1 'name: LD_LIBRARY_PATH' monitor*/daemonset*.yaml | grep -E 'value: (.*:)?(/usr)?/lib(64|/x86_64-linux-gnu)?/?(:|$)' ; then
  echo "a host library path is on LD_LIBRARY_PATH"; exit 1
fi

# Per vendor: the resource requested is the one the vendor's device plugin advertises.
for pair in nvidia:nvidia-l4 amd:amd-mi300x intel:intel-gaudi3 google:google-tpu-v5e huawei:huawei-ascend-910b \
            huawei:huawei-ascend-310p aws:aws-inferentia2; do
  vendor=${pair%%:*} id=${pair#*:} image=()
  [ "$vendor" = aws ] && image=(--image registry.example/neuron-server:1)  # no vLLM image known for Neuron
  "$ROOFTOP" deploy serve --accelerator "$id" --count 1 --model llama-2-7b "${image[@]}" --out "vendor-$id" >/dev/null
  $CHECK resource "$vendor" "vendor-$id/deployment.yaml"
  $PY "$SRC/tests/k8s_check.py" "$SCHEMA" "vendor-$id"/*.yaml >/dev/null
done

# Helm: the chart's templates, rendered with its default values, are the plain manifests.
"$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 4 --model llama-2-70b \
  --name llama70b --namespace llm --format helm --out helm-serve >/dev/null
$CHECK helm helm-serve/llama70b serve
"$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/llama2-70b-serving.yaml" --autoscaler keda --format helm \
  --out helm-keda >/dev/null
$CHECK helm helm-keda/llama-2-70b keda
# Installed in another namespace, the chart's KEDA query follows it.
"$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/llama2-70b-serving.yaml" --autoscaler keda \
  --namespace team-b --out keda-team-b >/dev/null
grep -q 'namespace="team-b"' keda-team-b/keda-scaledobject.yaml
$CHECK helm helm-keda/llama-2-70b keda-team-b namespace=team-b
"$ROOFTOP" deploy monitor --format helm --out helm-monitor >/dev/null
$CHECK helm helm-monitor/rooftop-monitor monitor
cmp helm-monitor/rooftop-monitor/files/prometheus.yml monitor/prometheus.yml

if command -v promtool >/dev/null; then
  for d in monitor monitor-rt monitor-multi; do
    # Debian's promtool has no Kubernetes discovery: deploy_check.py checks
    # those blocks and hands promtool the rest (relabelling, rule files).
    $CHECK promtool-copy "$d/prometheus.yml" "$d/prometheus-promtool.yml"
    promtool check config "$d/prometheus-promtool.yml"
    promtool check rules "$d/alert-rules.yml" "$d/recording-rules.yml"
  done
else
  echo "promtool not installed: config and rules not checked by Prometheus" >&2
  exit 1
fi

# The --help examples run as written (from a folder holding data/).
ln -sfn "$SRC/data" data
# (an example wrapped to the terminal's width continues with a trailing '\')
"$ROOFTOP" deploy --help | awk '/^  rooftop / {
    cmd = $0
    while (cmd ~ /\\$/ && (getline next_line) > 0) { sub(/ *\\$/, " ", cmd); sub(/^ +/, "", next_line); cmd = cmd next_line }
    sub(/^  /, "", cmd); print cmd }' >examples.txt
[ "$(wc -l <examples.txt)" -ge 3 ]
while read -r line; do
  echo "example: $line"
  (eval "${line//rooftop /\"$ROOFTOP\" }") >/dev/null
done <examples.txt
grep -q 'name: llama-3-1-8b' k8s/deployment.yaml

# The JSON form lists the same files.
"$ROOFTOP" deploy monitor --json | $PY -c 'import json,sys; f=json.load(sys.stdin)["files"]; assert len(f)==9, f'

# Bad input: unknown accelerator, a count larger than a node, no model nor image.
. "$SRC/tests/e2e_lib.sh"
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm9 --image x:1
grep -q "did you mean" err.txt
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 16 --image x:1
grep -q "exceeds one node" err.txt
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --count 1
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --model llama-2-7b --autoscaler cron
expect_2 "$ROOFTOP" deploy serve --accelerator nvidia-h100-sxm5-80gb --model llama-2-7b --name ...
expect_2 "$ROOFTOP" deploy monitor --names prometheus
expect_2 "$ROOFTOP" deploy monitor --format kustomize
expect_2 "$ROOFTOP" deploy serve --scenario "$SRC/data/scenarios/ad-training-cluster.yaml" --image x:1
grep -q "serving" err.txt
echo "deploy artefacts ok"
