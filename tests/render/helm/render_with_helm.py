#!/usr/bin/env python3
"""Renders the corpus charts with Helm's own library (PyPI's helm-python-sdk) for the parity test.

Usage: render_with_helm.py [--include-crds] CASE.yaml [CASE.yaml ...]

Each case file names a chart directory (relative to the case file), a release, a namespace, value documents
and renderer parameters (the Helm renderer's `set`, `set.PATH`, `set-string`, `set-json` keys). The script prints
one JSON object per line: {"case": path, "objects": [...]} or {"case": path, "error": "..."}. Every rendered
document is parsed by Helm's own YAML reader (`values_from_yaml`), so both sides agree on YAML 1.1 scalars.
Case files and value documents are read with Helm's own YAML reader too. A chart whose `file://` dependencies
its `charts/` lacks is rendered from a copy of the corpus where Helm's `dependency update` vendored them, as
`helm dependency build` (which Argo CD runs) would; the corpus itself is never written. With `--include-crds`, the
objects of `crds/` (the chart's and its enabled subcharts', as Helm installs them) come first, as `helm template
--include-crds` (which Argo CD runs) prints them, unless the case's parameters set `skip-crds` to `true`. It exits
with status 3 when Python's `helm_python` module is missing.
"""

import json
import os
import re
import shutil
import sys
import tempfile

try:
    import helm_python as helm
except ImportError as missing:  # pragma: no cover - reported to the test, which skips
    print(f"helm-python-sdk unavailable: {missing}", file=sys.stderr)
    sys.exit(3)

# Helm's releaseutil.SplitManifests separator (it swallows the line break before `---`).
SEPARATOR = re.compile(r"(?:^|\s*\n)---\s*")


def merge(base, overlay):
    """Deep merge, overlay wins (Helm's mergeMaps)."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
    return base


def user_values(case):
    values = {}
    for document in case.get("values", []):
        merge(values, helm.values_from_yaml(document))
    groups = {"set-json": [], "set": [], "set-string": []}
    for key, value in case.get("parameters", []):
        for prefix in ("set-string", "set-json", "set"):
            if key == prefix:
                groups[prefix].append(value)
                break
            if key.startswith(prefix + "."):
                groups[prefix].append(key[len(prefix) + 1 :].replace(",", "\\,") + "=" + value)
                break
    parsers = {
        "set-json": helm.parse_set_json,
        "set": helm.parse_set_string,
        "set-string": helm.parse_set_string_values,
    }
    for group in ("set-json", "set", "set-string"):
        for expression in groups[group]:
            merge(values, parsers[group](expression))
    return values


CORPUS = os.path.dirname(os.path.abspath(__file__))
_scratch = {}


def vendored(chart_dir):
    """The chart to load: `chart_dir`, or, when it has `file://` dependencies missing from `charts/`, its twin in a
    scratch copy of the corpus (so relative `file://` paths still resolve) after `dependency update` vendored them.
    """
    chart_dir = os.path.abspath(chart_dir)
    missing = [
        dependency
        for dependency in helm.dependency_list(chart_dir)
        if dependency["status"] == "missing" and dependency["repository"].startswith("file://")
    ]
    relative = os.path.relpath(chart_dir, CORPUS)
    if not missing or relative.startswith(".."):
        return chart_dir
    if "root" not in _scratch:
        _scratch["root"] = tempfile.mkdtemp(prefix="helm-corpus-")
        shutil.copytree(CORPUS, os.path.join(_scratch["root"], "corpus"))
    twin = os.path.join(_scratch["root"], "corpus", relative)
    if twin not in _scratch:
        helm.dependency_update(twin, skip_refresh=True)
        _scratch[twin] = True
    return twin


def render(case_path, include_crds=False):
    with open(case_path, encoding="utf-8") as handle:
        case = helm.values_from_yaml(handle.read())
    chart_dir = vendored(os.path.join(os.path.dirname(case_path), case["chart"]))
    chart = helm.Chart.load(chart_dir)
    skip_crds = any(key == "skip-crds" and value == "true" for key, value in case.get("parameters", []))
    crds = []
    try:
        files = chart.render(
            user_values(case),
            name=case.get("release", "release"),
            namespace=case.get("namespace", "default"),
        )
        if include_crds and not skip_crds:
            # Read after rendering: by then the subcharts a condition or tag disables are gone, as in Helm's install.
            crds = [(crd["filename"], crd["data"]) for crd in chart.crds]
    finally:
        chart.close()
    objects = []
    for name, data in crds:
        text = data.decode("utf-8") if isinstance(data, bytes) else str(data)
        for document in SEPARATOR.split(text.lstrip()):
            if document.strip():
                parsed = helm.values_from_yaml(document.lstrip() + "\n")
                if parsed:
                    objects.append({"template": name, "object": parsed})
    for name in sorted(files):
        if name.endswith("NOTES.txt") or os.path.basename(name).startswith("_"):
            continue
        # As Helm 4 emits each document (`releaseutil.SplitManifests` trims only leading space) into the release
        # manifest and `helm template`'s output: "---\n# Source: NAME\n" + document + "\n". So a block scalar
        # ending a document keeps its final newline, as Argo CD sees it.
        for document in SEPARATOR.split(files[name].lstrip()):
            if not document.strip():
                continue
            parsed = helm.values_from_yaml(document.lstrip() + "\n")
            if parsed:
                objects.append({"template": name, "object": parsed})
    return objects


def main(paths):
    include_crds = "--include-crds" in paths
    paths = [path for path in paths if path != "--include-crds"]
    try:
        for path in paths:
            try:
                print(json.dumps({"case": path, "objects": render(path, include_crds)}))
            except Exception as error:  # noqa: BLE001 - every failure is data for the comparison
                print(json.dumps({"case": path, "error": str(error)}))
    finally:
        if "root" in _scratch:
            shutil.rmtree(_scratch["root"], ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
