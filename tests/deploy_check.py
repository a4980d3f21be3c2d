#!/usr/bin/env python3
"""Checks on what `rooftop deploy` writes, beyond the schema (k8s_check.py):

  helm CHART_DIR PLAIN_DIR [KEY=VALUE...]
                             render the chart's templates with its default
                             values, or these overrides as `helm --set` gives
                             (the chart uses `{{ .Values.KEY }}` only), and
                             compare with the plain manifests
  promtool-copy IN OUT       write a copy of prometheus.yml that Debian's
                             promtool (built without Kubernetes discovery) can
                             check: each kubernetes_sd_configs entry is checked
                             here, then replaced by a static target
  plan ADVISE_JSON DEPLOYMENT  the Deployment serves advise's first choice
  resource VENDOR DEPLOYMENT the requested resource is the vendor's device plugin's
"""
import json
import os
import re
import sys

import yaml

PLACEHOLDER = re.compile(r"\{\{ \.Values\.([A-Za-z0-9_.]+) \}\}")

# Extended resource names as each vendor's device plugin advertises them
# (its README / the GKE TPU docs), independent of src/deploy/resources.cpp.
DEVICE_PLUGIN_RESOURCES = {
    "nvidia": {"nvidia.com/gpu"},                         # NVIDIA/k8s-device-plugin
    "amd": {"amd.com/gpu"},                               # ROCm/k8s-device-plugin
    "intel": {"habana.ai/gaudi"},                         # Habana device plugin for Kubernetes
    "google": {"google.com/tpu"},                         # GKE TPUs
    "huawei": {"huawei.com/Ascend910", "huawei.com/Ascend310", "huawei.com/Ascend310P"},  # Ascend device plugin
    "aws": {"aws.amazon.com/neuron"},                     # AWS Neuron device plugin
}


def fail(msg):
    print("error:", msg)
    sys.exit(1)


def render(text, values):
    def sub(m):
        v = values
        for part in m.group(1).split("."):
            if not isinstance(v, dict) or part not in v:
                fail(f"template refers to missing value {m.group(1)}")
            v = v[part]
        return str(v)

    out = PLACEHOLDER.sub(sub, text)
    if "{{" in out:
        fail("template uses more than value substitution: " + out[out.index("{{"):][:60])
    return out


def check_helm(chart, plain, *overrides):
    meta = yaml.safe_load(open(os.path.join(chart, "Chart.yaml")))
    for key in ("apiVersion", "name", "version"):
        if key not in meta:
            fail(f"Chart.yaml lacks {key}")
    if meta["apiVersion"] != "v2":
        fail("Chart.yaml apiVersion must be v2")
    values = yaml.safe_load(open(os.path.join(chart, "values.yaml")))
    for o in overrides:
        key, _, value = o.partition("=")
        if key not in values:
            fail(f"values.yaml has no {key}")
        values[key] = value
    tdir = os.path.join(chart, "templates")
    templates = sorted(os.listdir(tdir))
    manifests = sorted(f for f in os.listdir(plain) if f.endswith(".yaml"))
    if templates != manifests:
        fail(f"templates {templates} != manifests {manifests}")
    for t in templates:
        rendered = list(yaml.safe_load_all(render(open(os.path.join(tdir, t)).read(), values)))
        want = list(yaml.safe_load_all(open(os.path.join(plain, t))))
        if rendered != want:
            fail(f"{t}: rendered template differs from the plain manifest")
    print(f"helm chart {meta['name']}: {len(templates)} templates render to the plain manifests")


def promtool_copy(src, dst):
    cfg = yaml.safe_load(open(src))
    text = open(src).read()
    if "127.0.0.1" in text or "localhost" in text:
        fail(f"{src}: has a localhost target")
    for job in cfg["scrape_configs"]:
        sds = job.pop("kubernetes_sd_configs", None)
        if not sds:
            fail(f"{src}: job {job['job_name']} has no Kubernetes service discovery")
        for sd in sds:
            if sd.get("role") not in ("node", "service", "pod", "endpoints", "endpointslice", "ingress"):
                fail(f"{src}: job {job['job_name']}: bad role {sd.get('role')}")
            unknown = set(sd) - {"role", "namespaces", "selectors", "api_server", "kubeconfig_file", "attach_metadata"}
            if unknown:
                fail(f"{src}: job {job['job_name']}: unknown kubernetes_sd_configs fields {unknown}")
            ns = sd.get("namespaces", {})
            if set(ns) - {"names", "own_namespace"} or not all(isinstance(n, str) for n in ns.get("names", [])):
                fail(f"{src}: job {job['job_name']}: bad namespaces {ns}")
        for r in job.get("relabel_configs", []):
            for lab in r.get("source_labels", []):
                if lab.startswith("__meta_") and not lab.startswith("__meta_kubernetes_"):
                    fail(f"{src}: {lab} is not a Kubernetes discovery label")
        job["static_configs"] = [{"targets": ["pod.example:80"]}]
    yaml.safe_dump(cfg, open(dst, "w"), sort_keys=False)


def args_of(deployment):
    d = yaml.safe_load(open(deployment))
    c = d["spec"]["template"]["spec"]["containers"][0]
    a = c.get("args", [])
    return d, c, {a[i]: a[i + 1] for i in range(len(a) - 1) if a[i].startswith("--")}


def check_plan(advise_json, deployment):
    best = json.load(open(advise_json))["candidates"][0]
    d, c, args = args_of(deployment)
    want_tp = str(best["replica_devices"])
    if args.get("--tensor-parallel-size") != want_tp:
        fail(f"--tensor-parallel-size {args.get('--tensor-parallel-size')} != advise's {want_tp}")
    res = c["resources"]["limits"]
    devices = [v for k, v in res.items() if k != "memory" and k != "cpu"]
    if devices != [best["replica_devices"]]:
        fail(f"device request {devices} != advise's {best['replica_devices']} per copy")
    if d["spec"]["template"]["spec"]["nodeSelector"].get("rooftop.io/accelerator") not in (best["accelerator"], None):
        fail("node selector is not advise's accelerator")
    if d["metadata"]["labels"]["rooftop.io/accelerator"] != best["accelerator"]:
        fail("accelerator label is not advise's")
    replicas = max(1, best["count"] // best["replica_devices"])
    if d["spec"]["replicas"] != replicas:
        fail(f"replicas {d['spec']['replicas']} != advise's {replicas}")
    quant = {"fp8": "fp8", "int8": "compressed-tensors", "int4": "compressed-tensors"}.get(best["precision"])
    dtype = {"bf16": "bfloat16", "fp16": "float16"}.get(best["precision"])
    if args.get("--quantization") != quant:
        fail(f"--quantization {args.get('--quantization')} for advise's {best['precision']}")
    if dtype and args.get("--dtype") != dtype:
        fail(f"--dtype {args.get('--dtype')} for advise's {best['precision']}")
    for flag in ("--model", "--max-model-len", "--gpu-memory-utilization"):
        if flag not in args:
            fail(f"no {flag}")
    print(f"plan: {best['accelerator']} x{best['replica_devices']} per copy, {replicas} replicas, {best['precision']}: matches")


def check_resource(vendor, deployment):
    _, c, _ = args_of(deployment)
    names = set(c["resources"]["limits"]) - {"memory", "cpu"}
    if not names or not names <= DEVICE_PLUGIN_RESOURCES[vendor]:
        fail(f"{vendor}: requests {names}, the device plugin advertises {DEVICE_PLUGIN_RESOURCES[vendor]}")


def main():
    cmd, *rest = sys.argv[1:]
    {"helm": check_helm, "promtool-copy": promtool_copy, "plan": check_plan, "resource": check_resource}[cmd](*rest)


if __name__ == "__main__":
    main()
