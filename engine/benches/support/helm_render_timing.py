#!/usr/bin/env python3
"""Times Helm's own library (PyPI's helm-python-sdk) rendering one chart, for the render bench's side-by-side figure.

Usage: helm_render_timing.py CHART_DIR RELEASE NAMESPACE RUNS

Each run loads the chart from its directory (a packaged dependency in `charts/` is unpacked by the load) and renders
it with its default values, as one Weft render reads the chart from its source view and renders it, in two ways:

- `render`: the template engine alone (`Chart.render`): each template file's text, no document read;
- `template`: what `helm template` does (`Config.install(dry_run="client")`, client only, nothing stored): the
  release's manifest, its documents split, their heads read and ordered by kind, hooks set apart. This is the job a
  Weft render does (ordered, checked objects out), and what Argo CD runs for a Helm app.

The first run of each is timed apart. Prints one JSON object: {"render": {"first_ms": F, "samples_ms": [...],
"documents": N}, "template": {...}}, N counting the non-empty YAML documents of the last run. Exits with status 3
when Python's `helm_python` module is missing.
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


# A client-only install reads no cluster; an empty configuration keeps it from looking for one.
NO_CLUSTER = "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n"


def count_documents(texts):
    return sum(1 for text in texts for document in SEPARATOR.split(text.lstrip()) if document.strip())


def render_once(chart_dir, release, namespace, _config):
    started = time.perf_counter()
    chart = helm.Chart.load(chart_dir)
    try:
        files = chart.render({}, name=release, namespace=namespace)
    finally:
        chart.close()
    elapsed = (time.perf_counter() - started) * 1000.0
    return elapsed, count_documents(text for name, text in files.items() if not name.endswith("NOTES.txt"))


def template_once(chart_dir, release, namespace, config):
    started = time.perf_counter()
    chart = helm.Chart.load(chart_dir)
    try:
        release = config.install(chart, release, {}, namespace=namespace, dry_run="client")
    finally:
        chart.close()
    elapsed = (time.perf_counter() - started) * 1000.0
    return elapsed, count_documents([release["manifest"]])


def timed(once, chart_dir, release, namespace, runs, config):
    first, _ = once(chart_dir, release, namespace, config)
    samples = []
    documents = 0
    for _ in range(int(runs)):
        elapsed, documents = once(chart_dir, release, namespace, config)
        samples.append(elapsed)
    return {"first_ms": first, "samples_ms": samples, "documents": documents}


def main(chart_dir, release, namespace, runs):
    config = helm.Config(storage_driver="memory", namespace=namespace, kubeconfig_content=NO_CLUSTER)
    try:
        figures = {
            "render": timed(render_once, chart_dir, release, namespace, runs, config),
            "template": timed(template_once, chart_dir, release, namespace, runs, config),
        }
    finally:
        config.close()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
