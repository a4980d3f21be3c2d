#!/usr/bin/env python3
"""`promtool test rules` on the alert rules `rooftop deploy monitor` writes:
each alert on a synthetic series that fires it and one that does not.

  alert_rules_test.py ALERT_RULES.yml dcgm|rooftop WORKDIR

Writes WORKDIR/alert-tests.yml (input series, expected alerts with their
labels and rendered annotations) and runs promtool on it; exits with
promtool's status. The series names are the ones `rooftop monitor` exports
in each name set (docs/monitor.md#metrics-reference).
"""
import os
import re
import subprocess
import sys

import yaml

NAMES = {
    "dcgm": dict(xid="DCGM_FI_DEV_XID_ERRORS", reasons="DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                 ecc="DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", unc="DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                 fail="DCGM_FI_DEV_ROW_REMAP_FAILURE", host="Hostname"),
    "rooftop": dict(xid="rooftop_gpu_last_xid", reasons="rooftop_gpu_clock_event_reasons",
                    ecc="rooftop_gpu_ecc_uncorrected_errors_total",
                    unc="rooftop_gpu_remapped_rows_uncorrectable_total", fail="rooftop_gpu_row_remap_failure",
                    host="node"),
}
# The XID alerts by meaning (src/deploy/monitor.cpp) and a code without one.
XIDS = {48: "RooftopXidDoubleBitEcc", 63: "RooftopXidRowRemapPending", 64: "RooftopXidRowRemapRecordFailed",
        74: "RooftopXidNvlinkError", 79: "RooftopXidFallenOffBus", 92: "RooftopXidHighSingleBitEccRate",
        94: "RooftopXidContainedEcc", 95: "RooftopXidUncontainedEcc"}
OTHER_XID = 13
NODE = "node-a"


def main():
    rules_path, names, work = sys.argv[1:4]
    n = NAMES[names]
    with open(rules_path) as f:
        rules = {r["alert"]: r for g in yaml.safe_load(f)["groups"] for r in g["rules"]}

    def labels(gpu):
        return {"gpu": str(gpu), n["host"]: NODE}

    def series(metric, gpu, values):
        inner = ",".join(f'{k}="{v}"' for k, v in labels(gpu).items())
        return {"series": f"{metric}{{{inner}}}", "values": values}

    def expect(alert, gpu, value=None):
        rule = rules[alert]
        def render(text):
            text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels(gpu)[m.group(1)], text)
            return text.replace("{{ $value }}", str(value))
        return {"exp_labels": dict(labels(gpu), severity=rule["labels"]["severity"]),
                "exp_annotations": {k: render(v) for k, v in rule["annotations"].items()}}

    inputs = [
        # Memory health: GPU 0 goes bad, GPU 1 stays healthy.
        series(n["fail"], 0, "0 0 1x17"), series(n["fail"], 1, "0x19"),
        series(n["unc"], 0, "0 0 2x17"), series(n["unc"], 1, "0x19"),
        series(n["ecc"], 0, "0 0 0 3x16"), series(n["ecc"], 1, "0x19"),
        # Clock events: thermal held (0), thermal for 2 minutes only (1),
        # power cap held (2), power brake for 2 minutes only (3), idle (4).
        series(n["reasons"], 0, "0 32x18"), series(n["reasons"], 1, "0 64 64 0x16"),
        series(n["reasons"], 2, "0 4x18"), series(n["reasons"], 3, "0 128 128 0x16"),
        series(n["reasons"], 4, "0 1x18"),
    ]
    # XIDs: the device is named after its code; each appears at 2 minutes.
    for code in list(XIDS) + [OTHER_XID]:
        inputs.append(series(n["xid"], code, f"0 0 {code}x17"))
    inputs.append(series(n["xid"], 1, "0x19"))  # no XID at all

    tests = [
        ("RooftopRowRemapFailure", "1m", []),
        ("RooftopRowRemapFailure", "5m", [expect("RooftopRowRemapFailure", 0)]),
        ("RooftopUncorrectableRemappedRows", "1m", []),
        ("RooftopUncorrectableRemappedRows", "5m", [expect("RooftopUncorrectableRemappedRows", 0, 2)]),
        ("RooftopEccDoubleBitErrors", "2m", []),
        ("RooftopEccDoubleBitErrors", "5m", [expect("RooftopEccDoubleBitErrors", 0, 3)]),
        # Sustained 5 minutes: pending before, firing after; short spells never fire.
        ("RooftopThermalThrottling", "4m", []),
        ("RooftopThermalThrottling", "10m", [expect("RooftopThermalThrottling", 0)]),
        ("RooftopPowerThrottling", "4m", []),
        ("RooftopPowerThrottling", "10m", [expect("RooftopPowerThrottling", 2)]),
        # Any other code keeps the generic alert; the codes above do not.
        ("RooftopXidError", "5m", [expect("RooftopXidError", OTHER_XID, OTHER_XID)]),
        ("RooftopXidError", "19m", []),  # no change within 15 minutes
    ]
    for code, alert in XIDS.items():
        tests += [(alert, "1m", []), (alert, "5m", [expect(alert, code)]), (alert, "19m", [])]
    missing = set(XIDS.values()) | {t[0] for t in tests}
    missing -= set(rules)
    if missing:
        sys.exit(f"{rules_path}: no rule for {', '.join(sorted(missing))}")

    doc = {
        "rule_files": [os.path.abspath(rules_path)],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": inputs,
                   "alert_rule_test": [{"eval_time": t, "alertname": a, "exp_alerts": e} for a, t, e in tests]}],
    }
    out = os.path.join(work, f"alert-tests-{names}.yml")
    with open(out, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    print(f"{len(tests)} alert checks over {len(inputs)} series ({names} names)")
    sys.exit(subprocess.call(["promtool", "test", "rules", out]))


if __name__ == "__main__":
    main()
