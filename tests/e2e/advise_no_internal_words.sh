#!/usr/bin/env bash
# Users never see the project's internal words: no "seed" (the RNG option
# --seed aside), no validation row ids (PV-..., PT-...), no quoted example
# cases. Checked in every golden expectation, in what `make run` prints, in
# every example scenario's terminal output and report, in the catalog as
# `catalog list --json` prints it (notes included), in the shipped traces'
# comments and in README.md.
# labels: advise golden
# timeout: 600
set -euo pipefail
mkdir -p "$WORK"
cd "$WORK"
out=outputs.txt
: > "$out"
for f in "$SRC"/data/scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  "$ROOFTOP" advise "$f" --top 100 --report "$name.md" >> "$out"
  cat "$name.md" ./*.svg >> "$out"
  rm -f ./*.svg
done
(cd "$SRC" && "$ROOFTOP" advise data/scenarios/default.yaml) >> "$out"   # make run
"$ROOFTOP" catalog list >> "$out"
"$ROOFTOP" catalog list --json >> "$out"
grep -h '^#' "$SRC"/data/traces/*.csv >> "$out"
python3 - "$out" "$SRC" <<'PY'
import glob, re, sys
out, src = sys.argv[1], sys.argv[2]
words = re.compile(r"(?<![-\w])seed(s|'s|s')?\b|\bP[VT]-\d|like the 8 x A100|8 x A100 at 30|CT model lost", re.I)
def expectations(path):
    # Only what a golden test expects rooftop to print (after each "----").
    keep, lines = False, []
    for line in open(path, encoding="utf-8"):
        if line.startswith("command:") or line.startswith("===="):
            keep = False
        elif line.startswith("----"):
            keep = True
        elif keep:
            lines.append(line)
    return lines
sources = [(out, open(out, encoding="utf-8", errors="replace").read().splitlines())]
# `rooftop validate` reports each row of the CSV it is given by that row's own
# id (the user's data, not an internal word), so its golden file is not checked.
sources += [(p, expectations(p)) for p in sorted(glob.glob(f"{src}/tests/golden/*.test"))
            if not p.endswith("/validate.test")]
sources += [(f"{src}/README.md", open(f"{src}/README.md", encoding="utf-8").read().splitlines())]
bad = [f"{name}: {line.strip()}" for name, lines in sources for line in lines
       if words.search(line) and "--seed" not in line]
for b in bad:
    print(b)
print(f"{len(bad)} lines with internal words")
sys.exit(1 if bad else 0)
PY
echo ok
