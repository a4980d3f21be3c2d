#!/usr/bin/env python3
"""Checks Kubernetes manifests against the pinned OpenAPI subset in
tests/data/k8s/openapi-subset.json: every document's apiVersion/kind must be
known, every field must exist in that API version, required fields present,
types right. Also checks a Grafana dashboard JSON for the fields Grafana needs.

Every apiVersion/kind must also be one that Kubernetes 1.27 and later
serve (SERVED below), or a CRD of a named operator.

usage: k8s_check.py SCHEMA FILE...   (.yaml/.yml manifests, .json dashboards)
"""
import json
import re
import sys

import yaml

# Built-in API versions: (first Kubernetes release serving it, first release
# that no longer does or None). Kubernetes deprecated API migration guide
# (kubernetes.io/docs/reference/using-api/deprecation-guide) and API reference.
SERVED = {
    "v1/Namespace": ("1.0", None),
    "v1/Service": ("1.0", None),
    "v1/ServiceAccount": ("1.0", None),
    "v1/ResourceQuota": ("1.0", None),
    "v1/PersistentVolumeClaim": ("1.0", None),
    "apps/v1/Deployment": ("1.9", None),
    "apps/v1/DaemonSet": ("1.9", None),
    "autoscaling/v2/HorizontalPodAutoscaler": ("1.23", None),
    "policy/v1/PodDisruptionBudget": ("1.21", None),
    # For the record: versions rooftop must never write again.
    "autoscaling/v2beta2/HorizontalPodAutoscaler": ("1.12", "1.26"),
    "policy/v1beta1/PodDisruptionBudget": ("1.5", "1.25"),
}
# Custom resources, served wherever their operator's CRDs are installed.
CRDS = {
    "monitoring.coreos.com/v1/ServiceMonitor": "Prometheus Operator",
    "monitoring.coreos.com/v1/PodMonitor": "Prometheus Operator",
    "keda.sh/v1alpha1/ScaledObject": "KEDA 2.x",
}
MIN_K8S = (1, 27)


def version(v):
    return tuple(int(x) for x in v.split("."))


def served(key):
    """None when Kubernetes 1.27+ serves this apiVersion/kind (or it is a known CRD), else why not."""
    if key in CRDS:
        return None
    if key not in SERVED:
        return "not a Kubernetes API version/kind rooftop knows to be served"
    since, removed = SERVED[key]
    if version(since) > MIN_K8S:
        return f"served only from Kubernetes {since}"
    if removed is not None:
        return f"no longer served from Kubernetes {removed}"
    return None


QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i?|[munk]|)$")


def check(node, schema, defs, path, errs):
    if "$ref" in schema:
        schema = defs[schema["$ref"]]
    t = schema.get("type")
    if t == "object":
        if not isinstance(node, dict):
            errs.append(f"{path}: expected a mapping")
            return
        props = schema.get("properties")
        for req in schema.get("required", []):
            if req not in node:
                errs.append(f"{path}: missing required field '{req}'")
        for k, v in node.items():
            if props is not None:
                if k not in props:
                    errs.append(f"{path}.{k}: unknown field")
                    continue
                check(v, props[k], defs, f"{path}.{k}", errs)
            elif "additionalProperties" in schema:
                check(v, schema["additionalProperties"], defs, f"{path}.{k}", errs)
    elif t == "array":
        if not isinstance(node, list):
            errs.append(f"{path}: expected a list")
            return
        for i, v in enumerate(node):
            check(v, schema["items"], defs, f"{path}[{i}]", errs)
    elif t == "string":
        if not isinstance(node, str):
            errs.append(f"{path}: expected a string, got {node!r}")
    elif t == "integer":
        if not isinstance(node, int) or isinstance(node, bool):
            errs.append(f"{path}: expected an integer, got {node!r}")
    elif t == "boolean":
        if not isinstance(node, bool):
            errs.append(f"{path}: expected true/false, got {node!r}")
    elif t == "int-or-string":
        if not isinstance(node, (int, str)) or isinstance(node, bool):
            errs.append(f"{path}: expected an integer or string")
    elif t == "quantity":
        if isinstance(node, bool) or not (isinstance(node, (int, float)) or (isinstance(node, str) and QUANTITY.match(node))):
            errs.append(f"{path}: not a Kubernetes quantity: {node!r}")


def check_dashboard(d, path, errs):
    for key in ("title", "uid", "panels", "schemaVersion"):
        if key not in d:
            errs.append(f"{path}: dashboard lacks '{key}'")
    ids = set()
    for i, p in enumerate(d.get("panels", [])):
        for key in ("id", "type", "title", "gridPos", "targets"):
            if key not in p:
                errs.append(f"{path}: panels[{i}] lacks '{key}'")
        if p.get("id") in ids:
            errs.append(f"{path}: duplicate panel id {p.get('id')}")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(k in g for k in ("h", "w", "x", "y")) or g.get("x", 0) + g.get("w", 0) > 24:
            errs.append(f"{path}: panels[{i}].gridPos invalid {g}")
        for j, t in enumerate(p.get("targets", [])):
            if not t.get("expr") or not t.get("refId"):
                errs.append(f"{path}: panels[{i}].targets[{j}] needs expr and refId")


def main():
    schema = json.load(open(sys.argv[1]))
    errs, docs = [], 0
    for f in sys.argv[2:]:
        if f.endswith(".json"):
            check_dashboard(json.load(open(f)), f, errs)
            continue
        for n, doc in enumerate(yaml.safe_load_all(open(f))):
            if doc is None:
                continue
            docs += 1
            key = f"{doc.get('apiVersion')}/{doc.get('kind')}"
            why = served(key)
            if why:
                errs.append(f"{f}#{n}: {key}: {why}")
                continue
            if key not in schema["kinds"]:
                errs.append(f"{f}#{n}: unknown apiVersion/kind {key}")
                continue
            check(doc, schema["kinds"][key], schema["definitions"], f"{f}#{n}:{doc.get('kind')}", errs)
    for e in errs:
        print("error:", e)
    print(f"checked {docs} manifests: {len(errs)} errors")
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
