#!/usr/bin/env python3
"""Times Helm's own library (PyPI's helm-python-sdk) rendering one chart, for the render bench's side-by-side figure.

Usage: helm_render_timing.py CHART_DIR RELEASE NAMESPACE RUNS

Each run loads the chart from its directory (a packaged dependency in `charts/` is unpacked by the load) and renders
it with its default values, as one Weft render reads the chart from its source view and renders it. The first run
is timed apart. Prints one JSON object: {"first_ms": F, "samples_ms": [...], "documents": N}, N counting the
non-empty YAML documents of the last render. Exits with status 3 when Python's `helm_python` module is missing.
"""

import json
import re
import sys
import time

try:
    import helm_python as helm
except ImportError as missing:  # pragma: no cover - reported to the bench, which skips the comparison
    print(f"helm-python-sdk unavailable: {missing}", file=sys.stderr)
    sys.exit(3)

SEPARATOR = re.compile(r"(?:^|\s*\n)---\s*")


def render_once(chart_dir, release, namespace):
    started = time.perf_counter()
    chart = helm.Chart.load(chart_dir)
    try:
        files = chart.render({}, name=release, namespace=namespace)
    finally:
        chart.close()
    elapsed = (time.perf_counter() - started) * 1000.0
    documents = sum(
        1
        for name, text in files.items()
        if not name.endswith("NOTES.txt")
        for document in SEPARATOR.split(text.lstrip())
        if document.strip()
    )
    return elapsed, documents


def main(chart_dir, release, namespace, runs):
    first, _ = render_once(chart_dir, release, namespace)
    samples = []
    documents = 0
    for _ in range(int(runs)):
        elapsed, documents = render_once(chart_dir, release, namespace)
        samples.append(elapsed)
    print(json.dumps({"first_ms": first, "samples_ms": samples, "documents": documents}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
