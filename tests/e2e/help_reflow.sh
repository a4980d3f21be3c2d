#!/usr/bin/env bash
# Every command's help page (and every subcommand's) is wrapped once at 80
# columns: descriptions, option texts and footers read as paragraphs, never
# as source lines wrapped a second time (tests/help_reflow.py).
# labels: help
# timeout: 60
set -euo pipefail
/usr/bin/python3 "$SRC/tests/help_reflow.py" "$ROOFTOP"
