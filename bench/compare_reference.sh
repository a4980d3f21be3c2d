#!/usr/bin/env bash
# Runs the reference tools next to `rooftop bench` on this machine and
# prints rooftop/reference ratios of medians and of bests over repetitions
# (>= 1 means rooftop measured at least as much). References: likwid-bench peakflops (fp64, fp32) and its triad at
# 2 GB, plus likwid's `stream` kernel (STREAM triad semantics, a = b + s*c)
# and a STREAM binary when one is given (STREAM_BIN=/path/to/stream; STREAM
# is not packaged in Debian). Run by hand, not in CI.
#
#   bench/compare_reference.sh [--install] [--reps N]      (ROOFTOP=build/rooftop by default)
#
# --install runs `apt-get install -y likwid` when likwid-bench is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOFTOP=${ROOFTOP:-build/rooftop}
REPS=3
INSTALL=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --install) INSTALL=1 ;;
    --reps) REPS=$2; shift ;;
    *) echo "usage: $0 [--install] [--reps N]" >&2; exit 2 ;;
  esac
  shift
done
[[ -x $ROOFTOP ]] || { echo "no rooftop binary at $ROOFTOP (set ROOFTOP=...)" >&2; exit 2; }
if ! command -v likwid-bench > /dev/null; then
  if [[ $INSTALL -eq 1 ]]; then
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
    $SUDO apt-get install -y -qq likwid > /dev/null
  else
    echo "likwid-bench not installed: apt-get install likwid, or rerun with --install" >&2; exit 2
  fi
fi

T=$(lscpu -p=CORE | grep -v '^#' | sort -u | wc -l)
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; else isa=avx; echo "note: no AVX-512 here; comparing the AVX2 (avx_fma) kernels"; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# "median best" of numbers on stdin
median_best() { sort -g | awk '{v[NR]=$1} END {print ((NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), v[NR]}'; }
# likwid <kernel> <size> <field: MFlops/s|MByte/s> -> "median best" over REPS, in G/s
likwid() {
  for _ in $(seq "$REPS"); do
    likwid-bench -t "$1" -W "N:$2:$T" 2>/dev/null | awk -v f="$3" '$1 == f {print $2 / 1000}'
  done | median_best
}

echo "== rooftop bench (threads: $T)"
"$ROOFTOP" -q bench compute --threads "$T" --json > "$work/compute.json"
"$ROOFTOP" -q bench memory --threads "$T" --json > "$work/memory.json"

echo "== likwid-bench x$REPS (median and best)"
lk_dp=$(likwid "peakflops_${isa}_fma" 64kB "MFlops/s:")
lk_sp=$(likwid "peakflops_sp_${isa}_fma" 64kB "MFlops/s:")
lk_triad=$(likwid "triad_${isa}_fma" 2GB "MByte/s:")
lk_stream=$(likwid "stream_${isa}_fma" 2GB "MByte/s:")
stream_triad=""
if [[ -n ${STREAM_BIN:-} && -x ${STREAM_BIN:-} ]]; then
  stream_triad=$(for _ in $(seq "$REPS"); do OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_PLACES=cores "$STREAM_BIN" | awk '$1 == "Triad:" {print $2 / 1000}'; done | median_best)
fi

python3 - "$work" "$lk_dp" "$lk_sp" "$lk_triad" "$lk_stream" "${stream_triad:-}" "$isa" <<'PY'
import json, sys
work, dp, sp, triad, stream, stream_bin, isa = sys.argv[1:]
c = json.load(open(f"{work}/compute.json"))
m = json.load(open(f"{work}/memory.json"))
def peak(p):
    v = [x for x in c["compute"] if x["precision"] == p and not x["gemm"]]
    if not v:
        return None
    x = max(v, key=lambda x: x["measured_flop_per_s"])
    return x["measured_flop_per_s"] / 1e9, x["best_flop_per_s"] / 1e9
threads = max((x["threads"] for x in m["memory"] if x["level"] == "DRAM"), default=0)
dram = {x["kernel"]: x for x in m["memory"] if x["level"] == "DRAM" and x["threads"] == threads}
best_dram = None
if dram:
    x = max(dram.values(), key=lambda x: x["bytes_per_s"])
    best_dram = x["bytes_per_s"] / 1e9, x["best_bytes_per_s"] / 1e9
rows = [("fp64 peak GFLOP/s", peak("fp64"), f"likwid peakflops_{isa}_fma", dp),
        ("fp32 peak GFLOP/s", peak("fp32"), f"likwid peakflops_sp_{isa}_fma", sp),
        ("DRAM triad GB/s", best_dram, f"likwid triad_{isa}_fma 2GB", triad),
        ("DRAM triad GB/s", best_dram, f"likwid stream_{isa}_fma 2GB", stream)]
if stream_bin:
    rows.append(("DRAM triad GB/s", best_dram, "STREAM Triad (STREAM_BIN)", stream_bin))
else:
    print("note: no STREAM binary (set STREAM_BIN); likwid's stream kernel stands in for STREAM Triad")
# Both sides repeat: medians compare typical runs, bests compare what each
# tool can reach on this shared, noisy machine (the fair test for a peak).
print(f"{'metric':<18} {'reference':>28} {'rooftop med':>11} {'ref med':>8} {'ratio':>6} {'rooftop best':>12} {'ref best':>8} {'ratio':>6}")
for name, ours, ref_name, ref in rows:
    ref = [float(v) for v in ref.split()] if ref else None
    if not ours or not ref:
        print(f"{name:<18} {ref_name:>28}  (missing)")
        continue
    print(f"{name:<18} {ref_name:>28} {ours[0]:>11.1f} {ref[0]:>8.1f} {ours[0] / ref[0]:>6.2f} "
          f"{ours[1]:>12.1f} {ref[1]:>8.1f} {ours[1] / ref[1]:>6.2f}")
print("rooftop DRAM kernels (median GB/s):", ", ".join(f"{k} {v['bytes_per_s'] / 1e9:.1f}" for k, v in sorted(dram.items())))
PY
