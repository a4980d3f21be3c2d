#!/usr/bin/env bash
# The nvml backend's real dlopen path against the fake libnvidia-ml.so.1
# that the tests build (tests/fake_nvml), found via ROOFTOP_NVML_LIBRARY and
# via LD_LIBRARY_PATH as a driver install would be.
# labels: monitor nvml
# timeout: 60
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"
lib="$BUILD/tests/fake_nvml/libnvidia-ml.so.1"
[ -f "$lib" ] || { echo "FAIL: $lib was not built"; exit 1; }

out=$(ROOFTOP_NVML_LIBRARY="$lib" "$ROOFTOP" top --once --backends nvml)
echo "$out"
grep -q '^GPU0: Compute 40%, Memory 20%  NVIDIA H100 80GB HBM3 \[nvml\]$' <<< "$out"
grep -q '^GPU1: Compute 50%, Memory 21%' <<< "$out"
grep -q 'power \[#########-----------\] 301 W / 700 W' <<< "$out"

n=$(LD_LIBRARY_PATH="$BUILD/tests/fake_nvml" "$ROOFTOP" top --once --json --backends nvml |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; assert d[1]["throttle_reasons"] == 4; print(len(d))')
[ "$n" = 2 ]

# The per-process view: NVML's process on GPU0 is a live process here
# (FAKE_NVML_PID), so its command and user come from /proc.
sleep 120 &
sleeper=$!
trap 'kill "$sleeper" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
me=$(id -un)
out=$(FAKE_NVML_PID=$sleeper ROOFTOP_NVML_LIBRARY="$lib" "$ROOFTOP" top --once --backends nvml)
echo "$out"
grep -qE "^ +PID USER +GPU MEM  COMMAND$" <<< "$out"
grep -qE "^ +$sleeper $me +1\.00 GiB  sleep$" <<< "$out"
FAKE_NVML_PID=$sleeper ROOFTOP_NVML_LIBRARY="$lib" "$ROOFTOP" top --once --json --backends nvml |
  python3 -c 'import json,sys; p=json.load(sys.stdin)["devices"][0]["processes"][0]; assert p["command"] == "sleep" and p["user"] == sys.argv[1], p' "$me"

# NODE_NAME (set by the DaemonSet) names the host, not the kernel's (a pod's) host name.
NODE_NAME=gpu-node-7 ROOFTOP_NVML_LIBRARY="$lib" FAKE_NVML_XID=1 FAKE_NVML_PID=$sleeper \
  "$ROOFTOP" monitor --backends proc,nvml --process-metrics --listen 127.0.0.1:0 --json > m.json &
pid=$!
trap 'kill "$pid" "$sleeper" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s m.json ] && break; sleep 0.1; done
port=$(python3 -c 'import json; print(json.load(open("m.json"))["port"])')
curl -sf "http://127.0.0.1:$port/metrics" > m.prom
# Labels spelt as dcgm-exporter spells them, on every device series (no `uuid` beside `UUID`).
grep -q '^DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-fa4e0000-0000-4000-8000-000000000001",pci_bus_id="00000000:18:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-7"} 50$' m.prom
! grep -q 'uuid=' m.prom
grep -q '^DCGM_FI_DEV_XID_ERRORS{gpu="1".*} 79$' m.prom
grep -q '^DCGM_FI_DEV_FB_USED{gpu="0".*} 10240$' m.prom
grep -q '^rooftop_gpu_process_memory_used_bytes{gpu="0",UUID=.*,Hostname="gpu-node-7",pid="'"$sleeper"'",command="sleep"} 1073741824$' m.prom
! grep -q PCIE m.prom   # NOT_SUPPORTED is left out, never a sentinel
# Profiling metrics from NVML GPM on GPU0 (it reports GPM support), under
# dcgm-exporter's names and units (ratios, bytes/s); GPU1 has no GPM: absent.
grep -q '^DCGM_FI_PROF_SM_ACTIVE{gpu="0",.*} 0.88$' m.prom
grep -q '^DCGM_FI_PROF_SM_OCCUPANCY{gpu="0",.*} 0.3$' m.prom
grep -q '^DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",.*} 0.415$' m.prom
grep -q '^DCGM_FI_PROF_DRAM_ACTIVE{gpu="0",.*} 0.55$' m.prom
grep -q '^DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",.*} 0.9$' m.prom
grep -q '^DCGM_FI_PROF_NVLINK_TX_BYTES{gpu="0",.*} 536870912$' m.prom
grep -q '^DCGM_FI_PROF_NVLINK_RX_BYTES{gpu="0",.*} 1073741824$' m.prom
! grep -q '^DCGM_FI_PROF_[A-Z_]*{gpu="1"' m.prom
# The rest of dcgm-exporter's default counters, with its names, types and
# help: GPU0 (an SXM part) has each but the video encoder; GPU1 (a PCIe
# board) has no memory sensor and no NVLink, so those series are absent.
labels0='gpu="0",UUID="GPU-fa4e0000-0000-4000-8000-000000000000",pci_bus_id="00000000:17:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-7"'
for want in "DCGM_FI_DEV_MEMORY_TEMP{$labels0} 62" "DCGM_FI_DEV_PCIE_REPLAY_COUNTER{$labels0} 3" \
            "DCGM_FI_DEV_DEC_UTIL{$labels0} 12" "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{$labels0} 4000000" \
            "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS{$labels0} 2" "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS{$labels0} 1" \
            "DCGM_FI_DEV_ROW_REMAP_FAILURE{$labels0} 0" "DCGM_FI_DEV_FB_RESERVED{$labels0} 512"; do
  grep -qxF "$want" m.prom || { echo "FAIL: no line '$want'"; exit 1; }
done
grep -qx '# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter' m.prom
grep -qx '# TYPE DCGM_FI_DEV_ROW_REMAP_FAILURE gauge' m.prom
grep -qx '# HELP DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS Number of remapped rows for uncorrectable errors' m.prom
grep -q '^DCGM_FI_DEV_PCIE_REPLAY_COUNTER{gpu="1",.*} 0$' m.prom   # a counter that is zero, not a missing one
! grep -q '^DCGM_FI_DEV_MEMORY_TEMP{gpu="1"' m.prom                 # NVML's 0 C from a board without a sensor
! grep -q '^DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{gpu="1"' m.prom      # no NVLink on the board
! grep -q '^DCGM_FI_DEV_ENC_UTIL' m.prom                            # no video encoder (NOT_SUPPORTED)
echo "ok: nvml through the fake libnvidia-ml.so.1"

# MIG: GPU0 in MIG mode presents two instances, each a device of its own with
# its parent's gpu index and UUID and GPU_I_PROFILE / GPU_I_ID (dcgm names),
# or its own uuid with gpu_instance / mig_profile (rooftop names); memory and
# processes per instance; utilisation from GPM (an instance has no NVML one).
kill "$pid"; wait "$pid" 2>/dev/null || true
for names in dcgm rooftop; do
  rm -f mig.json
  FAKE_NVML_MIG=1 ROOFTOP_NVML_LIBRARY="$lib" "$ROOFTOP" monitor --backends nvml --names "$names" \
    --listen 127.0.0.1:0 --json > mig.json &
  pid=$!
  for _ in $(seq 50); do [ -s mig.json ] && break; sleep 0.1; done
  [ "$(python3 -c 'import json; print(json.load(open("mig.json"))["devices"])')" = 4 ]
  port=$(python3 -c 'import json; print(json.load(open("mig.json"))["port"])')
  curl -sf "http://127.0.0.1:$port/metrics" > "mig-$names.prom"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
grep -q '^DCGM_FI_DEV_FB_TOTAL{gpu="0",UUID="GPU-fa4e0000-0000-4000-8000-000000000000",pci_bus_id="00000000:17:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3 MIG 1g.10gb",GPU_I_PROFILE="1g.10gb",GPU_I_ID="1",Hostname=""} 9728$' mig-dcgm.prom
grep -q '^DCGM_FI_DEV_FB_USED{gpu="0",.*GPU_I_PROFILE="3g.40gb",GPU_I_ID="2",.*} 2048$' mig-dcgm.prom
grep -q '^DCGM_FI_DEV_GPU_UTIL{gpu="0",.*GPU_I_ID="1",.*} 90$' mig-dcgm.prom      # from GPM
grep -q '^DCGM_FI_PROF_SM_ACTIVE{gpu="0",.*GPU_I_ID="2",.*} 0.88$' mig-dcgm.prom
! grep -q '^DCGM_FI_DEV_POWER_USAGE{.*GPU_I_ID=' mig-dcgm.prom                     # not supported on an instance
grep -q '^rooftop_gpu_memory_used_bytes{gpu="0",uuid="MIG-fa4e0000-0000-4000-8000-000000000001",gpu_instance="1",mig_profile="1g.10gb"} 1073741824$' mig-rooftop.prom
grep -q '^rooftop_gpu_info{gpu="0",uuid="MIG-fa4e0000-0000-4000-8000-000000000002",gpu_instance="2",mig_profile="3g.40gb",.*parent_uuid="GPU-fa4e0000-0000-4000-8000-000000000000"} 1$' mig-rooftop.prom
promtool check metrics < mig-rooftop.prom
# The same counters under rooftop names, in base units (a MIG instance has none of them).
grep -q '^rooftop_gpu_nvlink_data_bytes_total{gpu="0",uuid="GPU-fa4e0000-0000-4000-8000-000000000000"} 4096000000$' mig-rooftop.prom
grep -q '^rooftop_gpu_remapped_rows_uncorrectable_total{gpu="0",uuid="GPU-fa4e0000-0000-4000-8000-000000000000"} 1$' mig-rooftop.prom
grep -q '^rooftop_gpu_decoder_utilization_ratio{gpu="0",uuid="GPU-fa4e0000-0000-4000-8000-000000000000"} 0.12$' mig-rooftop.prom
! grep -q '^rooftop_gpu_remapped_rows_[a-z_]*{[^}]*gpu_instance=' mig-rooftop.prom
echo "ok: MIG instances from the fake libnvidia-ml.so.1"
