#!/usr/bin/env bash
# Bad scenarios exit 2 with a message naming the input: unknown model (with
# "did you mean"), unknown key (file:line), contradictory constraints, and
# nothing feasible (naming the closest misses); a bad --report name too.
# labels: advise
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"

expect_2() {  # expect_2 PATTERN ARGS...: exit code 2 and PATTERN on stderr
  local pattern=$1 rc=0
  shift
  "$ROOFTOP" advise "$@" > out.txt 2> err.txt || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -Eq "$pattern" err.txt; then
    echo "advise $*: exit $rc, expected 2 and /$pattern/ in:"
    cat err.txt
    exit 1
  fi
}

head='name: bad
workload: {model: bert-base, task: infer, precisions: [fp16]}'

printf 'name: bad\nworkload: {model: bert-bsae, task: infer, precisions: [fp16]}\nobjective: {throughput_per_s: 10}\n' > unknown-model.yaml
expect_2 "unknown-model.yaml:2: .*bert-bsae.*did you mean.*bert-base" unknown-model.yaml

printf '%s\nobjective:\n  throughput_per_s: 10\n  troughput: 3\n' "$head" > unknown-key.yaml
expect_2 "unknown-key.yaml:5: unknown key 'troughput'" unknown-key.yaml

printf '%s\nobjective: {throughput_per_s: 10}\nconstraints: {budget: {capex_usd: 1000}}\neconomics: {deployment: cloud}\n' "$head" > contradictory.yaml
expect_2 "contradictory constraints: budget.capex_usd" contradictory.yaml

printf '%s\nobjective: {throughput_per_s: 10}\nconstraints: {vendors: {include: [nvidia], exclude: [nvidia]}}\n' "$head" > inex.yaml
expect_2 "'nvidia' is both included and excluded" inex.yaml

printf '%s\nobjective: {p99_latency_s: 0.00001, arrival_rate_per_s: 10}\n' "$head" > infeasible.yaml
expect_2 "nothing meets 10(\.0)? us p99 under the constraints; closest: [a-z0-9.-]+ at " infeasible.yaml

printf '%s\nobjective: {throughput_per_s: 10}\nconstraints: {vendors: {include: [nobody]}}\n' "$head" > nobody.yaml
expect_2 "nothing meets .*no accelerator came close" nobody.yaml

expect_2 "report must end in .html or .md" "$SRC/data/scenarios/ct-fp16.yaml" --report out.pdf
expect_2 "cannot open file" missing.yaml
echo ok
