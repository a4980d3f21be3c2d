#!/usr/bin/env bash
# Checks rooftop's CUDA bench backend and NVML monitor on a machine with an
# NVIDIA GPU, in under 5 minutes on an H100/H200-class machine:
#   1. builds rooftop with CUDA (-DROOFTOP_CUDA=ON) unless --rooftop is given;
#   2. runs `rooftop bench --device cuda:N --quick --json`, sampling the SM
#      clock with nvidia-smi meanwhile, and compares the GEMM, device-memory
#      and host-link figures with the catalog entry of the GPU (found from the
#      name nvidia-smi/NVML reports) and with nvidia-smi's clocks and PCIe link;
#   3. runs `rooftop monitor --backends nvml` and scrapes it for a few idle
#      seconds and then for --seconds (default 20) under a cuBLAS load
#      (`rooftop bench compute --device cuda:N`), and checks that utilisation,
#      memory, power and temperature move and that the DCGM names are there.
# One PASS/FAIL line per check (SKIP where the catalog has no figure); exit 0
# when every check passed, 1 when one failed, 2 on bad arguments.
#
# --replay DIR runs only the comparisons, on files a previous run left with
# --keep DIR (gpu.csv, clocks.csv, bench.json, scrapes.txt); that is how the
# test-suite checks this script without a GPU (tests/e2e/bench_device_check.sh).
# The comparisons themselves live in bench/device_check.py.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/device-check.sh [--device N] [--seconds S] [--build-dir DIR] [--rooftop BIN]
                             [--catalog-id ID] [--keep DIR] [--replay DIR] [--full]
  --device N       CUDA device index (default 0)
  --seconds S      monitor load phase in seconds (default 20, 5..600)
  --build-dir DIR  where to build with CUDA (default build-cuda)
  --rooftop BIN    use this rooftop (built with CUDA) instead of building
  --catalog-id ID  compare with this catalog entry instead of the one the GPU name gives
  --keep DIR       keep the recorded inputs of the checks in DIR
  --replay DIR     no GPU: run the checks on the files of an earlier --keep DIR
  --full           run bench without --quick (minutes, and stricter GEMM floors)
EOF
}

die_usage() {
  echo "device-check: $1" >&2
  usage >&2
  exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
device=0
seconds=20
build_dir=build-cuda
rooftop=""
catalog_id=""
keep=""
replay=""
quick=1

while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --device|--seconds|--build-dir|--rooftop|--catalog-id|--keep|--replay)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --device) device=$2 ;;
        --seconds) seconds=$2 ;;
        --build-dir) build_dir=$2 ;;
        --rooftop) rooftop=$2 ;;
        --catalog-id) catalog_id=$2 ;;
        --keep) keep=$2 ;;
        --replay) replay=$2 ;;
      esac
      shift 2 ;;
    --full) quick=0; shift ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ "$device" =~ ^[0-9]+$ ]] || die_usage "--device must be a GPU index (0, 1, ...), not '$device'"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 5 ] || [ "$seconds" -gt 600 ]; then
  die_usage "--seconds must be a whole number of seconds from 5 to 600, not '$seconds'"
fi
if [ -n "$replay" ]; then
  for f in gpu.csv clocks.csv bench.json scrapes.txt; do
    [ -f "$replay/$f" ] || die_usage "--replay $replay has no $f"
  done
  [ -n "$rooftop" ] || die_usage "--replay needs --rooftop BIN (for the catalog)"
fi
[ -z "$rooftop" ] || [ -x "$rooftop" ] || die_usage "--rooftop $rooftop is not an executable"

failed=0
report() {  # report PASS|FAIL check why
  echo "$1 $2: $3"
  [ "$1" != FAIL ] || failed=1
}

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  rec=$keep
else
  rec=$(mktemp -d)
fi
pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  [ -n "$keep" ] || rm -rf "$rec"
}
trap cleanup EXIT

# Scrapes http://ADDR/metrics once a second for S seconds into $rec/scrapes.txt.
scrape() {  # scrape PHASE ADDR S
  local i
  for ((i = 0; i < $3; i++)); do
    echo "# scrape $1 $(date +%s)" >> "$rec/scrapes.txt"
    curl -sf "http://$2/metrics" >> "$rec/scrapes.txt" || true
    sleep 1
  done
}

if [ -z "$replay" ]; then
  for tool in nvidia-smi curl python3 cmake; do
    command -v "$tool" > /dev/null || { report FAIL setup "$tool not found"; exit 1; }
  done
  nvidia-smi -L > /dev/null 2>&1 || { report FAIL setup "nvidia-smi sees no GPU"; exit 1; }

  # 1. Build with CUDA.
  if [ -z "$rooftop" ]; then
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    if [ ! -x "$nvcc" ]; then
      report FAIL build "nvcc not found (PATH or /usr/local/cuda/bin)"
      exit 1
    fi
    if cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROOFTOP_CUDA=ON -DROOFTOP_BUILD_TESTS=OFF \
         -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=native > "$rec/build.log" 2>&1 &&
       cmake --build "$build_dir" --target rooftop -j "$(nproc)" >> "$rec/build.log" 2>&1; then
      rooftop=$build_dir/rooftop
      report PASS build "$rooftop built with CUDA ($("$nvcc" --version | tail -1))"
    else
      tail -20 "$rec/build.log" >&2
      report FAIL build "see the build log above"
      exit 1
    fi
  fi

  nvidia-smi -i "$device" --query-gpu=name,clocks.max.sm,clocks.max.memory,pcie.link.gen.max,pcie.link.width.max \
    --format=csv,noheader,nounits > "$rec/gpu.csv"

  # 2. bench, with the SM clock sampled alongside.
  nvidia-smi -i "$device" --query-gpu=clocks.sm,clocks.mem --format=csv,noheader,nounits -lms 200 \
    > "$rec/clocks.csv" &
  pids+=($!)
  quick_flag=()
  [ "$quick" = 0 ] || quick_flag=(--quick)
  if "$rooftop" -q bench --device "cuda:$device" "${quick_flag[@]}" --json > "$rec/bench.json" 2> "$rec/bench.err"; then
    report PASS "bench run" "rooftop bench --device cuda:$device ${quick_flag[*]} --json"
  else
    cat "$rec/bench.err" >&2
    report FAIL "bench run" "rooftop bench --device cuda:$device exited non-zero"
  fi
  kill "${pids[0]}" 2> /dev/null || true

  # 3. monitor: idle, then under a cuBLAS load.
  : > "$rec/scrapes.txt"
  "$rooftop" monitor --backends nvml --listen 127.0.0.1:0 --interval 500ms --json > "$rec/monitor.json" \
    2> "$rec/monitor.err" &
  pids+=($!)
  port=""
  for _ in $(seq 50); do
    port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$rec/monitor.json" 2> /dev/null) && break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    cat "$rec/monitor.err" >&2
    report FAIL "monitor start" "rooftop monitor --backends nvml did not start"
  else
    scrape idle "127.0.0.1:$port" 3
    "$rooftop" -q bench compute --device "cuda:$device" > /dev/null 2>&1 &
    pids+=($!)
    sleep 2  # cuBLAS initialisation and the first allocations
    scrape load "127.0.0.1:$port" "$seconds"
  fi
fi

# The comparisons (also what --replay runs).
[ -n "$replay" ] && rec_in=$replay || rec_in=$rec
"$rooftop" catalog list --kind gpu --json > "$rec/catalog.json"
name=$(cut -d, -f1 < "$rec_in/gpu.csv" | head -1 | sed 's/^ *//; s/ *$//')
if [ -z "$catalog_id" ]; then
  if catalog_id=$(python3 "$here/device_check.py" catalog-id --name "$name" --catalog "$rec/catalog.json"); then
    report PASS "catalog entry" "'$name' is $catalog_id"
  else
    report FAIL "catalog entry" "no catalog entry for '$name' (pass --catalog-id ID)"
  fi
fi
if [ -n "$catalog_id" ]; then
  bench_args=(--bench "$rec_in/bench.json" --catalog "$rec/catalog.json" --id "$catalog_id"
              --gpu "$rec_in/gpu.csv" --clocks "$rec_in/clocks.csv")
  [ "$quick" = 0 ] || bench_args+=(--quick)
  python3 "$here/device_check.py" bench "${bench_args[@]}" || { [ $? -eq 1 ] && failed=1; } || exit 2
fi
python3 "$here/device_check.py" monitor --scrapes "$rec_in/scrapes.txt" --gpu-index "$device" ||
  { [ $? -eq 1 ] && failed=1; } || exit 2

if [ "$failed" = 0 ]; then echo "device-check: all checks passed"; else echo "device-check: some checks FAILED"; fi
exit "$failed"
