#!/usr/bin/env python3
"""Inflates a kustomization's `helmCharts` with Helm's own library (PyPI's helm-python-sdk), for the parity test.

Usage: inflate_with_helm.py CASE_DIR SCRATCH_DIR

Copies CASE_DIR to SCRATCH_DIR (which must not exist), renders every `helmCharts` entry of its kustomization.yaml
as `kustomize build --enable-helm` has `helm template` render it (the chart from `<chartHome>/<name>-<version>/<name>`
or `<chartHome>/<name>`; values: `valuesFile` or nothing, `valuesInline` merged by `valuesMerge`, then
`additionalValuesFiles`; release `release-name` and namespace `default` unless given; `--include-crds`,
`--skip-tests`, `--no-hooks`), writes each chart's objects to `helm-chart-N.yaml`, and rewrites the kustomization
without `helmCharts`/`helmGlobals` and with those files appended to its `resources`. `kubectl kustomize
SCRATCH_DIR` then applies Kustomize's own post-processing to Helm's output. The chart rendering itself is
`render_with_helm.py`'s (tests/render/helm). It exits with status 3 when Python's `helm_python` module is missing.
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helm"))

try:
    import helm_python as helm
    import render_with_helm
except ImportError as missing:  # pragma: no cover - reported to the test, which skips
    print(f"helm-python-sdk unavailable: {missing}", file=sys.stderr)
    sys.exit(3)


def fill(base, top):
    """Kustomize's `valuesMerge: merge`: the base's values stand; `top` adds what the base lacks."""
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            fill(base[key], value)
        elif key not in base:
            base[key] = value
    return base


def read_values(directory, relative):
    with open(os.path.join(directory, relative), encoding="utf-8") as handle:
        return helm.values_from_yaml(handle.read()) or {}


def values_documents(directory, chart, chart_dir):
    merge = chart.get("valuesMerge") or "override"
    base = read_values(directory, chart["valuesFile"]) if chart.get("valuesFile") else None
    inline = chart.get("valuesInline")
    documents = []
    if inline is None:
        documents.extend([base] if base is not None else [])
    elif merge == "replace":
        documents.append(inline)
    elif merge == "override":
        documents.append(render_with_helm.merge(base or {}, inline))
    else:
        if base is None:
            values = os.path.join(chart_dir, "values.yaml")
            base = read_values(chart_dir, "values.yaml") if os.path.exists(values) else {}
        documents.append(fill(base, inline))
    for relative in chart.get("additionalValuesFiles") or []:
        documents.append(read_values(directory, relative))
    return [json.dumps(document) for document in documents]


def hook_events(obj):
    hook = ((obj.get("metadata") or {}).get("annotations") or {}).get("helm.sh/hook", "")
    return [event.strip() for event in hook.split(",") if event.strip()]


def inflate(directory, index, chart, home):
    name = chart["name"]
    candidates = []
    if chart.get("version"):
        candidates.append(os.path.join(home, f"{name}-{chart['version']}", name))
    candidates.append(os.path.join(home, name))
    chart_dir = next(candidate for candidate in candidates if os.path.isdir(candidate))
    case = {
        "chart": os.path.abspath(chart_dir),
        "release": chart.get("releaseName") or "release-name",
        "namespace": chart.get("namespace") or "default",
        "values": values_documents(directory, chart, chart_dir),
    }
    case_path = os.path.join(directory, f"helm-case-{index}.json")
    with open(case_path, "w", encoding="utf-8") as handle:
        json.dump(case, handle)
    objects = render_with_helm.render(case_path, bool(chart.get("includeCRDs")))
    os.remove(case_path)
    kept = []
    for entry in objects:
        events = hook_events(entry["object"])
        if chart.get("skipHooks") and events:
            continue
        if chart.get("skipTests") and any(event in ("test", "test-success") for event in events):
            continue
        kept.append(entry["object"])
    output = f"helm-chart-{index}.yaml"
    with open(os.path.join(directory, output), "w", encoding="utf-8") as handle:
        handle.write("".join("---\n" + json.dumps(obj) + "\n" for obj in kept))
    return output


def main(case_dir, scratch):
    shutil.copytree(case_dir, scratch)
    path = os.path.join(scratch, "kustomization.yaml")
    with open(path, encoding="utf-8") as handle:
        kustomization = helm.values_from_yaml(handle.read())
    globals_ = kustomization.pop("helmGlobals", None) or {}
    home = os.path.join(scratch, globals_.get("chartHome") or "charts")
    charts = kustomization.pop("helmCharts", None) or []
    resources = kustomization.setdefault("resources", [])
    for index, chart in enumerate(charts):
        resources.append(inflate(scratch, index, chart, home))
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(kustomization, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
