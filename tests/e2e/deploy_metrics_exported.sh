#!/usr/bin/env bash
# Every metric that a `rooftop deploy monitor` artefact references (alert and
# recording rules, the Grafana dashboard), in either name set, is exported by
# `rooftop monitor` with that name set (a trace replay, and the fake NVML for
# the series only NVML has), and every label the artefact selects,
# groups or prints by is on that series (or is `node`, which the Prometheus
# configuration it writes attaches to every target).
# labels: deploy monitor
# timeout: 90
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK" && rm -rf art-*
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
. "$SRC/tests/monitor_lib.sh"
for names in dcgm rooftop; do
  "$ROOFTOP" deploy monitor --names "$names" --accelerator nvidia-h100-sxm5-80gb --out "art-$names" >/dev/null
  monitor_start m.json --names "$names" --proc-root "$SRC/tests/data/proc/basic" \
    --backends "proc,fake:$SRC/data/traces/h100x2-training.csv"
  curl -sf "http://127.0.0.1:$MON_PORT/metrics" > "$names.prom"
  kill -TERM "$MON_PID"; wait "$MON_PID"
  # The NVML-only series (ECC, remapped rows) from the fake libnvidia-ml.so.1.
  ROOFTOP_NVML_LIBRARY="$BUILD/tests/fake_nvml/libnvidia-ml.so.1" monitor_start m.json --names "$names" --backends nvml
  curl -sf "http://127.0.0.1:$MON_PORT/metrics" >> "$names.prom"
  kill -TERM "$MON_PID"; wait "$MON_PID"
  /usr/bin/python3 - "art-$names" "$names.prom" <<'PY'
import glob, json, re, sys
art, prom = sys.argv[1], sys.argv[2]
# Exported series: name -> label names.
exported = {}
for line in open(prom):
    m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})? ', line)
    if line.startswith('#') or not m:
        continue
    labels = set(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="', m.group(3) or ''))
    exported.setdefault(m.group(1), set()).update(labels)
scrape_labels = {'node', 'instance', 'job'}  # attached by the scrape configuration deploy writes
exprs = []
import yaml
for f in glob.glob(art + '/*.yml') + glob.glob(art + '/*.yaml'):
    for doc in yaml.safe_load_all(open(f)):
        for g in (doc or {}).get('groups', []) if isinstance(doc, dict) else []:
            for r in g['rules']:
                exprs.append((f, r['expr'], ' '.join(str(v) for v in r.get('annotations', {}).values())))
def walk(x, f):
    if isinstance(x, dict):
        if 'expr' in x:
            exprs.append((f, x['expr'], x.get('legendFormat', '')))
        if 'query' in x and isinstance(x['query'], str):
            exprs.append((f, x['query'], ''))
        for v in x.values():
            walk(v, f)
    elif isinstance(x, list):
        for v in x:
            walk(v, f)
for f in glob.glob(art + '/*.json'):
    walk(json.load(open(f)), f)
assert exprs, 'no expressions found in ' + art
problems, checked = [], set()
for f, expr, text in exprs:
    names = [n for n in re.findall(r'\b((?:DCGM_FI|rooftop)_[A-Za-z0-9_]+)\b', expr)]
    # labels: selectors {a=..}, by/without (a, b), label_values(x, a), {{a}} and $labels.a in text
    labels = set(re.findall(r'[{,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=!]~?', expr))
    for grp in re.findall(r'\b(?:by|without)\s*\(([^)]*)\)', expr):
        labels.update(x.strip() for x in grp.split(',') if x.strip())
    labels.update(re.findall(r'label_values\([^,]+,\s*([A-Za-z_][A-Za-z0-9_]*)\)', expr))
    labels.update(re.findall(r'\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}', text))
    labels.update(re.findall(r'\$labels\.([A-Za-z_][A-Za-z0-9_]*)', text))
    for n in names:
        checked.add(n)
        if n not in exported:
            problems.append(f'{f}: {n} is referenced but not exported')
            continue
        for l in labels - scrape_labels:
            if l not in exported[n]:
                problems.append(f'{f}: {n} has no label {l} (has {sorted(exported[n])})')
if problems:
    print('\n'.join(sorted(set(problems))))
    sys.exit(1)
assert len(checked) >= 8, checked
print(f'ok: {art}: {len(checked)} metrics referenced, all exported with their labels')
PY
done
