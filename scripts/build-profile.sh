#!/usr/bin/env bash
# Where the build's time goes, read from ninja's own log (no extra tooling).
#
#   scripts/build-profile.sh [BUILD_DIR] [N]
#
# Prints the sum of compile CPU-seconds (one compiler process per translation
# unit, so a compile edge's wall time is its CPU time) over every object file
# of the last build, the sum for link edges, and the N (default 10) slowest
# translation units. Run it after a clean build (`rm -rf build && make build`)
# for the figure the build-speed work is judged by; an incremental build only
# lists what it rebuilt. When ccache is in use its hit rate is printed too.
set -euo pipefail

build=${1:-build}
top=${2:-10}
log="$build/.ninja_log"
if [ ! -f "$log" ]; then
  echo "build-profile: no ninja log at $log (build first: make build)" >&2
  exit 2
fi
case "$top" in
  '' | *[!0-9]*)
    echo "build-profile: N must be a whole number, got '$top'" >&2
    exit 2
    ;;
esac

# .ninja_log v5: start_ms end_ms mtime output hash. A target rebuilt several
# times appears several times; the last line is the build being profiled.
awk -v top="$top" '
  /^#/ { next }
  $4 ~ /^\// { next }   # a custom command logs its outputs twice, once by absolute path
  { last[$4] = $2 - $1 }
  END {
    n = 0; compile = 0; link = 0; other = 0
    for (out in last) {
      s = last[out] / 1000.0
      # objects, precompiled headers, and the fuzzer (compiled and linked by clang in one step)
      if (out ~ /(\.(o|obj|gch|pch)|fuzz_[a-z_]+)$/) { compile += s; n++; tu[n] = out; secs[n] = s }
      else if (out ~ /(\.a|\.so[.0-9]*|^rooftop|\/rooftop|unit_[a-z_]+|bench_[a-z_]+)$/) link += s
      else other += s
    }
    printf "compile: %.0f CPU-seconds over %d translation units\n", compile, n
    printf "link and archive: %.0f s; other steps: %.0f s\n", link, other
    # selection of the slowest (n is a few hundred at most)
    printf "slowest %d translation units:\n", top
    for (k = 1; k <= top && k <= n; k++) {
      best = 0
      for (i = 1; i <= n; i++) if (!(i in done) && (best == 0 || secs[i] > secs[best])) best = i
      done[best] = 1
      printf "  %6.1f s  %s\n", secs[best], tu[best]
    }
  }' "$log"

if command -v ccache >/dev/null 2>&1; then
  # "Hits: 10 / 20 (50.00 %)" on ccache 4.x
  ccache --show-stats 2>/dev/null | awk '/^Cacheable calls|^ *Hits:|^ *Misses:/ { sub(/^ +/, ""); print "ccache " $0 }' | head -3
fi
