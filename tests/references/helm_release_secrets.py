#!/usr/bin/env python3
"""Installs, upgrades, rolls back and uninstalls a chart with Helm's own library (PyPI's helm-python-sdk) against
the cluster a kubeconfig names, keeping releases in Helm's default storage (Secrets, which client-go writes as
protobuf). Prints one JSON object: the history's revisions and statuses, the release Secrets after the rollback,
and the Deployment's replicas after each step. Exits with status 3 when Python's `helm_python` module is missing.

Usage: helm_release_secrets.py KUBECTL KUBECONFIG WORKDIR
"""

import json
import os
import subprocess
import sys

try:
    import helm_python as helm
except ImportError as missing:  # pragma: no cover - reported to the test, which skips
    print(f"helm-python-sdk unavailable: {missing}", file=sys.stderr)
    sys.exit(3)


def replicas(kubectl, kubeconfig, home):
    out = subprocess.run(
        [kubectl, "--kubeconfig", kubeconfig, "get", "deployment", "demo", "-o", "jsonpath={.spec.replicas}"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": home},
        check=True,
    )
    return int(out.stdout)


def release_secrets(kubectl, kubeconfig, home):
    return subprocess.run(
        [kubectl, "--kubeconfig", kubeconfig, "get", "secrets", "-l", "owner=helm", "-o", "name"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": home},
        check=True,
    ).stdout.split()


def main():
    kubectl, kubeconfig, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
    helm.Chart.create("demo", workdir)
    chart = os.path.join(workdir, "demo")
    config = helm.Config(kubeconfig_path=kubeconfig, namespace="default")
    steps = {}
    config.install(chart, "demo", {"replicaCount": 1})
    steps["installed"] = replicas(kubectl, kubeconfig, workdir)
    config.upgrade(chart, "demo", {"replicaCount": 3})
    steps["upgraded"] = replicas(kubectl, kubeconfig, workdir)
    config.rollback("demo", version=1)
    steps["rolled_back"] = replicas(kubectl, kubeconfig, workdir)
    history = [[release["revision"], release["status"]] for release in config.history("demo")]
    secrets = release_secrets(kubectl, kubeconfig, workdir)
    config.uninstall("demo")
    remaining = release_secrets(kubectl, kubeconfig, workdir)
    print(json.dumps({"steps": steps, "history": history, "secrets": secrets, "after_uninstall": remaining}))


if __name__ == "__main__":
    main()
