#!/usr/bin/env python3
"""Prints the NOTES.txt Helm's own library (PyPI's helm-python-sdk) renders for Weft's chart.

Usage: chart_notes.py CHART_DIR VALUES_JSON — release `weft` in namespace `weft-system`.
"""

import json
import sys

import helm_python as helm


def main(chart_dir, values):
    chart = helm.Chart.load(chart_dir)
    try:
        files = chart.render(json.loads(values), name="weft", namespace="weft-system")
    finally:
        chart.close()
    notes = [text for name, text in files.items() if name.endswith("/NOTES.txt")]
    if len(notes) != 1:
        print(f"expected one NOTES.txt, got {sorted(files)}", file=sys.stderr)
        return 1
    sys.stdout.write(notes[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
