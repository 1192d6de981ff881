#!/usr/bin/env python3
"""Renders the corpus charts with Helm's own library (PyPI's helm-python-sdk) for the parity test.

Usage: render_with_helm.py CASE.yaml [CASE.yaml ...]

Each case file names a chart directory (relative to the case file), a release, a namespace, value documents
and renderer parameters (the Helm renderer's `set`, `set.PATH`, `set-string`, `set-json` keys). The script prints
one JSON object per line: {"case": path, "objects": [...]} or {"case": path, "error": "..."}. Every rendered
document is parsed by Helm's own YAML reader (`values_from_yaml`), so both sides agree on YAML 1.1 scalars.
Case files and value documents are read with Helm's own YAML reader too. It exits with status 3 when Python's
`helm_python` module is missing.
"""

import json
import os
import re
import sys

try:
    import helm_python as helm
except ImportError as missing:  # pragma: no cover - reported to the test, which skips
    print(f"helm-python-sdk unavailable: {missing}", file=sys.stderr)
    sys.exit(3)

# Helm's releaseutil.SplitManifests separator.
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


def render(case_path):
    with open(case_path, encoding="utf-8") as handle:
        case = helm.values_from_yaml(handle.read())
    chart_dir = os.path.join(os.path.dirname(case_path), case["chart"])
    chart = helm.Chart.load(chart_dir)
    try:
        files = chart.render(
            user_values(case),
            name=case.get("release", "release"),
            namespace=case.get("namespace", "default"),
        )
    finally:
        chart.close()
    objects = []
    for name in sorted(files):
        if name.endswith("NOTES.txt") or os.path.basename(name).startswith("_"):
            continue
        for document in SEPARATOR.split(files[name].strip()):
            if not document.strip():
                continue
            parsed = helm.values_from_yaml(document)
            if parsed:
                objects.append({"template": name, "object": parsed})
    return objects


def main(paths):
    for path in paths:
        try:
            print(json.dumps({"case": path, "objects": render(path)}))
        except Exception as error:  # noqa: BLE001 - every failure is data for the comparison
            print(json.dumps({"case": path, "error": str(error)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
