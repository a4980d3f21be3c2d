#!/usr/bin/env bash
# The README's examples run as written (tests/readme_examples.py): every
# `rooftop ...` line of its code blocks exits 0, except those that name the
# user's own files, need a server or run until stopped, which it lists.
# labels: docs
# timeout: 600
set -euo pipefail
python3 "$SRC/tests/readme_examples.py" --rooftop "$ROOFTOP" --src "$SRC" --work "$WORK"
