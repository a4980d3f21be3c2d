#!/usr/bin/python3
"""Every help page of rooftop reads as text wrapped once: no prose line ends
short of the 80 columns when the next line of the same paragraph (or option
description) begins with a word that would have fitted. Such a ragged line is
what a source line wrapped a second time looks like.

  help_reflow.py ROOFTOP   checks `rooftop --help` and every command's and
                           subcommand's --help; prints each ragged pair.
"""
import re
import subprocess
import sys

WIDTH = 80


def page(rooftop, words):
    return subprocess.run([rooftop, *words, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands(text):
    """Names listed under a 'Subcommands:' heading."""
    names, inside = [], False
    for line in text.splitlines():
        if line.rstrip() == "Subcommands:":
            inside = True
            continue
        if inside:
            if line.startswith("   "):
                continue  # a description's continuation
            m = re.match(r"^  (\S+)(\s{2,}|$)", line)
            if not m:
                break
            names.append(m.group(1))
    return names


def indent(line):
    return len(line) - len(line.lstrip(" "))


def text_column(line):
    """Where a wrapped continuation of `line` starts: its second column when it
    has two ("  --json   Print ..."), else its own indentation."""
    lead = indent(line)
    m = re.search(r"\S {2,}(?=\S)", line[lead:])
    return lead + m.end() if m else lead


def exempt(line):
    body = line.strip()
    return (body.startswith(("- ", "rooftop ", "e.g. rooftop ", "#")) or body.endswith((":", "\\"))
            or body.startswith("Usage:"))


def ragged(text):
    lines = text.splitlines()
    out = []
    for a, b in zip(lines, lines[1:]):
        if not a.strip() or not b.strip() or exempt(a) or exempt(b):
            continue
        if indent(b) != text_column(a) and indent(b) != indent(a):
            continue  # not a continuation of `a`
        if indent(b) == indent(a) and text_column(a) != indent(a):
            continue  # the next row of a table, not a continuation
        first = b.split()[0]
        if len(a.rstrip()) + 1 + len(first) <= WIDTH:
            out.append((a, b))
    return out


def main():
    rooftop = sys.argv[1]
    todo, failures, pages = [[]], [], 0
    while todo:
        words = todo.pop()
        text = page(rooftop, words)
        pages += 1
        for a, b in ragged(text):
            failures.append(f"rooftop {' '.join(words)} --help:\n  | {a}\n  | {b}")
        todo.extend(words + [s] for s in subcommands(text))
    for f in failures:
        print(f)
    print(f"{pages} help pages, {len(failures)} ragged lines")
    return 1 if failures or pages < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
