#!/usr/bin/env python3
"""Runs the README's examples as written.

Every line of a fenced block in README.md that starts with `rooftop ` (or
`promtool `, which checks files an earlier example wrote) is run in order,
from a folder where `data/` and `tests/` are the repository's, with the
binary under test first on PATH. A line continued with a backslash is joined
to the next; a trailing `# comment` is dropped. Each must exit 0.

Lines that cannot run here are skipped with the reason printed: they name
the user's own file, need a server, or run until stopped on a fixed port.
The full `rooftop bench` examples take minutes of measuring: they run only
with --slow. An example that serves until stopped on 127.0.0.1:0 must still
be running after three seconds.

Usage: readme_examples.py --rooftop BIN --src DIR --work DIR [--slow]
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys

SKIP = [
    (r"my-card\.yaml|my-model\.yaml|my-results\.csv|model\.onnx", "names the user's own file"),
    (r"--prometheus http", "needs a Prometheus server (tests/e2e/analyze_prometheus.sh starts one)"),
    (r"^rooftop monitor(?!.*--listen 127\.0\.0\.1:0)", "serves on a fixed port until stopped (tests/e2e/monitor_*.sh)"),
    (r"^rooftop top(?!.*--once)", "a live view that runs until Ctrl-C"),
]
SLOW = r"^rooftop bench (?!--quick)"
SERVES = r"^rooftop monitor .*--listen 127\.0\.0\.1:0"


def examples(readme):
    lines, block, pending = [], False, ""
    for raw in open(readme, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("```"):
            block, pending = not block, ""
            continue
        if not block:
            continue
        line = pending + line.strip() if pending else line.strip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        pending = ""
        line = re.sub(r"\s+#\s.*$", "", line)
        if line.startswith(("rooftop ", "promtool ")):
            lines.append(line)
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rooftop", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--slow", action="store_true")
    a = ap.parse_args()

    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(os.path.join(a.work, "bin"))
    for d in ("data", "tests"):
        os.symlink(os.path.abspath(os.path.join(a.src, d)), os.path.join(a.work, d))
    os.symlink(os.path.abspath(a.rooftop), os.path.join(a.work, "bin", "rooftop"))
    env = dict(os.environ, PATH=os.path.join(a.work, "bin") + os.pathsep + os.environ["PATH"], NO_COLOR="1")

    cmds = examples(os.path.join(a.src, "README.md"))
    assert len(cmds) >= 30, f"only {len(cmds)} examples found in README.md"
    failed, ran = [], 0
    for cmd in cmds:
        why = next((w for pat, w in SKIP if re.search(pat, cmd)), None)
        if why is None and re.search(SLOW, cmd) and not a.slow:
            why = "minutes of measuring (run by the slow variant of this test)"
        if why is None and a.slow and not re.search(SLOW, cmd):
            why = "run by the fast variant of this test"
        if why is None and cmd.startswith("promtool ") and not shutil.which("promtool"):
            why = "promtool is not installed"
        if why:
            print(f"skip {cmd}\n     ({why})")
            continue
        ran += 1
        if re.search(SERVES, cmd):
            p = subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=a.work, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                _, err = p.communicate(timeout=3)
                failed.append((cmd, f"stopped with exit {p.returncode} instead of serving:\n{err}"))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
                p.communicate(timeout=10)
                print(f"ok   {cmd} (serving)")
            continue
        try:
            r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=a.work, env=env, capture_output=True,
                               text=True, timeout=900 if a.slow else 240)
        except subprocess.TimeoutExpired:
            failed.append((cmd, "timed out"))
            continue
        if r.returncode != 0:
            failed.append((cmd, f"exit {r.returncode}\n{r.stderr[-2000:]}"))
        else:
            print(f"ok   {cmd}")
    for cmd, why in failed:
        print(f"FAIL {cmd}\n  {why}")
    print(f"{ran} README examples run, {len(failed)} failed")
    assert ran > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
