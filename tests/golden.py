#!/usr/bin/env python3
"""Golden CLI tests (duckdb-style .test files).

A .test file holds one or more cases:

    # comment lines are ignored
    command: rooftop catalog show nvidia-t4
    exit: 0                 (optional, default 0)
    stream: stdout          (optional: stdout, stderr or both)
    ----
    expected output, line by line

Cases are separated by a line "====". In the command, `rooftop` at the start
is the binary under test and $SRC is the source tree. Expected lines may use
placeholders: %float (any number), %int (any whole number), %date (an ISO
date or date-time), %any (anything on the rest of the line... or inside it).
Trailing spaces are ignored. `--update-golden` rewrites the expectations
with the actual output (placeholders are then lost, so review the diff).
"""
import argparse
import os
import re
import subprocess
import sys

PLACEHOLDERS = {
    "%float": r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?",
    "%int": r"-?\d+",
    "%date": r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?",
    "%any": r".*?",
}
PH_RE = re.compile("|".join(re.escape(k) for k in PLACEHOLDERS))


def line_regex(expected):
    out, pos = [], 0
    for m in PH_RE.finditer(expected):
        out.append(re.escape(expected[pos:m.start()]))
        out.append(PLACEHOLDERS[m.group(0)])
        pos = m.end()
    out.append(re.escape(expected[pos:]))
    return re.compile("^" + "".join(out) + "$")


def parse(path):
    cases, text = [], open(path, encoding="utf-8").read()
    for chunk in re.split(r"^====\s*$", text, flags=re.M):
        if not chunk.strip():
            continue
        head, sep, body = chunk.partition("\n----\n")
        if not sep:
            sys.exit(f"{path}: case without a '----' line")
        case = {"exit": 0, "stream": "stdout", "command": None}
        for line in head.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, val = line.partition(":")
            case[key.strip()] = val.strip()
        if not case["command"]:
            sys.exit(f"{path}: case without a command")
        case["exit"] = int(case["exit"])
        case["expected"] = body.rstrip("\n").split("\n") if body.strip() else []
        case["head"] = head
        cases.append(case)
    return cases


def run(case, rooftop, src):
    cmd = case["command"]
    if cmd.startswith("rooftop"):
        cmd = '"$ROOFTOP"' + cmd[len("rooftop"):]
    env = dict(os.environ, ROOFTOP=rooftop, SRC=src, NO_COLOR="1", COLUMNS="120", TZ="UTC")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, cwd=src, timeout=100,
                       stdin=subprocess.DEVNULL)
    out = {"stdout": p.stdout, "stderr": p.stderr, "both": p.stdout + p.stderr}[case["stream"]]
    return p.returncode, [l.rstrip() for l in out.rstrip("\n").split("\n")] if out.strip() else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rooftop", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--update-golden", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    failed = 0
    for path in a.files:
        cases = parse(path)
        new_chunks = []
        for case in cases:
            code, lines = run(case, a.rooftop, a.src)
            problems = []
            if code != case["exit"]:
                problems.append(f"exit code {code}, expected {case['exit']}")
            exp = [l.rstrip() for l in case["expected"]]
            for i in range(max(len(exp), len(lines))):
                e = exp[i] if i < len(exp) else None
                g = lines[i] if i < len(lines) else None
                if e is None or g is None or not line_regex(e).match(g):
                    problems.append(f"line {i + 1}:\n  expected: {e!r}\n  actual:   {g!r}")
                    break
            if problems:
                failed += 1
                print(f"FAIL {path}: {case['command']}")
                for p in problems:
                    print("  " + p)
                if not a.update_golden:
                    print("  --- actual output ---")
                    for l in lines[:200]:
                        print("  | " + l)
            else:
                print(f"ok   {path}: {case['command']}")
            head = case["head"].rstrip("\n")
            new_chunks.append(head + "\n----\n" + "\n".join(lines if problems else case["expected"]) + "\n")
        if a.update_golden:
            with open(path, "w", encoding="utf-8") as f:
                f.write("====\n".join(new_chunks))
    if failed and not a.update_golden:
        sys.exit(1)


if __name__ == "__main__":
    main()
