#!/usr/bin/env bash
# The rocm and ascend backends' real dlopen paths against the fake
# librocm_smi64.so.7 and libdcmi.so the tests build (tests/fake_vendor),
# found on LD_LIBRARY_PATH as a vendor install would be: device readings, the
# activity counters filling the vendor-neutral profiling series, their
# absence when ROCm SMI does not answer them, and a library whose init fails.
# labels: monitor rocm ascend
# timeout: 60
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
. "$SRC/tests/scrape.sh"
. "$SRC/tests/e2e_lib.sh"
libdir="$BUILD/tests/fake_vendor"
[ -f "$libdir/librocm_smi64.so.7" ] || { echo "FAIL: the fake ROCm SMI was not built"; exit 1; }

LD_LIBRARY_PATH="$libdir" "$ROOFTOP" top --once --json --backends rocm > top.json
python3 - top.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
assert len(d) == 2, d
a, b = d
assert a["backend"] == "rocm" and a["model"] == "AMD Instinct MI300X", a
assert a["gpu_util_pct"] == 87 and a["mem_copy_util_pct"] == 41, a
assert a["fb_used_bytes"] == 150 * 2**30 and a["fb_total_bytes"] == 192 * 2**30, a
assert a["temp_c"] == 71 and a["power_w"] == 612, a
assert a["gr_engine_active_pct"] == 83 and a["dram_active_pct"] == 57, a
assert b["gr_engine_active_pct"] == 9 and b["dram_active_pct"] == 2, b
assert a["sm_occupancy_pct"] is None and a["tensor_active_pct"] is None, a  # no ROCm counterpart read
PY

# Older ROCm (no activity averages): the series are absent, not zero.
FAKE_ROCM_NO_ACTIVITY=1 LD_LIBRARY_PATH="$libdir" "$ROOFTOP" top --once --json --backends rocm > top-old.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; assert all(x["gr_engine_active_pct"] is None and x["dram_active_pct"] is None and x["gpu_util_pct"] is not None for x in d), d' top-old.json

# The exporter, rooftop names: the profiling ratios from the activity averages.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LD_LIBRARY_PATH="$libdir" "$ROOFTOP" monitor --backends rocm --names rooftop --listen "127.0.0.1:$PORT" \
  --interval 1s --quiet > monitor.log 2>&1 &
MON=$!
trap 'kill $MON 2>/dev/null || true' EXIT
scrape_metrics "$PORT" metrics.txt monitor.log
grep -E '^rooftop_gpu_graphics_engine_active_ratio\{[^}]*gpu="0"[^}]*\} 0\.83$' metrics.txt >/dev/null ||
  { echo "FAIL: no graphics-engine ratio for gpu 0"; grep graphics_engine metrics.txt; exit 1; }
grep -E '^rooftop_gpu_dram_active_ratio\{[^}]*gpu="1"[^}]*\} 0\.02$' metrics.txt >/dev/null ||
  { echo "FAIL: no DRAM-active ratio for gpu 1"; grep dram_active metrics.txt; exit 1; }

# Ascend through the fake libdcmi.so in the same folder: one card, two chips;
# AI Core and HBM bandwidth utilisation fill the same two profiling rows.
LD_LIBRARY_PATH="$libdir" "$ROOFTOP" top --once --json --backends ascend > npu.json
python3 - npu.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
assert [x["uuid"] for x in d] == ["NPU-3-0", "NPU-3-1"], d
a = d[0]
assert a["gpu_util_pct"] == 76 and a["gr_engine_active_pct"] == 76, a
assert a["mem_copy_util_pct"] == 44 and a["dram_active_pct"] == 44, a
assert a["power_w"] == 310.5 and a["temp_c"] == 64 and a["fb_used_bytes"] == 52000 * 2**20, a
PY

# Named on the command line, a ROCm SMI that cannot start is bad input.
FAKE_ROCM_FAIL_INIT=1 LD_LIBRARY_PATH="$libdir" expect_2 "$ROOFTOP" top --once --backends rocm
grep -q "rsmi_init" err.txt || { cat err.txt; exit 1; }
echo "rocm and ascend: readings, activity counters as profiling series, their absence, and a failed init"
