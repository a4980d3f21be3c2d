#!/usr/bin/env bash
# The README's full `rooftop bench` examples, as written: minutes of
# measuring on two cores, so labelled slow (make check runs them).
# labels: docs bench slow
# timeout: 1200
set -euo pipefail
python3 "$SRC/tests/readme_examples.py" --rooftop "$ROOFTOP" --src "$SRC" --work "$WORK" --slow
