#!/usr/bin/env python3
"""The checks of bench/device-check.sh that need no GPU: which catalog entry
a GPU name means, and PASS/FAIL verdicts on recorded files (rooftop bench
JSON, nvidia-smi CSV queries, scrapes of rooftop monitor's /metrics).

    device_check.py catalog-id --name NAME --catalog LIST.json
    device_check.py bench --bench BENCH.json --catalog LIST.json --id ID
                          --gpu GPU.csv --clocks CLOCKS.csv [--quick]
    device_check.py monitor --scrapes SCRAPES.txt [--gpu-index N]

Each check prints one line "PASS <check>: <why>" or "FAIL <check>: <why>"
(or "SKIP" when the catalog has no figure to compare with); the exit status
is 1 when any check failed, 2 on unreadable input.
"""
import argparse
import json
import re
import sys

# GEMM rate bounds, as fractions of the catalog's dense peak scaled by the SM
# clock seen during the run over the maximum SM clock. Above the ceiling the
# FLOP count or the catalog entry is wrong; below the floor cuBLAS did not
# run on the tensor cores it should (n = 1024 with --quick leaves GPUs far
# from peak, hence the low quick floor).
GEMM_CEILING = 1.05
GEMM_FLOOR = {True: 0.10, False: 0.40}
# Device triad against the catalog's memory bandwidth (STREAM on HBM reaches
# 0.8-0.95 of the datasheet).
DRAM_BOUNDS = (0.50, 1.02)
# Pinned host<->device copies against the PCIe link nvidia-smi reports.
HOST_BOUNDS = (0.30, 1.05)
PCIE_GB_S_PER_LANE = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
# The SM clock while bench ran, over the maximum: lower means the GPU was
# held down (power, thermal, application clocks) and the figures say so.
SM_CLOCK_MIN_FRACTION = 0.70
# rooftop monitor under load (DCGM exporter names, gpu="N" label).
DCGM_REQUIRED = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_TEMP",
                 "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK"]
UTIL_LOAD_MIN = 50.0        # % at least once under load
UTIL_RISE_MIN = 30.0        # points above the idle minimum
FB_RISE_MIB = 256.0         # the load's GEMM buffers
POWER_RISE_W = 20.0
TEMP_RISE_C = 1.0


class BadInput(Exception):
    pass


def line(ok, check, why):
    state = "SKIP" if ok is None else ("PASS" if ok else "FAIL")
    print(f"{state} {check}: {why}")
    return ok is not False


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: {e}")


def read_csv_rows(path):
    """nvidia-smi --format=csv,noheader,nounits: one row per line."""
    try:
        with open(path) as f:
            rows = [[c.strip() for c in l.split(",")] for l in f if l.strip()]
    except OSError as e:
        raise BadInput(f"{path}: {e}")
    if not rows:
        raise BadInput(f"{path}: empty")
    return rows


def number(text, what):
    try:
        return float(text)
    except ValueError:
        raise BadInput(f"{what}: '{text}' is not a number")


# ---- catalog entry from the name NVML reports ------------------------------

def name_candidates(name):
    """Aliases to try, most specific first: 'NVIDIA A100 80GB PCIe' ->
    a100-80gb-pcie, a100-pcie, a100-80gb, a100."""
    tokens = [t for t in re.split(r"[\s\-_]+", name.lower()) if t and t not in ("nvidia", "tesla")]
    out = []
    if not tokens:
        return out
    out.append("-".join(tokens))
    for form in ("pcie", "sxm", "sxm2", "sxm4", "sxm5", "nvl"):
        if form in tokens[1:]:
            out.append(tokens[0] + "-" + form)
    for n in range(len(tokens) - 1, 0, -1):
        out.append("-".join(tokens[:n]))
    seen = set()
    return [c for c in out if not (c in seen or seen.add(c))]


def catalog_id(name, catalog):
    entries = catalog.get("accelerators", [])
    keys = {}
    for e in entries:
        for k in [e["id"], e.get("name", "")] + e.get("aliases", []):
            keys.setdefault(k.lower(), e["id"])
    if name.lower() in keys:
        return keys[name.lower()]
    for c in name_candidates(name):
        if c in keys:
            return keys[c]
    return None


# ---- bench figures against the catalog and nvidia-smi ------------------------

def entry_by_id(catalog, ident):
    for e in catalog.get("accelerators", []):
        if e["id"] == ident:
            return e
    raise BadInput(f"catalog has no entry '{ident}'")


def check_bench(bench, entry, gpu_row, clock_rows, quick):
    ok = True
    # gpu_row: name, clocks.max.sm, clocks.max.memory, pcie.link.gen.max, pcie.link.width.max
    if len(gpu_row) < 5:
        raise BadInput("the GPU query needs 5 columns: name, clocks.max.sm, clocks.max.memory, "
                       "pcie.link.gen.max, pcie.link.width.max")
    max_sm = number(gpu_row[1], "clocks.max.sm")
    sm_seen = max(number(r[0], "clocks.sm") for r in clock_rows)
    clock_fraction = min(1.0, sm_seen / max_sm) if max_sm > 0 else 1.0
    ok &= line(clock_fraction >= SM_CLOCK_MIN_FRACTION, "sm clock",
               f"{sm_seen:.0f} MHz during bench, {clock_fraction:.2f} of the {max_sm:.0f} MHz maximum "
               f"(nvidia-smi; needs >= {SM_CLOCK_MIN_FRACTION})")

    peaks = entry.get("peak_flop_per_s", {})
    rows = [c for c in bench.get("compute", []) if c.get("gemm")]
    if not rows:
        ok &= line(False, "gemm", "bench reported no GEMM rows")
    floor = GEMM_FLOOR[quick]
    for c in rows:
        p = c["precision"]
        check = f"gemm {p} ({c['unit']})"
        if not c.get("verified"):
            ok &= line(False, check, "result not verified")
            continue
        peak = peaks.get(p)
        got = c["measured_flop_per_s"]
        unit = "TOP/s" if p.startswith("int") else "TFLOP/s"
        if not peak:
            line(None, check, f"{got / 1e12:.1f} {unit}; the catalog entry {entry['id']} has no {p} peak")
            continue
        ceiling = peak * clock_fraction * GEMM_CEILING
        ratio = got / peak
        good = floor * peak <= got <= ceiling
        ok &= line(good, check, f"{got / 1e12:.1f} {unit} = {ratio:.2f} of {entry['id']}'s {peak / 1e12:.1f}; "
                                f"expected {floor:.2f}..{GEMM_CEILING * clock_fraction:.2f} at this SM clock")

    dram = [m for m in bench.get("memory", []) if m.get("kernel") == "device_triad"]
    bw = entry.get("memory_bytes_per_s")
    if not dram:
        ok &= line(False, "dram bandwidth", "bench reported no device_triad row")
    elif not bw:
        line(None, "dram bandwidth", f"the catalog entry {entry['id']} has no memory bandwidth")
    else:
        got = max(m["bytes_per_s"] for m in dram)
        ratio = got / bw
        lo, hi = DRAM_BOUNDS
        ok &= line(lo <= ratio <= hi, "dram bandwidth",
                   f"device triad {got / 1e9:.0f} GB/s = {ratio:.2f} of {entry['id']}'s {bw / 1e9:.0f} GB/s "
                   f"(expected {lo}..{hi})")

    gen, width = gpu_row[3], gpu_row[4]
    host = {m["kernel"]: m["bytes_per_s"] for m in bench.get("memory", []) if m.get("kernel") in ("h2d", "d2h")}
    try:
        link = PCIE_GB_S_PER_LANE[int(number(gen, "pcie.link.gen.max"))] * number(width, "pcie.link.width.max") * 1e9
    except KeyError:
        link = None
    for k in ("h2d", "d2h"):
        if k not in host:
            ok &= line(False, f"host link {k}", "bench reported no row")
        elif not link:
            line(None, f"host link {k}", f"nvidia-smi reports PCIe gen '{gen}' width '{width}'")
        else:
            ratio = host[k] / link
            lo, hi = HOST_BOUNDS
            ok &= line(lo <= ratio <= hi, f"host link {k}",
                       f"{host[k] / 1e9:.1f} GB/s = {ratio:.2f} of PCIe gen {gen} x{width} "
                       f"({link / 1e9:.1f} GB/s per direction; expected {lo}..{hi})")
    return ok


# ---- rooftop monitor under load ------------------------------------------

SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def parse_scrapes(text, gpu_index):
    """'# scrape <phase> <time>' lines start each /metrics body; returns
    [(phase, {name: value})] for the series whose gpu label is gpu_index."""
    scrapes = []
    for raw in text.splitlines():
        if raw.startswith("# scrape "):
            parts = raw.split()
            if len(parts) < 3 or parts[2] not in ("idle", "load"):
                raise BadInput(f"bad scrape header '{raw}' (expected '# scrape idle|load TIME')")
            scrapes.append((parts[2], {}))
            continue
        if not raw or raw.startswith("#"):
            continue
        if not scrapes:
            raise BadInput("metrics before the first '# scrape' line")
        m = SAMPLE.match(raw)
        if not m:
            continue
        labels = m.group(2) or ""
        if f'gpu="{gpu_index}"' not in labels:
            continue
        try:
            scrapes[-1][1][m.group(1)] = float(m.group(3))
        except ValueError:
            continue
    return scrapes


def check_monitor(scrapes):
    ok = True
    idle = [s for phase, s in scrapes if phase == "idle"]
    load = [s for phase, s in scrapes if phase == "load"]
    if not idle or not load:
        return line(False, "monitor", f"{len(idle)} idle and {len(load)} load scrapes (need both)")
    seen = set().union(*(s.keys() for _, s in scrapes))
    missing = [n for n in DCGM_REQUIRED if n not in seen]
    ok &= line(not missing, "dcgm names",
               "missing " + ", ".join(missing) if missing else f"{len(DCGM_REQUIRED)} DCGM exporter names present")

    def series(group, name):
        return [s[name] for s in group if name in s]

    def moved(check, name, test, unit):
        i, l = series(idle, name), series(load, name)
        if not i or not l:
            return line(False, check, f"{name} missing in the idle or load scrapes")
        good, why = test(min(i), max(l))
        return line(good, check, f"{name} idle min {min(i):g} {unit}, load max {max(l):g} {unit}; {why}")

    ok &= moved("utilisation", "DCGM_FI_DEV_GPU_UTIL",
                lambda a, b: (b >= UTIL_LOAD_MIN and b - a >= UTIL_RISE_MIN,
                              f"needs >= {UTIL_LOAD_MIN:g} and a rise >= {UTIL_RISE_MIN:g}"), "%")
    ok &= moved("memory", "DCGM_FI_DEV_FB_USED",
                lambda a, b: (b - a >= FB_RISE_MIB, f"needs a rise >= {FB_RISE_MIB:g} MiB"), "MiB")
    ok &= moved("power", "DCGM_FI_DEV_POWER_USAGE",
                lambda a, b: (b - a >= POWER_RISE_W, f"needs a rise >= {POWER_RISE_W:g} W"), "W")
    ok &= moved("temperature", "DCGM_FI_DEV_GPU_TEMP",
                lambda a, b: (b - a >= TEMP_RISE_C, f"needs a rise >= {TEMP_RISE_C:g} C"), "C")
    return ok


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("catalog-id")
    c.add_argument("--name", required=True)
    c.add_argument("--catalog", required=True)
    b = sub.add_parser("bench")
    for k in ("--bench", "--catalog", "--id", "--gpu", "--clocks"):
        b.add_argument(k, required=True)
    b.add_argument("--quick", action="store_true")
    m = sub.add_parser("monitor")
    m.add_argument("--scrapes", required=True)
    m.add_argument("--gpu-index", type=int, default=0)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "catalog-id":
            ident = catalog_id(a.name, load_json(a.catalog))
            if not ident:
                print(f"no catalog entry matches the GPU name '{a.name}'", file=sys.stderr)
                return 1
            print(ident)
            return 0
        if a.cmd == "bench":
            catalog = load_json(a.catalog)
            good = check_bench(load_json(a.bench), entry_by_id(catalog, a.id), read_csv_rows(a.gpu)[0],
                               read_csv_rows(a.clocks), a.quick)
            return 0 if good else 1
        try:
            with open(a.scrapes) as f:
                text = f.read()
        except OSError as e:
            raise BadInput(f"{a.scrapes}: {e}")
        return 0 if check_monitor(parse_scrapes(text, a.gpu_index)) else 1
    except BadInput as e:
        print(f"device_check: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
