#!/usr/bin/env bash
# `catalog show` prints how a part is deployed (docs/catalog.md#systems):
# devices per node, the scale-up domain and the scale-out network, in text
# and --json, each with its source key; an unknown scale-out figure says why.
# labels: catalog
set -euo pipefail
mkdir -p "$WORK" && cd "$WORK"

# GB200 NVL72: a 72-GPU NVLink domain, 4 GPUs per compute tray, one 400 Gb/s NIC per GPU.
"$ROOFTOP" catalog show nvidia-gb200 > gb200.out
grep -q "^interconnect.scale_up.topology  *-  *switch$" gb200.out
grep -q "^interconnect.scale_up.domain  *nvl72  *72 devices$" gb200.out
grep -q "^interconnect.scale_out  *crusoe  *ConnectX-7 400 Gb/s .*, 50 GB/s per direction (derived: 4 NICs x 400 Gb/s" gb200.out
grep -q "^interconnect.devices_per_node  *mnnvl  *4 devices$" gb200.out
grep -q "^interconnect.scale_out.latency  *-  *model default" gb200.out

# TPU v5e: 8 chips per host, 2 x 100 Gb/s NICs per host = 3.125 GB/s per chip.
"$ROOFTOP" catalog show google-tpu-v5e --json > v5e.json
python3 - <<'PY'
import json
d = json.load(open("v5e.json"))
assert d["scale_out"]["bytes_per_s_per_direction"] == 3.125e9, d["scale_out"]
assert d["devices_per_node"] == 8, d["devices_per_node"]
assert d["scale_up_domain"] == {"topology": "torus_2d", "devices": 256, "peers": None, "latency_s": None}, d["scale_up_domain"]
assert d["sources"]["interconnect.scale_out"]["key"] == "v5ehost", d["sources"]
assert d["sources"]["interconnect.devices_per_node"]["key"] == "v5ehost", d["sources"]
PY

# MI100: Oak Ridge's Spock, one 12.5 GB/s Slingshot-10 link per node of four.
"$ROOFTOP" catalog show amd-mi100 > mi100.out
grep -q "^interconnect.scale_out  *spock  *Slingshot-10, one 12.5 GB/s link per node of four MI100 (OLCF Spock), 3.125 GB/s per direction (derived: 12.5 GB/s node injection" mi100.out
grep -q "^interconnect.scale_up.peers  *rocm  *3 peer links$" mi100.out
# TPU v4: no published scale-out figure; the entry says why.
"$ROOFTOP" catalog show google-tpu-v4 --json > v4.json
python3 - <<'PY'
import json
d = json.load(open("v4.json"))
assert d["scale_out"]["bytes_per_s_per_direction"] is None, d["scale_out"]
miss = {m["field"]: m["reason"] for m in d["missing"]}
assert "no data-center-network bandwidth" in miss["interconnect.scale_out.gb_s_per_direction"], miss
PY
