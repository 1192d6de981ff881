#!/usr/bin/env python3
"""Rebuild the public Kustomize corpus from bare git mirrors of its sources.

usage: import.py MIRRORS_DIR

MIRRORS_DIR holds one bare mirror per repository, named `owner+name/repo` (the layout the corpus was fetched
into). Each source's directories are copied as they are at the mirror's HEAD into `<source>/<path>`, with the
repository's LICENSE beside them, and SOURCES.md is rewritten with the commits taken.
"""

import io
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))

# source directory name, repository, directories taken whole, files left out (and why, in SOURCES.md).
SOURCES = [
    ("kustomize", "kubernetes-sigs/kustomize", ["examples"], {}),
    (
        "argo-cd",
        "argoproj/argo-cd",
        ["manifests", "applicationset/examples", "test/e2e/testdata"],
        {
            # The install bundles `make manifests` writes from the kustomizations (1.4-2 MB each); no
            # kustomization reads them.
            "manifests/install.yaml": "generated",
            "manifests/install-with-hydrator.yaml": "generated",
            "manifests/namespace-install.yaml": "generated",
            "manifests/namespace-install-with-hydrator.yaml": "generated",
            "manifests/core-install.yaml": "generated",
            "manifests/core-install-with-hydrator.yaml": "generated",
            "manifests/ha/install.yaml": "generated",
            "manifests/ha/install-with-hydrator.yaml": "generated",
            "manifests/ha/namespace-install.yaml": "generated",
            "manifests/ha/namespace-install-with-hydrator.yaml": "generated",
        },
    ),
    ("flux2", "fluxcd/flux2", ["manifests"], {}),
    ("flux2-kustomize-helm-example", "fluxcd/flux2-kustomize-helm-example", ["apps", "clusters", "infrastructure"], {}),
    ("microservices-demo", "GoogleCloudPlatform/microservices-demo", ["kustomize"], {}),
    (
        "kubebuilder",
        "kubernetes-sigs/kubebuilder",
        [
            "testdata/project-v4/config",
            "testdata/project-v4-multigroup/config",
            "testdata/project-v4-with-plugins/config",
        ],
        {},
    ),
    (
        "cluster-api",
        "kubernetes-sigs/cluster-api",
        ["core/config", "bootstrap/kubeadm/config", "controlplane/kubeadm/config"],
        {},
    ),
    ("metrics-server", "kubernetes-sigs/metrics-server", ["manifests"], {}),
    ("gatekeeper", "open-policy-agent/gatekeeper", ["config"], {}),
    ("metallb", "metallb/metallb", ["config"], {}),
    (
        "node-feature-discovery",
        "kubernetes-sigs/node-feature-discovery",
        ["deployment/base", "deployment/components", "deployment/overlays", "deployment/nodefeaturerule"],
        {},
    ),
    (
        "kubeflow",
        "kubeflow/manifests",
        [
            "applications/pipeline/upstream",
            "applications/katib/upstream",
            "applications/profiles/upstream",
            "applications/jupyter",
            "applications/tensorboard",
            "applications/pvcviewer-controller",
            "applications/centraldashboard",
            "applications/model-registry/upstream",
            "common/dex",
            "common/oauth2-proxy",
            "common/kubeflow-namespace",
        ],
        {},
    ),
    ("ingress-nginx", "kubernetes/ingress-nginx", ["deploy"], {}),
    ("descheduler", "kubernetes-sigs/descheduler", ["kubernetes"], {}),
    ("gpu-operator", "NVIDIA/gpu-operator", ["config"], {}),
    ("external-dns", "kubernetes-sigs/external-dns", ["kustomize"], {}),
    ("reloader", "stakater/Reloader", ["deployments/kubernetes"], {}),
    ("vertical-pod-autoscaler", "kubernetes/autoscaler", ["vertical-pod-autoscaler/deploy"], {}),
    ("kueue", "kubernetes-sigs/kueue", ["config"], {}),
    ("cloudnative-pg", "cloudnative-pg/cloudnative-pg", ["config"], {}),
    ("opentelemetry-operator", "open-telemetry/opentelemetry-operator", ["config"], {}),
    ("argo-events", "argoproj/argo-events", ["manifests"], {}),
]


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True).stdout


def main():
    mirrors = sys.argv[1]
    rows = []
    for source, repo, paths, left_out in SOURCES:
        mirror = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        commit = git(mirror, "rev-parse", "HEAD^{commit}").decode().strip()
        dest = os.path.join(HERE, source)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        names = git(mirror, "ls-tree", "--name-only", commit).decode().split()
        licence = next(n for n in ("LICENSE", "LICENSE.md", "LICENSE.txt") if n in names)
        archive = git(mirror, "archive", "--format=tar", commit, licence, *paths)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            members = [m for m in tar.getmembers() if m.name not in left_out and not m.issym()]
            tar.extractall(dest, members=members, filter="data")
        rows.append((source, repo, commit, paths, left_out))
    with open(os.path.join(HERE, "SOURCES.md"), "w") as out:
        out.write("# Sources of the public Kustomize corpus\n\n")
        out.write(
            "Written by `import.py`. Each source is its repository's directories at the commit named, as they are "
            "there;\neach repository's licence is `<source>/LICENSE` (or `LICENSE.md`).\n\n"
        )
        out.write("| source | repository | commit | directories | licence |\n|---|---|---|---|---|\n")
        for source, repo, commit, paths, _ in rows:
            dirs = ", ".join(f"`{p}`" for p in paths)
            out.write(f"| {source} | github.com/{repo} | {commit[:12]} | {dirs} | Apache-2.0 |\n")
        out.write(
            "| kustomize-markdown | github.com/kubernetes-sigs/kustomize | (as kustomize) | the files the shell sessions "
            "of `examples/*.md` write, by `extract_markdown.py` | Apache-2.0 |\n"
        )
        out.write("\nLeft out of the directories taken:\n\n")
        for source, _, _, _, left_out in rows:
            for path, why in left_out.items():
                out.write(f"- {source}: `{path}` ({why})\n")


if __name__ == "__main__":
    main()
    subprocess.run([sys.executable, os.path.join(HERE, "extract_markdown.py")], check=True)
